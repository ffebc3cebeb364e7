//! Answers end to end, through both entry points (text and parsed value), which must agree byte for byte.

use serde_json::{json, Value};

use super::*;
use crate::core::query::index::{build_index_and_directories, IndexSettings};
use crate::core::store::{HandleStore, Owner};

const BIG: usize = usize::MAX;

/// Runs a query both ways; returns the parsed answer or the (identical) error.
fn query(doc: &Value, args: Value, threshold: usize) -> CoreResult<Value> {
  let args = parse_query_args(&args)?;
  let text = serde_json::to_string(doc).expect("serializable");
  let by_text = run_query(text.as_bytes(), &args, threshold);
  let by_value = run_query_value(doc, &args, threshold);
  assert_eq!(
    by_text, by_value,
    "text and value routes disagree for {args:?}"
  );
  // serde_json's own text is JSON with no lone surrogate: the route an index certifies answers the same.
  for certified in [None, Some(&[][..])] {
    let (kept, _) = run_query_keeping_spans(text.as_bytes(), &args, threshold, certified);
    assert_eq!(
      by_text, kept,
      "certified ({certified:?}) route disagrees for {args:?}"
    );
  }
  by_text.map(|answer| serde_json::from_str(&answer).expect("answers are JSON"))
}

fn ok(doc: &Value, args: Value) -> Value {
  query(doc, args.clone(), BIG).unwrap_or_else(|e| panic!("{args}: {e}"))
}

fn err(doc: &Value, args: Value, threshold: usize) -> CoreError {
  query(doc, args.clone(), threshold).expect_err(&format!("{args} should fail"))
}

fn doc() -> Value {
  json!({
    "orders": [
      {"id": 1, "note": "first", "total": 5},
      {"id": 2, "note": "second", "total": 14},
      {"id": 3, "note": "third", "total": 25, "2": "two"}
    ],
    "2": {"2": "key two"},
    "a.b": "dotted",
    "x y": "spaced",
    "": "empty key",
    "a/b": {"m~n": "escaped"},
    "text": "héllo 😀 wörld",
    "meta": {"count": 3, "__proto__": {"polluted": true}, "constructor": "c"}
  })
}

#[test]
fn root_forms_read_the_whole_answer() {
  let d = json!({"a": 1});
  for path in [json!("$"), json!(""), Value::Null] {
    let answer = ok(&d, json!({"handle": "h", "path": path}));
    assert_eq!(answer, json!({"path": "$", "value": {"a": 1}}));
  }
  let list = json!([1, 2, 3]);
  assert_eq!(
    ok(&list, json!({"handle": "h"})),
    json!({"path": "$", "value": [1, 2, 3], "total": 3, "offset": 0})
  );
}

#[test]
fn every_path_form_reaches_the_same_node() {
  let d = doc();
  let note = json!({"path": "$['orders'][2]['note']", "value": "third", "total": 5, "offset": 0});
  for path in [
    "orders.2.note",
    "$.orders.2.note",
    "$.orders[2].note",
    "$['orders'][2]['note']",
    "$[\"orders\"][2][\"note\"]",
    "$.orders[-1].note",
    "orders.-1.note",
    "/orders/2/note",
    "$ .orders [ 2 ] .note",
  ] {
    assert_eq!(ok(&d, json!({"handle": "h", "path": path})), note, "{path}");
  }
  let cases = [
    ("$.2.2", "$['2']['2']", json!("key two")),
    ("orders.2.2", "$['orders'][2]['2']", json!("two")),
    ("$['a.b']", "$['a.b']", json!("dotted")),
    ("$[\"x y\"]", "$['x y']", json!("spaced")),
    ("/", "$['']", json!("empty key")),
    ("$['']", "$['']", json!("empty key")),
    ("/a~1b/m~0n", "$['a/b']['m~n']", json!("escaped")),
    ("$['a/b']['m~n']", "$['a/b']['m~n']", json!("escaped")),
    (
      "meta.__proto__.polluted",
      "$['meta']['__proto__']['polluted']",
      json!(true),
    ),
    ("meta.constructor", "$['meta']['constructor']", json!("c")),
  ];
  for (path, normalized, value) in cases {
    let mut expected = json!({"path": normalized, "value": value});
    if let Some(text) = value.as_str() {
      expected["total"] = json!(text.encode_utf16().count());
      expected["offset"] = json!(0);
    }
    assert_eq!(
      ok(&d, json!({"handle": "h", "path": path})),
      expected,
      "{path}"
    );
  }
}

