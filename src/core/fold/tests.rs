use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

const HANDLE: &str = "0b0f6a5e-8a3c-4a8e-9a55-3f1c2d4e5f60";

fn settings(threshold_bytes: usize, preview_items: usize, preview_chars: usize) -> FoldSettings {
  FoldSettings {
    threshold_bytes,
    preview_items,
    preview_chars,
  }
}

fn folded(source: AnswerSource<'_>, settings: &FoldSettings) -> FoldedAnswer {
  match fold_answer(source, settings).expect("folds") {
    FoldOutcome::Folded(answer) => answer,
    FoldOutcome::Whole { bytes } => panic!("expected a fold, got whole ({bytes} bytes)"),
  }
}

/// Folds and checks the bound and that the envelope is JSON; returns (preview, shape) as values.
fn fold_checked(json: &str, s: &FoldSettings) -> (Value, Value) {
  let answer = folded(AnswerSource::Json(json), s);
  let envelope = folded_json(&answer.preview_json, &answer.shape_json, HANDLE);
  assert!(
    envelope.len() <= s.threshold_bytes,
    "folded {} bytes > threshold {}",
    envelope.len(),
    s.threshold_bytes
  );
  let value: Value = serde_json::from_str(&envelope).expect("the folded answer is JSON");
  assert_eq!(value["handle"], HANDLE);
  (value["preview"].clone(), value["shape"].clone())
}

fn seed() -> Value {
  let orders: Vec<Value> = (0..500)
    .map(|i| json!({"id": i, "status": if i % 2 == 1 { "shipped" } else { "open" }}))
    .collect();
  json!({"orders": orders, "total": 500})
}

const SEED_PREVIEW: &str =
  r#"{"orders":[{"id":0,"status":"open"},{"id":1,"status":"shipped"}],"total":500}"#;
const SEED_SHAPE: &str = r#"{"type":"object","keys":{"orders":{"type":"array","length":500,"items":{"type":"object","keys":{"id":{"type":"number"},"status":{"type":"string","length":4}}}},"total":{"type":"number"}}}"#;

// ─── the seed example ───────────────────────────────────────────────────────

#[test]
fn seed_example_is_byte_exact() {
  let json = seed().to_string();
  let answer = folded(AnswerSource::Json(&json), &settings(1024, 2, 500));
  assert_eq!(answer.bytes, json.len());
  assert_eq!(answer.preview_json, SEED_PREVIEW);
  assert_eq!(answer.shape_json, SEED_SHAPE);
  assert_eq!(answer.canonical_json, None);
  let text = serde_json::to_string_pretty(&seed()).expect("pretty");
  let from_text = folded(AnswerSource::Text(&text), &settings(1024, 2, 500));
  assert_eq!(from_text.preview_json, SEED_PREVIEW);
  assert_eq!(from_text.shape_json, SEED_SHAPE);
  assert_eq!(
    from_text.bytes,
    json.len(),
    "text is measured as JSON.stringify(JSON.parse(text))"
  );
  assert_eq!(from_text.canonical_json.as_deref(), Some(json.as_str()));
  assert_eq!(
    folded_json(&answer.preview_json, &answer.shape_json, HANDLE),
    format!("{{\"preview\":{SEED_PREVIEW},\"shape\":{SEED_SHAPE},\"handle\":\"{HANDLE}\"}}")
  );
}

#[test]
fn at_or_below_the_threshold_the_answer_stays_whole() {
  let json = seed().to_string();
  let exact = settings(json.len(), 5, 500);
  assert_eq!(
    fold_answer(AnswerSource::Json(&json), &exact).expect("ok"),
    FoldOutcome::Whole { bytes: json.len() }
  );
  assert!(matches!(
    fold_answer(AnswerSource::Json(&json), &settings(json.len() - 1, 5, 500)).expect("ok"),
    FoldOutcome::Folded(_)
  ));
  let small = settings(1024, 5, 500);
  assert_eq!(
    fold_answer(AnswerSource::Text("hello"), &small).expect("ok"),
    FoldOutcome::Whole { bytes: 7 }
  );
}

#[test]
fn thresholds_below_the_minimum_are_refused() {
  let error = fold_answer(AnswerSource::Json("[]"), &settings(1023, 5, 500)).expect_err("refused");
  assert_eq!(error.code, ErrorCode::InvalidInput);
}

