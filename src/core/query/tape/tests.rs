//! The tape reads what serde_json reads, and leaves to the full read what it reads differently.

use super::*;
use crate::core::query::eval::count_nodes;
use serde_json::Value;

#[test]
fn builds_what_serde_json_reads_and_nothing_else() {
  let texts = [
    r#"{"a":[1,-2.5e3,"x\"y\u00e9😀",true,false,null,{}],"b":{"c":[]}}"#,
    " [ 1 , [ 2 ] , { \"k\" : \"v\" } ] ",
    "0",
    "\"a\\ud83d\\ude00\"",
    "[1e308,123456789012345678901234567890]",
    "[01]",
    "[1.]",
    "[.5]",
    "[-]",
    "[1e]",
    "[tru]",
    "[nul]",
    "{\"a\" 1}",
    "{\"a\":1,}",
    "[1,]",
    "[1 2]",
    "{1:2}",
    "\"a\u{1}b\"",
    "\"\\x\"",
    "\"\\u12g4\"",
    "[1] [2]",
    "[",
    "\"abc",
    "",
    "{\"a\":1}}",
  ];
  for text in texts {
    let by_serde: Result<Value, _> = serde_json::from_str(text);
    let tape = Tape::build(text);
    assert_eq!(tape.is_some(), by_serde.is_ok(), "{text:?}");
    if let (Some(tape), Ok(value)) = (tape, by_serde) {
      assert_eq!(tape.nodes(), count_nodes(&value), "{text:?}");
      assert_eq!(tape.root().text(), text.trim(), "{text:?}");
    }
  }
}

#[test]
fn leaves_to_the_full_read_what_it_reads_differently() {
  for text in [
    r#"{"a":1,"a":2}"#,
    r#"{"a":1,"\u0061":2}"#,
    r#"["\ud800"]"#,
    r#"["\udc00x"]"#,
    "[1e400]",
  ] {
    assert!(Tape::build(text).is_none(), "{text}");
  }
  let wide: String = (0..40)
    .map(|i| format!("\"k{i}\":{i}"))
    .collect::<Vec<_>>()
    .join(",");
  assert!(Tape::build(&format!("{{{wide}}}")).is_some());
  assert!(Tape::build(&format!("{{{wide},\"k7\":0}}")).is_none());
  let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
  assert!(Tape::build(&deep(MAX_QUERY_DEPTH)).is_some());
  assert!(Tape::build(&deep(MAX_QUERY_DEPTH + 1)).is_none());
}

#[test]
fn a_tape_within_a_reach_counts_every_value_and_records_fewer() {
  let text = r#"{"a":[{"k":1,"deep":{"x":[1,2,{"y":3}]}},{"k":2,"deep":{"x":[],"x":1}}],"b":"s"}"#;
  let whole = Tape::build(text);
  assert!(
    whole.is_none(),
    "a repeated key deep down sends the whole tape to the full read"
  );
  let within = Tape::build_reaching(text, Some(3)).expect("the repeated key is below the reach");
  let value: Value = serde_json::from_str(text).expect("JSON");
  // Every value is counted (the repeated one too), only those within the reach have entries.
  assert_eq!(within.nodes(), count_nodes(&value) + 1);
  assert!(within.entries.len() < within.nodes() as usize);
  assert!(Tape::build_reaching("[1e400]", Some(0)).is_none());
  assert!(Tape::build_reaching(r#"[["\ud800"]]"#, Some(0)).is_none());
}
