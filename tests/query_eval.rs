//! The engine's JSONPath evaluator against `serde_json_path`'s own, on generated documents and queries: the tape
//! route (answer text), the parsed route (`Value`) and the reference must list the same nodes in the same order.

use proptest::prelude::*;
use result_handles_native::core::error::ErrorCode;
use result_handles_native::core::query::{
  path_form, run_query, run_query_value, PathForm, QueryArgs, MAX_LIMIT,
};
use serde_json::{json, Map, Value};
use serde_json_path::JsonPath;

mod support;
use support::same;

const KEYS: &[&str] = &["a", "b", "id", "tags", "0", "x y", "q'", "☺", ""];

fn document() -> impl Strategy<Value = Value> {
  let leaf = prop_oneof![
    Just(Value::Null),
    any::<bool>().prop_map(Value::Bool),
    (-5i64..5).prop_map(|n| json!(n)),
    prop::sample::select(vec![0.5f64, -1.0, 2.0, 1e21]).prop_map(|n| json!(n)),
    "[ab😀 ]{0,3}".prop_map(Value::String),
  ];
  leaf.prop_recursive(4, 40, 5, |inner| {
    prop_oneof![
      prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
      prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|entries| {
        let mut map = Map::new();
        for (key, value) in entries {
          map.insert(key.to_string(), value);
        }
        Value::Object(map)
      }),
    ]
  })
}

/// A name in bracket form.
fn name() -> impl Strategy<Value = String> {
  prop::sample::select(KEYS).prop_map(|key| format!("'{}'", key.replace('\'', "\\'")))
}

fn literal() -> impl Strategy<Value = String> {
  prop::sample::select(vec![
    "1", "0", "-1", "2.0", "0.5", "1e21", "'a'", "'b'", "''", "true", "false", "null",
  ])
  .prop_map(String::from)
}

/// A singular query relative to the current node, or the root.
fn singular() -> impl Strategy<Value = String> {
  let step = prop_oneof![
    name().prop_map(|n| format!("[{n}]")),
    (-2i64..3).prop_map(|i| format!("[{i}]")),
  ];
  (prop::bool::weighted(0.9), prop::collection::vec(step, 0..3))
    .prop_map(|(relative, steps)| format!("{}{}", if relative { "@" } else { "$" }, steps.concat()))
}

fn comparable() -> impl Strategy<Value = String> {
  prop_oneof![
    3 => literal(),
    4 => singular(),
    1 => singular().prop_map(|q| format!("length({q})")),
    1 => singular().prop_map(|q| format!("count({q}.*)")),
    1 => singular().prop_map(|q| format!("value({q}..b)")),
  ]
}

fn test_expr() -> impl Strategy<Value = String> {
  let op = prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]);
  let basic = prop_oneof![
    4 => (comparable(), op, comparable()).prop_map(|(l, o, r)| format!("{l}{o}{r}")),
    2 => singular(),
    1 => singular().prop_map(|q| format!("!{q}")),
    1 => singular().prop_map(|q| format!("{q}..a")),
    1 => (singular(), prop::sample::select(vec!["a", "a.*", "[ab]+", "😀", "(", ""]))
      .prop_map(|(q, r)| format!("match({q}, '{r}')")),
    1 => (singular(), prop::sample::select(vec!["a", "b$", "^.$", "[", "😀"]))
      .prop_map(|(q, r)| format!("search({q}, '{r}')")),
  ];
  (
    basic.clone(),
    prop::option::of((prop::sample::select(vec!["&&", "||"]), basic)),
  )
    .prop_map(|(a, rest)| match rest {
      Some((logic, b)) => format!("{a} {logic} !({b})"),
      None => a,
    })
}

fn selector() -> impl Strategy<Value = String> {
  prop_oneof![
    2 => name(),
    1 => Just("*".to_string()),
    2 => (-3i64..4).prop_map(|i| i.to_string()),
    1 => (prop::option::of(-3i64..4), prop::option::of(-3i64..4), prop::option::of(-2i64..3)).prop_map(
      |(a, b, c)| {
        let part = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
        format!("{}:{}:{}", part(a), part(b), part(c))
      }
    ),
    3 => test_expr().prop_map(|t| format!("?{t}")),
  ]
}

