//! The JSON layer's own tests: grammar, escapes and lone surrogates, JS number spelling, deep nesting.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::decode::*;
use super::scan::*;
use super::words::*;
use super::write::*;

// ─── scanner ─────────────────────────────────────────────────────────────────────────────────────────────────────

fn events(text: &str) -> Result<Vec<Event<'_>>, ScanError> {
  let mut scanner = Scanner::new(text);
  let mut out = Vec::new();
  while let Some(event) = scanner.next_event()? {
    out.push(event);
  }
  Ok(out)
}

fn s(raw: &str, escaped: bool) -> RawStr<'_> {
  RawStr { raw, escaped }
}

#[test]
fn tokens_of_a_small_document() {
  let got =
    events(" {\"a\": [1, -2.5e+3, \"x\\n\", true, false, null, {}], \"b\":[]}\n").expect("valid");
  use Event::*;
  assert_eq!(
    got,
    vec![
      ObjectStart,
      Key(s("a", false)),
      ArrayStart,
      Number("1"),
      Number("-2.5e+3"),
      Str(s("x\\n", true)),
      Bool(true),
      Bool(false),
      Null,
      ObjectStart,
      ObjectEnd,
      ArrayEnd,
      Key(s("b", false)),
      ArrayStart,
      ArrayEnd,
      ObjectEnd
    ]
  );
}

#[test]
fn what_json_parse_refuses_is_refused() {
  for bad in [
    "",
    " ",
    "{",
    "[1,]",
    "[,1]",
    "{\"a\"}",
    "{\"a\":1,}",
    "{a:1}",
    "01",
    "1.",
    ".5",
    "1e",
    "-",
    "+1",
    "[1 2]",
    "\"tab\there\"",
    "\"\\x\"",
    "\"\\u12g4\"",
    "\"open",
    "tru",
    "nul",
    "1 2",
    "{}{}",
    "[1]]",
    "NaN",
    "'a'",
  ] {
    assert!(events(bad).is_err(), "{bad:?} should be refused");
  }
  for good in [
    "0",
    "-0",
    "1E5",
    "1e-7",
    "\"\\ud800\"",
    "[[]]",
    "{\"\":{}}",
    "\"\u{2028}\"",
  ] {
    assert!(events(good).is_ok(), "{good:?} should be read");
  }
}

#[test]
fn ten_thousand_levels_need_no_recursion() {
  let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
  assert_eq!(events(&text).expect("valid").len(), 20_000);
}

#[test]
fn skip_member_value_passes_any_value_and_checks_scalars() {
  let text = r#"{"a" : 1.5e3, "b":"x\"y", "c":{"d":[1,{"e":2}]}, "f":[], "g":null, "h":true}"#;
  let mut scanner = Scanner::new(text);
  scanner.next_event().expect("start");
  let mut keys = Vec::new();
  while let Some(Event::Key(key)) = scanner.next_event().expect("a key or the end") {
    keys.push(key.raw);
    scanner.skip_member_value().expect("skips");
  }
  assert_eq!(keys, ["a", "b", "c", "f", "g", "h"]);
  assert_eq!(scanner.next_event().expect("done"), None);
  assert_eq!(scanner.deepest(), 4);
  for bad in [
    r#"{"a" 1}"#,
    r#"{"a":01}"#,
    r#"{"a":tru}"#,
    r#"{"a":"x"#,
    r#"{"a":"#,
    r#"{"a":[1"#,
  ] {
    let mut scanner = Scanner::new(bad);
    scanner.next_event().expect("start");
    scanner.next_event().expect("key");
    let rest = scanner
      .skip_member_value()
      .and_then(|()| scanner.next_event().map(drop));
    assert!(rest.is_err(), "{bad}");
  }
}