#[test]
fn invalid_json_answers_are_refused_without_quoting_them() {
  let json = format!("[\"secret-{}\",]", "x".repeat(2000));
  let error = fold_answer(AnswerSource::Json(&json), &settings(1024, 5, 500)).expect_err("refused");
  assert_eq!(error.code, ErrorCode::InvalidInput);
  assert!(!error.full_message().contains("secret"));
}

// ─── text answers ───────────────────────────────────────────────────────────

#[test]
fn text_that_is_not_a_json_object_or_array_is_a_string() {
  let s = settings(1024, 5, 10);
  for text in [
    "42".repeat(600),
    format!("\"{}\"", "q".repeat(1200)),
    format!("{{ not json {}", "z".repeat(1200)),
  ] {
    let answer = folded(AnswerSource::Text(&text), &s);
    let units = text.encode_utf16().count();
    assert_eq!(
      answer.shape_json,
      format!("{{\"type\":\"string\",\"length\":{units}}}")
    );
    let expected = serde_json::to_string(&text).expect("quoted");
    assert_eq!(answer.canonical_json.as_deref(), Some(expected.as_str()));
    assert_eq!(answer.bytes, expected.len());
    let preview: String = serde_json::from_str(&answer.preview_json).expect("a JSON string");
    assert_eq!(preview, text.chars().take(10).collect::<String>());
  }
}

#[test]
fn text_is_measured_as_json_stringify_quotes_it() {
  let text = format!("line\n\"quoted\"\\ tab\t\u{1} é 😀 {}", "x".repeat(1100));
  let answer = folded(AnswerSource::Text(&text), &settings(1024, 5, 8));
  assert_eq!(
    answer.bytes,
    serde_json::to_string(&text).expect("quoted").len()
  );
  assert_eq!(
    answer.preview_json, "\"line\\n\\\"qu\"",
    "8 units: line, newline, quote, qu"
  );
}

#[test]
fn text_that_is_json_is_canonicalized_like_json_parse_then_stringify() {
  let text = format!(
    "  {{ \"b\": 1E2, \"2\": [true, null, -0.0], \"a\": \"\\u00e9\\ud83d\\ude00\", \"pad\": \"{}\" }}\n",
    "p".repeat(1100)
  );
  let answer = folded(AnswerSource::Text(&text), &settings(1024, 5, 3));
  let canonical = format!(
    "{{\"2\":[true,null,0],\"b\":100,\"a\":\"é😀\",\"pad\":\"{}\"}}",
    "p".repeat(1100)
  );
  assert_eq!(answer.canonical_json.as_deref(), Some(canonical.as_str()));
  assert_eq!(answer.bytes, canonical.len());
  assert_eq!(
    answer.preview_json,
    "{\"2\":[true,null,0],\"b\":100,\"a\":\"é😀\",\"pad\":\"ppp\"}"
  );
}

// ─── preview and shape rules ────────────────────────────────────────────────

#[test]
fn preview_and_shape_apply_at_every_depth() {
  let answer = json!({
    "a": [[1, 2, 3], [4, 5, 6], [7]],
    "b": {"c": {"d": ["abcdef", "ghijkl", "mnopqr"]}},
    "pad": "x".repeat(5000)
  });
  let (preview, shape) = fold_checked(&answer.to_string(), &settings(4096, 2, 4));
  assert_eq!(
    preview,
    json!({"a": [[1, 2], [4, 5]], "b": {"c": {"d": ["abcd", "ghij"]}}, "pad": "xxxx"})
  );
  assert_eq!(
    shape,
    json!({"type": "object", "keys": {
      "a": {"type": "array", "length": 3, "items": {"type": "array", "length": 3, "items": {"type": "number"}}},
      "b": {"type": "object", "keys": {"c": {"type": "object", "keys": {"d":
        {"type": "array", "length": 3, "items": {"type": "string", "length": 6}}}}}},
      "pad": {"type": "string", "length": 5000}
    }})
  );
}

