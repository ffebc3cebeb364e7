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

/// The tape the certified pass builds is the checking pass's tape, entry for entry, with the same count of values.
fn assert_same_tapes(text: &str) {
  for reach in [Some(0), Some(1), Some(2), Some(3), Some(5), None] {
    let checked = Tape::build_reaching(text, reach);
    let clean = Tape::build_clean(text, reach, &[]);
    assert_eq!(checked.is_some(), clean.is_some(), "{text:?} at {reach:?}");
    if let (Some(checked), Some(clean)) = (checked, clean) {
      assert_eq!(checked.entries, clean.entries, "{text:?} at {reach:?}");
      assert_eq!(checked.nodes(), clean.nodes(), "{text:?} at {reach:?}");
    }
  }
}

#[test]
fn the_certified_pass_builds_the_checking_pass_tape() {
  for text in [
    r#"{"a":[1,-2.5e3,"x\"y\u00e9😀",true,false,null,{}],"b":{"c":[]}}"#,
    " [ 1 , [ 2 , [ ] , { } , [ [ 3 ] ] ] , { \"k\" : \"v\\\\\" , \"m\" : [ {\"z\":[1,2]} ] } ] ",
    r#"{"orders":[{"id":1,"tags":["a","b\"]","c"],"c":{"n":"[{"}},{"id":2,"tags":[],"c":{}}]}"#,
    r#"[[[["deep \\" ,1e5,-0.5E-3,{"a":{"b":[{}]}}]]]]"#,
    "[[[123456789012345678901234567890]]]",
    "0",
    "\"s\"",
    "[]",
  ] {
    assert_same_tapes(text);
  }
}

#[test]
fn the_certified_pass_still_checks_numbers_and_nesting() {
  for reach in [Some(0), Some(1)] {
    assert!(Tape::build_clean("[[1e400]]", reach, &[]).is_none());
    assert!(Tape::build_clean(&format!("[[{}]]", "9".repeat(400)), reach, &[]).is_none());
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(Tape::build_clean(&deep(MAX_QUERY_DEPTH), reach, &[]).is_some());
    assert!(Tape::build_clean(&deep(MAX_QUERY_DEPTH + 1), reach, &[]).is_none());
    let deep_full = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    assert!(Tape::build_clean(&deep_full(MAX_QUERY_DEPTH), reach, &[]).is_some());
    assert!(Tape::build_clean(&deep_full(MAX_QUERY_DEPTH + 1), reach, &[]).is_none());
  }
}

#[test]
fn string_stop_finds_a_stop_at_every_offset_of_a_word_and_a_block() {
  for offset in 0..140 {
    for stop in [b'"', b'\\', b'\n', 0] {
      for filler in [b'a', 0xc3, 0x7f] {
        let mut bytes = vec![filler; 150];
        bytes[offset] = stop;
        for from in [0, offset.saturating_sub(9), offset] {
          assert_eq!(
            string_stop(&bytes, from),
            offset,
            "{offset} {stop} {filler} {from}"
          );
        }
        assert_eq!(string_stop(&bytes, offset + 1), 150);
      }
    }
  }
}

#[test]
fn the_passes_agree_on_strings_with_escapes_at_every_offset() {
  for offset in 0..130 {
    for escape in ["\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "é", "\\n\\\""] {
      let content = format!("{}{escape}{}", "x".repeat(offset), "y".repeat(offset % 7));
      let text = format!(r#"{{"k":[["{content}",{{"{content}":"]"}}],"{content}"],"z":1}}"#);
      assert_same_tapes(&text);
      let tape = Tape::build(&text).expect("JSON");
      assert_eq!(
        tape.nodes(),
        count_nodes(&serde_json::from_str(&text).expect("JSON"))
      );
    }
  }
}

/// Generated JSON for the property tests here and in `pass/tests.rs`.
pub(super) mod generated {
  use super::assert_same_tapes;
  use proptest::prelude::*;
  use serde_json::Value;

  /// Any JSON value, its strings and keys full of what the scans stop at: quotes, backslashes (in runs too), brackets,
  /// digits and exponent letters, control characters, non-ASCII.
  pub(in crate::core::query::tape) fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
      Just(Value::Null),
      any::<bool>().prop_map(Value::Bool),
      any::<i64>().prop_map(Value::from),
      any::<f64>()
        .prop_filter("finite", |f| f.is_finite())
        .prop_map(Value::from),
      "[a-z \"\\\\\\[\\]{},:é\u{1}]{0,8}".prop_map(Value::String),
      // Long ones, so that escapes and quotes fall at every offset of a scanned word or block.
      "[a-z0-9eE. \"\\\\\\[\\]{},:é😀\u{1f}\u{7f}]{0,150}".prop_map(Value::String),
      "\\\\{1,70}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 160, 10, |inner| {
      prop_oneof![
        prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
        prop::collection::vec(("[a-c\"\\\\{]{0,70}", inner), 0..6)
          .prop_map(|members| Value::Object(members.into_iter().collect())),
      ]
    })
  }

  /// The bytes the string scans stop at, and their neighbours.
  fn stringy_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
      Just(b'"'),
      Just(b'\\'),
      Just(0x1f_u8),
      Just(0x20_u8),
      Just(0x21_u8),
      Just(0x5b_u8),
      Just(0x7f_u8),
      Just(0x80_u8),
      Just(0xa2_u8),
      Just(0xdc_u8),
      Just(0xff_u8),
      Just(0_u8),
      any::<u8>(),
    ];
    prop::collection::vec(byte, 0..200)
  }

  proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn string_stop_is_the_first_quote_backslash_or_control(bytes in stringy_bytes(), from in 0usize..210) {
      let naive = (from..bytes.len())
        .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..=0x1f))
        .unwrap_or(bytes.len().max(from));
      prop_assert_eq!(super::string_stop(&bytes, from), naive);
      // Both ways of reading long runs agree up to their last whole step (then `string_stop` goes byte by byte).
      let by_words = super::long_string_stop_by_words(&bytes, from);
      let wide = super::long_string_stop(&bytes, from);
      if naive + 16 <= bytes.len() {
        prop_assert_eq!(wide, naive);
      }
      if naive + 8 <= bytes.len() {
        prop_assert_eq!(by_words, naive);
      }
    }

    #[test]
    fn certified_and_checking_passes_agree(doc in value(), pretty in any::<bool>()) {
      let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
      assert_same_tapes(&text.expect("JSON"));
    }
  }
}