#[test]
fn jsonpath_queries_answer_lists_of_matches() {
  let d = doc();
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$.orders[?@.total > 10].id"})
    ),
    json!({"path": "$.orders[?@.total > 10].id", "value": [2, 3], "total": 2, "offset": 0})
  );
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "orders[*].id", "limit": 2})
    ),
    json!({"path": "$.orders[*].id", "value": [1, 2], "total": 3, "offset": 0, "nextOffset": 2})
  );
  assert_eq!(
    ok(&d, json!({"handle": "h", "path": "$..id", "offset": 2})),
    json!({"path": "$..id", "value": [3], "total": 3, "offset": 2})
  );
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$.orders[?match(@.note, 's.*')].id"})
    ),
    json!({"path": "$.orders[?match(@.note, 's.*')].id", "value": [2], "total": 1, "offset": 0})
  );
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$.orders[?length(@.note) == 5 && count(@.*) == 3].id"})
    ),
    json!({"path": "$.orders[?length(@.note) == 5 && count(@.*) == 3].id", "value": [1], "total": 1, "offset": 0})
  );
  // A query that can select several nodes and matches none is an empty list, not an error.
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$.orders[?@.total > 100]"})
    ),
    json!({"path": "$.orders[?@.total > 100]", "value": [], "total": 0, "offset": 0})
  );
  // Fields apply to each object matched.
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$.orders[0:2]", "fields": ["id"]})
    ),
    json!({"path": "$.orders[0:2]", "value": [{"id": 1}, {"id": 2}], "total": 2, "offset": 0})
  );
}

#[test]
fn lists_page_by_offset_and_page() {
  let d = json!({"items": (0..45).collect::<Vec<_>>()});
  let first = ok(&d, json!({"handle": "h", "path": "items"}));
  assert_eq!(first["value"], json!((0..20).collect::<Vec<_>>()));
  assert_eq!(
    (
      first["total"].clone(),
      first["offset"].clone(),
      first["nextOffset"].clone()
    ),
    (json!(45), json!(0), json!(20))
  );
  let by_offset = ok(
    &d,
    json!({"handle": "h", "path": "items", "offset": 40, "limit": 10}),
  );
  assert_eq!(
    by_offset,
    json!({"path": "$['items']", "value": [40, 41, 42, 43, 44], "total": 45, "offset": 40})
  );
  let by_page = ok(
    &d,
    json!({"handle": "h", "path": "items", "page": 5, "limit": 10}),
  );
  assert_eq!(by_page, by_offset);
  let past = ok(&d, json!({"handle": "h", "path": "items", "offset": 100}));
  assert_eq!(
    past,
    json!({"path": "$['items']", "value": [], "total": 45, "offset": 100})
  );
  let huge_page = ok(
    &d,
    json!({"handle": "h", "path": "items", "page": 9007199254740991u64, "limit": 100000}),
  );
  assert_eq!(huge_page["value"], json!([]));
}

#[test]
fn strings_page_by_js_units() {
  let d = doc();
  let whole = ok(&d, json!({"handle": "h", "path": "text"}));
  assert_eq!(
    whole,
    json!({"path": "$['text']", "value": "héllo 😀 wörld", "total": 14, "offset": 0})
  );
  let cut = ok(&d, json!({"handle": "h", "path": "text", "limit": 7}));
  // Unit 7 falls inside the emoji: the window grows to hold it whole.
  assert_eq!(
    cut,
    json!({"path": "$['text']", "value": "héllo 😀", "total": 14, "offset": 0, "nextOffset": 8})
  );
  let rest = ok(&d, json!({"handle": "h", "path": "text", "offset": 8}));
  assert_eq!(
    rest,
    json!({"path": "$['text']", "value": " wörld", "total": 14, "offset": 8})
  );
  let page = ok(
    &d,
    json!({"handle": "h", "path": "text", "page": 2, "limit": 7}),
  );
  assert_eq!(
    page,
    json!({"path": "$['text']", "value": " wörld", "total": 14, "offset": 8})
  );
  let long = json!("x".repeat(2500));
  let first = ok(&long, json!({"handle": "h"}));
  assert_eq!(
    (
      first["value"].as_str().map(str::len),
      first["nextOffset"].clone()
    ),
    (Some(2000), json!(2000))
  );
}

#[test]
fn objects_and_scalars_come_whole() {
  let d = doc();
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "orders.0", "limit": 5, "offset": 0})
    ),
    json!({"path": "$['orders'][0]", "value": {"id": 1, "note": "first", "total": 5}})
  );
  assert_eq!(
    ok(&d, json!({"handle": "h", "path": "orders.0.id", "page": 1})),
    json!({"path": "$['orders'][0]['id']", "value": 1})
  );
  for args in [
    json!({"handle": "h", "path": "orders.0", "offset": 1}),
    json!({"handle": "h", "path": "orders.0.id", "page": 2}),
  ] {
    let e = err(&d, args, BIG);
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("only to lists and strings"));
    assert!(e
      .remedy
      .as_deref()
      .is_some_and(|r| r.contains("Leave out offset and page")));
  }
}

