//! Texts that hold raw lone surrogates: a JS string may, UTF-8 (and so a Rust `str`) cannot. Such a text reaches the
//! engine as its UTF-16 units, and these give the JSON `JSON.stringify` writes for it, as for any other text.
//!
//! A lone surrogate inside a JSON string literal is that unit of the string's value, exactly what the escape
//! `\udXXX` stands for; anywhere else it breaks the JSON, as a backslash does. So the units are read as UTF-8 with
//! each lone surrogate written as its escape, and the canonicalizer does the rest. One exception keeps the grammar
//! JS's: after an escaping backslash (`"\` then a lone surrogate) JS sees an invalid escape, so there the
//! surrogate is written as a control character, which no escape accepts either.

use super::canonical::canonicalize;
use crate::core::json::write::{push_escaped_units, push_unicode_escape};

/// `JSON.stringify(JSON.parse(text))` when `text` (UTF-16 units) holds a JSON object or array (after JSON
/// whitespace), else `None`: the texts a fold reads as JSON.
pub(crate) fn structured_json(units: &[u16]) -> Option<String> {
  let start = units
    .iter()
    .position(|&unit| !matches!(unit, 0x20 | 0x09 | 0x0A | 0x0D))?;
  if !matches!(units[start], 0x7B | 0x5B) {
    return None;
  }
  canonicalize(&with_escaped_lone_surrogates(units)).ok()
}

/// The JSON a text answer stands for: [`structured_json`], else the text as `JSON.stringify` quotes it.
pub(crate) fn text_answer_json(units: &[u16]) -> String {
  structured_json(units).unwrap_or_else(|| {
    let mut json = String::with_capacity(units.len() + 2);
    json.push('"');
    push_escaped_units(units, &mut json);
    json.push('"');
    json
  })
}

/// The units as UTF-8, each lone surrogate written as `\udXXX` (or as U+0001 right after an escaping backslash).
fn with_escaped_lone_surrogates(units: &[u16]) -> String {
  let mut out = String::with_capacity(units.len() + units.len() / 2);
  // Backslashes right before the current unit: an odd run escapes it.
  let mut backslashes = 0usize;
  for decoded in char::decode_utf16(units.iter().copied()) {
    match decoded {
      Ok(c) => {
        out.push(c);
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
      }
      Err(_) if backslashes % 2 == 1 => {
        out.push('\u{1}');
        backslashes = 0;
      }
      Err(lone) => {
        push_unicode_escape(lone.unpaired_surrogate(), &mut out);
        backslashes = 0;
      }
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  /// `text` with every `@` replaced by a lone high surrogate and every `~` by a lone low one.
  fn lone(text: &str) -> Vec<u16> {
    units(text)
      .into_iter()
      .map(|unit| match unit {
        0x40 => 0xD800,
        0x7E => 0xDC01,
        other => other,
      })
      .collect()
  }

  #[test]
  fn lone_surrogates_in_json_strings_stay_escaped_as_js_writes_them() {
    assert_eq!(
      structured_json(&lone(r#" {"k@": [ "a@b", "~" ] } "#)).as_deref(),
      Some(r#"{"k\ud800":["a\ud800b","\udc01"]}"#)
    );
  }

  #[test]
  fn a_lone_surrogate_beside_an_escaped_half_makes_a_pair_as_in_js() {
    // JS: JSON.stringify(JSON.parse('["\uD83D' + '\\ude00"]')) === '["😀"]'
    let mut text = units("[\"");
    text.push(0xD83D);
    text.extend(units(r#"\ude00"]"#));
    assert_eq!(structured_json(&text).as_deref(), Some("[\"😀\"]"));
  }

  #[test]
  fn a_lone_surrogate_outside_strings_or_after_an_escaping_backslash_is_not_json() {
    for text in [r#"[1,@]"#, r#"{"a":1}~"#, r#"["\@"]"#, r#"["\\\@"]"#] {
      assert_eq!(structured_json(&lone(text)), None, "{text}");
    }
    // An escaped backslash before it is only a backslash.
    assert_eq!(
      structured_json(&lone(r#"["\\@"]"#)).as_deref(),
      Some(r#"["\\\ud800"]"#)
    );
  }

  #[test]
  fn other_texts_are_quoted_with_their_lone_surrogates_escaped() {
    assert_eq!(text_answer_json(&lone("a@\"~")), r#""a\ud800\"\udc01""#);
    assert_eq!(text_answer_json(&lone("[@")), r#""[\ud800""#);
    assert_eq!(text_answer_json(&lone("[\"@\"]")), r#"["\ud800"]"#);
  }
}