fn segment() -> impl Strategy<Value = String> {
  (
    prop::bool::weighted(0.25),
    prop::collection::vec(selector(), 1..3),
  )
    .prop_map(|(descend, selectors)| {
      format!(
        "{}[{}]",
        if descend { ".." } else { "" },
        selectors.join(",")
      )
    })
}

fn query() -> impl Strategy<Value = String> {
  prop::collection::vec(segment(), 1..4).prop_map(|segments| format!("${}", segments.concat()))
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(1500))]

  #[test]
  fn the_evaluator_lists_what_serde_json_path_lists(doc in document(), path in query()) {
    let Ok(reference) = JsonPath::parse(&path) else {
      // Not every generated text is a valid query (`length` of a non-singular one, say): both refuse it.
      let args = QueryArgs::new("h", &path);
      prop_assert_eq!(args.map(drop).map_err(|e| e.code), Err(ErrorCode::PathNotFound));
      return Ok(());
    };
    if path_form(&path).ok() != Some(PathForm::Query) {
      // A singular query: the walk of tests/query_paths.rs.
      return Ok(());
    }
    let expected = Value::Array(reference.query(&doc).all().into_iter().cloned().collect());
    let mut args = QueryArgs::new("h", &path).expect("a valid path");
    args.limit = Some(MAX_LIMIT);
    let text = serde_json::to_string(&doc).expect("serializable");
    let by_text = run_query(text.as_bytes(), &args, usize::MAX);
    let by_value = run_query_value(&doc, &args, usize::MAX);
    prop_assert_eq!(&by_text, &by_value, "routes disagree on {}", path);
    let answer: Value = serde_json::from_str(&by_text.expect("runs")).expect("JSON");
    prop_assert!(same(&answer["value"], &expected), "{}: {} vs {}", path, answer["value"], expected);
    prop_assert_eq!(answer["total"].as_u64(), expected.as_array().map(|a| a.len() as u64));
  }
}

/// What the tape hands back to the full read: repeated keys, escaped keys, lone surrogates, big exponents.
#[test]
fn texts_the_tape_leaves_to_the_full_read() {
  let cases = [
    (r#"{"a":[{"k":1,"k":2},{"k":3}]}"#, "$.a[?@.k > 1]"),
    (r#"{"a":{"x":1,"y":2,"x":3}}"#, "$.a.*"),
    (r#"{"a":[{"\u006b":2},{"k":1}]}"#, "$.a[?@.k == 2]"),
    (r#"{"a":[{"k":"\ud800"},{"k":"b"}]}"#, "$.a[?@.k == 'b']"),
    (r#"{"a":[{"k":1e400},{"k":1}]}"#, "$.a[?@.k == 1]"),
    (r#"{"a":[1,2,3]} x"#, "$.a[*]"),
  ];
  for (text, path) in cases {
    let mut args = QueryArgs::new("h", path).expect("a valid path");
    args.limit = Some(MAX_LIMIT);
    let by_text = run_query(text.as_bytes(), &args, usize::MAX);
    match serde_json::from_str::<Value>(text) {
      Ok(doc) => {
        let by_value = run_query_value(&doc, &args, usize::MAX);
        assert_eq!(by_text, by_value, "{text} {path}");
        let expected = JsonPath::parse(path).expect("valid").query(&doc).all();
        let answer: Value = serde_json::from_str(&by_text.expect("runs")).expect("JSON");
        assert_eq!(
          answer["value"],
          Value::Array(expected.into_iter().cloned().collect()),
          "{text} {path}"
        );
      }
      Err(_) => {
        let outcome = by_text.map_err(|e| e.code);
        let repaired_or_refused = outcome.is_ok() || outcome == Err(ErrorCode::InvalidInput);
        assert!(repaired_or_refused, "{text} {path}: {outcome:?}");
      }
    }
  }
}