#[test]
fn fields_keep_keys_and_never_reach_js_internals() {
  let d = doc();
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "meta", "fields": ["__proto__", "constructor", "toString"]})
    ),
    json!({"path": "$['meta']", "value": {"__proto__": {"polluted": true}, "constructor": "c"}})
  );
  let mixed = json!([{"a": 1, "b": 2}, 7, "s", [1], {"b": 3}, null]);
  assert_eq!(
    ok(&mixed, json!({"handle": "h", "fields": ["b", "missing"]})),
    json!({"path": "$", "value": [{"b": 2}, 7, "s", [1], {"b": 3}, null], "total": 6, "offset": 0})
  );
  // Fields do not touch strings.
  assert_eq!(
    ok(
      &d,
      json!({"handle": "h", "path": "$['a.b']", "fields": ["x"]})
    )["value"],
    json!("dotted")
  );
}

#[test]
fn missing_paths_name_the_nearest_parent() {
  let d = doc();
  let cases = [
    (
      "orders.3.note",
      "`$['orders']`, an array of 3 items (indexes 0 to 2 or -3 to -1)",
    ),
    (
      "orders.0.missing",
      "`$['orders'][0]`, an object with 3 keys",
    ),
    ("nothing.here", "`$`, an object with 8 keys"),
    ("/orders/-", "`$['orders']`"),
    ("$['a.b'].c", "`$['a.b']`, a string"),
    ("$.meta.count.x", "`$['meta']['count']`, a number"),
    ("$.orders['0']", "`$['orders']`, an array"),
  ];
  for (path, parent) in cases {
    let e = err(&d, json!({"handle": "h", "path": path}), BIG);
    assert_eq!(e.code, ErrorCode::PathNotFound, "{path}");
    let remedy = e.remedy.unwrap_or_default();
    assert!(remedy.contains(parent), "{path}: {remedy}");
    assert!(remedy.contains("path present in the shape"), "{path}");
  }
  let e = err(&json!([]), json!({"handle": "h", "path": "$[0]"}), BIG);
  assert!(e.remedy.unwrap_or_default().contains("`$`, an empty array"));
}

#[test]
fn malformed_paths_are_not_found_with_the_forms_shown() {
  for path in ["$[", "$.a b", "$[?@.a ==]", "/a~x", "$..", "$ "] {
    let e = err(&doc(), json!({"handle": "h", "path": path}), BIG);
    assert_eq!(e.code, ErrorCode::PathNotFound, "{path}");
    assert!(
      e.remedy.unwrap_or_default().contains("JSON pointer"),
      "{path}"
    );
  }
  assert_eq!(path_form("$[?@.a]"), Ok(PathForm::Query));
  assert_eq!(path_form("/a"), Ok(PathForm::Pointer));
  assert_eq!(path_form("a.1"), Ok(PathForm::Simple));
}

#[test]
fn slices_over_the_threshold_say_how_many_items_fit() {
  let d =
    json!({"items": (0..100).map(|i| json!({"id": i, "pad": "x".repeat(50)})).collect::<Vec<_>>()});
  let args = json!({"handle": "h", "path": "items", "limit": 50});
  let full = ok(&d, args.clone());
  let size_of = |n: usize| {
    let a = json!({"handle": "h", "path": "items", "limit": n});
    serde_json::to_string(&ok(&d, a))
      .map(|s| s.len())
      .unwrap_or(0)
  };
  let threshold = size_of(7) + 10;
  assert!(serde_json::to_string(&full).map(|s| s.len()).unwrap_or(0) > threshold);
  let e = err(&d, args, threshold);
  assert_eq!(e.code, ErrorCode::SliceTooLarge);
  assert!(e
    .message
    .contains(&format!("over the {threshold}-byte limit")));
  let remedy = e.remedy.unwrap_or_default();
  assert!(remedy.contains("At most 7 items fit"), "{remedy}");
  // The count is exact: 7 items pass, 8 fail.
  assert!(query(
    &d,
    json!({"handle": "h", "path": "items", "limit": 7}),
    threshold
  )
  .is_ok());
  assert!(query(
    &d,
    json!({"handle": "h", "path": "items", "limit": 8}),
    threshold
  )
  .is_err());
  // Fields shrink items, so more fit.
  assert!(query(
    &d,
    json!({"handle": "h", "path": "items", "limit": 20, "fields": ["id"]}),
    threshold
  )
  .is_ok());
  // Not even one item.
  let e = err(&d, json!({"handle": "h", "path": "items"}), 40);
  assert!(e.remedy.unwrap_or_default().contains("`$['items'][0]`"));
}

