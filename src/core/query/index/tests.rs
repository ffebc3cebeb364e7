//! The indexed route against the full route: byte-identical answers and errors, bounded reads, owner isolation.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{json, Value};

use super::codec::decode;
use super::*;
use crate::core::error::CoreResult;
use crate::core::error::ErrorCode;
use crate::core::query::args::QueryArgs;
use crate::core::query::path::{normalized_path, PathElement};
use crate::core::query::tests::save;
use crate::core::query::{parse_query_args, run_query};
use crate::core::seal::CHUNK_SIZE;
use crate::core::store::config::MemoryConfig;
use crate::core::store::counting::Counting;
use crate::core::store::memory::MemoryBackend;
use crate::core::store::{Backend, HandleStore, Owner};

/// Small enough that generated documents of a few hundred bytes get several levels and checkpoints.
const TINY: IndexSettings = IndexSettings {
  min_span: 64,
  stride: 24,
  max_checkpoints: 5,
  max_depth: 4,
};

fn args(value: Value) -> QueryArgs {
  parse_query_args(&value).expect("valid arguments")
}

/// Runs `args` both ways over `text`; returns whether the index took it. Panics when the routes differ.
fn compare(text: &str, index: &[u8], args: &QueryArgs, threshold: usize) -> bool {
  let full = run_query(text.as_bytes(), args, threshold);
  let Some(read) = plan(index, args) else {
    return false;
  };
  let mut fragment = Vec::new();
  for (start, end) in read.ranges() {
    let (start, end) = (
      usize::try_from(start).unwrap(),
      usize::try_from(end).unwrap(),
    );
    assert!(start <= end && end <= text.len(), "range {start}..{end}");
    fragment.extend_from_slice(&text.as_bytes()[start..end]);
  }
  let Some(indexed) = answer_range(&read, &fragment, args, threshold) else {
    // Only a path going on inside a small item or member to nothing leaves its error (which names the nearest node
    // that exists) to the whole read.
    let error = full.expect_err("the index promised a range it does not hold");
    assert_eq!(error.code, ErrorCode::PathNotFound, "{args:?}");
    return true;
  };
  assert_eq!(indexed, full, "routes differ for {args:?} on {text}");
  true
}

#[test]
fn a_window_of_a_large_list_reads_only_its_range() {
  let items: Vec<Value> = (0..200)
    .map(|i| json!({"id": i, "note": format!("n{i}"), "x": 1.5}))
    .collect();
  let doc = json!({"meta": {"n": 1}, "data": {"items": items}});
  let text = serde_json::to_string(&doc).unwrap();
  let settings = IndexSettings {
    max_checkpoints: 1000,
    ..TINY
  };
  let index = build_index(&text, settings).expect("indexed");
  assert!(index.len() < text.len() / 5, "index {} bytes", index.len());
  let query = args(json!({"handle": "h", "path": "data.items", "offset": 150, "limit": 3}));
  let read = plan(&index, &query).expect("covered");
  assert!(read.end - read.start < 200, "read {:?}", read);
  assert!(compare(&text, &index, &query, usize::MAX));
  for path in [
    "$.data.items",
    "/data/items",
    "$['data']['items']",
    "data.items",
  ] {
    for window in [
      json!({}),
      json!({"offset": 199}),
      json!({"offset": 200}),
      json!({"offset": 5000}),
      json!({"page": 10, "limit": 20}),
      json!({"limit": 100000}),
      json!({"offset": 7, "fields": ["id", "zz"]}),
    ] {
      let mut value = window.clone();
      value["handle"] = json!("h");
      value["path"] = json!(path);
      let query = args(value);
      assert!(
        compare(&text, &index, &query, usize::MAX),
        "{path} {window}"
      );
      for threshold in [10, 120, 400, 1000] {
        compare(&text, &index, &query, threshold);
      }
    }
  }
  // A path into one item reads the checkpoints' range around it, and goes on inside it; a path to nothing there
  // leaves the error to the whole read.
  for path in [
    "data.items.3",
    "$.data.items[150].note",
    "/data/items/199/id",
    "$.data.items[-1]",
    "$['data']['items'][0]['x']",
    "$.data.items[3].zz",
  ] {
    let query = args(json!({"handle": "h", "path": path, "fields": ["id"]}));
    let read = plan(&index, &query).expect("covered");
    assert!(read.end - read.start < 200, "{path}: read {read:?}");
    assert!(compare(&text, &index, &query, usize::MAX), "{path}");
  }
  // Small members of an object the index records: read from the parts between its recorded members (here the
  // root's braces and "meta"), and a missing one leaves its error to the whole read.
  for path in ["meta", "$.meta.n", "/meta", "data.nope", "$.meta.nope"] {
    let query = args(json!({"handle": "h", "path": path}));
    let read = plan(&index, &query).expect("covered");
    let bytes: u64 = read.ranges().iter().map(|(start, end)| end - start).sum();
    assert!(bytes < 40, "{path}: read {read:?}");
    assert!(compare(&text, &index, &query, usize::MAX), "{path}");
  }
  // Not covered: queries, an object the index records, an item past the end. These read it all.
  for path in [
    "$.data.items[*].id",
    "data",
    "$.data.items[200].id",
    "$.data.items[-201]",
  ] {
    assert!(plan(&index, &args(json!({"handle": "h", "path": path}))).is_none());
  }
}

#[test]
fn a_window_of_a_long_string_reads_only_its_range() {
  let text: String = (0..400)
    .map(|i| match i % 5 {
      0 => "😀".to_string(),
      1 => "\n\"".to_string(),
      2 => "é".to_string(),
      3 => "\u{1}".to_string(),
      _ => format!("w{i}"),
    })
    .collect();
  let doc = json!({"meta": 1, "body": text, "list": [text]});
  let plain = serde_json::to_string(&doc).unwrap();
  // The same answer as a tool might print it: escaped surrogate pairs and escaped BMP characters.
  let escaped = plain
    .replace('😀', "\\ud83d\\ude00")
    .replace('é', "\\u00e9");
  let settings = IndexSettings {
    max_checkpoints: 1000,
    ..TINY
  };
  let units = text.encode_utf16().count() as u64;
  for answer in [&plain, &escaped] {
    let index = build_index(answer, settings).expect("indexed");
    for path in ["body", "$.list[0]", "/list/0", "$['list'][-1]"] {
      let mut covered = 0;
      for start in (0..units + 3).step_by(7) {
        for limit in [1usize, 2, 3, 17, 2000] {
          let query = args(json!({"handle": "h", "path": path, "offset": start, "limit": limit}));
          covered += usize::from(compare(answer, &index, &query, usize::MAX));
          for threshold in [30, 90] {
            compare(answer, &index, &query, threshold);
          }
        }
      }
      assert!(covered > 100, "{path}: {covered}");
    }
  }
  let index = build_index(&plain, settings).expect("indexed");
  let query = args(json!({"handle": "h", "path": "body", "page": 20, "limit": 5}));
  let read = plan(&index, &query).expect("covered");
  assert!(read.end - read.start < 100, "{read:?}");
}