/// A tape that records only the members a query can select by name: the certified pass writes the checking pass's
/// tape, with fewer entries than the full tape, the same count of values and the same selection.
#[test]
fn a_named_tape_selects_what_the_full_tape_selects() {
  use crate::core::query::eval::{Budget, Evaluation};
  use crate::core::query::reach::{names, reach};
  use crate::jsonpath_spec::spec_query;
  let text = r#"{"orders":[{"id":1,"status":"open","amount":700,"customer":{"name":"a","tags":[1]},"tags":["x"]},
    {"id":2,"status":"shut","amount":900,"sku":"s","customer":{},"tags":[]},
    {"id":3,"status":"open","amount":100},[{"status":"open"}],"status"],"status":"open"}"#;
  for path in [
    "$.orders[?@.status=='open' && @.amount > 500]",
    "$.orders[*].sku",
    "$.orders[?@.customer.name]",
    "$.status",
    "$.orders[0].customer.tags[0]",
  ] {
    let query = serde_json_path::JsonPath::parse(path).expect("valid");
    let spec = spec_query(&query);
    let (reach, names) = (reach(spec), names(spec));
    let full = Tape::build_reaching(text, reach).expect("a tape");
    let named = Tape::build_naming(text, reach, &names).expect("a tape");
    let clean = Tape::build_clean_naming(text, reach, &names, &[]).expect("a tape");
    assert_eq!(named.entries, clean.entries, "{path}");
    assert_eq!(named.nodes(), full.nodes(), "{path}");
    assert!(named.entries.len() < full.entries.len(), "{path}");
    let select = |tape: &Tape| -> Vec<String> {
      let budget = Budget::for_nodes(tape.nodes());
      let matches = Evaluation::new(tape.root(), budget)
        .select(spec)
        .expect("runs");
      matches
        .into_iter()
        .map(|node| node.text().to_owned())
        .collect()
    };
    assert_eq!(select(&named), select(&full), "{path}");
  }
  // A key with an escape may spell a selected name: it is recorded, so the repeat still goes to the full read.
  let repeated = r#"{"a":[{"status":1,"st\u0061tus":2}]}"#;
  let query = serde_json_path::JsonPath::parse("$.a[?@.status]").expect("valid");
  let names = names(spec_query(&query));
  assert!(Tape::build_naming(repeated, Some(3), &names).is_none());
}

/// A key repeated in an object a descendant segment looks into, once holding a container and once a scalar: the
/// last value wins at the first place, as `JSON.parse` reads it, so the container's members are never selected.
/// (A tape recording the container but not the scalar beside it would select them.)
#[test]
fn a_key_repeated_as_container_and_scalar_reads_as_json_parse_reads_it() {
  use crate::core::query::{run_query, QueryArgs};
  let texts = [
    r#"{"a":{"x":{"tags":[1,2,3]}},"b":{"tags":[4,5,6]},"a":5}"#,
    r#"{"a":5,"b":{"tags":[4,5,6]},"a":{"x":{"tags":[1,2,3]}}}"#,
    r#"[{"a":{"tags":[1,2,3]},"n":1,"a":"s"},{"a":null,"tags":[7,8,9],"a":{"tags":[0,0,0]}}]"#,
  ];
  for text in texts {
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    for path in ["$..tags[2]", "$..tags", "$..a.tags"] {
      let args = QueryArgs::new("h", path).expect("a valid path");
      let ours: serde_json::Value =
        serde_json::from_str(&run_query(text.as_bytes(), &args, 100_000).expect("answers"))
          .expect("JSON");
      let expected = serde_json_path::JsonPath::parse(path)
        .expect("valid")
        .query(&value)
        .all();
      let expected: Vec<&serde_json::Value> = expected;
      assert_eq!(
        ours["value"]
          .as_array()
          .expect("a list")
          .iter()
          .collect::<Vec<_>>(),
        expected,
        "{path} on {text}"
      );
    }
  }
}