#[test]
fn skip_container_counts_direct_members() {
  for (text, count) in [
    ("[]", 0),
    ("[ ]", 0),
    ("[1]", 1),
    ("[1,[2,3],{\"a,]\":[4]},\"x\\\"]\"]", 4),
    ("{}", 0),
    ("{\"a\":1,\"b\":{\"c\":2}}", 2),
  ] {
    let mut scanner = Scanner::new(text);
    scanner.next_event().expect("start");
    assert_eq!(scanner.skip_container().expect("skips"), count, "{text}");
    assert_eq!(scanner.next_event().expect("end"), None, "{text}");
  }
  let mut scanner = Scanner::new("[[1,2],3]");
  scanner.next_event().expect("outer");
  scanner.next_event().expect("inner");
  assert_eq!(scanner.skip_container().expect("skips"), 2);
  assert_eq!(
    scanner.next_event().expect("next"),
    Some(Event::Number("3"))
  );
}

// ─── decoder and writer ──────────────────────────────────────────────────────────────────────────────────────────

fn raw(s: &str) -> RawStr<'_> {
  RawStr {
    raw: s,
    escaped: s.contains('\\'),
  }
}

fn canonical_string(s: &str) -> String {
  let mut out = String::new();
  push_canonical_str(raw(s), &mut out);
  out
}

fn number(s: &str) -> String {
  let mut out = String::new();
  push_canonical_number(s, &mut out);
  out
}

#[test]
fn numbers_are_spelled_as_js_prints_them() {
  for (input, js) in [
    ("0", "0"),
    ("-0", "0"),
    ("-0.0", "0"),
    ("0e5", "0"),
    ("1.0", "1"),
    ("1E5", "100000"),
    ("1e21", "1e+21"),
    ("1e20", "100000000000000000000"),
    ("123456789012345678", "123456789012345680"),
    ("1e-7", "1e-7"),
    ("0.000001", "0.000001"),
    ("1.5e-10", "1.5e-10"),
    ("-2.50", "-2.5"),
    ("5e-324", "5e-324"),
    ("1e-400", "0"),
    ("1e400", "null"),
    ("-1e400", "null"),
    ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ("0.1", "0.1"),
    ("123456789012345", "123456789012345"),
  ] {
    assert_eq!(number(input), js, "{input}");
  }
}

#[test]
fn strings_are_quoted_as_json_stringify_quotes_them() {
  assert_eq!(canonical_string("plain é 😀"), "plain é 😀");
  assert_eq!(
    canonical_string("\\u0041\\/\\n\\u0008\\u001F"),
    "A/\\n\\b\\u001f"
  );
  assert_eq!(canonical_string("\\ud83d\\ude00"), "😀");
  assert_eq!(canonical_string("\\uD800x"), "\\ud800x");
  assert_eq!(canonical_string("\\udc00\\ud800"), "\\udc00\\ud800");
  assert_eq!(canonical_string("\\ud800\\ud83d\\ude00"), "\\ud800😀");
  assert_eq!(
    canonical_string("\\u2028\\u007f\\\"\\\\"),
    "\u{2028}\u{7f}\\\"\\\\"
  );
  let mut out = String::new();
  push_escaped_str("a\"b\\c\n\u{1}\u{2029}", &mut out);
  assert_eq!(out, "a\\\"b\\\\c\\n\\u0001\u{2029}");
  assert_eq!(quoted_len("a\"b\\c\n\u{1}\u{2029}"), out.len() + 2);
}

#[test]
fn lengths_count_utf16_units() {
  assert_eq!(utf16_len(raw("a😀é")), 4);
  assert_eq!(utf16_len(raw("\\ud83d\\ude00\\n")), 3);
  let mut units = Vec::new();
  assert_eq!(decode_prefix(raw("ab😀cd"), 3, &mut units), 6);
  assert_eq!(units, vec![0x61, 0x62, 0xD83D, 0xDE00]);
  assert_eq!(cut_units(&units, 3), &[0x61, 0x62], "never half a pair");
  assert_eq!(cut_units(&units, 4), &units[..]);
  let mut out = String::new();
  push_escaped_units(&[0xD800, 0x41, 0xDE00], &mut out);
  assert_eq!(out, "\\ud800A\\ude00");
}

