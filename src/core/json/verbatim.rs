//! Whether a JSON text already reads as the writer prints it, so that a page of kept matches copies each item's
//! text instead of parsing it and printing it again (the parse and the print were a fifth of a kept page's cost).
//!
//! The look is cheap and errs one way only: `true` means parsing the text with serde_json and printing it with
//! [`super::write::write_value`] gives back the same bytes, and also what `JSON.stringify(JSON.parse(text))`
//! prints. Some texts that would print the same still get `false` (an exponent, a `\u` escape, an object of many
//! keys, a key that starts with a digit, deep nesting): those take the long way, as every item did before.

use super::decode::{escape_at, Escaped};
use super::words::{may_stop_string, word_at};
use super::write::{escaped_char_len, number_prints_as_written};

/// Members of one object the check compares keys across; an object with more goes the long way.
const MAX_KEYS: usize = 64;

/// Nesting the check follows; deeper texts go the long way, where serde_json refuses what it cannot read (past
/// 128 levels), as it did before there was a copy.
const MAX_DEPTH: usize = 64;

/// Whether `text`, one JSON value that serde_json reads, is printed back byte for byte (see the module docs).
pub(crate) fn prints_as_written(text: &str) -> bool {
  Verbatim::new(text.as_bytes()).check().is_some()
}

/// The state of one look: open containers, and the keys of the objects among them.
struct Verbatim<'t> {
  bytes: &'t [u8],
  at: usize,
  /// Per open container: for an object, where its keys start in `keys`; `None` for an array.
  open: Vec<Option<usize>>,
  /// The keys (between their quotes) of every open object, outermost first.
  keys: Vec<&'t [u8]>,
  /// A string here is an object's key (just after `{`, or `,` in an object).
  key_due: bool,
}

impl<'t> Verbatim<'t> {
  fn new(bytes: &'t [u8]) -> Self {
    Verbatim {
      bytes,
      at: 0,
      open: Vec::new(),
      keys: Vec::new(),
      key_due: false,
    }
  }

  /// `Some` when the whole text passes; `None` at the first thing the writer would print differently (or that
  /// this look does not vouch for).
  fn check(&mut self) -> Option<()> {
    while let Some(&byte) = self.bytes.get(self.at) {
      match byte {
        b'"' => self.string()?,
        b'{' => {
          self.open(Some(self.keys.len()))?;
          self.key_due = true;
        }
        b'[' => self.open(None)?,
        b'}' | b']' => {
          if let Some(Some(first_key)) = self.open.pop() {
            self.keys.truncate(first_key);
          }
          self.key_due = false;
          self.at += 1;
        }
        b',' => {
          self.key_due = matches!(self.open.last(), Some(Some(_)));
          self.at += 1;
        }
        b':' => self.at += 1,
        b'-' | b'0'..=b'9' => self.number()?,
        b't' | b'f' | b'n' => {
          // serde_json read the text, so this is `true`, `false` or `null`: pass its letters.
          while self.bytes.get(self.at).is_some_and(u8::is_ascii_lowercase) {
            self.at += 1;
          }
        }
        // Blanks, which the writer leaves out.
        _ => return None,
      }
    }
    Some(())
  }

  /// A container at its opening bracket: `keys_from` for an object, `None` for an array.
  fn open(&mut self, keys_from: Option<usize>) -> Option<()> {
    if self.open.len() == MAX_DEPTH {
      return None;
    }
    self.open.push(keys_from);
    self.at += 1;
    Some(())
  }

  /// A string at its opening quote; a key when one is due.
  fn string(&mut self) -> Option<()> {
    let start = self.at + 1;
    let mut at = start;
    loop {
      while word_at(self.bytes, at).is_some_and(|word| !may_stop_string(word)) {
        at += 8;
      }
      match *self.bytes.get(at)? {
        b'"' => break,
        // A two-byte escape of a character the writer also writes in two (`\n`, not `\/`); not `\uXXXX`.
        b'\\' => match escape_at(self.bytes, at)? {
          (Escaped::Char(c), 2) if escaped_char_len(c) == 2 => at += 2,
          _ => return None,
        },
        byte if byte < 0x20 => return None,
        _ => at += 1,
      }
    }
    self.at = at + 1;
    if std::mem::take(&mut self.key_due) {
      self.key(&self.bytes[start..at])?;
    }
    Some(())
  }

  /// A key of the innermost object: not one JS would move to the front (an array index), not one seen before in
  /// the same object (serde_json and `JSON.parse` keep one of them).
  fn key(&mut self, key: &'t [u8]) -> Option<()> {
    if key.first().is_some_and(u8::is_ascii_digit) {
      return None;
    }
    let first_key = (*self.open.last()?)?;
    let siblings = &self.keys[first_key..];
    if siblings.len() >= MAX_KEYS || siblings.contains(&key) {
      return None;
    }
    self.keys.push(key);
    Some(())
  }

  /// A number JS prints as it is written ([`number_prints_as_written`]).
  fn number(&mut self) -> Option<()> {
    let start = self.at;
    let mut at = start;
    while self
      .bytes
      .get(at)
      .is_some_and(|byte| matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
    {
      at += 1;
    }
    self.at = at;
    number_prints_as_written(&self.bytes[start..at]).then_some(())
  }
}

#[cfg(test)]
mod tests;