/// A member is found by its name whatever surrounds its key: blanks before or after the colon, a key that is a prefix
/// of the name or the name with a quote after it, escapes; as serde_json_path finds it on the parsed value.
#[test]
fn members_are_found_by_name_however_their_keys_are_spelled() {
  use crate::core::query::{run_query, QueryArgs};
  let texts = [
    r#"{"a":1,"a\"":2,"ab":3,"abc":4,"\u0061b":5,"x":{"a\"b":6,"ab" :7,"b": 8}}"#,
    r#"{ "ab" : 1 , "a" :2,"a\"" : 3, "x" : {"ab":4, "a\"b" :5} }"#,
    r#"[{"a":{"ab":1}},{"ab":{"a":2}},{"a\"":{"ab":3}},{"\"":4,"":5}]"#,
  ];
  let paths = [
    "$.a",
    "$.ab",
    "$['a\"']",
    "$['a\"b']",
    "$.x.ab",
    "$.x['a\"b']",
    "$.x.b",
    "$..ab",
    "$..a",
    "$..['a\"']",
    "$[*].ab",
    "$..['']",
    "$..['\"']",
    "$[?@.ab]",
    "$..[?@.a]",
  ];
  for text in texts {
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    for path in paths {
      let args = QueryArgs::new("h", path).expect("a valid path");
      let expected: Vec<&serde_json::Value> = serde_json_path::JsonPath::parse(path)
        .expect("valid")
        .query(&value)
        .all();
      // A singular path that names nothing is an error, not an empty list.
      let Ok(ours) = run_query(text.as_bytes(), &args, 100_000) else {
        assert!(expected.is_empty(), "{path} on {text}");
        continue;
      };
      let ours: serde_json::Value = serde_json::from_str(&ours).expect("JSON");
      let ours = match &ours["value"] {
        serde_json::Value::Array(items) => items.iter().collect::<Vec<_>>(),
        single => vec![single],
      };
      assert_eq!(ours, expected, "{path} on {text}");
    }
  }
}

/// A filter comparing a node with a literal decides from the node as it lies on the tape (no atom built) exactly
/// as from the parsed value's atom: every kind of node against every kind of literal, each operator, either way
/// round.
#[test]
fn literal_comparisons_on_the_tape_decide_as_on_the_parsed_value() {
  use crate::core::query::eval::{Budget, Evaluation};
  use crate::jsonpath_spec::spec_query;
  let text = r#"[0,-0,1,500,501,499.5,5e2,1e21,-1,12345678901234567890,0.1,1.0e-7,"open","opem","open ","",
    "\u006fpen","a\"b","é","😀",true,false,null,[],[1],{},{"a":1}]"#;
  let value: Value = serde_json::from_str(text).expect("JSON");
  let tape = Tape::build(text).expect("a tape");
  let literals = [
    "500",
    "0",
    "-0",
    "1e21",
    "0.1",
    "499.5",
    "12345678901234567890",
    "'open'",
    "'opem'",
    "''",
    "'é'",
    "'😀'",
    "'a\"b'",
    "true",
    "false",
    "null",
  ];
  let mut decided = 0;
  for literal in literals {
    for op in ["==", "!=", "<", "<=", ">", ">="] {
      for path in [
        format!("$[?@ {op} {literal}]"),
        format!("$[?{literal} {op} @]"),
      ] {
        let query = serde_json_path::JsonPath::parse(&path).expect("valid");
        let spec = spec_query(&query);
        let on_tape: Vec<String> = Evaluation::new(tape.root(), Budget::for_nodes(tape.nodes()))
          .select(spec)
          .expect("runs")
          .into_iter()
          .map(|node| {
            serde_json::from_str::<Value>(node.text())
              .expect("JSON")
              .to_string()
          })
          .collect();
        let on_value: Vec<String> = Evaluation::new(&value, Budget::for_nodes(1_000))
          .select(spec)
          .expect("runs")
          .into_iter()
          .map(Value::to_string)
          .collect();
        assert_eq!(on_tape, on_value, "{path}");
        decided += on_tape.len();
      }
    }
  }
  assert!(decided > 500, "{decided} nodes selected in all");
}
