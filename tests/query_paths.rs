//! Path forms against each other: RFC 6901's own examples through JSON pointers, and dot paths, bracket paths and
//! pointers equal to their JSONPath twins on generated documents.

use proptest::prelude::*;
use result_handles_native::core::error::ErrorCode;
use result_handles_native::core::query::{run_query, run_query_value, QueryArgs, MAX_LIMIT};
use serde_json::{json, Map, Value};
use serde_json_path::JsonPath;

fn read(doc: &Value, path: &str) -> Result<Value, (ErrorCode, Option<String>)> {
  let mut args = QueryArgs::new("h", path).map_err(|error| (error.code, error.remedy))?;
  args.limit = Some(MAX_LIMIT);
  let text = serde_json::to_string(doc).expect("serializable");
  let by_text = run_query(text.as_bytes(), &args, usize::MAX);
  assert_eq!(
    by_text,
    run_query_value(doc, &args, usize::MAX),
    "routes disagree on {path:?}"
  );
  by_text
    .map(|answer| serde_json::from_str(&answer).expect("JSON"))
    .map_err(|error| (error.code, error.remedy))
}

#[test]
fn rfc6901_section5_examples() {
  let doc = json!({
    "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8
  });
  let cases = [
    ("", doc.clone(), "$"),
    ("/foo", json!(["bar", "baz"]), "$['foo']"),
    ("/foo/0", json!("bar"), "$['foo'][0]"),
    ("/", json!(0), "$['']"),
    ("/a~1b", json!(1), "$['a/b']"),
    ("/c%d", json!(2), "$['c%d']"),
    ("/e^f", json!(3), "$['e^f']"),
    ("/g|h", json!(4), "$['g|h']"),
    ("/i\\j", json!(5), "$['i\\\\j']"),
    ("/k\"l", json!(6), "$['k\"l']"),
    ("/ ", json!(7), "$[' ']"),
    ("/m~0n", json!(8), "$['m~n']"),
  ];
  for (pointer, value, normalized) in cases {
    let answer = read(&doc, pointer).unwrap_or_else(|e| panic!("{pointer}: {e:?}"));
    assert_eq!(answer["value"], value, "{pointer}");
    assert_eq!(answer["path"], json!(normalized), "{pointer}");
  }
  // Past the end, a leading zero and a bad escape name nothing or are no pointer.
  for pointer in ["/foo/2", "/foo/-", "/foo/00", "/foo/bar", "/m~2n"] {
    assert_eq!(
      read(&doc, pointer).map_err(|e| e.0),
      Err(ErrorCode::PathNotFound),
      "{pointer}"
    );
  }
}

const KEYS: &[&str] = &[
  "a",
  "b",
  "id",
  "0",
  "12",
  "-1",
  "a.b",
  "x y",
  "it's",
  "q\"",
  "back\\slash",
  "",
  "~",
  "/",
  "~1",
  "☺",
  "𝄞",
  "__proto__",
  "constructor",
  "tab\t",
  "ctl\u{1}",
  "*",
  "[0]",
  "$",
];

fn document() -> impl Strategy<Value = Value> {
  let leaf = prop_oneof![
    Just(Value::Null),
    any::<bool>().prop_map(Value::Bool),
    (-1000i64..1000).prop_map(|n| json!(n)),
    "[a-z😀 ]{0,6}".prop_map(Value::String),
  ];
  leaf.prop_recursive(4, 48, 5, |inner| {
    prop_oneof![
      prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
      prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|entries| {
        let mut map = Map::new();
        for (key, value) in entries {
          map.insert(key.to_string(), value);
        }
        Value::Object(map)
      }),
    ]
  })
}

/// One step of a generated path: an object key or an array index (`from_end` writes it negative).
#[derive(Debug, Clone)]
enum Elem {
  Key(String),
  Index {
    at: usize,
    len: usize,
    from_end: bool,
  },
}

/// Walks `choices` down `doc`, always to a node that exists.
fn pick(doc: &Value, choices: &[(usize, bool)]) -> Vec<Elem> {
  let mut node = doc;
  let mut path = Vec::new();
  for &(choice, from_end) in choices {
    match node {
      Value::Object(map) if !map.is_empty() => {
        let (key, child) = map.iter().nth(choice % map.len()).expect("in range");
        path.push(Elem::Key(key.clone()));
        node = child;
      }
      Value::Array(items) if !items.is_empty() => {
        let at = choice % items.len();
        path.push(Elem::Index {
          at,
          len: items.len(),
          from_end,
        });
        node = &items[at];
      }
      _ => break,
    }
  }
  path
}

