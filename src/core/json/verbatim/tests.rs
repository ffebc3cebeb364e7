use proptest::prelude::*;
use serde_json::Value;

use super::prints_as_written;
use crate::core::fold::canonical_json;
use crate::core::json::write::write_value;

/// What the long way prints for `text`: serde_json's parse, then the writer.
fn printed(text: &str) -> String {
  let value: Value = serde_json::from_str(text).expect("JSON");
  let mut out = String::new();
  write_value(&mut out, &value, None);
  out
}

#[test]
fn texts_the_writer_prints_as_they_are_pass_and_print_the_same() {
  for text in [
    r#"{"id":7,"status":"open","amount":512.25,"sku":"SKU-7","customer":{"name":"Ann","tags":["new","eu"]}}"#,
    "[\"a\\\"b\\\\c\\nd\\te\\rf\\bg\\fh\",\"é€😀\u{2028}\u{7f}\",true,false,null,[],{}]",
    "[0,-1,123456789012345,-123456789012345,0.5,-0.5,1.25,10.05,0.000001,0.0000012345,123456789.012345]",
    r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"":0,"x1":"1"}"#,
    r#""a string alone, with a / in it""#,
    "42",
  ] {
    assert!(prints_as_written(text), "{text}");
    assert_eq!(printed(text), text);
    assert_eq!(canonical_json(text).as_deref(), Some(text), "JSON.stringify(JSON.parse(text))");
  }
}

#[test]
fn what_the_writer_would_print_otherwise_takes_the_long_way() {
  for text in [
    // Blanks.
    r#"{"a": 1}"#,
    "[1, 2]",
    " 1",
    // Numbers JS spells otherwise, or that this look does not vouch for.
    "1.0",
    "1.50",
    "-0",
    "0.0000001",
    "1e5",
    "1E-7",
    "1234567890123456",
    "0.1234567890123456",
    // Escapes JS does not write, or may write otherwise.
    r#""a\/b""#,
    r#""\u0041""#,
    r#""\u001f""#,
    // A repeated key, at the top and deeper down; a key JS would move to the front.
    r#"{"a":1,"a":2}"#,
    r#"[{"a":{"b":1,"c":2,"b":3}}]"#,
    r#"{"b":1,"0":2}"#,
  ] {
    assert!(!prints_as_written(text), "{text}");
  }
  let many_keys: Vec<String> = (0..65).map(|i| format!("\"k{i}\":{i}")).collect();
  assert!(!prints_as_written(&format!("{{{}}}", many_keys.join(","))));
  assert!(prints_as_written(&format!(
    "{{{}}}",
    many_keys[..64].join(",")
  )));
  assert!(!prints_as_written(&format!(
    "{}0{}",
    "[".repeat(65),
    "]".repeat(65)
  )));
  assert!(prints_as_written(&format!(
    "{}0{}",
    "[{\"a\":".repeat(32),
    "}]".repeat(32)
  )));
}

#[test]
fn a_key_repeated_in_another_object_is_no_repeat() {
  let text = r#"{"a":{"a":1,"b":{"a":2,"b":3}},"b":[{"a":1,"b":2},{"b":1,"a":2}]}"#;
  assert!(prints_as_written(text));
  assert_eq!(printed(text), text);
}

/// A JSON text spelled any of several ways: blanks or none, numbers as JS or otherwise, characters escaped or
/// not, keys from a small set (so that some repeat, and some are array indices).
fn spelled() -> impl Strategy<Value = String> {
  let number = prop_oneof![
    4 => any::<i32>().prop_map(|n| n.to_string()),
    1 => any::<i64>().prop_map(|n| n.to_string()),
    2 => any::<f64>()
      .prop_filter("finite", |f| f.is_finite())
      .prop_map(|f| ryu_js::Buffer::new().format_finite(f).to_string()),
    1 => any::<f64>()
      .prop_filter("finite", |f| f.is_finite())
      .prop_map(|f| format!("{f:e}")),
    2 => ("-?(0|[1-9][0-9]{0,9})", "[0-9]{0,9}").prop_map(|(i, f)| format!("{i}.{f}1")),
    2 => ("-?0", "0{0,8}[1-9]{1,9}").prop_map(|(i, f)| format!("{i}.{f}")),
    1 => Just("-0".to_string()),
    1 => Just("1.0".to_string()),
  ];
  let piece = prop_oneof![
    8 => Just("a".to_string()),
    4 => Just("é😀".to_string()),
    4 => Just("\\\"".to_string()),
    4 => Just("\\\\".to_string()),
    4 => Just("\\n".to_string()),
    1 => Just("\\/".to_string()),
    1 => Just("\\u0041".to_string()),
    1 => Just("\\u001f".to_string()),
    1 => Just("/".to_string()),
  ];
  let string =
    prop::collection::vec(piece, 0..4).prop_map(|pieces| format!("\"{}\"", pieces.concat()));
  let leaf = prop_oneof![
    4 => number,
    4 => string,
    1 => Just("true".to_string()),
    1 => Just("null".to_string())
  ];
  let blank = prop_oneof![16 => Just(""), 1 => Just(" "), 1 => Just("\n")];
  leaf.prop_recursive(4, 64, 6, move |inner| {
    let key = prop_oneof![
      4 => Just("a"),
      4 => Just("b"),
      4 => Just("c"),
      4 => Just("d"),
      1 => Just("0"),
      1 => Just("7x"),
      2 => Just("a\\\"")
    ];
    prop_oneof![
      (prop::collection::vec(inner.clone(), 0..6), blank.clone())
        .prop_map(|(items, blank)| format!("[{blank}{}]", items.join(","))),
      (prop::collection::vec((key, inner), 0..5), blank.clone()).prop_map(|(members, blank)| {
        let members: Vec<String> = members
          .into_iter()
          .map(|(key, value)| format!("\"{key}\":{blank}{value}"))
          .collect();
        format!("{{{}}}", members.join(","))
      }),
    ]
  })
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(2048))]

  /// Whatever passes prints back byte for byte, through serde_json and the writer and as JS would print it.
  #[test]
  fn whatever_passes_prints_as_written(text in spelled()) {
    prop_assume!(serde_json::from_str::<Value>(&text).is_ok());
    if prints_as_written(&text) {
      prop_assert_eq!(printed(&text), text.clone());
      prop_assert_eq!(canonical_json(&text), Some(text));
    }
  }
}
