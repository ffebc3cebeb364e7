//! An upper bound on a text answer's size, from one scan that writes nothing.
//!
//! Most answers are far under the threshold, and the hosts only need to know that for certain: the exact size of a
//! text holding JSON needs its canonical form written out (keys deduplicated, escapes re-quoted, numbers re-spelled),
//! which costs several times a scan. The bound takes every token at its canonical length but for two things that
//! can only make the canonical form shorter: escapes are counted as written (`\u0041` is six bytes, `A` one; a
//! lone surrogate's `\udXXX` six in both) and repeated keys are counted every time (JS keeps one). Numbers written
//! with an exponent are spelled out (`1e20` is 21 bytes once canonical); any other number is never longer in JS's
//! spelling than as written (tested below against the canonicalizer).

use crate::core::json::scan::{Event, Scanner};
use crate::core::json::write::{push_canonical_number, quoted_len};

/// At least `Buffer.byteLength(JSON.stringify(answer))` for a text answer `text` (see
/// [`super::AnswerSource::Text`]), and exactly that for a text that holds no JSON. Never less.
pub(crate) fn text_size_bound(text: &str) -> usize {
  let structured = text
    .trim_start_matches([' ', '\t', '\n', '\r'])
    .starts_with(['{', '[']);
  if structured {
    if let Some(bound) = json_size_bound(text) {
      return bound;
    }
  }
  quoted_len(text)
}

/// An upper bound on the canonical JSON's length of `text`, or `None` when `text` is not JSON.
fn json_size_bound(text: &str) -> Option<usize> {
  let mut scanner = Scanner::new(text);
  let mut bound = 0usize;
  // Whether the next member or item follows another one in its container (and so a comma).
  let mut after_member = false;
  let mut spelled = String::new();
  while let Some(event) = scanner.next_event().ok()? {
    let comma = usize::from(after_member && !matches!(event, Event::ObjectEnd | Event::ArrayEnd));
    let (len, next_after_member) = match event {
      Event::ObjectStart | Event::ArrayStart => (1, false),
      Event::ObjectEnd | Event::ArrayEnd => (1, true),
      // The quotes and the colon; the value that follows takes no comma.
      Event::Key(key) => (key.raw.len() + 3, false),
      Event::Str(value) => (value.raw.len() + 2, true),
      Event::Number(raw) if raw.bytes().any(|b| matches!(b, b'e' | b'E')) => {
        spelled.clear();
        push_canonical_number(raw, &mut spelled);
        (spelled.len(), true)
      }
      Event::Number(raw) => (raw.len(), true),
      Event::Bool(true) | Event::Null => (4, true),
      Event::Bool(false) => (5, true),
    };
    bound += len + comma;
    after_member = next_after_member;
  }
  Some(bound)
}

#[cfg(test)]
mod tests {
  use super::super::{fold_answer, AnswerSource, FoldOutcome, FoldSettings};
  use super::*;

  /// The exact size through the full fold (a threshold no test text reaches, so it only measures).
  fn exact(text: &str) -> usize {
    let settings = FoldSettings {
      threshold_bytes: usize::MAX / 2,
      preview_items: 3,
      preview_chars: 100,
    };
    match fold_answer(AnswerSource::Text(text), &settings).unwrap() {
      FoldOutcome::Whole { bytes } => bytes,
      FoldOutcome::Folded(_) => unreachable!("nothing reaches that threshold"),
    }
  }

  /// A small deterministic generator (no dependency): the same texts on every run.
  struct Lcg(u64);

  impl Lcg {
    fn next(&mut self, below: usize) -> usize {
      self.0 = self
        .0
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
      ((self.0 >> 33) as usize) % below
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
      items[self.next(items.len())]
    }
  }