#[test]
fn strings_and_objects_over_the_threshold() {
  let d = json!({"s": "ab\"😀".repeat(100), "o": {"k": "v".repeat(500)}});
  let e = err(&d, json!({"handle": "h", "path": "s"}), 100);
  assert_eq!(e.code, ErrorCode::SliceTooLarge);
  let remedy = e.remedy.unwrap_or_default();
  let fits: u64 = remedy
    .split("At most ")
    .nth(1)
    .and_then(|rest| rest.split(' ').next())
    .and_then(|n| n.parse().ok())
    .unwrap_or(0);
  assert!(fits > 0, "{remedy}");
  assert!(query(&d, json!({"handle": "h", "path": "s", "limit": fits}), 100).is_ok());
  let over = query(
    &d,
    json!({"handle": "h", "path": "s", "limit": fits + 1}),
    100,
  );
  // One more unit either fits nothing new (half a pair rounds up) or overflows.
  if let Ok(answer) = over {
    assert!(serde_json::to_string(&answer).map(|s| s.len()).unwrap_or(0) <= 100);
  }
  let e = err(&d, json!({"handle": "h", "path": "o"}), 100);
  assert_eq!(e.code, ErrorCode::SliceTooLarge);
  let remedy = e.remedy.unwrap_or_default();
  assert!(
    remedy.contains("fields") && remedy.contains("`$['o']['<key>']`"),
    "{remedy}"
  );
}

#[test]
fn broken_answers_are_refused_without_echoing_them() {
  let args = QueryArgs::new("h", "$.a").expect("a valid path");
  for text in [&b"{\"a\": 1"[..], b"[1,]", b"\xff\xfe", b"{\"a\":1} x"] {
    let e = run_query(text, &args, BIG).expect_err("broken");
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.remedy.is_some());
  }
  // A path error comes with the arguments, before any answer is read.
  let e = parse_query_args(&json!({"handle": "h", "path": "$["})).expect_err("bad path");
  assert_eq!(e.code, ErrorCode::PathNotFound);
}

#[test]
fn handle_not_found_has_one_text() {
  let e = handle_not_found();
  assert_eq!(e.code.as_str(), "RESULT_HANDLE_NOT_FOUND");
  assert!(e.remedy.unwrap_or_default().contains("original tool again"));
}

#[test]
fn numbers_come_back_as_js_prints_them() {
  let text = br#"{"n":[1.0,-0.0,1e21,0.5,12345678901234567890]}"#;
  let answer = run_query(text, &QueryArgs::new("h", "n").expect("a valid path"), BIG).expect("ok");
  assert_eq!(
    answer,
    r#"{"path":"$['n']","value":[1,0,1e+21,0.5,12345678901234567000],"total":5,"offset":0}"#
  );
}

