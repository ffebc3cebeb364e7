//! JSON text exactly as `JSON.stringify` writes it: string escapes and number spelling.
//!
//! Fold (sizes, canonical text) and query (answers) both print through here, so a value reads and measures the same
//! everywhere.

/// The type of a JSON value. `name` is the word the shape and the messages use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
  Object,
  Array,
  String,
  Number,
  Boolean,
  Null,
}

impl Kind {
  pub(crate) fn name(self) -> &'static str {
    match self {
      Kind::Object => "object",
      Kind::Array => "array",
      Kind::String => "string",
      Kind::Number => "number",
      Kind::Boolean => "boolean",
      Kind::Null => "null",
    }
  }
}

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
pub(crate) fn escaped_char_len(c: char) -> usize {
  match c {
    '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
    '\u{0}'..='\u{1f}' => 6,
    _ => c.len_utf8(),
  }
}

/// `Buffer.byteLength(JSON.stringify(s))` for a Rust string `s`.
pub(crate) fn quoted_len(s: &str) -> usize {
  2 + s.chars().map(escaped_char_len).sum::<usize>()
}

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

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn escapes_and_lengths_agree() {
    let text = "a\"b\\c\n\u{1}\u{2029}\u{e9}";
    let mut out = String::new();
    push_quoted(text, &mut out);
    assert_eq!(out, "\"a\\\"b\\\\c\\n\\u0001\u{2029}\u{e9}\"");
    assert_eq!(quoted_len(text), out.len());
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
}
