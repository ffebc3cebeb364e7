//! The one writer of JSON text exactly as `JSON.stringify` prints it: string escapes and number spelling.
//!
//! The fold (sizes, preview, canonical text), the fit (the folded result) and the query (answers) all print through
//! here, so a value reads and measures the same everywhere. serde_json's own writer differs from JS in numbers only
//! (`1e21` vs `1e+21`, `1.0` vs `1`, `-0.0` vs `0`, integers beyond 2^53); strings escape the same way in both.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use super::decode::{pieces, Escaped, Piece};
use super::scan::RawStr;
use super::words::may_stop_string;

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `\uXXXX` for one UTF-16 unit (lowercase hex, as JS writes it).
pub(crate) fn push_unicode_escape(unit: u16, out: &mut String) {
  out.push_str("\\u");
  for shift in [12, 8, 4, 0] {
    out.push(char::from(HEX[usize::from((unit >> shift) & 0xF)]));
  }
}

/// Appends `c` as `JSON.stringify` writes it inside quotes.
pub(crate) fn push_escaped_char(c: char, out: &mut String) {
  match c {
    '"' => out.push_str("\\\""),
    '\\' => out.push_str("\\\\"),
    '\u{8}' => out.push_str("\\b"),
    '\u{c}' => out.push_str("\\f"),
    '\n' => out.push_str("\\n"),
    '\r' => out.push_str("\\r"),
    '\t' => out.push_str("\\t"),
    c if c < ' ' => push_unicode_escape(c as u16, out),
    c => out.push(c),
  }
}

/// Appends a Rust string as `JSON.stringify` quotes it (no surrounding quotes).
pub(crate) fn push_escaped_str(s: &str, out: &mut String) {
  let mut plain_from = 0;
  for (at, b) in s.bytes().enumerate() {
    if b < 0x20 || b == b'"' || b == b'\\' {
      out.push_str(&s[plain_from..at]);
      push_escaped_char(char::from(b), out);
      plain_from = at + 1;
    }
  }
  out.push_str(&s[plain_from..]);
}

/// Appends a Rust string as a JSON string literal, quotes included.
pub(crate) fn push_quoted(s: &str, out: &mut String) {
  out.push('"');
  push_escaped_str(s, out);
  out.push('"');
}

/// Bytes `JSON.stringify` spends on `c` inside a string literal.
pub(crate) const fn escaped_char_len(c: char) -> usize {
  match c {
    '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
    '\u{0}'..='\u{1f}' => 6,
    _ => c.len_utf8(),
  }
}

/// `Buffer.byteLength(JSON.stringify(s))` for a Rust string `s`. Counted in bytes, eight at a time: only quotes,
/// backslashes and control characters (all ASCII) grow, so a word without one counts as itself, and every other
/// byte, of a multi-byte character too, as one (a 15 KB JSON-like text measured 3x faster than counting chars).
pub(crate) fn quoted_len(s: &str) -> usize {
  let mut words = s.as_bytes().chunks_exact(8);
  let mut grown = 0;
  for word in &mut words {
    if may_stop_string(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
      grown += growth(word);
    }
  }
  2 + s.len() + grown + growth(words.remainder())
}

/// Bytes quoting adds to `bytes` beyond their own count.
fn growth(bytes: &[u8]) -> usize {
  bytes
    .iter()
    .map(|&byte| usize::from(GROWTH[usize::from(byte)]))
    .sum()
}

/// What quoting adds to each byte: [`escaped_char_len`] less one for ASCII, nothing for the bytes of a multi-byte
/// character.
const GROWTH: [u8; 256] = {
  let mut table = [0u8; 256];
  let mut byte = 0;
  while byte < 0x80 {
    table[byte] = (escaped_char_len(byte as u8 as char) - 1) as u8;
    byte += 1;
  }
  table
};

/// Appends a double as JS prints it: shortest round-trip spelling, `0` for negative zero, `null` when not finite.
pub(crate) fn push_js_double(value: f64, out: &mut String) {
  if value == 0.0 {
    out.push('0');
  } else if value.is_finite() {
    out.push_str(ryu_js::Buffer::new().format_finite(value));
  } else {
    out.push_str("null");
  }
}

