//! The query's side of the JSON layer: the JS-exact writer under the names the query uses, and the two ways an
//! answer holding lone surrogate escapes (which `JSON.stringify` writes and serde_json refuses) is read with
//! serde_json — each lone surrogate stood in for and put back, or replaced with U+FFFD. Escapes are found by the
//! one decoder, [`crate::core::json::decode`].

use crate::core::json::decode::{escapes_in, Escaped};
pub(crate) use crate::core::json::write::{
  escaped_char_len as escaped_len, write_value, MAX_SAFE_INTEGER,
};
use crate::core::json::write::{push_quoted, push_unicode_escape};

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
      let escaped = escapes_in(text).any(|(_, escaped)| match escaped {
        Escaped::Char(c) => block.contains(&u32::from(c)),
        Escaped::Lone(_) => false,
      });
      escaped
        || text
          .chars()
          .chain(also.chars())
          .any(|c| block.contains(&u32::from(c)))
    };
    let base = STAND_IN_BASES.into_iter().find(|&base| !used(base))?;
    let mut bytes = text.as_bytes().to_vec();
    let mut count = 0;
    for (at, escaped) in escapes_in(text) {
      if let Escaped::Lone(unit) = escaped {
        let stand_in = base + (u32::from(unit) - SURROGATES.start());
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
        push_unicode_escape(unit as u16, &mut out);
      } else {
        out.push(c);
      }
    }
    out
  }
}

/// Rewrites each lone surrogate escape (`\uD800`..`\uDFFF` not part of a pair) as `\ufffd`; `None` when there
/// is none.
pub(crate) fn replace_lone_surrogates(text: &str) -> Option<String> {
  let mut bytes: Option<Vec<u8>> = None;
  for (at, escaped) in escapes_in(text) {
    if let Escaped::Lone(_) = escaped {
      let bytes = bytes.get_or_insert_with(|| text.as_bytes().to_vec());
      bytes[at + 2..at + 6].copy_from_slice(b"fffd");
    }
  }
  // Only ASCII hex digits were overwritten with ASCII, so the text is still UTF-8.
  String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::{json, Value};

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
}
