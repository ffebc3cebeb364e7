//! Strings and numbers as JS sees them: UTF-16 lengths, `JSON.stringify` quoting, `Number#toString` spelling.

use super::scan::RawStr;
use crate::core::jsjson::{push_escaped_char, push_js_double, push_unicode_escape};
pub(crate) use crate::core::jsjson::{push_escaped_str, quoted_len};

/// UTF-16 units of the UTF-8 text `s`: one per character, two for characters beyond U+FFFF.
pub(crate) fn utf16_len_of_utf8(s: &str) -> usize {
  s.bytes()
    .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
    .sum()
}

/// Feeds the UTF-16 units of a JSON string's content to `sink` until it returns `false`.
fn for_each_unit(s: RawStr<'_>, mut sink: impl FnMut(u16) -> bool) {
  let mut rest = s.raw;
  while !rest.is_empty() {
    let plain_end = rest.find('\\').unwrap_or(rest.len());
    for c in rest[..plain_end].chars() {
      let mut buf = [0u16; 2];
      for unit in c.encode_utf16(&mut buf) {
        if !sink(*unit) {
          return;
        }
      }
    }
    rest = &rest[plain_end..];
    let bytes = rest.as_bytes();
    if bytes.len() < 2 {
      return;
    }
    let (unit, used) = match bytes[1] {
      b'b' => (0x08, 2),
      b'f' => (0x0C, 2),
      b'n' => (0x0A, 2),
      b'r' => (0x0D, 2),
      b't' => (0x09, 2),
      b'u' => match rest
        .get(2..6)
        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
      {
        Some(unit) => (unit, 6),
        None => return,
      },
      other => (u16::from(other), 2),
    };
    if !sink(unit) {
      return;
    }
    rest = &rest[used..];
  }
}

/// The UTF-16 length of a JSON string's content, as JS's `length` counts it.
pub(crate) fn utf16_len(s: RawStr<'_>) -> usize {
  if !s.escaped {
    return utf16_len_of_utf8(s.raw);
  }
  let mut count = 0usize;
  for_each_unit(s, |_| {
    count += 1;
    true
  });
  count
}

/// Appends the first `limit` UTF-16 units of a JSON string's content to `out`, and one more when there is
/// one (so a later cut can tell a pair from a lone surrogate); returns the whole length.
pub(crate) fn decode_prefix(s: RawStr<'_>, limit: usize, out: &mut Vec<u16>) -> usize {
  if limit == 0 {
    return utf16_len(s);
  }
  let limit = limit.saturating_add(1);
  let mut count = 0usize;
  if !s.escaped {
    // Decode only what is kept; count the rest fast.
    let mut consumed = 0usize;
    for (at, c) in s.raw.char_indices() {
      if count >= limit {
        consumed = at;
        break;
      }
      let mut buf = [0u16; 2];
      let units = c.encode_utf16(&mut buf);
      out.extend_from_slice(units);
      count += units.len();
      consumed = at + c.len_utf8();
    }
    return count + utf16_len_of_utf8(&s.raw[consumed..]);
  }
  for_each_unit(s, |unit| {
    if count < limit {
      out.push(unit);
    }
    count += 1;
    true
  });
  count
}

/// At most `n` units of `units`, one fewer when the cut would split a surrogate pair.
pub(crate) fn cut_units(units: &[u16], n: usize) -> &[u16] {
  if n >= units.len() {
    return units;
  }
  let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
  let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
  if n > 0 && is_high(units[n - 1]) && is_low(units[n]) {
    &units[..n - 1]
  } else {
    &units[..n]
  }
}

/// Appends UTF-16 units as `JSON.stringify` quotes them (no surrounding quotes); lone surrogates become `\udXXX`.
pub(crate) fn push_escaped_units(units: &[u16], out: &mut String) {
  for decoded in char::decode_utf16(units.iter().copied()) {
    match decoded {
      Ok(c) => push_escaped_char(c, out),
      Err(lone) => push_unicode_escape(lone.unpaired_surrogate(), out),
    }
  }
}

/// Appends a JSON string's content in the form `JSON.stringify(JSON.parse(...))` prints (no surrounding quotes).
pub(crate) fn push_canonical_raw(s: RawStr<'_>, out: &mut String) {
  if !s.escaped {
    // Checked JSON without escapes holds no quote, backslash or control character: already canonical.
    out.push_str(s.raw);
    return;
  }
  let mut pending_high: Option<u16> = None;
  let mut rest = s.raw;
  let flush_high = |high: &mut Option<u16>, out: &mut String| {
    if let Some(unit) = high.take() {
      push_unicode_escape(unit, out);
    }
  };
  while !rest.is_empty() {
    let plain_end = rest.find('\\').unwrap_or(rest.len());
    if plain_end > 0 {
      flush_high(&mut pending_high, out);
      out.push_str(&rest[..plain_end]);
      rest = &rest[plain_end..];
      continue;
    }
    let bytes = rest.as_bytes();
    if bytes.len() < 2 {
      break;
    }
    let (unit, used) = match bytes[1] {
      b'u' => match rest
        .get(2..6)
        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
      {
        Some(unit) => (unit, 6),
        None => break,
      },
      b'b' => (0x08, 2),
      b'f' => (0x0C, 2),
      b'n' => (0x0A, 2),
      b'r' => (0x0D, 2),
      b't' => (0x09, 2),
      other => (u16::from(other), 2),
    };
    rest = &rest[used..];
    match unit {
      0xD800..=0xDBFF => {
        flush_high(&mut pending_high, out);
        pending_high = Some(unit);
      }
      0xDC00..=0xDFFF => match pending_high.take() {
        Some(high) => {
          let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
          out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        None => push_unicode_escape(unit, out),
      },
      _ => {
        flush_high(&mut pending_high, out);
        push_escaped_char(
          char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
          out,
        );
      }
    }
  }
  flush_high(&mut pending_high, out);
}

/// Appends a JSON number as `JSON.stringify(JSON.parse(raw))` prints it: JS's shortest round-trip spelling,
/// `0` for negative zero, `null` for values beyond the double range (JSON.parse gives ±Infinity).
pub(crate) fn push_canonical_number(raw: &str, out: &mut String) {
  let digits = raw.strip_prefix('-').unwrap_or(raw);
  // Up to 15 digits, an integer is exact in a double and JS prints it as written.
  if digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) && raw != "-0" {
    out.push_str(raw);
    return;
  }
  // Beyond the double range `parse` gives infinity, which JSON.stringify prints as null.
  push_js_double(raw.parse::<f64>().unwrap_or(f64::NAN), out);
}

#[cfg(test)]
mod tests {
  use super::*;

  fn raw(s: &str) -> RawStr<'_> {
    RawStr {
      raw: s,
      escaped: s.contains('\\'),
    }
  }

  fn canonical_string(s: &str) -> String {
    let mut out = String::new();
    push_canonical_raw(raw(s), &mut out);
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
}