/// RFC 9535 string literal in `quote`, escaping with a mix of short and `\u` forms.
fn literal(key: &str, quote: char) -> String {
  let mut out = String::from(quote);
  for c in key.chars() {
    match c {
      '\\' => out.push_str("\\\\"),
      '\t' => out.push_str("\\t"),
      c if c == quote => {
        out.push('\\');
        out.push(c);
      }
      c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
      '☺' => out.push_str("\\u263a"),
      '𝄞' => out.push_str("\\uD834\\uDD1E"),
      c => out.push(c),
    }
  }
  out.push(quote);
  out
}

fn index_text(at: usize, len: usize, from_end: bool) -> String {
  if from_end {
    format!("-{}", len - at)
  } else {
    at.to_string()
  }
}

/// The JSONPath twin: bracket selectors only (single quotes).
fn jsonpath(path: &[Elem]) -> String {
  let mut out = String::from("$");
  for elem in path {
    match elem {
      Elem::Key(key) => out.push_str(&format!("[{}]", literal(key, '\''))),
      Elem::Index { at, len, from_end } => {
        out.push_str(&format!("[{}]", index_text(*at, *len, *from_end)))
      }
    }
  }
  out
}

fn dot_safe(key: &str) -> bool {
  !key.is_empty()
    && key != "*"
    && !key.chars().any(|c| {
      matches!(c, '.' | '[' | ']' | '\'' | '"' | ' ' | '\t' | '\n' | '\r') || (c as u32) < 0x20
    })
}

/// The dot form: `.key` where a key allows it, brackets (double quotes) elsewhere; indexes as dot digits or
/// brackets; `$` left out when `drop_root` and the first step is a dot-safe key (one not starting with `$` or `/`,
/// which would read as the root or as a pointer).
fn dot_path(path: &[Elem], style: u8, drop_root: bool) -> String {
  let mut out = String::from("$");
  for (i, elem) in path.iter().enumerate() {
    match elem {
      Elem::Key(key) if dot_safe(key) => out.push_str(&format!(".{key}")),
      Elem::Key(key) => out.push_str(&format!("[{}]", literal(key, '"'))),
      Elem::Index { at, len, from_end } if (style >> (i % 8)) & 1 == 0 => {
        out.push_str(&format!(".{}", index_text(*at, *len, *from_end)))
      }
      Elem::Index { at, len, from_end } => {
        out.push_str(&format!("[{}]", index_text(*at, *len, *from_end)))
      }
    }
  }
  match (drop_root, out.strip_prefix("$.")) {
    (true, Some(rest)) if !rest.starts_with('$') && !rest.starts_with('/') => rest.to_string(),
    _ => out,
  }
}

fn pointer(path: &[Elem]) -> String {
  let mut out = String::new();
  for elem in path {
    out.push('/');
    match elem {
      Elem::Key(key) => out.push_str(&key.replace('~', "~0").replace('/', "~1")),
      Elem::Index { at, .. } => out.push_str(&at.to_string()),
    }
  }
  out
}

proptest! {
  #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

  #[test]
  fn every_form_equals_its_jsonpath_twin(
    doc in document(),
    choices in prop::collection::vec((any::<usize>(), any::<bool>()), 0..5),
    style in any::<u8>(),
    drop_root in any::<bool>(),
  ) {
    let path = pick(&doc, &choices);
    let twin = jsonpath(&path);
    let expected = read(&doc, &twin).expect("the twin names a node");
    // The crate agrees on the node.
    let query = JsonPath::parse(&twin).expect("the twin is JSONPath");
    let node = query.query(&doc).exactly_one().expect("one node");
    let window = match node {
      Value::Array(_) | Value::String(_) => expected["value"].clone(),
      _ => node.clone(),
    };
    prop_assert_eq!(&expected["value"], &window);
    prop_assert_eq!(&expected, &read(&doc, &dot_path(&path, style, drop_root)).expect("dot path"));
    prop_assert_eq!(&expected, &read(&doc, &pointer(&path)).expect("pointer"));
    // Each normalized path reads the same node back.
    let normalized = expected["path"].as_str().expect("a path").to_string();
    prop_assert_eq!(&expected, &read(&doc, &normalized).expect("normalized path"));
  }

  #[test]
  fn a_missing_step_is_not_found_in_every_form(
    doc in document(),
    choices in prop::collection::vec((any::<usize>(), any::<bool>()), 0..4),
  ) {
    let mut path = pick(&doc, &choices);
    path.push(Elem::Key("no such key".into()));
    let twin = read(&doc, &jsonpath(&path));
    prop_assert_eq!(twin.as_ref().map_err(|e| e.0), Err(ErrorCode::PathNotFound));
    prop_assert_eq!(&twin, &read(&doc, &dot_path(&path, 0, false)));
    prop_assert_eq!(&twin, &read(&doc, &pointer(&path)));
  }
}