  const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-12",
    "9.99",
    "0.10",
    "1.0",
    "100.000",
    "123456789012345678901",
    "1234567890123456789012",
    "99999999999999999999.9",
    "999999999999999999999.5",
    "0.0000001",
    "0.00000012345678901234567",
    "0.000001",
    "1e20",
    "1E5",
    "-1e-7",
    "2.5e+3",
    "1e400",
    "1e-400",
    "12345678901234567890123456789",
  ];
  const STRINGS: &[&str] = &[
    r#""""#,
    r#""plain""#,
    r#""é€😀""#,
    r#""\u0041\u00e9\u20ac""#,
    r#""\ud83d\ude00""#,
    r#""\ud800 lone""#,
    r#""\udc00\ud800""#,
    r#""\u0001\u001f\u007f\u2028""#,
    r#""\"\\\/\b\f\n\r\t""#,
  ];
  const SPACES: &[&str] = &["", "", "", " ", "\n  ", "\t"];

  fn value(rng: &mut Lcg, depth: usize, out: &mut String) {
    let kind = if depth > 4 { rng.next(3) } else { rng.next(5) };
    match kind {
      0 => out.push_str(rng.pick(NUMBERS)),
      1 => out.push_str(rng.pick(STRINGS)),
      2 => out.push_str(["true", "false", "null"][rng.next(3)]),
      3 => {
        out.push('[');
        for i in 0..rng.next(4) {
          if i > 0 {
            out.push(',');
          }
          out.push_str(rng.pick(SPACES));
          value(rng, depth + 1, out);
        }
        out.push(']');
      }
      _ => {
        out.push('{');
        for i in 0..rng.next(4) {
          if i > 0 {
            out.push(',');
          }
          out.push_str(rng.pick(SPACES));
          // Few distinct keys, so objects repeat keys; array-index keys reorder.
          out.push_str(["\"a\"", "\"b\"", "\"1\"", "\"0\"", "\"\\u0061\""][rng.next(5)]);
          out.push_str(rng.pick(SPACES));
          out.push(':');
          value(rng, depth + 1, out);
        }
        out.push('}');
      }
    }
  }

  #[test]
  fn the_bound_is_never_below_the_exact_size_and_exact_without_escapes_repeats_or_exponents() {
    let mut rng = Lcg(7);
    let mut exact_hits = 0;
    for _ in 0..20_000 {
      let mut text = String::new();
      text.push_str(rng.pick(SPACES));
      value(&mut rng, 0, &mut text);
      text.push_str(rng.pick(SPACES));
      if rng.next(10) == 0 {
        // Broken JSON: measured as the quoted text, exactly.
        text.push(',');
      }
      let (bound, size) = (text_size_bound(&text), exact(&text));
      assert!(bound >= size, "{text}: bound {bound} < size {size}");
      if bound == size {
        exact_hits += 1;
      }
    }
    assert!(
      exact_hits > 10_000,
      "the bound is rarely exact: {exact_hits}"
    );
  }

  #[test]
  fn numbers_without_an_exponent_never_grow_in_js_spelling() {
    let mut rng = Lcg(11);
    for _ in 0..50_000 {
      let mut raw = String::new();
      if rng.next(2) == 0 {
        raw.push('-');
      }
      // An integer part without a leading zero (or just `0`), then maybe a fraction with leading zeros.
      if rng.next(3) == 0 {
        raw.push('0');
      } else {
        raw.push(char::from(b'1' + rng.next(9) as u8));
        for _ in 0..rng.next(30) {
          raw.push(char::from(b'0' + rng.next(10) as u8));
        }
      }
      if rng.next(2) == 0 {
        raw.push('.');
        for _ in 0..rng.next(12) {
          raw.push('0');
        }
        for _ in 0..1 + rng.next(25) {
          raw.push(char::from(b'0' + rng.next(10) as u8));
        }
      }
      let mut spelled = String::new();
      push_canonical_number(&raw, &mut spelled);
      assert!(spelled.len() <= raw.len(), "{raw} → {spelled}");
    }
  }

  #[test]
  fn texts_that_hold_no_json_measure_exactly() {
    for text in [
      "",
      "plain",
      "{\"k\":1,",
      "[1] x",
      "é\u{1}\"\\",
      " {",
      "[1e5",
    ] {
      assert_eq!(text_size_bound(text), exact(text), "{text:?}");
    }
  }

  #[test]
  fn json_texts_measure_their_canonical_form_when_no_escape_or_repeat_shrinks_it() {
    for (text, canonical) in [
      (
        "{ \"a\" : [1, 2.5, true, null, false] }",
        r#"{"a":[1,2.5,true,null,false]}"#,
      ),
      ("[1e20]", "[100000000000000000000]"),
      ("[ ]", "[]"),
      ("{\"b\":{},\"c\":[[]]}", r#"{"b":{},"c":[[]]}"#),
    ] {
      assert_eq!(text_size_bound(text), canonical.len(), "{text}");
    }
  }
}