#[test]
fn repeated_keys_follow_the_last_one() {
  let big: Vec<u32> = (0..100).collect();
  let list = serde_json::to_string(&big).unwrap();
  // The first "a" is large and indexed; the second is small: the index must not answer for "a" with the first, and
  // reads it among the small members, where both are.
  let text = format!(r#"{{"a":{list},"b":{list},"a":[1,2]}}"#);
  let index = build_index(&text, TINY).expect("indexed");
  let query = args(json!({"handle": "h", "path": "a"}));
  assert!(compare(&text, &index, &query, usize::MAX));
  assert!(compare(
    &text,
    &index,
    &args(json!({"handle": "h", "path": "b", "offset": 90})),
    usize::MAX
  ));
  // The last "a" is the large one: covered, and the same answer.
  let text = format!(r#"{{"a":[1,2],"a":{list}}}"#);
  let index = build_index(&text, TINY).expect("indexed");
  assert!(compare(&text, &index, &query, usize::MAX));
  // Keys compare as decoded: `\u0061` is "a", and `\u00e9\ud83d\ude00` is "é😀".
  let text = format!(r#"{{"a":{list},"b":{list},"\u0061":[1,2]}}"#);
  let index = build_index(&text, TINY).expect("indexed");
  assert!(compare(&text, &index, &query, usize::MAX));
  let text = format!(r#"{{"b":{list},"\u00e9\ud83d\ude00":{list}}}"#);
  let index = build_index(&text, TINY).expect("indexed");
  let query = args(json!({"handle": "h", "path": "$['é😀']", "offset": 90}));
  assert!(plan(&index, &query).is_some());
  assert!(compare(&text, &index, &query, usize::MAX));
}

#[test]
fn no_index_for_small_invalid_or_lone_surrogate_answers() {
  assert!(build_index("[1,2,3]", TINY).is_none());
  let list = serde_json::to_string(&(0..100).collect::<Vec<u32>>()).unwrap();
  assert!(build_index(&format!("{list} x"), TINY).is_none());
  assert!(build_index(&format!("[{list},01]"), TINY).is_none());
  assert!(build_index(&format!("[{list},\"\\ud83d\"]"), TINY).is_none());
  // In a small container, passed without a walk unless it holds an escape.
  assert!(build_index(&format!("[{list},{{\"a\":[\"\\ud83d\"]}}]"), TINY).is_none());

  assert!(build_index(&format!("[{list},\"\\ud83d\\ude00\"]"), TINY).is_some());
  // Deeper than serde_json reads: both routes refuse the item the same way.
  let deep = format!("[{}{list}{}]", "[".repeat(130), "]".repeat(130));
  let index = build_index(&deep, TINY).expect("indexed");
  let query = args(json!({"handle": "h"}));
  assert!(compare(&deep, &index, &query, usize::MAX));
  assert_eq!(
    run_query(deep.as_bytes(), &query, usize::MAX).map_err(|e| e.code),
    Err(ErrorCode::InvalidInput)
  );
  assert!(build_index(&format!("\"{}\"", "x".repeat(100)), TINY).is_some());
  assert!(build_index(&format!("\"{}\\udc00\"", "x".repeat(100)), TINY).is_none());
}

#[test]
fn small_containers_with_brackets_in_strings_are_passed_to_their_end() {
  let items: Vec<Value> = (0..40)
    .map(|i| json!({"id": i, "note": if i == 9 { "]\"" } else { "]}[{" }, "tags": [format!("}}{i}]"), "x"]}))
    .collect();
  let text = serde_json::to_string(&json!({"items": items, "after": "]"})).unwrap();
  let index = build_index(&text, TINY).expect("indexed");
  let window = args(json!({"handle": "h", "path": "$.items", "offset": 3, "limit": 30}));
  assert!(compare(&text, &index, &window, usize::MAX));
  // Not recorded (too small): compare still checks that the index does not claim them wrongly.
  for path in ["$.after", "$.items[39].tags", "$.items[9]"] {
    compare(
      &text,
      &index,
      &args(json!({"handle": "h", "path": path})),
      usize::MAX,
    );
  }
}

#[test]
fn unknown_versions_and_damaged_indexes_are_ignored() {
  let list = serde_json::to_string(&(0..100).collect::<Vec<u32>>()).unwrap();
  let index = build_index(&list, TINY).expect("indexed");
  let query = args(json!({"handle": "h"}));
  assert!(plan(&index, &query).is_some());
  let mut other = index.clone();
  other[4] = INDEX_VERSION + 1;
  assert!(plan(&other, &query).is_none());
  for cut in 0..index.len() {
    assert!(plan(&index[..cut], &query).is_none(), "cut at {cut}");
  }
  let mut longer = index.clone();
  longer.push(0);
  assert!(plan(&longer, &query).is_none());
}

#[test]
fn version_1_indexes_still_plan_but_certify_nothing() {
  let list = serde_json::to_string(&(0..100).collect::<Vec<u32>>()).unwrap();
  let index = build_index(&list, TINY).expect("indexed");
  assert_eq!((index[4], index[5]), (INDEX_VERSION, CERTIFIED_JSON));
  assert!(certifies_json(&index, list.len()));
  assert!(
    !certifies_json(&index, list.len() + 1),
    "another answer's index"
  );
  let mut version_1 = index.clone();
  version_1[4] = 1;
  version_1.remove(5);
  let query = args(json!({"handle": "h", "offset": 60}));
  assert_eq!(plan(&version_1, &query), plan(&index, &query));
  assert!(plan(&index, &query).is_some());
  assert!(!certifies_json(&version_1, list.len()));
  let mut unflagged = index.clone();
  unflagged[5] = 0;
  assert!(!certifies_json(&unflagged, list.len()));
}

#[test]
fn checkpoints_stay_bounded() {
  let list = serde_json::to_string(&(0..5000).collect::<Vec<u32>>()).unwrap();
  let index = build_index(&list, TINY).expect("indexed");
  let Some((_, Node::Array { checkpoints, .. })) = decode(&index) else {
    panic!("an array index")
  };
  assert!(checkpoints.len() <= TINY.max_checkpoints);
  assert_eq!(checkpoints[0], (0, 1));
}

// ─── generated answers × generated paths and windows ───────────────────────

fn leaf() -> impl Strategy<Value = Value> {
  prop_oneof![
    Just(Value::Null),
    any::<bool>().prop_map(Value::Bool),
    any::<i64>().prop_map(Value::from),
    (-1e25f64..1e25).prop_map(|f| json!(f)),
    "[a-z é😀\"\\\\\n/\u{1}\\[\\]{}]{0,10}".prop_map(Value::String),
    "[a-z é😀\"\\\\\n/\u{1}\u{10000}\\[\\]{}]{30,90}".prop_map(Value::String),
  ]
}

const KEYS: [&str; 6] = ["a", "b", "id", "x y", "2", "é\"/"];

fn value() -> impl Strategy<Value = Value> {
  leaf().prop_recursive(4, 200, 24, |inner| {
    prop_oneof![
      prop::collection::vec(inner.clone(), 0..24).prop_map(Value::Array),
      prop::collection::vec((prop::sample::select(&KEYS[..]), inner), 0..6).prop_map(|pairs| {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
      }),
    ]
  })
}

/// Every container's and string's path at depth ≤ 5, as normalized steps.
fn containers(value: &Value, at: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
  if at.len() > 5 {
    return;
  }
  match value {
    Value::Array(items) => {
      out.push(at.clone());
      for (i, item) in items.iter().enumerate() {
        at.push(PathElement::Index(i));
        containers(item, at, out);
        at.pop();
      }
    }
    Value::Object(map) => {
      out.push(at.clone());
      for (key, item) in map {
        at.push(PathElement::Name(key.clone()));
        containers(item, at, out);
        at.pop();
      }
    }
    Value::String(_) => out.push(at.clone()),
    _ => {}
  }
}

/// A generated document as the generated tests keep it (`{"data": doc, "list": [doc, doc]}`, compact or pretty),
/// and the paths of its containers and strings.
fn answer_around(doc: Value, pretty: bool) -> (String, Vec<Vec<PathElement>>) {
  let doc = json!({"data": doc.clone(), "list": [doc.clone(), doc]});
  let text = if pretty {
    serde_json::to_string_pretty(&doc)
  } else {
    serde_json::to_string(&doc)
  };
  let mut paths = Vec::new();
  containers(&doc, &mut Vec::new(), &mut paths);
  (text.expect("JSON"), paths)
}

fn pointer(elements: &[PathElement]) -> String {
  elements
    .iter()
    .map(|e| match e {
      PathElement::Name(n) => format!("/{}", n.replace('~', "~0").replace('/', "~1")),
      PathElement::Index(i) => format!("/{i}"),
    })
    .collect()
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(96))]

  #[test]
  fn indexed_and_full_routes_agree(
    doc in value(),
    pretty in any::<bool>(),
    pick in any::<prop::sample::Index>(),
    form in 0u8..6,
    key in prop::sample::select(&KEYS[..]),
    offset in prop::option::of(0u64..40),
    page in prop::option::of(1u64..6),
    limit in prop::option::of(1usize..30),
    fields in prop::option::of(prop::sample::subsequence(KEYS.to_vec(), 1..3)),
    threshold in prop_oneof![Just(usize::MAX), 20usize..600],
  ) {
    let (text, paths) = answer_around(doc, pretty);
    // The structuredContent slice fit located (checked by serde_json as a RawValue) indexes the same without the
    // second check.
    let result = format!(r#"{{"content":[],"structuredContent":{text}}}"#);
    let crate::core::fit::Verdict::Candidate(crate::core::fit::Answer::Structured(slice)) =
      crate::core::fit::inspect(&result, None).verdict
    else {
      panic!("a structured candidate");
    };
    prop_assert_eq!(build_index_of_raw_value(slice, TINY), build_index(&text, TINY));
    let Some(index) = build_index(&text, TINY) else { return Ok(()) };
    let elements = pick.get(&paths).clone();
    // A member by a key the documents use (present or not, of any kind: small members of large objects).
    let member = || [elements.clone(), vec![PathElement::Name(key.to_string())]].concat();
    let path = match form {
      0 => normalized_path(&elements),
      1 => pointer(&elements),
      2 => format!("{}[-1]", normalized_path(&elements)),
      3 => format!("{}['zz']", normalized_path(&elements)),
      4 => normalized_path(&member()),
      _ => pointer(&member()),
    };
    let mut value = json!({"handle": "h", "path": path});
    match (offset, page) {
      (Some(offset), _) => value["offset"] = json!(offset),
      (None, Some(page)) => value["page"] = json!(page),
      _ => {}
    }
    if let Some(limit) = limit { value["limit"] = json!(limit); }
    if let Some(fields) = fields { value["fields"] = json!(fields); }
    compare(&text, &index, &args(value), threshold);
  }
}

// ─── through the store: bytes fetched, isolation, tampering ────────────────

fn counting_store() -> (Arc<Counting>, HandleStore) {
  Counting::store()
}

/// `{"data":{"items":[…]}}` with `count` items of about `pad` + 40 bytes each.
fn big_answer(count: usize, pad: usize) -> String {
  let filler = "x".repeat(pad);
  let mut text = String::from(r#"{"data":{"items":["#);
  for i in 0..count {
    if i > 0 {
      text.push(',');
    }
    text.push_str(&format!(
      r#"{{"id":{i},"name":"item {i}","pad":"{filler}"}}"#
    ));
  }
  text.push_str("]}}");
  text
}

/// `path` in the answer kept under `handle`, with the default window.
fn at_path(handle: &str, path: &str) -> QueryArgs {
  args(json!({"handle": handle, "path": path}))
}

fn window_at(handle: &str, offset: u64) -> QueryArgs {
  args(json!({"handle": handle, "path": "$.data.items", "offset": offset, "limit": 20}))
}

fn last_twenty(handle: &str) -> QueryArgs {
  window_at(handle, 99_980)
}

#[tokio::test]
async fn small_members_beside_large_ones_read_only_the_parts_between_them() {
  let me = Owner::new(Some("s".into()), None);
  let items = big_answer(20_000, 40);
  let events: Vec<String> = (0..20_000).map(|i| format!(r#"{{"at":{i}}}"#)).collect();
  let text = format!(
    r#"{{"meta":{{"total":20000,"cursor":"c-1"}},"data":{},"events":[{}],"note":"done"}}"#,
    &items[r#"{"data":"#.len()..items.len() - 1],
    events.join(",")
  );
  let text = text.replacen(r#""items":["#, r#""count":20000,"items":["#, 1);
  let (backend, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  // Two records' headers and a chunk or two for each of the root's three parts (before "data", between "data" and
  // "events", after "events"), or for the two of "data".
  let bound = 2 * 36 + 6 * (CHUNK_SIZE + 16);
  for path in [
    "$.meta.total",
    "$.meta",
    "/meta/cursor",
    "$.note",
    "$.data.count",
    "$['data']['count']",
  ] {
    // The root's three parts (or the two of "data") are read at once: one round trip on a multiplexed connection.
    backend.most_in_flight.store(0, Ordering::Relaxed);
    let parts = if path.contains("data") { 2 } else { 3 };
    let (answer, bytes) =
      stored_as_in_memory(&store, &backend, &text, &at_path(&handle, path), &me).await;
    assert!(answer.is_ok(), "{path}: {answer:?}");
    assert_eq!(
      backend.most_in_flight.load(Ordering::Relaxed),
      parts,
      "{path}"
    );
    assert!(
      bytes <= bound,
      "{path}: {bytes} bytes fetched of {}",
      text.len()
    );
  }
  // A JSONPath query whose first steps lead into a small member reads the same parts.
  for path in [
    "$.meta.*",
    "$.meta[?@ == 'c-1']",
    "$['meta']..total",
    "$.note[*]",
  ] {
    backend.most_in_flight.store(0, Ordering::Relaxed);
    let query = at_path(&handle, path);
    let (answer, bytes) = stored_as_in_memory(&store, &backend, &text, &query, &me).await;
    assert!(answer.is_ok(), "{path}: {answer:?}");
    assert_eq!(backend.most_in_flight.load(Ordering::Relaxed), 3, "{path}");
    assert!(bytes <= bound, "{path}: {bytes} bytes fetched");
  }
  // A member that is not there is found missing by the whole read, whose error names the nearest node.
  let (missing, _) = stored_as_in_memory(
    &store,
    &backend,
    &text,
    &at_path(&handle, "$.meta.nope"),
    &me,
  )
  .await;
  assert_eq!(missing.unwrap_err().code, ErrorCode::PathNotFound);

  // Many medium members beside a large one: more than 64 KiB between the large ones is read whole, the same.
  let medium: Vec<String> = (0..100)
    .map(|i| format!(r#""m{i}":"{}""#, "y".repeat(1000)))
    .collect();
  let text = format!(r#"{{{},"list":[{}]}}"#, medium.join(","), events.join(","));
  let handle = save(&store, &text, &me).await;
  let (answer, bytes) =
    stored_as_in_memory(&store, &backend, &text, &at_path(&handle, "$.m7"), &me).await;
  assert!(answer.is_ok());
  assert!(
    bytes >= text.len(),
    "{bytes} bytes fetched of {}",
    text.len()
  );
}

#[tokio::test]
async fn reads_stay_bounded_as_the_answer_grows() {
  let me = Owner::new(Some("s".into()), None);
  let mut seen = Vec::new();
  for pad in [10, 160] {
    let text = big_answer(100_000, pad);
    let (backend, store) = counting_store();
    let handle = save(&store, &text, &me).await;
    let index = build_index(&text, IndexSettings::DEFAULT).expect("indexed");
    // Index record, two record headers, and at most three chunks (the window and a checkpoint stride).
    let bound = index.len() + 36 + 2 * 20 + 3 * (CHUNK_SIZE + 16);
    assert!(
      index.len() < text.len() / 500,
      "index {} bytes",
      index.len()
    );
    for offset in [99_980, 50_000, 0] {
      backend.fetched.store(0, Ordering::Relaxed);
      let query = window_at(&handle, offset);
      let indexed = query_stored(&store, query.clone(), &me, 100_000)
        .await
        .unwrap();
      let bytes = backend.fetched.load(Ordering::Relaxed) as usize;
      assert_eq!(
        indexed,
        run_query(text.as_bytes(), &query, 100_000).unwrap()
      );
      assert!(
        bytes <= bound,
        "{bytes} bytes fetched of {}, bound {bound}",
        text.len()
      );
      seen.push((text.len(), offset, bytes));
    }
    // One item, or one field of it, reads the same range as a window there.
    for path in [
      "$.data.items[99990].name",
      "/data/items/50000",
      "$.data.items[-1].id",
    ] {
      backend.fetched.store(0, Ordering::Relaxed);
      let query = at_path(&handle, path);
      let indexed = query_stored(&store, query.clone(), &me, 100_000)
        .await
        .unwrap();
      assert_eq!(
        indexed,
        run_query(text.as_bytes(), &query, 100_000).unwrap()
      );
      let bytes = backend.fetched.load(Ordering::Relaxed) as usize;
      assert!(
        bytes <= bound,
        "{path}: {bytes} bytes fetched of {}",
        text.len()
      );
    }
    eprintln!(
      "answer {} B, index {} B, fetched {:?}",
      text.len(),
      index.len(),
      &seen[seen.len() - 3..]
    );
  }
  assert!(seen[3].0 > 3 * seen[0].0, "answers {seen:?}");
}

#[tokio::test]
async fn owners_stay_apart_and_damage_falls_back_or_hides() {
  let me = Owner::new(Some("s".into()), Some("u".into()));
  let other = Owner::new(Some("s".into()), Some("v".into()));
  let text = big_answer(3000, 60);
  let (backend, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  let query = last_twenty(&handle);
  let query = QueryArgs {
    offset: Some(2980),
    ..query
  };
  let expected = run_query(text.as_bytes(), &query, 100_000).unwrap();
  assert_eq!(
    query_stored(&store, query.clone(), &me, 100_000).await,
    Ok(expected.clone())
  );
  let foreign = query_stored(&store, query.clone(), &other, 100_000).await;
  assert_eq!(foreign.unwrap_err().code, ErrorCode::HandleNotFound);
  assert!(store.read_index(&handle, &other).await.unwrap().is_none());

  // A damaged index opens as nothing: the full read answers the same.
  let index_key = format!(
    "rh:{}",
    crate::core::seal::RecordKeys::derive_index(&handle, &me, None)
      .unwrap()
      .storage_key_hex()
  );
  let mut sealed = backend.inner.get(index_key.clone()).await.unwrap().unwrap();
  let last = sealed.len() - 1;
  sealed[last] ^= 1;
  backend
    .inner
    .set(index_key.clone(), sealed, 60)
    .await
    .unwrap();
  // This store keeps the index it saved: only a store that has not read it yet (another process) reads the damage.
  assert!(store.read_index(&handle, &me).await.unwrap().is_some());
  let store = backend.another_store();
  assert!(store.read_index(&handle, &me).await.unwrap().is_none());
  assert_eq!(
    query_stored(&store, query.clone(), &me, 100_000).await,
    Ok(expected.clone())
  );

  // An index moved under another handle does not open there.
  let second = save(&store, &text, &me).await;
  let store = backend.another_store();
  let moved = backend.inner.get(index_key).await.unwrap().unwrap();
  let second_key = format!(
    "rh:{}",
    crate::core::seal::RecordKeys::derive_index(&second, &me, None)
      .unwrap()
      .storage_key_hex()
  );
  backend.inner.set(second_key, moved, 60).await.unwrap();
  assert!(store.read_index(&second, &me).await.unwrap().is_none());

  // The answer gone (deleted, expired, evicted) while its index stays: not found, as before.
  let index = store.read_index(&handle, &me).await.unwrap();
  assert!(index.is_none());
  let third = save(&store, &text, &me).await;
  let record_key = store.storage_key(&third, &me).unwrap();
  backend.inner.delete(record_key).await.unwrap();
  assert!(store.read_index(&third, &me).await.unwrap().is_some());
  let gone = query_stored(
    &store,
    QueryArgs {
      handle: third,
      ..query
    },
    &me,
    100_000,
  )
  .await;
  assert_eq!(gone.unwrap_err().code, ErrorCode::HandleNotFound);
}

#[tokio::test]
async fn a_read_through_the_index_takes_one_round_trip_where_the_index_is_kept() {
  let me = Owner::new(Some("s".into()), Some("u".into()));
  let text = big_answer(3000, 60);
  let (backend, saver) = counting_store();
  let handle = save(&saver, &text, &me).await;
  assert_eq!(saver.near_indexes_kept(), 1);
  let query = last_twenty(&handle);
  let expected = run_query(text.as_bytes(), &query, 100_000).unwrap();
  let round_trips = |store| round_trips(&backend, store, &query, &me, &expected);
  // The store that saved the index reads only the range; another (a process that did not fold the answer) reads
  // the index once, then keeps it.
  assert_eq!(round_trips(&saver).await, 1);
  let other = backend.another_store();
  assert_eq!(round_trips(&other).await, 2);
  assert_eq!(round_trips(&other).await, 1);

  // A handle removed through a store is forgotten there; the other still keeps the index, and finds no answer.
  assert!(saver.delete(&handle, &me).await.unwrap());
  assert_eq!(saver.near_indexes_kept(), 0);
  for store in [&saver, &other] {
    let gone = query_stored(store, query.clone(), &me, 100_000).await;
    assert_eq!(gone.unwrap_err().code, ErrorCode::HandleNotFound);
  }
  assert_eq!(other.near_indexes_kept(), 1);

  // A store in this process's memory keeps no second copy of its indexes.
  let memory = HandleStore::with_backend(
    Arc::new(MemoryBackend::new(MemoryConfig {
      max_entries: 10,
      max_bytes: None,
    })),
    "",
    "rh",
    60,
    None,
  )
  .unwrap();
  save(&memory, &text, &me).await;
  assert_eq!(memory.near_indexes_kept(), 0);
}

/// The store round trips `query` takes, checked against `expected`.
async fn round_trips(
  backend: &Counting,
  store: &HandleStore,
  query: &QueryArgs,
  owner: &Owner,
  expected: &str,
) -> u64 {
  backend.take_calls();
  let answer = query_stored(store, query.clone(), owner, 100_000).await;
  assert_eq!(answer.as_deref(), Ok(expected));
  backend.take_calls()
}

#[tokio::test]
async fn pages_of_a_filter_read_only_their_range_after_the_first() {
  let me = Owner::new(Some("s".into()), Some("u".into()));
  let other = Owner::new(Some("s".into()), Some("v".into()));
  let text = big_answer(3000, 60);
  let (backend, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  // `$.data.items[?@.id >= 7]`: 2993 matches, 150 pages of 20.
  let page_at = |offset: u64, fields: Option<Vec<String>>| QueryArgs {
    offset: Some(offset),
    limit: Some(20),
    fields,
    ..at_path(&handle, "$.data.items[?@.id >= 7]")
  };
  let mut offset = 0;
  let mut pages = 0;
  loop {
    let fields = (pages % 2 == 1).then(|| vec!["id".to_string()]);
    let query = page_at(offset, fields);
    backend.fetched.store(0, Ordering::Relaxed);
    backend.most_in_flight.store(0, Ordering::Relaxed);
    let reads_before = backend.calls.load(Ordering::Relaxed);
    let page = query_stored(&store, query.clone(), &me, 100_000)
      .await
      .unwrap();
    let fetched = backend.fetched.load(Ordering::Relaxed) as usize;
    let reads = backend.calls.load(Ordering::Relaxed) - reads_before;
    assert_eq!(
      page,
      run_query(text.as_bytes(), &query, 100_000).unwrap(),
      "page at {offset}"
    );
    // The first page reads the path index (whose flag certifies the answer's grammar), kept in process since it was
    // saved, then the items (nearly all of the answer) and their member directory at once: one round trip on a
    // multiplexed connection. Then each page reads the record's header and one range: one round trip a page.
    if pages == 0 {
      assert_eq!(reads, 2, "page {pages}");
      assert_eq!(backend.most_in_flight.load(Ordering::Relaxed), 2);
    } else {
      assert_eq!(reads, 1, "page {pages}");
    }
    if pages > 0 {
      // Twenty items of about 100 bytes, within one or two chunks.
      assert!(
        fetched < 3 * CHUNK_SIZE,
        "page {pages} fetched {fetched} bytes"
      );
    }
    pages += 1;
    let answer: Value = serde_json::from_str(&page).unwrap();
    match answer["nextOffset"].as_u64() {
      Some(next) => offset = next,
      None => break,
    }
  }
  assert_eq!(pages, 150);
  assert_eq!(store.match_pages().len(), 1);
  // Another owner gets nothing from what was kept; a removed answer reads as missing on the next page.
  let foreign = query_stored(&store, page_at(20, None), &other, 100_000).await;
  assert_eq!(foreign.unwrap_err().code, ErrorCode::HandleNotFound);
  let record_key = store.storage_key(&handle, &me).unwrap();
  backend.inner.delete(record_key).await.unwrap();
  let gone = query_stored(&store, page_at(40, None), &me, 100_000).await;
  assert_eq!(gone.unwrap_err().code, ErrorCode::HandleNotFound);
}

/// What the engine does with `result_query`'s arguments: check them (the path is parsed there), then query.
async fn query_as_the_engine_does(
  store: &HandleStore,
  args: Value,
  owner: &Owner,
) -> CoreResult<String> {
  query_stored(store, parse_query_args(&args)?, owner, 100_000).await
}

#[tokio::test]
async fn a_malformed_path_fails_before_any_store_read() {
  let me = Owner::new(Some("s".into()), Some("u".into()));
  let (backend, store) = counting_store();
  let handle = save(&store, &big_answer(3000, 60), &me).await;
  let reads = || backend.calls.load(Ordering::Relaxed);
  for path in ["$[", "$.a[?@.b ==]", "/a/~2", "$..", "$.a[?match(@.b)]"] {
    let before = reads();
    let error = query_as_the_engine_does(&store, json!({"handle": handle, "path": path}), &me)
      .await
      .expect_err("a malformed path");
    assert_eq!(error.code, ErrorCode::PathNotFound, "{path}");
    assert_eq!(reads(), before, "{path} read the store");
  }
  // A well-formed path that names nothing is found missing by reading the answer: the counter counts.
  let before = reads();
  let error = query_as_the_engine_does(
    &store,
    json!({"handle": handle, "path": "$.nothing.here"}),
    &me,
  )
  .await
  .expect_err("names nothing");
  assert_eq!(error.code, ErrorCode::PathNotFound);
  assert!(reads() > before);
}

#[tokio::test]
async fn items_spelled_otherwise_read_as_js_prints_them_on_every_route() {
  // Items copied as they are and items printed again, side by side in one list: a blank, `1.0`, escapes JS does not
  // write, a repeated key (below where the filter looks, so the tape reads the list), an exponent, a plain item.
  let spellings = [
    r#"{"k":1, "v":"a"}"#,
    r#"{"k":1.0,"v":"\u0041\/"}"#,
    r#"{"k":1,"o":{"k":1,"k":2},"v":"b"}"#,
    r#"{"k":1e2,"v":"c"}"#,
    r#"{"k":5,"v":"plain"}"#,
  ];
  let printed = [
    r#"{"k":1,"v":"a"}"#,
    r#"{"k":1,"v":"A/"}"#,
    r#"{"k":1,"o":{"k":2},"v":"b"}"#,
    r#"{"k":100,"v":"c"}"#,
    r#"{"k":5,"v":"plain"}"#,
  ];
  let items: Vec<&str> = (0..4000).map(|i| spellings[i % spellings.len()]).collect();
  let text = format!(r#"{{"list":[{}]}}"#, items.join(","));
  assert!(text.len() > IndexSettings::DEFAULT.min_span);
  let me = Owner::new(Some("s".into()), None);
  let (_, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  // A singular path reads through the path index; a filter's first page reads the whole answer, its next pages
  // what was kept; `run_query` reads the answer in memory.
  for path in ["$.list", "$.list[?@.v]"] {
    for offset in [0u64, 20, 3980, 45] {
      let query = args(json!({"handle": handle, "path": path, "offset": offset, "limit": 20}));
      let window: Vec<&str> = (offset as usize..offset as usize + 20)
        .map(|i| printed[i % printed.len()])
        .collect();
      let expected = format!("\"value\":[{}]", window.join(","));
      let stored = query_stored(&store, query.clone(), &me, 100_000)
        .await
        .unwrap();
      let in_memory = run_query(text.as_bytes(), &query, 100_000).unwrap();
      for answer in [stored, in_memory] {
        assert!(answer.contains(&expected), "{path} at {offset}: {answer}");
      }
    }
  }
  // The filter's later pages came from its kept match spans.
  assert_eq!(store.match_pages().len(), 1);
}

// ─── a JSONPath query read from the fragment its first steps lead to ───────

/// `{"log":[…],"data":{"note":…,"items":[…]},"tail":…}`: `count` items beside a log about as large, and a little
/// after them.
fn items_beside_a_log(count: usize) -> String {
  let log: Vec<String> = (0..count)
    .map(|i| {
      format!(r#"{{"at":{i},"line":"line {i} of the log, padded to weigh what an item does"}}"#)
    })
    .collect();
  let items: Vec<String> = (0..count)
    .map(|i| {
      format!(
        r#"{{"id":{i},"name":"item {i}","tags":["a","t{}"],"size":{}}}"#,
        i % 7,
        i % 100
      )
    })
    .collect();
  format!(
    r#"{{"log":[{}],"data":{{"note":"the items","items":[{}]}},"tail":{{"done":true}}}}"#,
    log.join(","),
    items.join(",")
  )
}

/// Runs `query` through the store and in memory over `text`; asserts both answer alike (errors too), and gives the
/// store's answer and the bytes it fetched.
async fn stored_as_in_memory(
  store: &HandleStore,
  backend: &Counting,
  text: &str,
  query: &QueryArgs,
  owner: &Owner,
) -> (CoreResult<String>, usize) {
  backend.fetched.store(0, Ordering::Relaxed);
  let stored = query_stored(store, query.clone(), owner, 100_000).await;
  let whole = run_query(text.as_bytes(), query, 100_000);
  assert_eq!(format!("{stored:?}"), format!("{whole:?}"), "{query:?}");
  (stored, backend.fetched.load(Ordering::Relaxed) as usize)
}

#[test]
fn the_fragment_is_the_deepest_container_the_index_records_along_the_first_steps() {
  let text = items_beside_a_log(3000);
  let index = build_index(&text, IndexSettings::DEFAULT).expect("indexed");
  let items_at = text.find(r#""items":["#).unwrap() + r#""items":"#.len();
  let data_at = text.find(r#""data":{"#).unwrap() + r#""data":"#.len();
  let of = |steps: &[Step]| first_steps(&index, steps).fragment;
  let items = of(&[Step::Key("data".into()), Step::Key("items".into())]).expect("recorded");
  assert_eq!(
    (items.steps, items.start, items.object),
    (2, items_at as u64, false)
  );
  assert_eq!(text.as_bytes()[items.end as usize - 1], b']');
  // Its long array is its own root, offsets from its start: each known item start is an item's `{`.
  let [array] = items.arrays.as_slice() else {
    panic!("one long array: {:?}", items.arrays.len())
  };
  assert_eq!((array.depth, array.start, array.item_starts[0]), (0, 0, 1));
  let fragment_text = &text[items.start as usize..items.end as usize];
  for &at in &array.item_starts {
    assert!(
      fragment_text[at as usize..].starts_with(r#"{"id":"#),
      "{at}"
    );
  }
  // Steps past what the index records stay with the query: `data` holds `items`, which is not named again.
  let data = of(&[Step::Key("data".into()), Step::Key("note".into())]).expect("recorded");
  assert_eq!(
    (data.steps, data.start, data.object),
    (1, data_at as u64, true)
  );
  let item = of(&[
    Step::Key("data".into()),
    Step::Key("items".into()),
    Step::Index(-1),
  ]);
  assert_eq!(
    item.map(|f| f.steps),
    Some(2),
    "an item is small: not recorded"
  );
  for steps in [
    &[Step::Key("tail".into())][..],
    &[Step::Key("nothing".into())],
    &[Step::Index(0)],
    &[],
  ] {
    assert_eq!(of(steps), None, "{steps:?}");
  }
  // Nor one that would leave out less than a quarter of the answer: reading it all costs no more.
  let mostly_items = format!(
    r#"{{"data":{},"tail":1}}"#,
    &text[data_at..text.rfind(r#","tail""#).unwrap()]
  );
  let mostly = build_index(&mostly_items, IndexSettings::DEFAULT).expect("indexed");
  assert_eq!(
    first_steps(&mostly, &[Step::Key("data".into())]).fragment,
    None
  );
  let log_and_items = of(&[Step::Key("data".into())]).expect("half the answer");
  assert!(log_and_items.end - log_and_items.start > text.len() as u64 / 3);
  // An index that does not certify the answer names no fragment (version 1 has no flags).
  let mut uncertified = index.clone();
  uncertified[5] &= !CERTIFIED_JSON;
  assert_eq!(
    first_steps(&uncertified, &[Step::Key("data".into())]).fragment,
    None
  );
}

#[tokio::test]
async fn a_query_reads_only_the_fragment_its_first_steps_lead_to() {
  let me = Owner::new(Some("s".into()), None);
  let text = items_beside_a_log(3000);
  let index = build_index(&text, IndexSettings::DEFAULT).expect("indexed");
  let items_start = text.find(r#""items":["#).unwrap();
  let items_len = text.rfind(r#"]},"tail""#).unwrap() - items_start;
  assert!(
    items_len * 2 < text.len(),
    "the items are under half the answer"
  );
  let (backend, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  // The items' member directory is read beside them (a quarter of their size: four short members an item).
  let directory = build_index_and_directories(&text, IndexSettings::DEFAULT, false)
    .expect("indexed")
    .directories
    .into_iter()
    .find(|(start, _)| *start == items_start as u64 + r#""items":"#.len() as u64)
    .expect("the items have a directory")
    .1;
  assert!(directory.len() * 3 < items_len, "{} bytes", directory.len());
  let bound = index.len() + items_len + directory.len() + 3 * (CHUNK_SIZE + 16) + 64;
  for path in [
    "$.data.items[?@.size > 90 && @.name != 'item 5']",
    "$.data.items[*].tags[1]",
    "$['data']['items'][10:3000:7].id",
    "$.data.items..tags[?@ == 't3']",
    "$.data.items[?@.tags[?@ == 't6']].name",
    "$.data[*]",
    "$.data.items[-3:]",
  ] {
    for offset in [0u64, 20, 100] {
      // Errors too: `$.data[*]` selects the whole list, more than one answer may hold.
      let query = args(json!({"handle": handle, "path": path, "offset": offset, "limit": 20}));
      let (_, fetched) = stored_as_in_memory(&store, &backend, &text, &query, &me).await;
      assert!(
        fetched <= bound,
        "{path} at {offset}: {fetched} bytes of {}",
        text.len()
      );
    }
  }
  // A filter reading from the root, and a query with no first step naming a child, read the whole answer.
  for path in [
    "$.data.items[?@.id == $.log[2].at]",
    "$..items[0].id",
    "$[*].items[0]",
  ] {
    let query = at_path(&handle, path);
    let (stored, fetched) = stored_as_in_memory(&store, &backend, &text, &query, &me).await;
    stored.expect("answers");
    // The whole record and the index, and no fragment read first.
    let whole = text.len() + text.len() / CHUNK_SIZE * 16 + index.len() + 256;
    assert!((text.len()..whole).contains(&fetched), "{path}: {fetched}");
  }
}

#[tokio::test]
async fn a_repeated_key_on_the_way_leads_where_the_whole_read_goes() {
  let me = Owner::new(Some("s".into()), None);
  // The first `data` is large (the index records it, then drops it for the second), the second holds the items.
  let first = items_beside_a_log(1500).replace(r#""data":"#, r#""first":"#);
  let second: Vec<String> = (0..8000).map(|i| format!(r#"{{"id":{i}}}"#)).collect();
  let text = format!(
    r#"{{"data":{first},"data":{{"items":[{}]}}}}"#,
    second.join(",")
  );
  let (backend, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  for path in [
    "$.data.items[?@.id > 7990]",
    "$.data.log[?@.at < 3]",
    "$.data.first.items[*].id",
  ] {
    let query = at_path(&handle, path);
    let (stored, fetched) = stored_as_in_memory(&store, &backend, &text, &query, &me).await;
    stored.expect("answers");
    assert!(
      fetched < text.len() / 2,
      "{path}: only the second `data` is read"
    );
  }
}

#[tokio::test]
async fn a_query_that_fails_on_the_fragment_is_answered_by_the_whole_answer() {
  let me = Owner::new(Some("s".into()), None);
  // 400 distinct patterns read from the answer: past the regexes one query may compile.
  let items: Vec<String> = (0..4000)
    .map(|i| {
      format!(
        r#"{{"a":"x{i}","p":"x{}","pad":"................................"}}"#,
        i % 400
      )
    })
    .collect();
  let other = format!(r#""{}""#, "-".repeat(300_000));
  let text = format!(r#"{{"other":{other},"items":[{}]}}"#, items.join(","));
  let index = build_index(&text, IndexSettings::DEFAULT).expect("indexed");
  let query = args(json!({"handle": "h", "path": "$.items[?match(@.a, @.p)]"}));
  let whole = run_query(text.as_bytes(), &query, 100_000).expect_err("too many regexes");
  let items = first_steps(&index, &[Step::Key("items".into())])
    .fragment
    .expect("recorded");
  let fragment_text = &text.as_bytes()[items.start as usize..items.end as usize];
  let ran = crate::core::query::run_fragment_query_keeping_spans(
    fragment_text,
    items.start,
    items.steps,
    &query,
    100_000,
    &items.arrays,
  );
  assert!(
    ran.is_none(),
    "the fragment's evaluation failed: the whole answer decides"
  );
  let (_, store) = counting_store();
  let handle = save(&store, &text, &me).await;
  let query = QueryArgs {
    handle: handle.clone(),
    ..query
  };
  let stored = query_stored(&store, query, &me, 100_000)
    .await
    .expect_err("the same error");
  assert_eq!((stored.code, stored.message), (whole.code, whole.message));
}

/// The JSONPath query `path` with a window, and its first steps (as `query_stored` takes them); `None` for a path
/// that is not a JSONPath query.
fn query_with_first_steps(
  path: &str,
  offset: Option<u64>,
  limit: Option<usize>,
) -> Option<(QueryArgs, Vec<Step>)> {
  let mut value = json!({"handle": "h", "path": path});
  if let Some(offset) = offset {
    value["offset"] = json!(offset);
  }
  if let Some(limit) = limit {
    value["limit"] = json!(limit);
  }
  let query = args(value);
  let crate::core::query::path::ParsedPath::Query { query: parsed, .. } = query.path.parsed()
  else {
    return None;
  };
  let steps = crate::core::query::child_steps(parsed);
  Some((query, steps))
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(512))]

  /// A query whose first steps lead into a small member of an object the index records answers from the object's
  /// parts between its recorded members as from the whole answer (or leaves it to the whole answer).
  #[test]
  fn members_and_whole_routes_agree(
    doc in value(),
    pretty in any::<bool>(),
    pick in any::<prop::sample::Index>(),
    key in prop::sample::select(&KEYS[..]),
    rest in prop::sample::select(&[
      "", "[*]", "..*", "[1:]", "[?@ > 1]", "[?@.a]", "[*][?@.b == 'x' || @ == 1]", "..a", "[?length(@) > 1]",
    ][..]),
    offset in prop::option::of(0u64..30),
    limit in prop::option::of(1usize..12),
  ) {
    let (text, paths) = answer_around(doc, pretty);
    let Some(index) = build_index(&text, TINY) else { return Ok(()) };
    let elements = [pick.get(&paths).clone(), vec![PathElement::Name(key.to_string())]].concat();
    let path = format!("{}{rest}", normalized_path(&elements));
    let Some((query, steps)) = query_with_first_steps(&path, offset, limit) else { return Ok(()) };
    let Some(found) = first_steps(&index, &steps).members else { return Ok(()) };
    let bytes: Vec<u8> = found
      .parts
      .iter()
      .flat_map(|&(start, end)| text.as_bytes()[start as usize..end as usize].to_vec())
      .collect();
    let object = object_without_recorded_members(&found.parts, &bytes).expect("the parts rebuild an object");
    let Some(outcome) = crate::core::query::run_members_query(&object, found.steps, &query, 100_000) else {
      return Ok(());
    };
    let whole = run_query(text.as_bytes(), &query, 100_000);
    prop_assert_eq!(format!("{outcome:?}"), format!("{whole:?}"), "{} on {}", path, text);
  }

  /// A query that continues past a container's path with a segment that can select several nodes (children,
  /// descendants, a slice, filters, one reading from the root) answers from the fragment as from the whole answer,
  /// page after page, and its match spans name the same matches in the answer.
  #[test]
  fn fragment_and_whole_routes_agree(
    doc in value(),
    pretty in any::<bool>(),
    pick in any::<prop::sample::Index>(),
    rest in prop::sample::select(&[
      "[*]", "..*", "[1:]", "[?@ > 1]", "[?@.a]", "[*][?@.b == 'x' || @ == 1]", "..a", "[?@.id == $.data.id]",
      "[?length(@) > 1]", "[-2:][*]",
    ][..]),
    offset in prop::option::of(0u64..30),
    limit in prop::option::of(1usize..12),
  ) {
    let (text, paths) = answer_around(doc, pretty);
    let Some(index) = build_index(&text, TINY) else { return Ok(()) };
    let path = format!("{}{rest}", normalized_path(pick.get::<Vec<PathElement>>(&paths)));
    let Some((query, steps)) = query_with_first_steps(&path, offset, limit) else { return Ok(()) };
    let Some(fragment) = first_steps(&index, &steps).fragment else { return Ok(()) };
    let (start, end) = (fragment.start as usize, fragment.end as usize);
    let Some((outcome, (_, spans))) = crate::core::query::run_fragment_query_keeping_spans(
      &text.as_bytes()[start..end], fragment.start, fragment.steps, &query, 100_000, &fragment.arrays,
    ) else {
      return Ok(());
    };
    let (whole, kept) =
      crate::core::query::run_query_keeping_spans(text.as_bytes(), &query, 100_000, None);
    prop_assert_eq!(format!("{outcome:?}"), format!("{whole:?}"), "{} on {}", path, text);
    if let Some((_, kept)) = kept {
      prop_assert_eq!(spans, kept, "{}", path);
    }
  }
}
