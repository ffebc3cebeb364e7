//! The block scan counts what the byte-at-a-time scan counts, on generated and adversarial JSON.

use super::blocks::{classify, Classes};
use super::{blocks::scan_blocks, close_if_empty, scan, scan_bytewise, Scan};
use crate::core::query::MAX_QUERY_DEPTH;
use proptest::prelude::*;

fn classify_bytewise(block: &[u8; 64]) -> Classes {
  let mut classes = Classes::default();
  for (i, &byte) in block.iter().enumerate() {
    let bit = 1u64 << i;
    let set = |class: &mut u64, on: bool| *class |= if on { bit } else { 0 };
    set(&mut classes.quotes, byte == b'"');
    set(&mut classes.backslashes, byte == b'\\');
    set(&mut classes.opens, matches!(byte, b'[' | b'{'));
    set(&mut classes.closes, matches!(byte, b']' | b'}'));
    set(&mut classes.commas, byte == b',');
    set(&mut classes.digits, byte.is_ascii_digit() || byte == b'.');
    set(&mut classes.exponents, matches!(byte, b'e' | b'E'));
  }
  classes
}

/// The block scan alone, from the inside of a non-empty container.
fn blocks_only(bytes: &[u8], start: usize, room: usize) -> Option<Scan> {
  let mut scan = Scan::inside(start);
  scan_blocks(bytes, &mut scan, room)?;
  Some(scan)
}

/// The byte-at-a-time scan alone.
fn bytewise_only(bytes: &[u8], start: usize, room: usize) -> Option<Scan> {
  let mut scan = Scan::inside(start);
  let closed = scan_bytewise(bytes, &mut scan, room, usize::MAX)?;
  assert!(closed);
  Some(scan)
}

/// Where the inside of each container of `text` starts (just past its opening bracket), read a byte at a time.
fn container_insides(text: &str) -> Vec<usize> {
  let mut insides = Vec::new();
  let (mut in_string, mut escaped) = (false, false);
  for (at, byte) in text.bytes().enumerate() {
    match (in_string, escaped, byte) {
      (true, true, _) => escaped = false,
      (true, false, b'\\') => escaped = true,
      (_, false, b'"') => in_string = !in_string,
      (false, _, b'[' | b'{') => insides.push(at + 1),
      _ => {}
    }
  }
  insides
}

/// Both scans from the inside of every non-empty container of `text` (JSON but for refused numbers), at a few
/// nesting rooms.
fn assert_same_scans(text: &str) {
  let bytes = text.as_bytes();
  for mut inside in container_insides(text) {
    if close_if_empty(bytes, &mut inside) {
      continue;
    }
    for room in [1, 2, 3, MAX_QUERY_DEPTH] {
      let reference = bytewise_only(bytes, inside, room);
      assert_eq!(
        blocks_only(bytes, inside, room),
        reference,
        "blocks: {text:?} from {inside} in room {room}"
      );
      assert_eq!(
        scan(bytes, inside, room),
        reference,
        "both: {text:?} from {inside} in room {room}"
      );
    }
  }
}

#[test]
fn the_scans_agree_where_blocks_split_strings_escapes_and_numbers() {
  let tokens = [
    r#""a\\""#,
    r#""\\\\\"""#,
    r#""\"[{,""#,
    "\"é😀\"",
    "1e5",
    "-2.5E-3",
    "1e400",
    "true",
    "false",
    "0.5",
    "[]",
    "{ }",
    "[[],[[]]]",
  ];
  for offset in 0..130 {
    for token in tokens {
      let pad = "x".repeat(offset);
      let text = format!(r#"[["{pad}",{token},[{token},{{"k{pad}":{token}}}]],{token}]"#);
      assert_same_scans(&text);
      let spaced = format!("[ {} {token} ]", " ".repeat(offset));
      assert_same_scans(&spaced);
    }
  }
}

#[test]
fn the_scans_agree_on_long_numbers() {
  for digits in [63, 64, 65, 127, 128, 299, 300, 301, 400] {
    for offset in 0..70 {
      let pad = " ".repeat(offset);
      for number in [
        "9".repeat(digits),
        format!("-{}", "1".repeat(digits)),
        format!("1.{}", "0".repeat(digits)),
        format!("{}e5", "1".repeat(digits)),
      ] {
        let text = format!("[[{pad}{number},{number}],\"{number}\"]");
        assert_same_scans(&text);
        let refused = serde_json::from_str::<serde_json::Value>(&text).is_err();
        assert_eq!(
          blocks_only(text.as_bytes(), 1, MAX_QUERY_DEPTH).is_none(),
          refused,
          "{text}"
        );
      }
    }
  }
}

#[test]
fn the_scans_agree_on_nesting_at_the_bound() {
  for depth in [MAX_QUERY_DEPTH - 1, MAX_QUERY_DEPTH, MAX_QUERY_DEPTH + 1] {
    for inner in ["", "1", "[]", "{}", "\"]\""] {
      let text = format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth));
      for room in [depth - 1, depth, depth + 1] {
        let reference = bytewise_only(text.as_bytes(), 1, room);
        assert_eq!(
          blocks_only(text.as_bytes(), 1, room),
          reference,
          "{text} in {room}"
        );
        assert_eq!(
          scan(text.as_bytes(), 1, room),
          reference,
          "{text} in {room}"
        );
      }
    }
  }
}

mod generated {
  use super::*;
  use crate::core::query::tape::tests::generated::value;

  fn block_bytes() -> impl Strategy<Value = [u8; 64]> {
    let byte = prop_oneof![
      prop::sample::select(b"\"\\[]{},.0189eE/:aZ ".to_vec()),
      any::<u8>(),
    ];
    prop::array::uniform32(byte.clone()).prop_flat_map(move |low| {
      prop::array::uniform32(byte.clone()).prop_map(move |high| {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&low);
        block[32..].copy_from_slice(&high);
        block
      })
    })
  }

  proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn classify_matches_a_byte_at_a_time(block in block_bytes()) {
      prop_assert_eq!(classify(&block), classify_bytewise(&block));
    }

    #[test]
    fn the_scans_agree_on_generated_json(doc in value(), pretty in any::<bool>()) {
      let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
      assert_same_scans(&text.expect("JSON"));
    }
  }
}
