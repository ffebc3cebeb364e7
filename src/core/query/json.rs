//! JSON text exactly as `JSON.stringify` prints it, so answers read the same from every host.
//!
//! serde_json differs from JS in two places only, both numbers: floats (`1e21` vs `1e+21`, `1.0` vs `1`, `-0.0`
//! vs `0`) and integers beyond 2^53 (JS holds them as doubles). Strings escape the same way in both.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::core::jsjson::push_js_double;

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Appends `value` as JSON text, keeping only the keys in `fields` when `value` is an object and `fields` is set.
pub(crate) fn write_value(out: &mut String, value: &Value, fields: Option<&[String]>) {
  match value {
    Value::Null => out.push_str("null"),
    Value::Bool(true) => out.push_str("true"),
    Value::Bool(false) => out.push_str("false"),
    Value::Number(number) => write_number(out, number),
    Value::String(text) => write_str(out, text),
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
        if let Some(fields) = fields {
          if !fields.iter().any(|field| field == key) {
            continue;
          }
        }
        if !first {
          out.push(',');
        }
        first = false;
        write_str(out, key);
        out.push(':');
        write_value(out, item, None);
      }
      out.push('}');
    }
  }
}

/// Appends a number the way JS prints it.
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

pub(crate) use crate::core::jsjson::{escaped_char_len as escaped_len, push_quoted};

/// Appends a JSON string literal, escaping as `JSON.stringify` does.
pub(crate) fn write_str(out: &mut String, text: &str) {
  push_quoted(text, out);
}

/// Private-use blocks a lone surrogate can stand in for while an answer is read (one UTF-16 unit each, like the
/// surrogate; each block as wide as the surrogate range).
const STAND_IN_BASES: [u32; 3] = [0xE000, 0xE800, 0xF000];
const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;

/// Lone surrogates of an answer, each standing in as one private-use character while serde_json (which refuses
/// them) reads it; [`LoneSurrogates::restore`] puts them back in an answer's JSON.
pub(crate) struct LoneSurrogates {
  base: u32,
  /// How many were replaced: each is written back as 6 bytes where its stand-in took 3.
  pub(crate) count: usize,
}

impl LoneSurrogates {
  /// `text` with each lone surrogate escape rewritten as the escape of its stand-in (same length, so byte offsets
  /// hold); `None` when there is none, or when no stand-in block is free of characters in `text` and `also`.
  pub(crate) fn stand_in(text: &str, also: &str) -> Option<(String, LoneSurrogates)> {
    let used = |base: u32| {
      let block = base..base + 0x800;
      let escaped = escapes(text).any(|(_, unit, _)| block.contains(&unit));
      escaped
        || text
          .chars()
          .chain(also.chars())
          .any(|c| block.contains(&u32::from(c)))
    };
    let base = STAND_IN_BASES.into_iter().find(|&base| !used(base))?;
    let mut bytes = text.as_bytes().to_vec();
    let mut count = 0;
    for (at, unit, lone) in escapes(text) {
      if lone {
        let stand_in = base + (unit - SURROGATES.start());
        let hex = format!("{stand_in:04x}");
        bytes[at + 2..at + 6].copy_from_slice(hex.as_bytes());
        count += 1;
      }
    }
    // Only ASCII hex digits were overwritten with ASCII, so the text is still UTF-8.
    let text = String::from_utf8(bytes).ok()?;
    (count > 0).then_some((text, LoneSurrogates { base, count }))
  }

  /// `json` (an answer written while the stand-ins were in place) with each stand-in written back as the escape
  /// `JSON.stringify` prints for a lone surrogate. Stand-ins occur only inside strings.
  pub(crate) fn restore(&self, json: &str) -> String {
    let block = self.base..self.base + 0x800;
    let mut out = String::with_capacity(json.len() + self.count * 3);
    for c in json.chars() {
      let code = u32::from(c);
      if block.contains(&code) {
        let unit = SURROGATES.start() + (code - self.base);
        crate::core::jsjson::push_unicode_escape(unit as u16, &mut out);
      } else {
        out.push(c);
      }
    }
    out
  }
}