#[test]
fn keys_keep_the_answer_order_and_empty_containers_are_described() {
  let answer = format!(
    "{{\"z\":[],\"y\":{{}},\"x\":null,\"w\":false,\"v\":\"{}\"}}",
    "v".repeat(1100)
  );
  let answer = folded(AnswerSource::Json(&answer), &settings(1024, 5, 1));
  assert_eq!(
    answer.shape_json,
    "{\"type\":\"object\",\"keys\":{\"z\":{\"type\":\"array\",\"length\":0},\"y\":{\"type\":\"object\",\"keys\":{}},\
     \"x\":{\"type\":\"null\"},\"w\":{\"type\":\"boolean\"},\"v\":{\"type\":\"string\",\"length\":1100}}}"
  );
  assert_eq!(
    answer.preview_json,
    "{\"z\":[],\"y\":{},\"x\":null,\"w\":false,\"v\":\"v\"}"
  );
}

#[test]
fn lists_of_mixed_types_use_any_of_with_the_first_item_of_each_type() {
  let mut items = vec![json!(1), json!("ab"), json!(null), json!(2)];
  items.extend((0..300).map(|i| json!(i)));
  items.push(json!({"k": true}));
  items.push(json!([1, 2]));
  let (preview, shape) = fold_checked(&Value::Array(items).to_string(), &settings(1024, 3, 500));
  assert_eq!(preview, json!([1, "ab", null]));
  assert_eq!(
    shape,
    json!({"type": "array", "length": 306, "items": {"anyOf": [
      {"type": "number"},
      {"type": "string", "length": 2},
      {"type": "null"},
      {"type": "object", "keys": {"k": {"type": "boolean"}}},
      {"type": "array", "length": 2, "items": {"type": "number"}}
    ]}})
  );
}

#[test]
fn object_items_merge_their_keys_and_mark_the_optional_ones() {
  let mut items: Vec<Value> = (0..200).map(|i| json!({"id": i, "name": "n"})).collect();
  items[150] = json!({"id": 150, "extra": [1], "name": "n"});
  items[199] = json!({"name": "last"});
  let (_, shape) = fold_checked(&Value::Array(items).to_string(), &settings(1024, 2, 500));
  assert_eq!(
    shape,
    json!({"type": "array", "length": 200, "items": {"type": "object", "keys": {
      "id": {"type": "number", "optional": true},
      "name": {"type": "string", "length": 1},
      "extra": {"type": "array", "length": 1, "items": {"type": "number"}, "optional": true}
    }}})
  );
}

#[test]
fn merged_keys_list_array_indices_first_as_js_objects_do() {
  let mut items: Vec<Value> = (0..200).map(|i| json!({"b": i})).collect();
  items[50] = json!({"b": 1, "10": true, "a": null, "2": "x"});
  let (_, shape) = fold_checked(&Value::Array(items).to_string(), &settings(1024, 1, 5));
  let keys: Vec<&String> = shape["items"]["keys"]
    .as_object()
    .map(|keys| keys.keys().collect())
    .unwrap_or_default();
  assert_eq!(keys, ["2", "10", "b", "a"]);
}

#[test]
fn surrogate_pairs_are_never_split_and_lone_surrogates_stay_escaped() {
  let json = format!(
    "[\"ab\\ud83d\\ude00cd\",\"a😀\",\"\\ud800x\",\"\\udc00\",\"{}\"]",
    "x".repeat(1100)
  );
  let answer = folded(AnswerSource::Json(&json), &settings(1024, 5, 3));
  assert_eq!(
    answer.preview_json,
    "[\"ab\",\"a😀\",\"\\ud800x\",\"\\udc00\",\"xxx\"]"
  );
  let answer = folded(AnswerSource::Json(&json), &settings(1024, 5, 1));
  assert_eq!(
    answer.preview_json,
    "[\"a\",\"a\",\"\\ud800\",\"\\udc00\",\"x\"]"
  );
  let list: Vec<u8> = answer.shape_json.bytes().collect();
  assert!(
    answer.shape_json.contains("\"length\":6"),
    "{}",
    String::from_utf8_lossy(&list)
  );
}

// ─── the bound ──────────────────────────────────────────────────────────────

fn assert_bounded(json: &str, thresholds: &[usize]) -> Vec<(Value, Value)> {
  thresholds
    .iter()
    .map(|&threshold| fold_checked(json, &settings(threshold, 5, 500)))
    .collect()
}

