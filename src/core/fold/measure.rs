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
use crate::core::json::write::{has_lone_surrogate, push_canonical_number, quoted_len};

/// At least `Buffer.byteLength(JSON.stringify(answer))` for a text answer `text` (see
/// [`super::AnswerSource::Text`]), and exactly that for a text that holds no JSON. Never less.
pub(crate) fn text_size_bound(text: &str) -> usize {
  if looks_structured(text) {
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

/// Whether a text answer of `units` (UTF-16, as JS holds it) is certainly no larger than `threshold` bytes, from
/// one pass over the units and no copy; `false` means only that the exact way must decide.
///
/// `repeats_structured`: the text is the only text beside structuredContent, so the answer is structuredContent,
/// and the text either repeats it (then the answer's size is the canonical form of the text, never longer than the
/// text but for numbers with an exponent) or does not (then the answer passes whole anyway). A text alone is the
/// answer: its canonical form when it holds JSON, else the quoted text, which escaping makes at most one byte per
/// unit longer but for characters written as six-byte escapes; a text that is still unsure is scanned as
/// [`text_size_bound`] scans it.
pub(crate) fn units_certainly_under(
  units: &[u16],
  repeats_structured: bool,
  threshold: usize,
) -> bool {
  certainly_under(units, repeats_structured, threshold)
}

/// [`units_certainly_under`] with the pass over the units compiled for AVX2 (16 units an instruction, about twice
/// as fast): safe to call once the CPU is known to have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn units_certainly_under_avx2(units: &[u16], repeats: bool, threshold: usize) -> bool {
  certainly_under(units, repeats, threshold)
}

/// The longest text, in UTF-16 units, that measures at most `threshold` bytes whatever it holds: no unit measures
/// more than six bytes (a control character quoted, `\u0001`; a lone surrogate's escape; an exponent grows `1e20`
/// by 5.25 bytes a unit), and a text measured quoted has two more. Hosts pass such a text with no call at all.
pub(crate) fn units_always_under(threshold: usize) -> usize {
  threshold.saturating_sub(2) / 6
}

/// The body of both builds: the pass inlined where it is compiled.
#[inline(always)]
fn certainly_under(units: &[u16], repeats_structured: bool, threshold: usize) -> bool {
  units.len() <= threshold
    && certainly_under_by_facts(units, UnitFacts::of(units), repeats_structured, threshold)
}

fn certainly_under_by_facts(
  units: &[u16],
  facts: UnitFacts,
  repeats_structured: bool,
  threshold: usize,
) -> bool {
  if facts.surrogates && has_lone_surrogate(units) {
    // JSON.stringify writes a lone surrogate as a six-byte escape: rare enough to leave to the exact way.
    return false;
  }
  if repeats_structured {
    return !facts.exponent && facts.utf8_len <= threshold;
  }
  let quoted_at_most = facts.utf8_len + units.len() + 2;
  if quoted_at_most <= threshold && !facts.exponent && !facts.six_byte_escape {
    return true;
  }
  // ASCII (each unit its byte) is narrowed in one pass; anything else decoded.
  let ascii = (facts.utf8_len == units.len())
    .then(|| String::from_utf8(units.iter().map(|&unit| unit as u8).collect()).ok())
    .flatten();
  let text = ascii.unwrap_or_else(|| String::from_utf16_lossy(units));
  // Without an exponent an object or array's canonical form is never longer than its text (see the module's
  // notes), so when its UTF-8 fits, only whether it is JSON is left to tell: serde_json's validator reads that
  // about twice as fast as the bound's scan. It accepts no text `JSON.parse` refuses; a text it refuses (one
  // nested deeper than its limit, say) is bounded the long way.
  if !facts.exponent && facts.utf8_len <= threshold && holds_structured_json(&text) {
    return true;
  }
  text_size_bound(&text) <= threshold
}

/// Whether `text` is one JSON object or array (blanks around it allowed), as serde_json validates it.
fn holds_structured_json(text: &str) -> bool {
  looks_structured(text) && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Whether `text` starts as an object or array would (only those are read as JSON in a text answer).
fn looks_structured(text: &str) -> bool {
  text
    .trim_start_matches([' ', '\t', '\n', '\r'])
    .starts_with(['{', '['])
}

/// What one pass over a text's UTF-16 units tells of its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct UnitFacts {
  /// `Buffer.byteLength(text)` when the text is well-formed.
  utf8_len: usize,
  /// A surrogate unit, paired or not.
  surrogates: bool,
  /// A digit followed by `e` or `E`: the only way a number is written with an exponent.
  exponent: bool,
  /// A control character `JSON.stringify` writes as a six-byte `\u00XX` escape (all but `\b\t\n\f\r`).
  six_byte_escape: bool,
}

impl UnitFacts {
  /// Most texts are passed whole and this pass is most of what they cost, so it is written for the compiler's
  /// vector instructions (the shapes below measured fastest, with SSE2 and with AVX2): a block of plain ASCII (no
  /// unit from 0x80 and none below 0x20) adds nothing but its units, which one compare over the block tells; any
  /// other block is read unit by unit. Digits followed by an `e` are looked for in a second pass, pairwise.
  #[inline(always)]
  fn of(units: &[u16]) -> Self {
    let mut facts = UnitFacts {
      utf8_len: units.len(),
      surrogates: false,
      exponent: false,
      six_byte_escape: false,
    };
    let blocks = units.chunks_exact(64);
    let rest = blocks.remainder();
    for block in blocks {
      if !plain_ascii(block) {
        facts.add_unit_by_unit(block);
      }
    }
    if !plain_ascii(rest) {
      facts.add_unit_by_unit(rest);
    }
    facts.exponent = has_digit_then_e(units);
    facts
  }

  fn add_unit_by_unit(&mut self, block: &[u16]) {
    for &unit in block {
      let surrogate = is_surrogate(unit);
      // A surrogate is half of a four-byte character (a lone one is left to the exact way).
      self.utf8_len +=
        usize::from(unit >= 0x80) + usize::from(unit >= 0x800) - usize::from(surrogate);
      self.surrogates |= surrogate;
      self.six_byte_escape |= is_six_byte_escape(unit);
    }
  }
}

/// No unit below 0x20 and none from 0x80 (one wrapping compare a unit, which vectorizes).
#[inline(always)]
fn plain_ascii(block: &[u16]) -> bool {
  let mut other = false;
  for &unit in block {
    other |= unit.wrapping_sub(0x20) >= 0x60;
  }
  !other
}

/// A digit followed by `e` or `E`, read pairwise in blocks (so the compiler vectorizes each block).
#[inline(always)]
fn has_digit_then_e(units: &[u16]) -> bool {
  let Some(pairs) = units.len().checked_sub(1) else {
    return false;
  };
  let (befores, afters) = (&units[..pairs], &units[1..]);
  let mut found = false;
  for (befores, afters) in befores.chunks(64).zip(afters.chunks(64)) {
    let mut in_block = false;
    for (&before, &after) in befores.iter().zip(afters) {
      in_block |= is_digit(before) & is_e(after);
    }
    found |= in_block;
  }
  found
}

#[inline(always)]
fn is_surrogate(unit: u16) -> bool {
  unit & 0xF800 == 0xD800
}

#[inline(always)]
fn is_digit(unit: u16) -> bool {
  unit.wrapping_sub(u16::from(b'0')) < 10
}

#[inline(always)]
fn is_e(unit: u16) -> bool {
  (unit | 0x20) == u16::from(b'e')
}

#[inline(always)]
fn is_six_byte_escape(unit: u16) -> bool {
  (unit < 0x08) | (unit == 0x0B) | (unit.wrapping_sub(0x0E) < 0x12)
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

  /// Raw pieces a text may hold beside its JSON: controls, non-ASCII, a pair, an exponent, quotes.
  const RAW: &[&str] = &[
    "\u{1}", "\n", "\u{1f}", "é", "€", "😀", "1e5", "9E", "\"", "\\", "x",
  ];

  #[test]
  fn a_text_that_only_looks_like_json_is_measured_quoted() {
    // A trailing comma: not JSON, so it measures quoted (every quote escaped), while its UTF-8 fits.
    let text = format!("[{}]", "\"ab\",".repeat(100));
    let units: Vec<u16> = text.encode_utf16().collect();
    let size = exact(&text);
    assert_eq!(size, text.len() + 2 + 200);
    assert!(units_certainly_under(&units, false, size));
    assert!(!units_certainly_under(&units, false, size - 1));
    assert!(!units_certainly_under(&units, false, text.len()));
    // A lone surrogate's escape is JSON as JS reads it; serde_json's validator lets it through too.
    let escaped = r#"{"a":"\ud800"}"#;
    let units: Vec<u16> = escaped.encode_utf16().collect();
    assert_eq!(exact(escaped), escaped.len());
    assert!(units_certainly_under(&units, false, escaped.len()));
  }

  #[test]
  fn a_text_certainly_under_by_its_units_is_under_by_its_exact_size() {
    let mut rng = Lcg(13);
    let (mut alone, mut beside) = (0, 0);
    for _ in 0..20_000 {
      let mut text = String::new();
      value(&mut rng, 0, &mut text);
      for _ in 0..rng.next(3) {
        let at = text
          .char_indices()
          .nth(rng.next(text.chars().count() + 1))
          .map_or(text.len(), |(at, _)| at);
        text.insert_str(at, rng.pick(RAW));
      }
      let units: Vec<u16> = text.encode_utf16().collect();
      let size = exact(&text);
      // The length hosts pass with no call holds whatever the text is.
      assert!(size <= units.len() * 6 + 2, "{text:?}: {size} bytes");
      assert_eq!(units_always_under(units.len() * 6 + 2), units.len());
      // structuredContent is an object: only a text holding one (or an array, as JS reads it) can repeat it.
      let holds_json =
        text.starts_with(['{', '[']) && super::super::canonical_json(&text).is_some();
      for threshold in [
        size.saturating_sub(2),
        size,
        size + 3,
        units.len() * 2 + 2,
        units.len() * 3 + 2,
      ] {
        if units_certainly_under(&units, false, threshold) {
          assert!(size <= threshold, "{text:?} alone: {size} > {threshold}");
          alone += 1;
        }
        // Beside structuredContent only a text holding the same JSON counts (any other passes whole).
        if holds_json && units_certainly_under(&units, true, threshold) {
          assert!(size <= threshold, "{text:?} beside: {size} > {threshold}");
          beside += 1;
        }
      }
    }
    assert!(
      alone > 20_000 && beside > 5_000,
      "rarely certain: {alone} alone, {beside} beside"
    );
  }

  #[test]
  fn the_units_pass_reads_the_utf8_length_exponents_and_six_byte_escapes() {
    let long_plain = "a".repeat(300);
    let cases: &[(&str, bool, bool)] = &[
      ("", false, false),
      ("plain é€😀", false, false),
      ("[1e5]", true, false),
      ("[2.5E+3]", true, false),
      ("e1 E2 x9 9x", false, false),
      ("\u{7}\u{b}", false, true),
      ("\u{8}\t\n\u{c}\r", false, false),
      ("\u{1f}", false, true),
    ];
    for &(text, exponent, six_byte_escape) in cases {
      let units: Vec<u16> = text.encode_utf16().collect();
      let facts = UnitFacts::of(&units);
      assert_eq!(facts.utf8_len, text.len(), "{text:?}");
      assert_eq!(
        (facts.exponent, facts.six_byte_escape),
        (exponent, six_byte_escape),
        "{text:?}"
      );
    }
    // An exponent whose digit ends one block and whose `e` starts the next.
    let across = format!("{}1e5", &long_plain[..255]);
    assert!(UnitFacts::of(&across.encode_utf16().collect::<Vec<_>>()).exponent);
    let split = format!("{}9{}", &long_plain[..255], "e");
    assert!(UnitFacts::of(&split.encode_utf16().collect::<Vec<_>>()).exponent);
  }

  #[test]
  fn a_lone_surrogate_is_left_to_the_exact_way() {
    for units in [vec![0x61, 0xD800, 0x62], vec![0xDC00], vec![0xDE00, 0xD83D]] {
      assert!(!units_certainly_under(&units, false, 1 << 20));
      assert!(!units_certainly_under(&units, true, 1 << 20));
    }
    let pair: Vec<u16> = "😀".encode_utf16().collect();
    assert!(units_certainly_under(&pair, false, 1 << 20));
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
