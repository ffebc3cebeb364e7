//! The fit's tests, with the readers the fast paths replaced kept for comparison: `decodes_to` (decode, then
//! compare) for the literal comparison, `ReferenceBlock` (each block parsed alone) for the lenient block reader,
//! and `reference_inspect` (the reading before both) for `inspect` as a whole.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::guide::{example_call, member_path};
use super::inspect::{decode, literal_decodes_to, repeats};
use super::readers::{Entries, LenientBlock};
use super::*;

fn verdict(json: &str) -> Verdict<'_> {
  inspect(json, None).verdict
}

fn passes(json: &str, reason: PassReason) {
  assert_eq!(verdict(json), Verdict::Pass(reason), "{json}");
}

/// The split form of `result_json` (as the hosts' fast path sends it): the result without `content` and
/// `structuredContent`, and its answer.
fn split_verdict(result_json: &str) -> Option<Verdict<'static>> {
  let value: Value = serde_json::from_str(result_json).ok()?;
  let mut envelope = value.as_object()?.clone();
  let content = envelope.remove("content")?;
  let structured = envelope
    .remove("structuredContent")
    .filter(|v| !v.is_null());
  let blocks = content.as_array()?;
  let text = match blocks.as_slice() {
    [] => None,
    [block] if block["type"] == "text" => Some(block["text"].as_str()?.to_string()),
    _ => return None,
  };
  let envelope_json = Value::Object(envelope).to_string();
  let structured_json = structured.map(|v| v.to_string());
  let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
  let answer = match (structured_json, text) {
    (Some(json), text) => SeparateAnswer::Structured {
      json: leak(json.clone()),
      text: text.filter(|text| *text != json).map(leak),
    },
    (None, Some(text)) => SeparateAnswer::Text(leak(text)),
    (None, None) => return None,
  };
  Some(inspect_parts(&envelope_json, answer, None).verdict)
}