/// Whether UTF-16 units hold a lone surrogate (which UTF-8 cannot carry, and `JSON.stringify` writes as `\udXXX`).
pub(crate) fn has_lone_surrogate(units: &[u16]) -> bool {
  char::decode_utf16(units.iter().copied()).any(|unit| unit.is_err())
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
pub(crate) fn push_canonical_str(s: RawStr<'_>, out: &mut String) {
  if !s.escaped {
    // Checked JSON without escapes holds no quote, backslash or control character: already canonical.
    out.push_str(s.raw);
    return;
  }
  for piece in pieces(s.raw) {
    match piece {
      Piece::Plain(run) => out.push_str(run),
      Piece::Escape(Escaped::Char(c)) => push_escaped_char(c, out),
      Piece::Escape(Escaped::Lone(unit)) => push_unicode_escape(unit, out),
      Piece::Broken => break,
    }
  }
}

/// Appends a JSON number as `JSON.stringify(JSON.parse(raw))` prints it: JS's shortest round-trip spelling,
/// `0` for negative zero, `null` for values beyond the double range (JSON.parse gives ±Infinity).
pub(crate) fn push_canonical_number(raw: &str, out: &mut String) {
  if number_prints_as_written(raw.as_bytes()) {
    out.push_str(raw);
    return;
  }
  // Beyond the double range `parse` gives infinity, which JSON.stringify prints as null.
  push_js_double(raw.parse::<f64>().unwrap_or(f64::NAN), out);
}

/// Whether JS prints the JSON number `raw` exactly as it is written: `-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?` with at
/// most 15 significant digits (a double holds those exactly, and no shorter spelling reads as the same double), not
/// `-0`, and no smaller than 1e-6 when it has a fraction (below that JS writes an exponent). `false` for any
/// exponent, though JS writes some (`1e+21`).
pub(crate) fn number_prints_as_written(raw: &[u8]) -> bool {
  let unsigned = raw.strip_prefix(b"-").unwrap_or(raw);
  let (integer, fraction) = match unsigned.iter().position(|&byte| byte == b'.') {
    Some(dot) => (&unsigned[..dot], Some(&unsigned[dot + 1..])),
    None => (unsigned, None),
  };
  let digits = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
  if !digits(integer) || (integer.len() > 1 && integer[0] == b'0') {
    return false;
  }
  let significant = match (fraction, integer == b"0") {
    (None, _) => {
      if raw == b"-0" {
        return false;
      }
      integer.len()
    }
    (Some(fraction), _) if !digits(fraction) || fraction.last() == Some(&b'0') => return false,
    (Some(fraction), true) => {
      let zeros = fraction.iter().take_while(|&&digit| digit == b'0').count();
      if zeros > 5 {
        return false;
      }
      fraction.len() - zeros
    }
    (Some(fraction), false) => integer.len() + fraction.len(),
  };
  significant <= 15
}

/// Appends a serde_json number the way JS prints it.
pub(crate) fn write_number(out: &mut String, number: &Number) {
  if let Some(n) = number.as_u64() {
    if n <= MAX_SAFE_INTEGER {
      let _ = write!(out, "{n}");
      return;
    }
  } else if let Some(n) = number.as_i64() {
    if n.unsigned_abs() <= MAX_SAFE_INTEGER {
      let _ = write!(out, "{n}");
      return;
    }
  }
  // serde_json holds no NaN or infinity; -0 prints as 0 in JS.
  push_js_double(number.as_f64().unwrap_or(f64::NAN), out);
}

/// Appends a serde_json value as JSON text, keeping only the keys in `fields` when `value` is an object and
/// `fields` is set.
pub(crate) fn write_value(out: &mut String, value: &Value, fields: Option<&[String]>) {
  match value {
    Value::Null => out.push_str("null"),
    Value::Bool(true) => out.push_str("true"),
    Value::Bool(false) => out.push_str("false"),
    Value::Number(number) => write_number(out, number),
    Value::String(text) => push_quoted(text, out),
    Value::Array(items) => {
      out.push('[');
      for (i, item) in items.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_value(out, item, None);
      }
      out.push(']');
    }
    Value::Object(map) => {
      out.push('{');
      let mut first = true;
      for (key, item) in map {
        if fields.is_some_and(|fields| !fields.iter().any(|field| field == key)) {
          continue;
        }
        if !first {
          out.push(',');
        }
        first = false;
        push_quoted(key, out);
        out.push(':');
        write_value(out, item, None);
      }
      out.push('}');
    }
  }
}

/// A Rust string as a JSON string literal, quotes included.
pub(crate) fn quoted(s: &str) -> String {
  let mut out = String::with_capacity(s.len() + 2);
  push_quoted(s, &mut out);
  out
}