/// Every `\uXXXX` escape of a JSON text: its byte offset, its unit, and whether it is a lone surrogate (a
/// surrogate not part of a pair). `\\` is skipped whole, so no string state is needed.
fn escapes(text: &str) -> impl Iterator<Item = (usize, u32, bool)> + '_ {
  fn hex4(bytes: &[u8]) -> Option<u32> {
    let digits = bytes.get(..4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
      return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
  }
  let bytes = text.as_bytes();
  let mut i = 0;
  std::iter::from_fn(move || loop {
    let at = i + memchr_backslash(&bytes[i.min(bytes.len())..])?;
    if bytes.get(at + 1) != Some(&b'u') {
      i = at + 2;
      continue;
    }
    let Some(unit) = hex4(&bytes[at + 2..]) else {
      i = at + 2;
      continue;
    };
    let paired = (0xD800..=0xDBFF).contains(&unit)
      && bytes.get(at + 6..at + 8) == Some(b"\\u")
      && matches!(bytes.get(at + 8..).and_then(hex4), Some(0xDC00..=0xDFFF));
    i = if paired { at + 12 } else { at + 6 };
    return Some((at, unit, !paired && SURROGATES.contains(&unit)));
  })
}

fn memchr_backslash(bytes: &[u8]) -> Option<usize> {
  bytes.iter().position(|&b| b == b'\\')
}

/// Rewrites each lone surrogate escape (`\uD800`..`\uDFFF` not part of a pair) as `\ufffd`; `None` when there
/// is none. Escapes appear only inside strings, and `\\` is skipped whole, so no string state is needed.
pub(crate) fn replace_lone_surrogates(text: &str) -> Option<String> {
  fn hex4(bytes: &[u8]) -> Option<u32> {
    let digits = bytes.get(..4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
      return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
  }
  let mut bytes = text.as_bytes().to_vec();
  let mut changed = false;
  let mut i = 0;
  while i < bytes.len() {
    if bytes[i] != b'\\' {
      i += 1;
      continue;
    }
    if bytes.get(i + 1) != Some(&b'u') {
      i += 2;
      continue;
    }
    let unit = hex4(&bytes[i + 2..]);
    let paired = matches!(unit, Some(0xD800..=0xDBFF))
      && bytes.get(i + 6..i + 8) == Some(b"\\u")
      && matches!(bytes.get(i + 8..).and_then(hex4), Some(0xDC00..=0xDFFF));
    if paired {
      i += 12;
    } else if matches!(unit, Some(0xD800..=0xDFFF)) {
      bytes[i + 2..i + 6].copy_from_slice(b"fffd");
      changed = true;
      i += 6;
    } else {
      i += 2;
    }
  }
  // Only ASCII hex digits were overwritten with ASCII, so the text is still UTF-8.
  changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn text(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None);
    out
  }

  #[test]
  fn numbers_print_as_in_js() {
    let parsed: Value =
      serde_json::from_str("[1.0,-0.0,1e21,1.5e-7,0.1,123456789012345678901,-5,9007199254740993]")
        .expect("valid JSON");
    assert_eq!(
      text(&parsed),
      "[1,0,1e+21,1.5e-7,0.1,123456789012345680000,-5,9007199254740992]"
    );
  }

  #[test]
  fn strings_escape_as_in_js() {
    let value = json!("a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}/\u{2028}😀");
    assert_eq!(
      text(&value),
      "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}/\u{2028}😀\""
    );
    let escaped: usize = "a\"\u{1}😀".chars().map(escaped_len).sum();
    assert_eq!(escaped, text(&json!("a\"\u{1}😀")).len() - 2);
  }

  #[test]
  fn lone_surrogates_become_replacement_characters() {
    let text =
      r#"["\ud83d", "a\uDE00b", "\ud83d\ude00", "\\ud83d", "\ud83d\u0041", "\ud83d\ud83d\ude00"]"#;
    let repaired = replace_lone_surrogates(text).expect("repaired");
    let value: Value = serde_json::from_str(&repaired).expect("valid now");
    assert_eq!(
      value,
      json!([
        "\u{fffd}",
        "a\u{fffd}b",
        "😀",
        "\\ud83d",
        "\u{fffd}A",
        "\u{fffd}😀"
      ])
    );
    assert_eq!(
      replace_lone_surrogates(r#"["\ud83d\ude00", "\\ud800"]"#),
      None
    );
  }

  #[test]
  fn fields_keep_the_object_order() {
    let value = json!({"a": 1, "b": {"c": 2}, "__proto__": 3});
    let mut out = String::new();
    write_value(
      &mut out,
      &value,
      Some(&["__proto__".to_string(), "a".to_string(), "zz".to_string()]),
    );
    assert_eq!(out, "{\"a\":1,\"__proto__\":3}");
  }
}