#[test]
fn the_split_form_decides_as_the_whole_result_does() {
  let cases = [
    r#"{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}"#,
    r#"{"content":[{"type":"text","text":"{ \"a\": [1, 2.0] }"}],"structuredContent":{"a":[1,2]}}"#,
    r#"{"content":[{"type":"text","text":"{\"b\":1,\"a\":[1,2]}"}],"structuredContent":{"a":[1,2],"b":1}}"#,
    r#"{"content":[{"type":"text","text":"Found 2"}],"structuredContent":{"a":[1,2]}}"#,
    r#"{"content":[],"structuredContent":{"a":1}}"#,
    r#"{"content":[{"type":"text","text":"plain"}]}"#,
    r#"{"content":[{"type":"text","text":"{\"a\":1}"}],"isError":true}"#,
    r#"{"content":[{"type":"text","text":"x"}],"_meta":{"ui/html":"<p>"}}"#,
    r#"{"content":[{"type":"text","text":"x"}],"_meta":{"frontmcp/result-handle":{}}}"#,
  ];
  for case in cases {
    let whole = verdict(case);
    let split = split_verdict(case).expect("splits");
    let same = match (&whole, &split) {
      (Verdict::Pass(a), Verdict::Pass(b)) => a == b,
      (Verdict::Candidate(Answer::Structured(a)), Verdict::Candidate(Answer::Structured(b))) => {
        a == b
      }
      (Verdict::Candidate(Answer::Text(a)), Verdict::Candidate(Answer::Text(b))) => a == b,
      _ => false,
    };
    assert!(same, "{case}: {whole:?} vs {split:?}");
  }
  // An envelope that still holds content or structuredContent is not the split form.
  let both = inspect_parts(r#"{"content":[]}"#, SeparateAnswer::Text("x"), None);
  assert_eq!(both.verdict, Verdict::Pass(PassReason::NotACallToolResult));
}

#[test]
fn a_single_text_is_the_answer() {
  let json = r#"{"content":[{"type":"text","text":"{\"a\":1}"}]}"#;
  assert_eq!(
    verdict(json),
    Verdict::Candidate(Answer::Text(Cow::Borrowed("{\"a\":1}")))
  );
  let plain = r#"{"content":[{"type":"text","text":"hello"}]}"#;
  assert_eq!(
    verdict(plain),
    Verdict::Candidate(Answer::Text(Cow::Borrowed("hello")))
  );
}

#[test]
fn structured_content_alone_is_the_answer_as_its_raw_slice() {
  let json = r#"{"content":[],"structuredContent":{"b":[1,2.5,"é"],"a":null}}"#;
  assert_eq!(
    verdict(json),
    Verdict::Candidate(Answer::Structured(r#"{"b":[1,2.5,"é"],"a":null}"#))
  );
}

#[test]
fn a_text_that_repeats_structured_content_is_accepted() {
  // The same text.
  let same =
    r#"{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}"#;
  assert_eq!(
    verdict(same),
    Verdict::Candidate(Answer::Structured(r#"{"a":[1,2]}"#))
  );
  // Pretty-printed, numbers spelled differently: the same JSON once canonical.
  let pretty = r#"{"content":[{"type":"text","text":"{\n  \"a\": [1, 2e0],\n  \"b\": 1.0\n}"}],"structuredContent":{"a":[1,2],"b":1}}"#;
  assert_eq!(
    verdict(pretty),
    Verdict::Candidate(Answer::Structured(r#"{"a":[1,2],"b":1}"#))
  );
  // Index-like keys come first in JS, in the text's canonical form as in structuredContent.
  let indexed = r#"{"content":[{"type":"text","text":"{\"b\": 1, \"2\": 0}"}],"structuredContent":{"2":0,"b":1}}"#;
  assert!(matches!(verdict(indexed), Verdict::Candidate(_)));
}

#[test]
fn a_text_with_keys_in_another_order_says_something_else() {
  passes(
    r#"{"content":[{"type":"text","text":"{\"b\":1,\"a\":[1,2]}"}],"structuredContent":{"a":[1,2],"b":1}}"#,
    PassReason::TextDiffers,
  );
}

#[test]
fn deep_texts_are_compared_without_recursion() {
  let depth = 10_000;
  let compact = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
  let spaced = format!("{} 1.0 {}", "[ ".repeat(depth), " ]".repeat(depth));
  let text = serde_json::to_string(&spaced).expect("a string");
  let same =
    format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{compact}}}"#);
  assert!(matches!(
    verdict(&same),
    Verdict::Candidate(Answer::Structured(_))
  ));
  let other = format!("{}2{}", "[".repeat(depth), "]".repeat(depth));
  let differs =
    format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{other}}}"#);
  passes(&differs, PassReason::TextDiffers);
}

#[test]
fn a_text_that_says_something_else_passes() {
  passes(
    r#"{"content":[{"type":"text","text":"Found 2 orders"}],"structuredContent":{"a":[1,2]}}"#,
    PassReason::TextDiffers,
  );
  passes(
    r#"{"content":[{"type":"text","text":"{\"a\":[1,3]}"}],"structuredContent":{"a":[1,2]}}"#,
    PassReason::TextDiffers,
  );
  passes(
    r#"{"content":[{"type":"text","text":"{\"a\":[1,2],\"b\":0}"}],"structuredContent":{"a":[1,2]}}"#,
    PassReason::TextDiffers,
  );
}

#[test]
fn other_blocks_several_texts_errors_and_empty_answers_pass() {
  passes(
    r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"text","text":"x"},{"type":"audio","data":"AA","mimeType":"audio/wav"}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"resource","resource":{"uri":"a://b","text":"x"}}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"resource_link","uri":"a://b","name":"b"}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}"#,
    PassReason::SeveralTexts,
  );
  passes(
    r#"{"content":[{"type":"text","text":"boom"}],"isError":true}"#,
    PassReason::IsError,
  );
  passes(r#"{"content":[]}"#, PassReason::NoAnswer);
  passes(
    r#"{"content":[],"structuredContent":null}"#,
    PassReason::NoAnswer,
  );
}

#[test]
fn is_error_false_does_not_pass() {
  let json = r#"{"content":[{"type":"text","text":"x"}],"isError":false}"#;
  assert!(matches!(verdict(json), Verdict::Candidate(_)));
}