#[test]
fn each_escape_decodes_to_what_json_parse_reads() {
  let escape = |text: &str| escape_at(text.as_bytes(), 0);
  assert_eq!(escape("\\n"), Some((Escaped::Char('\n'), 2)));
  assert_eq!(escape("\\/x"), Some((Escaped::Char('/'), 2)));
  assert_eq!(escape("\\u00E9"), Some((Escaped::Char('é'), 6)));
  assert_eq!(escape("\\uD83D\\uDE00"), Some((Escaped::Char('😀'), 12)));
  assert_eq!(escape("\\ud83d\\ude00"), Some((Escaped::Char('😀'), 12)));
  // Lone: a high surrogate not followed by a low one, a low one on its own.
  assert_eq!(escape("\\ud83d"), Some((Escaped::Lone(0xD83D), 6)));
  assert_eq!(escape("\\ud83dx"), Some((Escaped::Lone(0xD83D), 6)));
  assert_eq!(escape("\\ud83d\\u0041"), Some((Escaped::Lone(0xD83D), 6)));
  assert_eq!(escape("\\ud83d\\ud83d"), Some((Escaped::Lone(0xD83D), 6)));
  assert_eq!(escape("\\ud83d\\\\ude00"), Some((Escaped::Lone(0xD83D), 6)));
  assert_eq!(escape("\\ude00"), Some((Escaped::Lone(0xDE00), 6)));
  for bad in [
    "\\x", "\\", "\\u12g4", "\\u123", "\\U0041", "\\'", "\\u+123",
  ] {
    assert_eq!(escape(bad), None, "{bad}");
  }
}

#[test]
fn pieces_split_plain_runs_from_escapes() {
  let got: Vec<Piece<'_>> = pieces("ab\\\\c\\ud800\\u0041é\\q rest").collect();
  assert_eq!(
    got,
    vec![
      Piece::Plain("ab"),
      Piece::Escape(Escaped::Char('\\')),
      Piece::Plain("c"),
      Piece::Escape(Escaped::Lone(0xD800)),
      Piece::Escape(Escaped::Char('A')),
      Piece::Plain("é"),
      Piece::Broken,
    ]
  );
  assert_eq!(pieces("").count(), 0);
}

#[test]
fn decoding_refuses_lone_surrogates_and_borrows_plain_text() {
  assert!(matches!(
    decode_str("plain é"),
    Some(Cow::Borrowed("plain é"))
  ));
  assert_eq!(
    decode_str("a\\\\u0041\\u00e9\\ud83d\\ude00").as_deref(),
    Some("a\\u0041é😀")
  );
  assert_eq!(decode_str("x\\ud800"), None);
  assert_eq!(decode_str("\\udc00x"), None);
  assert_eq!(decode_str("\\x"), None);
}