#[test]
fn lone_surrogates_come_back_as_json_stringify_writes_them() {
  // What JSON.stringify prints for strings holding half an emoji, and a key holding one.
  let text = br#"{"items":["ok","cut \ud83d","\ude00 tail","\ud83d\ude00"],"k\udc00":1}"#;
  let answer = run_query(
    text,
    &QueryArgs::new("h", "items").expect("a valid path"),
    BIG,
  )
  .expect("readable");
  assert_eq!(
    answer,
    r#"{"path":"$['items']","value":["ok","cut \ud83d","\ude00 tail","😀"],"total":4,"offset":0}"#
  );
  let whole =
    run_query(text, &QueryArgs::new("h", "$").expect("a valid path"), BIG).expect("readable");
  assert!(whole.contains(r#""k\udc00":1"#), "{whole}");
  // A string window counts the surrogate as the one UTF-16 unit it is.
  let mut window = QueryArgs::new("h", "items[1]").expect("a valid path");
  window.offset = Some(3);
  window.limit = Some(2);
  let answer = run_query(text, &window, BIG).expect("window");
  assert!(answer.contains(r#""value":" \ud83d""#), "{answer}");
  let e = run_query(
    br#"{"a":"\ud83d""#,
    &QueryArgs::new("h", "a").expect("a valid path"),
    BIG,
  )
  .expect_err("still broken");
  assert_eq!(e.code, ErrorCode::InvalidInput);
}

#[test]
fn lone_surrogates_fall_back_to_replacement_characters_only_when_every_stand_in_is_taken() {
  let text = "{\"a\":\"\\ud800 \u{e000}\u{e800}\u{f000}\"}";
  let answer = run_query(
    text.as_bytes(),
    &QueryArgs::new("h", "a").expect("a valid path"),
    BIG,
  )
  .expect("readable");
  assert!(answer.contains('\u{fffd}'), "{answer}");
  // One block free is enough.
  let text = "{\"a\":\"\\ud800 \u{e000}\u{e800}\"}";
  let answer = run_query(
    text.as_bytes(),
    &QueryArgs::new("h", "a").expect("a valid path"),
    BIG,
  )
  .expect("readable");
  assert!(answer.contains("\\ud800 \u{e000}\u{e800}"), "{answer}");
}

/// `[{"a":{"a":…{"c":1}}}, …]`: `count` chains of `levels` nested objects.
fn chains(count: usize, levels: usize) -> String {
  let chain = format!(
    "{}{{\"c\":1}}{}",
    "{\"a\":".repeat(levels),
    "}".repeat(levels)
  );
  format!("[{}]", vec![chain; count].join(","))
}

#[test]
fn costly_queries_are_refused_before_they_run() {
  // 1000 chains 120 deep: N ≈ 122 000 nodes, D = 123. `..` inside filters would visit N × D^k nodes; without the
  // bound, `$..[?@..[?@..c]]` runs for minutes on the 2000-chain version of this answer.
  let text = chains(1000, 120);
  let value: Value = serde_json::from_str(&text).expect("valid");
  for path in [
    "$..[?@..c]",
    "$..[?@..[?@..c]]",
    "$..[?@..[?@..[?@..c]]]",
    "..*..*",
  ] {
    let args = parse_query_args(&json!({"handle": "h", "path": path})).expect("args");
    let started = std::time::Instant::now();
    let by_text = run_query(text.as_bytes(), &args, BIG).expect_err(path);
    let by_value = run_query_value(&value, &args, BIG).expect_err(path);
    eprintln!("{path}: refused in {:?}", started.elapsed());
    assert_eq!(by_text, by_value);
    assert_eq!(by_text.code, ErrorCode::InvalidInput, "{path}");
    assert!(by_text.message.starts_with("path is too costly"), "{path}");
    let remedy = by_text.remedy.as_deref().unwrap_or_default();
    assert!(
      remedy.contains("more specific path") && remedy.contains("inside filters"),
      "{remedy}"
    );
  }
  // The same queries on a small answer run.
  let small = chains(3, 10);
  let args = parse_query_args(&json!({"handle": "h", "path": "$..[?@..c]"})).expect("args");
  let answer: Value =
    serde_json::from_str(&run_query(small.as_bytes(), &args, BIG).expect("runs")).expect("json");
  assert_eq!(answer["total"], json!(33));
}

#[test]
fn ordinary_filters_on_a_large_answer_still_run() {
  let orders: Vec<Value> = (0..100_000)
    .map(|i| json!({"id": i, "status": if i % 4 == 0 { "shipped" } else { "open" }}))
    .collect();
  let doc = json!({ "orders": orders });
  let shipped = ok(
    &doc,
    json!({"handle": "h", "path": "$.orders[?@.status=='shipped']", "limit": 2}),
  );
  assert_eq!(shipped["total"], json!(25_000));
  assert_eq!(
    shipped["value"],
    json!([{"id": 0, "status": "shipped"}, {"id": 4, "status": "shipped"}])
  );
  let over = ok(
    &doc,
    json!({"handle": "h", "path": "$..[?@.id > 3]", "limit": 1}),
  );
  assert_eq!(over["total"], json!(99_996));
  // One `..` inside a filter on a shallow answer stays well under the bound (N × D ≈ 300 000 × 4).
  let nested = ok(
    &doc,
    json!({"handle": "h", "path": "$.orders[?value(@..status) == 'open']", "limit": 1}),
  );
  assert_eq!(nested["total"], json!(75_000));
}

#[test]
fn answers_read_up_to_the_query_depth_limit() {
  // The limit is serde_json's: the hosts send deeper answers whole, so it must match what the reader takes.
  for depth in [MAX_QUERY_DEPTH, MAX_QUERY_DEPTH + 1] {
    let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let path = vec!["a"; depth].join(".");
    for path in [path.as_str(), "$..a"] {
      let args = QueryArgs::new("h", path).expect("a valid path");
      let outcome = run_query(text.as_bytes(), &args, BIG);
      if depth <= MAX_QUERY_DEPTH {
        assert!(outcome.is_ok(), "{depth} {path}: {outcome:?}");
      } else {
        let e = outcome.expect_err("too deep");
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
          e.message.contains("not caused by the query's arguments"),
          "{}",
          e.message
        );
        assert!(!e
          .remedy
          .unwrap_or_default()
          .contains("call the original tool again"));
      }
    }
  }
}

#[test]
fn a_page_past_the_safe_integer_range_echoes_an_offset_js_can_hold() {
  let answer = ok(
    &doc(),
    json!({"handle": "h", "path": "orders", "page": 9007199254740991u64, "limit": 20}),
  );
  assert_eq!(answer["value"], json!([]));
  let offset = answer["offset"].as_u64().expect("a whole offset");
  assert!(offset < 1 << 53, "offset {offset} is past 2^53 - 1");
}

#[test]
fn a_path_too_long_to_echo_is_invalid_input_naming_path() {
  let filter = |n: usize| format!("$.orders[?{}]", vec!["@.id == 1"; n].join(" || "));
  let error = err(&doc(), json!({"handle": "h", "path": filter(75)}), 1024);
  assert_eq!(error.code, ErrorCode::InvalidInput);
  assert!(
    error.message.starts_with("path is too long"),
    "{}",
    error.message
  );
  assert!(error.remedy.is_some());
  // A path well under half the limit still answers.
  let answer = query(&doc(), json!({"handle": "h", "path": filter(20)}), 1024).expect("fits");
  assert_eq!(answer["value"][0]["id"], json!(1));
}

/// Found by `cargo fuzz run query` (fuzz/artifacts, kept as fuzz/seeds/query/crash-unfinished-unicode-escape):
/// serde_json_path panicked on an unfinished `\u` escape.
#[test]
fn an_unfinished_unicode_escape_is_not_a_path_and_no_panic() {
  for path in [
    r#"$["\u"#,
    r#"$["\u12"#,
    r#"$['\u'"#,
    r#"$["\uD800\u"#,
    "$[\"\\u\n{$_",
  ] {
    let error = err(&doc(), json!({"handle": "h", "path": path}), BIG);
    assert_eq!(error.code, ErrorCode::PathNotFound, "{path}");
  }
  // A whole escape still reads.
  let answer = ok(
    &json!({"é": 1}),
    json!({"handle": "h", "path": r#"$["\u00e9"]"#}),
  );
  assert_eq!(answer["value"], json!(1));
}

/// About 1 MB: `{"items": [{"id": i, "note": "…"}, …]}`.
fn megabyte_of_items() -> Value {
  let items: Vec<Value> = (0..10_000)
    .map(|i| json!({"id": i, "note": format!("note {i} {}", "a".repeat(80))}))
    .collect();
  json!({ "items": items })
}

/// Runs `path` over `doc` through the evaluator alone: the outcome and the work it spent.
fn evaluate(doc: &Value, path: &str) -> (CoreResult<usize>, eval::Budget) {
  let Ok((_, ParsedPath::Query { query, .. })) = parse_path(path) else {
    panic!("{path} is a query");
  };
  let mut evaluation = Evaluation::new(doc, Budget::for_nodes(eval::count_nodes(doc)));
  let outcome = evaluation
    .select(spec_query(&query))
    .map(|nodes| nodes.len());
  (outcome, evaluation.budget)
}

/// A descendant segment that selects by name only (looking into objects alone) selects what `serde_json_path`
/// selects, in its order, and spends what the same segment with a selector that names nothing more spends.
#[test]
fn descendants_by_name_cost_what_any_descendant_segment_costs() {
  let doc =
    json!({"a": {"a": 1, "b": [{"a": 2}, "a"]}, "c": [{"a": [3], "d": {"a": null}}], "e": "a"});
  for (by_name, generic) in [
    ("$..a", "$..['a',-1000000]"),
    ("$..['a','d']", "$..['a','d',-1000000]"),
  ] {
    let (named, named_budget) = evaluate(&doc, by_name);
    let (general, general_budget) = evaluate(&doc, generic);
    assert_eq!(named.ok(), general.ok(), "{by_name}");
    assert_eq!(named_budget.spent, general_budget.spent, "{by_name}");
    let query = serde_json_path::JsonPath::parse(by_name).expect("valid");
    let Ok((_, ParsedPath::Query { query: ours, .. })) = parse_path(by_name) else {
      panic!("a query");
    };
    let mut evaluation = Evaluation::new(&doc, Budget::for_nodes(eval::count_nodes(&doc)));
    let selected = evaluation.select(spec_query(&ours)).expect("runs");
    assert_eq!(selected, query.query(&doc).all(), "{by_name}");
  }
  // A budget too small for the walk is spent all the same.
  let Ok((_, ParsedPath::Query { query, .. })) = parse_path("$..a") else {
    panic!("a query");
  };
  let mut small = Budget::for_nodes(0);
  small.limit = 5;
  assert!(Evaluation::new(&doc, small)
    .select(spec_query(&query))
    .is_err());
}

#[test]
fn hostile_queries_are_refused_or_bounded() {
  // Issue 11, item 2: each of these held a CPU for 8–28 s on a 1 MB answer.
  let doc = megabyte_of_items();
  let text = serde_json::to_string(&doc).expect("serializable");
  assert!(text.len() > 1_000_000);
  let alternation = (0..10_000)
    .map(|i| format!("w{i}"))
    .collect::<Vec<_>>()
    .join("|");
  let side_by_side = |n: usize| format!("$..[{}]", vec!["?count(@..*)>0"; n].join(","));
  let cases = [
    "$.items[?match(@.note, 'a{1000}{1000}')]".to_string(),
    format!("$.items[?search(@.note, '{alternation}')]"),
    side_by_side(20),
    side_by_side(40),
  ];
  for path in &cases {
    let started = std::time::Instant::now();
    let (outcome, budget) = evaluate(&doc, path);
    let args = QueryArgs::new("h", path).expect("a valid path");
    let by_text = run_query(text.as_bytes(), &args, BIG);
    eprintln!(
      "{}…: {:?} after {} of {} units in {:?}",
      &path[..path.len().min(40)],
      outcome.as_ref().map_err(|e| &e.message),
      budget.spent,
      budget.limit,
      started.elapsed()
    );
    // Whatever happened, no more than the budget was spent, and both routes say the same.
    assert!(budget.spent <= budget.limit + 1_000_000, "{path}");
    match outcome {
      Ok(total) => {
        let answer: Value = serde_json::from_str(&by_text.expect("runs")).expect("JSON");
        assert_eq!(answer["total"], json!(total));
      }
      Err(error) => {
        assert_eq!(error.code, ErrorCode::InvalidInput);
        assert_eq!(by_text.expect_err("refused"), error);
      }
    }
  }
  // The repeated counted repetition compiles past the regex size limit: refused, naming the limit, before any
  // item is tested.
  let (outcome, budget) = evaluate(&doc, &cases[0]);
  let error = outcome.expect_err("too large a regex");
  assert!(
    error.message.contains("1048576-byte limit"),
    "{}",
    error.message
  );
  assert!(
    budget.spent <= 10_000 + 100,
    "refused at the first item tested: {budget:?}"
  );
  // The alternation compiles, but testing it on every item costs more than the budget.
  let (outcome, budget) = evaluate(&doc, &cases[1]);
  let error = outcome.expect_err("over budget");
  assert!(
    error.message.starts_with("path is too costly"),
    "{}",
    error.message
  );
  assert!(error.message.contains(&budget.limit.to_string()));
  // Filters side by side add up: forty cost about twice what twenty do (this answer is shallow, so both fit).
  let (twenty, forty) = (evaluate(&doc, &cases[2]).1, evaluate(&doc, &cases[3]).1);
  assert!(forty.spent > twenty.spent * 19 / 10, "{twenty:?} {forty:?}");
  // On a deep answer, the same forty run out of budget.
  let deep: Value = serde_json::from_str(&chains(100, 100)).expect("valid");
  let (outcome, budget) = evaluate(&deep, &cases[3]);
  assert!(
    outcome.is_err() && budget.spent > budget.limit,
    "{budget:?}"
  );
}

#[test]
fn a_regex_is_compiled_once_per_query() {
  // 10 000 items, one pattern: one entry in the cache, and the answer of serde_json_path.
  let doc = megabyte_of_items();
  let path = "$.items[?search(@.note, 'note 9+ ')]";
  let Ok((_, ParsedPath::Query { query, .. })) = parse_path(path) else {
    panic!("a query");
  };
  let mut evaluation = Evaluation::new(&doc, Budget::for_nodes(eval::count_nodes(&doc)));
  let selected = evaluation.select(spec_query(&query)).expect("runs");
  assert_eq!(evaluation.compiled_regexes(), 1);
  let expected = query.query(&doc).all();
  assert_eq!(selected, expected);
  assert_eq!(selected.len(), 1 + 1 + 1 + 1); // 9, 99, 999, 9999
}

/// Every valid query of the RFC 9535 suite answers the same on a certified answer (the tape passes over what the
/// query cannot reach) as on an uncertified one, compact and pretty-printed.
#[test]
fn certified_answers_read_the_same_over_the_whole_suite() {
  let file =
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/jsonpath-cts/cts.json");
  let suite: Value =
    serde_json::from_str(&std::fs::read_to_string(file).expect("the vendored suite"))
      .expect("cts.json is JSON");
  let mut compared = 0;
  for case in suite["tests"].as_array().expect("tests") {
    let Some(selector) = case["selector"].as_str() else {
      continue;
    };
    if case["invalid_selector"].as_bool() == Some(true) {
      continue;
    }
    let Ok(mut args) = QueryArgs::new("h", selector) else {
      continue;
    };
    args.limit = Some(MAX_LIMIT);
    for text in [
      serde_json::to_string(&case["document"]),
      serde_json::to_string_pretty(&case["document"]),
    ] {
      let text = text.expect("JSON");
      let (checked, _) = run_query_keeping_spans(text.as_bytes(), &args, BIG, None);
      let (certified, _) = run_query_keeping_spans(text.as_bytes(), &args, BIG, Some(&[]));
      assert_eq!(checked, certified, "{selector} on {text}");
      compared += 1;
    }
  }
  assert!(compared > 800, "{compared} cases compared");
}

mod here;
mod profile;

/// Keeps `text` in `store` for `owner` as a fold keeps an answer (its path index beside it when it gets one); its
/// handle.
pub(super) async fn save(store: &HandleStore, text: &str, owner: &Owner) -> String {
  let handle = HandleStore::new_handle();
  store.save(&handle, text.as_bytes(), owner).await.unwrap();
  if let Some(built) = build_index_and_directories(text, IndexSettings::DEFAULT, false) {
    store
      .save_index_and_directories(&handle, built, owner)
      .await
      .unwrap();
  }
  handle
}

/// An orders answer of a little over `bytes` bytes, as JSON text (the profiles run on 10 MB of it).
pub(super) fn orders_text(bytes: usize) -> String {
  let statuses = ["open", "shipped", "delivered", "returned"];
  let mut text = String::from("{\"orders\":[");
  let mut i = 0usize;
  while text.len() < bytes {
    if i > 0 {
      text.push(',');
    }
    let odd = if i % 2 == 1 { ",\"odd\"" } else { "" };
    text.push_str(&format!(
      r#"{{"id":{i},"status":"{}","amount":{},"sku":"SKU-{i}","customer":{{"name":"Customer {i}","tags":["new","eu","c{}"]}},"tags":["a","b","t{}"{odd}]}}"#,
      statuses[i % 4],
      (i * 37) % 1000,
      i % 7,
      i % 5
    ));
    i += 1;
  }
  text.push_str("]}");
  text
}

/// Answers of different sizes and shapes, queried interleaved (a small tape after a large one) and on four threads
/// at once: each answer as the tree route (no tape) gives it, whatever memory the tapes reuse.
#[test]
fn tapes_never_carry_one_answer_into_another() {
  let docs: Vec<Value> = (0..4usize)
    .map(|k| {
      let orders: Vec<Value> = (0..50 + 400 * k)
        .map(|i| {
          json!({
            "id": i * 10 + k,
            "status": if (i + k) % 3 == 0 { "open" } else { "shipped" },
            "amount": (i * 37 + k) % 1000,
            "tags": ["a", format!("t{k}-{i}"), i],
          })
        })
        .collect();
      json!({ "orders": orders, "answer": k })
    })
    .collect();
  let paths = [
    "$.orders[?@.status=='open' && @.amount > 500]",
    "$.orders[*].tags[1]",
    "$..tags[2]",
    "$..id",
  ];
  let run = |round: usize| {
    for step in 0..8 {
      let k = (round + step * 3) % docs.len();
      let path = paths[(round + step) % paths.len()];
      let args = parse_query_args(&json!({"handle": "h", "path": path, "limit": 5000})).unwrap();
      let text = serde_json::to_string(&docs[k]).unwrap();
      let expected = run_query_value(&docs[k], &args, BIG);
      assert!(expected.is_ok(), "{path} on answer {k}");
      for certified in [None, Some(&[][..])] {
        let (got, spans) = run_query_keeping_spans(text.as_bytes(), &args, BIG, certified);
        assert_eq!(
          got, expected,
          "{path} on answer {k} (certified {certified:?})"
        );
        assert!(spans.is_some(), "{path} ran on a tape");
      }
    }
  };
  for round in 0..4 {
    run(round);
  }
  std::thread::scope(|scope| {
    for round in 0..4 {
      scope.spawn(move || run(round));
    }
  });
}

/// A long list read on two threads (its path index names it) answers every query as one pass does: the same
/// answers and match spans, limit or not, compact and pretty-printed.
#[test]
fn a_long_list_read_in_pieces_answers_as_one_pass() {
  let orders: Vec<Value> = (0..5000usize)
    .map(|i| {
      let status = ["open", "shipped"][i % 2];
      json!({
        "id": i,
        "status": status,
        "amount": (i * 37) % 1000,
        "customer": {"name": format!("Customer {i}"), "tags": ["new", i % 7]},
        "tags": ["a", "b", format!("t{}", i % 5)],
      })
    })
    .collect();
  let doc = json!({ "orders": orders, "total": 5000 });
  let paths = [
    "$.orders[?@.status=='open' && @.amount > 500]",
    "$.orders[*].tags[2]",
    "$..tags[1]",
    "$.orders[-3:]",
    "$.orders[?@.customer.tags[1] == 3].id",
    "$..[?@.amount < 10]",
  ];
  for text in [
    serde_json::to_string(&doc).unwrap(),
    serde_json::to_string_pretty(&doc).unwrap(),
  ] {
    let index = index::build_index(&text, index::IndexSettings::DEFAULT).expect("an index");
    let arrays = index::certified_arrays(&index, text.len()).expect("certified");
    assert!(
      arrays
        .iter()
        .any(|array| array.end - array.start > 256 * 1024),
      "a list long enough to cut"
    );
    for path in paths {
      for limit in [20, 5000] {
        let args = parse_query_args(&json!({"handle": "h", "path": path, "limit": limit})).unwrap();
        let one_pass = run_query_keeping_spans(text.as_bytes(), &args, BIG, Some(&[]));
        let in_pieces = run_query_keeping_spans(text.as_bytes(), &args, BIG, Some(&arrays));
        assert!(one_pass.0.is_ok(), "{path}");
        assert_eq!(in_pieces, one_pass, "{path}, limit {limit}");
      }
    }
  }
}