#[test]
fn malformed_results_pass() {
  for json in [
    "",
    "[]",
    "{}",
    r#"{"content":{}}"#,
    r#"{"content":[{"text":"no type"}]}"#,
    r#"{"content":[{"type":"text"}]}"#,
    r#"{"content":[{"type":"text","text":7}]}"#,
    r#"{"content":[],"_meta":[]}"#,
    r#"{"content":[],"content":[]}"#,
    r#"{"content":[{"type":"text","text":"x"}]"#,
  ] {
    passes(json, PassReason::NotACallToolResult);
  }
}

#[test]
fn ui_answers_and_ui_tools_pass() {
  for key in ["ui", "ui/html", "ui/component", "openai/outputTemplate"] {
    let json = format!(r#"{{"content":[{{"type":"text","text":"x"}}],"_meta":{{"{key}":"v"}}}}"#);
    passes(&json, PassReason::UiAnswer);
  }
  let plain = r#"{"content":[{"type":"text","text":"x"}],"_meta":{"uix":1,"openaiX":2}}"#;
  assert!(matches!(verdict(plain), Verdict::Candidate(_)));
  let tool_meta = r#"{"ui":{"resourceUri":"ui://widget"}}"#;
  let json = r#"{"content":[{"type":"text","text":"x"}]}"#;
  assert_eq!(
    inspect(json, Some(tool_meta)).verdict,
    Verdict::Pass(PassReason::UiAnswer)
  );
  assert!(matches!(
    inspect(json, Some(r#"{"x":1}"#)).verdict,
    Verdict::Candidate(_)
  ));
}

#[test]
fn an_already_folded_answer_is_never_folded_again() {
  let json = r#"{"content":[{"type":"text","text":"{}"}],"structuredContent":{},"_meta":{"frontmcp/result-handle":{"handle":"h","bytes":1,"ttlSeconds":1}}}"#;
  passes(json, PassReason::AlreadyFolded);
}

#[test]
fn the_envelope_keeps_other_meta_and_fields_in_order() {
  let json = r#"{"content":[{"type":"text","text":"x"}],"task":{"id":"t"},"_meta":{"z":1,"a\"b":{"c":[1]}}}"#;
  let inspection = inspect(json, None);
  assert_eq!(
    inspection.envelope,
    Envelope {
      other_fields: vec![("task".into(), r#"{"id":"t"}"#.into())],
      meta: vec![
        ("z".into(), "1".into()),
        ("a\"b".into(), r#"{"c":[1]}"#.into())
      ],
    }
  );
}

#[test]
fn the_folded_result_has_the_documented_form() {
  let json =
    r#"{"content":[{"type":"text","text":"x"}],"task":{"id":"t"},"_meta":{"trace":"abc"}}"#;
  let inspection = inspect(json, None);
  let folded = r#"{"preview":{"orders":[{"id":0}]},"shape":{"type":"object","keys":{"total":{"type":"number"},"orders":{"type":"array","length":500,"items":{"type":"object","keys":{}}}}},"handle":"0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70"}"#;
  let shape = r#"{"type":"object","keys":{"total":{"type":"number"},"orders":{"type":"array","length":500,"items":{"type":"object","keys":{}}}}}"#;
  let facts = FoldFacts {
    handle: "0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70",
    bytes: 20_000,
    ttl_seconds: 600,
    references: None,
  };
  let built = build_folded_result(&inspection.envelope, folded, shape, facts);
  let value: Value = serde_json::from_str(&built).expect("valid JSON");
  assert_eq!(
    value["structuredContent"],
    serde_json::from_str::<Value>(folded).unwrap()
  );
  assert_eq!(
    value["content"][0],
    serde_json::json!({"type": "text", "text": folded})
  );
  let guide = value["content"][1]["text"].as_str().unwrap();
  assert!(guide.contains("result_query"));
  assert!(guide.contains(facts.handle));
  assert!(guide
    .contains(r#"{"handle":"0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70","path":"$.orders","limit":20}"#));
  assert_eq!(value["content"].as_array().unwrap().len(), 2);
  assert_eq!(value["task"], serde_json::json!({"id": "t"}));
  assert_eq!(
    value["_meta"],
    serde_json::json!({"trace": "abc", "frontmcp/result-handle": {"handle": facts.handle, "bytes": 20000, "ttlSeconds": 600}})
  );
  // Key order: the kept _meta entries first, then ours.
  let meta_keys: Vec<&String> = value["_meta"].as_object().unwrap().keys().collect();
  assert_eq!(meta_keys, ["trace", RESULT_HANDLE_META_KEY]);
  // Once folded, the result passes untouched.
  assert_eq!(
    inspect(&built, None).verdict,
    Verdict::Pass(PassReason::AlreadyFolded)
  );
}

#[test]
fn example_calls_follow_the_shape() {
  let h = "h";
  assert_eq!(
    example_call(r#"{"type":"object","keys":{"n":{"type":"number"}}}"#, h),
    r#"{"handle":"h","path":"$.n"}"#
  );
  assert_eq!(
    example_call(r#"{"type":"object","keys":{"a.b c":{"type":"array"}}}"#, h),
    r#"{"handle":"h","path":"$['a.b c']","limit":20}"#
  );
  assert_eq!(
    example_call(r#"{"type":"object","keys":{"it's":{"type":"null"}}}"#, h),
    r#"{"handle":"h","path":"$['it\\'s']"}"#
  );
  assert_eq!(
    example_call(r#"{"type":"array","length":9}"#, h),
    r#"{"handle":"h","path":"$","limit":20}"#
  );
  assert_eq!(
    example_call(r#"{"type":"string","length":9}"#, h),
    r#"{"handle":"h","path":"$","offset":0,"limit":2000}"#
  );
  assert_eq!(example_call("not json", h), r#"{"handle":"h","path":"$"}"#);
  assert_eq!(
    example_call(r#"{"type":"object","keys":{}}"#, h),
    r#"{"handle":"h","path":"$"}"#
  );
}

#[test]
fn deep_answers_are_read_without_recursion() {
  let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
  let json = format!(r#"{{"content":[],"structuredContent":{{"d":{deep}}}}}"#);
  assert!(matches!(
    verdict(&json),
    Verdict::Candidate(Answer::Structured(_))
  ));
}

#[test]
fn answers_too_deep_to_query_pass_whole_and_others_fold_and_read_back() {
  use crate::core::fold::{fold_answer, AnswerSource, FoldOutcome, FoldSettings};
  use crate::core::query::{run_query, QueryArgs};
  let settings = FoldSettings {
    threshold_bytes: 1024,
    preview_items: 5,
    preview_chars: 500,
  };
  let padding = "x".repeat(2000);
  for (depth, passes) in [(300, true), (100, false)] {
    let nested = format!(
      r#"{}{{"leaf":"{padding}"}}{}"#,
      r#"{"a":"#.repeat(depth - 1),
      "}".repeat(depth - 1)
    );
    let result = format!(r#"{{"content":[],"structuredContent":{nested}}}"#);
    let Verdict::Candidate(Answer::Structured(json)) = verdict(&result) else {
      panic!("a candidate at depth {depth}");
    };
    let FoldOutcome::Folded(folded) =
      fold_answer(AnswerSource::Json(json), &settings).expect("folds")
    else {
      panic!("over the threshold at depth {depth}");
    };
    assert_eq!(folded.depth, depth);
    assert_eq!(too_deep_to_query(&folded), passes, "depth {depth}");
    if !passes {
      // Kept as it is, it reads back at its deepest point.
      let path = format!("{}leaf", "a.".repeat(depth - 1));
      let mut args = QueryArgs::new("h", &path).expect("a valid path");
      args.limit = Some(3);
      let answer = run_query(json.as_bytes(), &args, 1024).expect("reads");
      assert!(answer.contains(r#""value":"xxx""#), "{answer}");
    }
  }
  assert_eq!(PassReason::TooDeepToQuery.as_str(), "too-deep-to-query");
}

#[test]
fn member_paths_escape_what_shorthand_cannot_say() {
  assert_eq!(member_path("orders"), "$.orders");
  assert_eq!(member_path("_x9"), "$._x9");
  assert_eq!(member_path("é"), "$.é");
  assert_eq!(member_path("9a"), "$['9a']");
  assert_eq!(member_path(""), "$['']");
  assert_eq!(member_path("a\\b"), "$['a\\\\b']");
  assert_eq!(member_path("a\nb"), "$['a\\u000ab']");
}

/// The slow decision the fast comparison stands in for: decode the literal, compare the strings.
fn decodes_to(literal: &str, expected: &str) -> bool {
  serde_json::from_str::<String>(literal).is_ok_and(|text| text == expected)
}

#[test]
fn the_fast_comparison_agrees_with_decoding() {
  let cases: &[(&str, &str)] = &[
    (r#""{\"a\":1}""#, r#"{"a":1}"#),
    (r#""{\"a\":1}""#, r#"{"a":2}"#),
    (r#""{\"a\":1}""#, r#"{"a":1} "#),
    (r#""{\"a\":1} ""#, r#"{"a":1}"#),
    (r#""\u0041\u00e9\u00E9""#, "Aéé"),
    (r#""\/\b\f\n\r\t\\\"""#, "/\u{8}\u{c}\n\r\t\\\""),
    (r#""\ud83d\ude00""#, "😀"),
    (r#""\uD83D\uDE00""#, "😀"),
    (r#""😀""#, "😀"),
    (r#""\ud83d""#, "\u{fffd}"),
    (r#""\ude00""#, "\u{fffd}"),
    (r#""\ud83d\u0041""#, "\u{fffd}A"),
    (r#""\ud83dA""#, "\u{fffd}A"),
    (r#""""#, ""),
    (r#""""#, "x"),
    (r#""x""#, ""),
    (r#""\u00""#, "x"),
    (r#""ab"#, "ab"),
    ("7", "7"),
  ];
  for (literal, expected) in cases {
    assert_eq!(
      literal_decodes_to(literal, expected),
      decodes_to(literal, expected),
      "{literal} vs {expected}"
    );
  }
}

/// How one character is written in a string literal.
fn spell(c: char, way: u8, out: &mut String) {
  let unit_escapes = |out: &mut String, upper: bool| {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
      if upper {
        out.push_str(&format!("\\u{unit:04X}"));
      } else {
        out.push_str(&format!("\\u{unit:04x}"));
      }
    }
  };
  match (c, way % 4) {
    ('"', 0 | 1) => out.push_str("\\\""),
    ('\\', 0 | 1) => out.push_str("\\\\"),
    ('\n', 0 | 1) => out.push_str("\\n"),
    ('/', 1) => out.push_str("\\/"),
    (c, 0 | 1) if (c as u32) < 0x20 => unit_escapes(out, false),
    (c, 0 | 1) => out.push(c),
    (_, 2) => unit_escapes(out, false),
    _ => unit_escapes(out, true),
  }
}

proptest::proptest! {
  #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

  /// Any spelling of any string (raw, short escapes, `\u` in either case, surrogate pairs, lone surrogates)
  /// against the same string, a changed one, and a prefix: the fast comparison says what decoding says.
  #[test]
  fn any_spelling_compares_as_decoded(
    chars in proptest::collection::vec(
      proptest::prop_oneof![
        proptest::char::range('\u{0}', '\u{7f}'),
        proptest::sample::select(vec!['"', '\\', '/', '\n', 'é', '€', '😀', '\u{2028}']),
        proptest::char::any(),
      ],
      0..24,
    ),
    ways in proptest::collection::vec(0u8..4, 24),
    lone in proptest::option::of((0usize..24, 0xD800u32..0xE000)),
    change in 0usize..3,
  ) {
    let text: String = chars.iter().collect();
    let mut literal = String::from("\"");
    for (at, c) in chars.iter().enumerate() {
      if let Some((where_, unit)) = lone {
        if where_ == at {
          literal.push_str(&format!("\\u{unit:04x}"));
        }
      }
      spell(*c, ways[at], &mut literal);
    }
    literal.push('"');
    let expected = match change {
      0 => text.clone(),
      1 => format!("{text}x"),
      _ => text.chars().take(chars.len() / 2).collect(),
    };
    proptest::prop_assert_eq!(
      literal_decodes_to(&literal, &expected),
      decodes_to(&literal, &expected),
      "{} vs {}", literal, expected
    );
  }
}

#[test]
fn texts_spelled_differently_decide_as_before() {
  let result = |text: &str, structured: &str| {
    format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{structured}}}"#)
  };
  let structured = r#"{"a":"é😀","b":[1,2.5]}"#;
  // The same JSON text, its characters escaped in other ways: the fast path.
  for text in [
    r#""{\"a\":\"é😀\",\"b\":[1,2.5]}""#,
    r#""{\"a\":\"\u00e9\ud83d\ude00\",\"b\":[1,2.5]}""#,
    r#""\u007B\"a\":\"\u00E9\uD83D\uDE00\",\"b\":[1,2.5]\u007d""#,
  ] {
    assert_eq!(
      verdict(&result(text, structured)),
      Verdict::Candidate(Answer::Structured(structured)),
      "{text}"
    );
  }
  // The same value written otherwise (JSON escapes inside, spaces, number spelling): the slow path agrees.
  for text in [
    r#""{\"a\":\"\\u00e9\\ud83d\\ude00\",\"b\":[1,2.5]}""#,
    r#""{ \"a\": \"é😀\", \"b\": [1.0, 25e-1] }""#,
  ] {
    assert_eq!(
      verdict(&result(text, structured)),
      Verdict::Candidate(Answer::Structured(structured)),
      "{text}"
    );
  }
  // Keys in another order, another value, a lone surrogate inside the JSON: says something else.
  for text in [
    r#""{\"b\":[1,2.5],\"a\":\"é😀\"}""#,
    r#""{\"a\":\"é😀\",\"b\":[1,2.6]}""#,
    r#""{\"a\":\"é\\ud83d\",\"b\":[1,2.5]}""#,
  ] {
    passes(&result(text, structured), PassReason::TextDiffers);
  }
  // A text that does not decode (a lone surrogate escape) or is not a string: not a CallToolResult we read,
  // also when a later block would pass it for another reason.
  for json in [
    result(r#""{\"a\":\"é\ud83d\",\"b\":[1,2.5]}""#, structured),
    result(r#""\ude00""#, structured),
    r#"{"content":[{"type":"text","text":"\ud800"}]}"#.to_string(),
    r#"{"content":[{"type":"text","text":"\ud800"},{"type":"image"}]}"#.to_string(),
    r#"{"content":[{"type":"text","text":"\ud800"},{"type":"text","text":"x"}]}"#.to_string(),
    r#"{"content":[{"type":"image","text":7}]}"#.to_string(),
    r#"{"content":[{"type":"image","text":"\udc00"}]}"#.to_string(),
  ] {
    passes(&json, PassReason::NotACallToolResult);
  }
  passes(
    r#"{"content":[{"type":"text","text":"x"},{"type":"image"},{"type":"text","text":"\ud800"}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"image","text":null}]}"#,
    PassReason::NonTextContent,
  );
  // An unreadable block is met in block order, after the result-level rules.
  passes(
    r#"{"content":[{"type":"text","text":"x","\ud800":1}],"isError":true}"#,
    PassReason::IsError,
  );
  passes(
    r#"{"content":[{"type":"image"},{"type":"text","\udc00":1}]}"#,
    PassReason::NonTextContent,
  );
  passes(
    r#"{"content":[{"type":"text","text":"x","\ud800":1},{"type":"image"}]}"#,
    PassReason::NotACallToolResult,
  );
  assert_eq!(
    verdict(r#"{"content":[{"type":"text","text":"a\u00e9"}]}"#),
    Verdict::Candidate(Answer::Text(Cow::Owned("aé".into())))
  );
}

/// How the engine read a block before it read blocks in the same pass as the result: derived, each block parsed
/// on its own from its raw text.
#[derive(Deserialize)]
struct ReferenceBlock<'a> {
  #[serde(rename = "type", borrow, default)]
  kind: Option<Cow<'a, str>>,
  #[serde(borrow, default)]
  text: Option<Cow<'a, str>>,
}

type Reading = Result<(Option<String>, Option<String>), ()>;

fn reference_reading(block: &str) -> Reading {
  serde_json::from_str::<ReferenceBlock>(block)
    .map(|b| (b.kind.map(Cow::into_owned), b.text.map(Cow::into_owned)))
    .map_err(drop)
}

/// The lenient block, with its text checked as `inspect` checks it (a string that decodes).
fn lenient_reading(block: &str) -> Reading {
  let lenient: LenientBlock = serde_json::from_str(block).map_err(drop)?;
  let block = lenient.0?;
  let text = match block.text {
    Some(raw) if !raw.get().starts_with('"') => return Err(()),
    Some(raw) => Some(decode(raw)?.into_owned()),
    None => None,
  };
  Ok((block.kind.map(Cow::into_owned), text))
}

#[test]
fn blocks_read_in_one_pass_read_as_each_block_parsed_alone() {
  for block in [
    r#"{"type":"text","text":"x"}"#,
    r#"{"text":"x","type":"text","extra":[1,{"a":2}],"extra":3}"#,
    r#"{"type":"t\u0065xt","t\u0065xt":"a\u00e9"}"#,
    r#"{"type":"image","data":"AAAA","mimeType":"image/png"}"#,
    r#"{"type":"image","text":7}"#,
    r#"{"type":"image","text":null}"#,
    r#"{"type":null,"text":"x"}"#,
    r#"{"type":5,"text":"x"}"#,
    r#"{"type":"text","text":"x","text":"y"}"#,
    r#"{"type":"text","type":"text","text":"x"}"#,
    r#"{"type":"text","text":"\ud800"}"#,
    r#"{"type":"\ud800","text":"x"}"#,
    r#"{"type":"text","text":["x"]}"#,
    r#"{"type":"text","text":{"a":"\ud800"}}"#,
    r#"{"type":"text","text":"x","\ud800":1}"#,
    r#"{"\ud800":1,"type":"image"}"#,
    r#"{"type":"image","other":{"\ud800":1}}"#,
    r#"{}"#,
    r#"[]"#,
    r#"["text"]"#,
    r#"["text","x"]"#,
    r#"["image"]"#,
    r#"["image",7]"#,
    r#"[null,"x"]"#,
    r#"["text","x",1]"#,
    r#"["text","\ud800"]"#,
    r#""text""#,
    r#"7"#,
    r#"-1.5"#,
    r#"true"#,
    r#"null"#,
  ] {
    assert_eq!(lenient_reading(block), reference_reading(block), "{block}");
  }
}

/// `inspect` as it was before blocks were read in the result's pass and texts compared raw: the reference the
/// current one must agree with on every result.
fn reference_inspect(result_json: &str) -> Inspection<'_> {
  let inner = || -> Result<Inspection<'_>, ()> {
    let top: Entries = serde_json::from_str(result_json).map_err(drop)?;
    let (mut content, mut structured, mut is_error) = (None, None, false);
    let mut meta: Vec<(Cow<str>, &RawValue)> = Vec::new();
    let mut other_fields = Vec::new();
    for (key, value) in top.0 {
      match key.as_ref() {
        "content" => content = Some(value),
        "structuredContent" => structured = (value.get() != "null").then_some(value),
        "isError" => is_error = value.get() == "true",
        "_meta" => {
          meta = serde_json::from_str::<Entries>(value.get())
            .map_err(drop)?
            .0
        }
        _ => other_fields.push((key.into_owned(), value.get().to_string())),
      }
    }
    let blocks: Vec<&RawValue> = serde_json::from_str(content.ok_or(())?.get()).map_err(drop)?;
    let envelope = Envelope {
      other_fields,
      meta: meta
        .iter()
        .filter(|(key, _)| key.as_ref() != RESULT_HANDLE_META_KEY)
        .map(|(key, value)| (key.to_string(), value.get().to_string()))
        .collect(),
    };
    let pass = |reason| {
      Ok(Inspection {
        verdict: Verdict::Pass(reason),
        envelope: Envelope::default(),
      })
    };
    if is_error {
      return pass(PassReason::IsError);
    }
    if meta
      .iter()
      .any(|(key, _)| key.as_ref() == RESULT_HANDLE_META_KEY)
    {
      return pass(PassReason::AlreadyFolded);
    }
    if meta.iter().any(|(key, _)| is_ui_key(key)) {
      return pass(PassReason::UiAnswer);
    }
    let mut texts = Vec::new();
    for raw in blocks {
      let block: ReferenceBlock = serde_json::from_str(raw.get()).map_err(drop)?;
      match (block.kind.as_deref(), block.text) {
        (Some("text"), Some(text)) => texts.push(text),
        (Some("text"), None) | (None, _) => return Err(()),
        (Some(_), _) => return pass(PassReason::NonTextContent),
      }
    }
    if texts.len() > 1 {
      return pass(PassReason::SeveralTexts);
    }
    let answer = match (structured, texts.pop()) {
      (Some(structured), None) => Answer::Structured(structured.get()),
      (Some(structured), Some(text)) => {
        if !repeats(&text, structured.get()) {
          return pass(PassReason::TextDiffers);
        }
        Answer::Structured(structured.get())
      }
      (None, Some(text)) => Answer::Text(text),
      (None, None) => return pass(PassReason::NoAnswer),
    };
    Ok(Inspection {
      verdict: Verdict::Candidate(answer),
      envelope,
    })
  };
  inner().unwrap_or(Inspection {
    verdict: Verdict::Pass(PassReason::NotACallToolResult),
    envelope: Envelope::default(),
  })
}

/// Pieces results are made of: answers, texts that repeat them in several spellings or do not, blocks of
/// every kind, readable or not.
const STRUCTURED: &[&str] = &[
  r#"{"a":"é😀","b":[1,2.5]}"#,
  r#"[{"x":"q\"uote\\d"},null]"#,
  r#"{"s":"\ud83d"}"#,
  "null",
];
const TEXTS: &[&str] = &[
  r#""{\"a\":\"é😀\",\"b\":[1,2.5]}""#,
  r#""{\"a\":\"\u00e9\ud83d\ude00\",\"b\":[1,2.5]}""#,
  r#""{ \"a\" : \"\\u00e9😀\", \"b\": [1.0, 25e-1] }""#,
  r#""{\"b\":[1,2.5],\"a\":\"é😀\"}""#,
  r#""[{\"x\":\"q\\\"uote\\\\d\"},null]""#,
  r#""[{\"x\":\"q\\u0022uote\\\\d\"},null]""#,
  r#""{\"s\":\"\\ud83d\"}""#,
  r#""{\"s\":\"\ud83d\"}""#,
  r#""\ud800""#,
  r#""plain words""#,
  r#""""#,
  "7",
  "null",
  r#"["x"]"#,
];
const OTHER_BLOCKS: &[&str] = &[
  r#"{"type":"image","data":"AA","mimeType":"image/png"}"#,
  r#"{"type":"image","text":7}"#,
  r#"{"type":"resource","text":"\udc00"}"#,
  r#"{"text":"x"}"#,
  r#"{"type":"text","type":"text","text":"x"}"#,
  r#"{"type":"text","text":"x","\ud800":1}"#,
  r#"["text","x"]"#,
  r#"["image"]"#,
  r#"["text","x",1]"#,
  "5",
  "null",
];
const EXTRAS: &[&str] = &[
  "",
  r#","isError":true"#,
  r#","isError":false"#,
  r#","_meta":{"trace":1}"#,
  r#","_meta":{"ui":1}"#,
  r#","_meta":{"frontmcp/result-handle":{}}"#,
  r#","_meta":{"\ud800":1}"#,
  r#","other":[1,{"k":"\ud800"}]"#,
];

proptest::proptest! {
  #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

  /// Any result built from the pieces above is decided, and its envelope kept, exactly as before.
  #[test]
  fn inspect_decides_as_the_reference(
    blocks in proptest::collection::vec((proptest::bool::ANY, 0usize..64), 0..4),
    structured in proptest::option::of(0usize..STRUCTURED.len()),
    extras in proptest::collection::vec(0usize..EXTRAS.len(), 0..3),
    structured_first in proptest::bool::ANY,
  ) {
    let blocks: Vec<String> = blocks
      .iter()
      .map(|&(is_text, pick)| {
        if is_text {
          format!(r#"{{"type":"text","text":{}}}"#, TEXTS[pick % TEXTS.len()])
        } else {
          OTHER_BLOCKS[pick % OTHER_BLOCKS.len()].to_string()
        }
      })
      .collect();
    let content = format!(r#""content":[{}]"#, blocks.join(","));
    let structured = structured.map(|at| format!(r#""structuredContent":{}"#, STRUCTURED[at]));
    let mut json = String::from("{");
    match (&structured, structured_first) {
      (Some(structured), true) => json.push_str(&format!("{structured},{content}")),
      (Some(structured), false) => json.push_str(&format!("{content},{structured}")),
      (None, _) => json.push_str(&content),
    }
    for at in extras {
      json.push_str(EXTRAS[at]);
    }
    json.push('}');
    proptest::prop_assert_eq!(inspect(&json, None), reference_inspect(&json), "{}", json);
  }
}