#[test]
fn escapes_of_a_document_carry_their_offsets() {
  let text = r#"{"a\\ud800":"\ud800","b":"\\ud800 \ud83d\ude00 \u0041"}"#;
  let found: Vec<(usize, Escaped)> = escapes_in(text).collect();
  let lone: Vec<usize> = found
    .iter()
    .filter(|(_, escaped)| matches!(escaped, Escaped::Lone(_)))
    .map(|(at, _)| *at)
    .collect();
  assert_eq!(
    lone,
    vec![text.find(r#":"\ud800""#).expect("the lone one") + 2]
  );
  assert!(found.contains(&(text.find(r"\ud83d").expect("the pair"), Escaped::Char('😀'))));
  assert!(found.contains(&(
    text.find(r"\u0041").expect("the letter"),
    Escaped::Char('A')
  )));
}

#[test]
fn values_print_as_in_js() {
  let text = |value: &Value| {
    let mut out = String::new();
    write_value(&mut out, value, None);
    out
  };
  let parsed: Value =
    serde_json::from_str("[1.0,-0.0,1e21,1.5e-7,0.1,123456789012345678901,-5,9007199254740993]")
      .expect("valid JSON");
  assert_eq!(
    text(&parsed),
    "[1,0,1e+21,1.5e-7,0.1,123456789012345680000,-5,9007199254740992]"
  );
  let value = json!("a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}/\u{2028}😀");
  assert_eq!(
    text(&value),
    "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}/\u{2028}😀\""
  );
  assert_eq!(
    text(&value),
    serde_json::to_string(&value).expect("a string")
  );
  let escaped: usize = "a\"\u{1}😀".chars().map(escaped_char_len).sum();
  assert_eq!(escaped, text(&json!("a\"\u{1}😀")).len() - 2);
  let value = json!({"a": 1, "b": {"c": 2}, "__proto__": 3});
  let mut out = String::new();
  write_value(
    &mut out,
    &value,
    Some(&["__proto__".to_string(), "a".to_string(), "zz".to_string()]),
  );
  assert_eq!(out, "{\"a\":1,\"__proto__\":3}");
}

#[test]
fn doubles_print_as_js_does() {
  for (value, js) in [
    (1e21, "1e+21"),
    (1e-7, "1e-7"),
    (-0.0, "0"),
    (0.1, "0.1"),
    (f64::NAN, "null"),
  ] {
    let mut out = String::new();
    push_js_double(value, &mut out);
    assert_eq!(out, js);
  }
}

#[test]
fn deep_nesting_is_scanned_and_skipped_without_recursion() {
  let depth = 100_000;
  let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
  let mut scanner = Scanner::new(&text);
  let mut count = 0;
  while scanner.next_event().expect("valid").is_some() {
    count += 1;
  }
  assert_eq!(count, 5 * depth + 1);
  assert_eq!(scanner.deepest(), 2 * depth);
  let mut scanner = Scanner::new(&text);
  scanner.next_event().expect("the outer list");
  assert_eq!(scanner.skip_container().expect("skips"), 1);
  assert_eq!(scanner.deepest(), 2 * depth);
  let unclosed = format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1));
  let mut scanner = Scanner::new(&unclosed);
  let mut read = Ok(Some(Event::Null));
  while matches!(read, Ok(Some(_))) {
    read = scanner.next_event();
  }
  assert_eq!(
    read,
    Err(ScanError {
      offset: unclosed.len()
    })
  );
}

proptest::proptest! {
  #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

  /// Quotes and backslashes among the bytes the word test could mistake for them (`#` and `]` follow them by
  /// one; zero bytes), from any start: found exactly where a byte loop finds them.
  #[test]
  fn the_quote_or_backslash_is_found_where_a_byte_loop_finds_it(
    picks in proptest::collection::vec(0usize..8, 0..120),
    from in 0usize..130,
  ) {
    const BYTES: [u8; 8] = [b'"', b'\\', b'#', b']', b'a', 0, 1, 0xff];
    let bytes: Vec<u8> = picks.iter().map(|&pick| BYTES[pick]).collect();
    let expected = bytes
      .get(from..)
      .and_then(|rest| rest.iter().position(|&b| b == b'"' || b == b'\\'))
      .map(|found| from + found);
    proptest::prop_assert_eq!(find_quote_or_backslash(&bytes, from), expected);
  }

  /// Long runs of plain bytes (the eight-at-a-time path) broken anywhere by characters that grow when quoted,
  /// multi-byte ones among them: the count is what serde_json (which quotes strings as JS does) writes.
  #[test]
  fn quoted_len_counts_what_is_written(
    picks in proptest::collection::vec(0usize..10, 0..300),
  ) {
    const ALPHABET: [&str; 10] = ["a", "plain text", "\"", "\\", "\n", "\u{1}", "\u{1f}", "é", "😀", "\u{7f}"];
    let text: String = picks.iter().map(|&pick| ALPHABET[pick]).collect();
    proptest::prop_assert_eq!(quoted_len(&text), serde_json::to_string(&text).expect("a string").len());
  }

  /// Any string without a lone surrogate, each character escaped one of three ways: the decoder reads what
  /// serde_json reads, and the writer prints what serde_json prints (the two agree on strings).
  #[test]
  fn decoding_and_writing_agree_with_serde_json(
    chars in proptest::collection::vec(proptest::char::any(), 0..32),
    ways in proptest::collection::vec(0u8..3, 32),
  ) {
    let text: String = chars.iter().collect();
    let mut content = String::new();
    for (c, way) in chars.iter().zip(&ways) {
      let mut units = [0u16; 2];
      match way {
        0 => push_escaped_char(*c, &mut content),
        1 => {
          for unit in c.encode_utf16(&mut units) {
            content.push_str(&format!("\\u{unit:04X}"));
          }
        }
        _ => {
          for unit in c.encode_utf16(&mut units) {
            push_unicode_escape(*unit, &mut content);
          }
        }
      }
    }
    let by_serde: String = serde_json::from_str(&format!("\"{content}\"")).expect("serde reads it");
    proptest::prop_assert_eq!(&by_serde, &text);
    let decoded = decode_str(&content);
    proptest::prop_assert_eq!(decoded.as_deref(), Some(text.as_str()));
    let raw = RawStr { raw: &content, escaped: content.contains('\\') };
    let mut canonical = String::from("\"");
    push_canonical_str(raw, &mut canonical);
    canonical.push('"');
    proptest::prop_assert_eq!(&canonical, &serde_json::to_string(&text).expect("a string"));
    proptest::prop_assert_eq!(quoted_len(&text), canonical.len());
    proptest::prop_assert_eq!(utf16_len(raw), text.encode_utf16().count());
  }
}