#[test]
fn a_hundred_thousand_keys_are_summarized() {
  let members: Vec<String> = (0..100_000).map(|i| format!("\"key{i}\":{i}")).collect();
  let json = format!("{{{}}}", members.join(","));
  for (preview, shape) in assert_bounded(&json, &[1024, 16_384, 100_000]) {
    assert_eq!(shape["type"], "object");
    assert_eq!(shape["keyCount"], 100_000);
    assert_eq!(shape["truncated"], true);
    assert!(shape["note"]
      .as_str()
      .unwrap_or("")
      .contains("result_query"));
    assert_eq!(preview["key0"], 0, "the first keys are shown");
  }
}

#[test]
fn dynamic_key_maps_of_records_are_summarized() {
  let members: Vec<String> = (0..20_000)
    .map(|i| {
      format!("\"user-{i:05}\":{{\"name\":\"User {i}\",\"roles\":[\"a\",\"b\"],\"age\":{i}}}")
    })
    .collect();
  let json = format!("{{\"users\":{{{}}},\"count\":20000}}", members.join(","));
  for (_, shape) in assert_bounded(&json, &[1024, 4096, 16_384]) {
    assert_eq!(shape["keys"]["users"]["keyCount"], 20_000);
  }
}

#[test]
fn ten_thousand_levels_deep_are_measured_and_folded() {
  for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
    let json = format!("{}1{}", open.repeat(10_000), close.repeat(10_000));
    for threshold in [1024, 16_384] {
      let answer = folded(AnswerSource::Json(&json), &settings(threshold, 5, 500));
      let envelope = folded_json(&answer.preview_json, &answer.shape_json, HANDLE);
      assert!(envelope.len() <= threshold);
      // Deeper than serde_json's own limit: check it with the scanner.
      let mut scanner = crate::core::json::scan::Scanner::new(&envelope);
      while scanner
        .next_event()
        .expect("the folded answer is JSON")
        .is_some()
      {}
      assert!(answer.shape_json.contains("\"truncated\":true"));
      assert!(answer.shape_json.contains("\"note\":\""));
    }
    let text = format!(" {} ", json);
    let answer = folded(AnswerSource::Text(&text), &settings(1024, 5, 500));
    assert_eq!(answer.bytes, json.len());
  }
}

#[test]
fn huge_strings_are_cut_to_fit() {
  let json = serde_json::to_string(&"é😀".repeat(2_000_000)).expect("quoted");
  for (preview, shape) in assert_bounded(&json, &[1024, 16_384]) {
    assert_eq!(shape["length"], 6_000_000);
    assert!(preview.as_str().is_some_and(|s| s.starts_with("é😀")));
  }
  let mut settings_big_chars = settings(1024, 5, 1_000_000);
  settings_big_chars.preview_items = 10_000;
  fold_checked(&json, &settings_big_chars);
}

#[test]
fn wide_lists_of_wide_objects_fit() {
  let row: Vec<String> = (0..300)
    .map(|i| format!("\"column_{i}\":\"value {i}\""))
    .collect();
  let row = format!("{{{}}}", row.join(","));
  let json = format!("[{}]", vec![row; 400].join(","));
  for (preview, shape) in assert_bounded(&json, &[1024, 16_384, 65_536]) {
    assert_eq!(shape["length"], 400);
    assert!(preview.as_array().is_some_and(|items| !items.is_empty()));
  }
}

#[test]
fn very_long_keys_are_left_out_and_marked() {
  let key = "k".repeat(5000);
  let json = format!("{{\"{key}\":1,\"short\":\"{}\"}}", "s".repeat(2000));
  let (preview, shape) = fold_checked(&json, &settings(4096, 5, 100));
  assert_eq!(preview, json!({"short": "s".repeat(100)}));
  assert_eq!(shape["keyCount"], 2);
  assert_eq!(shape["truncated"], true);
}

// ─── properties ─────────────────────────────────────────────────────────────

fn arb_string() -> impl Strategy<Value = String> {
  prop_oneof![
    "[a-z]{0,12}",
    "[\\x00-\\x20\"\\\\/é€😀\u{2028}]{0,8}",
    Just("x".repeat(3000)),
  ]
}