#[test]
fn the_word_test_never_misses_a_byte_that_ends_a_string_run() {
  for byte in 0..=255u8 {
    let stops = byte < 0x20 || byte == b'"' || byte == b'\\';
    for lane in 0..8 {
      let mut word = [b'a'; 8];
      word[lane] = byte;
      assert_eq!(
        may_stop_string(u64::from_le_bytes(word)),
        stops,
        "byte {byte:#x} in lane {lane}"
      );
    }
  }
  // Across word boundaries, the scanner stops exactly where the byte loop would.
  for at in 0..24 {
    let plain = "é".repeat(2) + &"a".repeat(at);
    for (end, ok) in [
      ("\"", true),
      ("\\n\"", true),
      ("\u{1}\"", false),
      ("\\x\"", false),
    ] {
      let text = format!("\"{plain}{end}");
      let read = Scanner::new(&text).next_event();
      assert_eq!(read.is_ok(), ok, "{text:?}");
    }
  }
}

#[test]
fn find_byte_finds_the_first_one_on_short_and_long_runs() {
  for len in [0, 1, 7, 8, 9, 31, 32, 33, 40, 100] {
    for at in 0..=len {
      let mut bytes = vec![b'a'; len];
      if at < len {
        bytes[at] = b'\\';
        if at + 3 < len {
          bytes[at + 3] = b'\\';
        }
      }
      for from in [0, at.min(3)] {
        let expected = bytes[from..]
          .iter()
          .position(|&b| b == b'\\')
          .map_or(len, |found| from + found);
        assert_eq!(
          find_byte(&bytes, from, b'\\'),
          expected,
          "{len} {at} {from}"
        );
      }
    }
  }
}

#[test]
fn word_positions_are_exact() {
  for lane in 0..8 {
    let mut word = *b"ab\\cd\\ef";
    word[lane] = b'"';
    let word = u64::from_le_bytes(word);
    assert_eq!(first_byte(word, b'"'), lane);
    let backslash = if lane == 2 { 5 } else { 2 };
    assert_eq!(first_byte(word, b'\\'), backslash, "lane {lane}");
    assert_eq!(first_byte(word, b'z'), 8);
    let other = u64::from_le_bytes(*b"ab\\cd\\ef");
    assert_eq!(first_difference(word, other), lane);
    assert_eq!(first_difference(other, other), 8);
  }
  // A zero byte right before the searched one (the test's false alarm comes after a true one, never before).
  let word = u64::from_le_bytes([0x01, 0x00, 0x5C, 0x5D, 0, 0, 0, 0]);
  assert_eq!(first_byte(word, 0x5C), 2);
  assert_eq!(first_byte(word, 0x01), 0);
}