fn arb_json() -> impl Strategy<Value = Value> {
  let leaf = prop_oneof![
    Just(Value::Null),
    any::<bool>().prop_map(Value::Bool),
    any::<i64>().prop_map(|n| json!(n)),
    any::<f64>()
      .prop_filter("finite", |f| f.is_finite())
      .prop_map(|f| json!(f)),
    arb_string().prop_map(Value::String),
  ];
  leaf.prop_recursive(6, 400, 40, |inner| {
    prop_oneof![
      prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
      prop::collection::vec((arb_string(), inner), 0..40)
        .prop_map(|members| { Value::Object(members.into_iter().collect()) }),
    ]
  })
}

/// A JSON text with the same value but other spelling: whitespace and escaped characters.
fn respell(json: &str) -> String {
  let mut out = String::with_capacity(json.len() * 2);
  let mut in_string = false;
  let mut escaped = false;
  let mut copy_raw = 0;
  for c in json.chars() {
    if in_string {
      if copy_raw > 0 {
        copy_raw -= 1;
        out.push(c);
      } else if escaped {
        escaped = false;
        if c == 'u' {
          copy_raw = 4;
        }
        out.push(c);
      } else if c == '\\' {
        escaped = true;
        out.push(c);
      } else if c == '"' {
        in_string = false;
        out.push(c);
      } else {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
          out.push_str(&format!("\\u{unit:04X}"));
        }
      }
    } else {
      if c == '"' {
        in_string = true;
      }
      out.push(c);
      if matches!(c, ',' | ':' | '[' | '{') {
        out.push_str(" \n\t");
      }
    }
  }
  out
}

proptest! {
  #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

  #[test]
  fn folded_size_never_exceeds_the_threshold(
    value in arb_json(),
    threshold in 1024usize..20_000,
    items in 1usize..8,
    chars in 1usize..600,
  ) {
    let json = value.to_string();
    let s = settings(threshold, items, chars);
    match fold_answer(AnswerSource::Json(&json), &s).expect("folds") {
      FoldOutcome::Whole { bytes } => prop_assert!(bytes <= threshold),
      FoldOutcome::Folded(answer) => {
        let envelope = folded_json(&answer.preview_json, &answer.shape_json, HANDLE);
        prop_assert!(envelope.len() <= threshold, "{} > {}", envelope.len(), threshold);
        prop_assert!(serde_json::from_str::<Value>(&envelope).is_ok());
      }
    }
  }

  #[test]
  fn respelled_text_measures_and_folds_like_its_json(value in arb_json(), threshold in 1024usize..8000) {
    prop_assume!(value.is_object() || value.is_array());
    let json = value.to_string();
    // serde_json prints some floats differently from JS; compare against our own canonical form.
    let canonical = canonical::canonicalize(&json).expect("valid");
    let text = respell(&json);
    let s = settings(threshold, 3, 50);
    let from_text = fold_answer(AnswerSource::Text(&text), &s).expect("folds");
    let from_json = fold_answer(AnswerSource::Json(&canonical), &s).expect("folds");
    match (from_text, from_json) {
      (FoldOutcome::Whole { bytes: a }, FoldOutcome::Whole { bytes: b }) => prop_assert_eq!(a, b),
      (FoldOutcome::Folded(a), FoldOutcome::Folded(b)) => {
        prop_assert_eq!(a.bytes, b.bytes);
        prop_assert_eq!(a.preview_json, b.preview_json);
        prop_assert_eq!(a.shape_json, b.shape_json);
        prop_assert_eq!(a.canonical_json, Some(canonical));
      }
      (a, b) => prop_assert!(false, "outcomes differ: {:?} vs {:?}", a, b),
    }
  }
}

proptest! {
  #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

  /// Garbage in: an error or a bounded fold, never a panic.
  #[test]
  fn any_text_folds_or_is_refused_without_panicking(
    text in "[\\[\\]{}\",:0-9a-z\\\\ .eE+\\-]{0,40}",
    repeat in 1usize..200,
  ) {
    let text = text.repeat(repeat);
    let s = settings(1024, 2, 8);
    for source in [AnswerSource::Json(&text), AnswerSource::Text(&text)] {
      if let Ok(FoldOutcome::Folded(answer)) = fold_answer(source, &s) {
        prop_assert!(folded_json(&answer.preview_json, &answer.shape_json, HANDLE).len() <= 1024);
      }
    }
  }
}
