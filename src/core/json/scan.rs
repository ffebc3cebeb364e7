//! The one pull scanner over JSON text: one event per token, byte offsets, an explicit stack instead of recursion.
//!
//! Why not serde_json's `Deserializer`: the text `JSON.stringify` prints may hold lone surrogates as `\udXXX`
//! escapes, which serde_json refuses everywhere except in byte strings; the fold needs each number's own text
//! (to echo JS's spelling), UTF-16 counts, and no recursion at all (10k-deep answers). The grammar is RFC 8259,
//! the same `JSON.parse` accepts. Strings are left raw ([`RawStr`]); [`super::decode`] reads their escapes.

use super::decode::escape_at;
use super::words::{find_quote_or_backslash, may_stop_string, word_at};

/// A string token: the text between the quotes, escapes still in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawStr<'a> {
  pub raw: &'a str,
  pub escaped: bool,
}

/// One token of the JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event<'a> {
  ObjectStart,
  ObjectEnd,
  ArrayStart,
  ArrayEnd,
  Key(RawStr<'a>),
  Str(RawStr<'a>),
  Number(&'a str),
  Bool(bool),
  Null,
}

/// The text is not JSON; `offset` is the byte where reading stopped (no text is quoted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScanError {
  pub offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
  Value,
  FirstValueOrEnd,
  FirstKeyOrEnd,
  Key,
  Colon,
  CommaOrEnd,
  Done,
}

/// Bytes that end a run of plain string content: quote, backslash, control characters.
static STRING_STOP: [bool; 256] = {
  let mut table = [false; 256];
  let mut b = 0;
  while b < 0x20 {
    table[b] = true;
    b += 1;
  }
  table[b'"' as usize] = true;
  table[b'\\' as usize] = true;
  table
};

pub(crate) struct Scanner<'a> {
  text: &'a str,
  bytes: &'a [u8],
  pos: usize,
  /// One entry per open container: `true` for an object.
  stack: Vec<bool>,
  expect: Expect,
  /// Deepest container nesting seen so far, skipped parts included (a top-level container is 1).
  deepest: usize,
}

impl<'a> Scanner<'a> {
  pub fn new(text: &'a str) -> Self {
    Self {
      text,
      bytes: text.as_bytes(),
      pos: 0,
      stack: Vec::new(),
      expect: Expect::Value,
      deepest: 0,
    }
  }

  fn error<T>(&self) -> Result<T, ScanError> {
    Err(ScanError { offset: self.pos })
  }

  /// The byte where reading goes on.
  pub fn offset(&self) -> usize {
    self.pos
  }

  /// Deepest container nesting read so far, skipped containers included: `[]` is 1, `[[1]]` is 2, a scalar 0.
  pub fn deepest(&self) -> usize {
    self.deepest
  }

  fn skip_whitespace(&mut self) {
    while let Some(&b) = self.bytes.get(self.pos) {
      if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
        self.pos += 1;
      } else {
        break;
      }
    }
  }

  fn after_value(&mut self) {
    self.expect = if self.stack.is_empty() {
      Expect::Done
    } else {
      Expect::CommaOrEnd
    };
  }

  /// The next token; `None` once the single top-level value and trailing whitespace are read.
  pub fn next_event(&mut self) -> Result<Option<Event<'a>>, ScanError> {
    loop {
      self.skip_whitespace();
      let Some(&b) = self.bytes.get(self.pos) else {
        return if self.expect == Expect::Done {
          Ok(None)
        } else {
          self.error()
        };
      };
      match self.expect {
        Expect::Done => return self.error(),
        Expect::Value => return self.value(b).map(Some),
        Expect::FirstValueOrEnd => {
          if b == b']' {
            self.pos += 1;
            self.stack.pop();
            self.after_value();
            return Ok(Some(Event::ArrayEnd));
          }
          return self.value(b).map(Some);
        }
        Expect::FirstKeyOrEnd | Expect::Key => {
          if b == b'}' && self.expect == Expect::FirstKeyOrEnd {
            self.pos += 1;
            self.stack.pop();
            self.after_value();
            return Ok(Some(Event::ObjectEnd));
          }
          if b != b'"' {
            return self.error();
          }
          let key = self.string()?;
          self.expect = Expect::Colon;
          return Ok(Some(Event::Key(key)));
        }
        Expect::Colon => {
          if b != b':' {
            return self.error();
          }
          self.pos += 1;
          self.expect = Expect::Value;
        }
        Expect::CommaOrEnd => {
          let in_object = self.stack.last().copied().unwrap_or(false);
          match b {
            b',' => {
              self.pos += 1;
              self.expect = if in_object {
                Expect::Key
              } else {
                Expect::Value
              };
            }
            b'}' if in_object => {
              self.pos += 1;
              self.stack.pop();
              self.after_value();
              return Ok(Some(Event::ObjectEnd));
            }
            b']' if !in_object => {
              self.pos += 1;
              self.stack.pop();
              self.after_value();
              return Ok(Some(Event::ArrayEnd));
            }
            _ => return self.error(),
          }
        }
      }
    }
  }

  fn value(&mut self, b: u8) -> Result<Event<'a>, ScanError> {
    let event = match b {
      b'{' => {
        self.pos += 1;
        self.stack.push(true);
        self.deepest = self.deepest.max(self.stack.len());
        self.expect = Expect::FirstKeyOrEnd;
        return Ok(Event::ObjectStart);
      }
      b'[' => {
        self.pos += 1;
        self.stack.push(false);
        self.deepest = self.deepest.max(self.stack.len());
        self.expect = Expect::FirstValueOrEnd;
        return Ok(Event::ArrayStart);
      }
      b'"' => Event::Str(self.string()?),
      b'-' | b'0'..=b'9' => Event::Number(self.number()?),
      b't' => self.literal("true", Event::Bool(true))?,
      b'f' => self.literal("false", Event::Bool(false))?,
      b'n' => self.literal("null", Event::Null)?,
      _ => return self.error(),
    };
    self.after_value();
    Ok(event)
  }

  fn literal(&mut self, word: &str, event: Event<'a>) -> Result<Event<'a>, ScanError> {
    if self.bytes[self.pos..].starts_with(word.as_bytes()) {
      self.pos += word.len();
      Ok(event)
    } else {
      self.error()
    }
  }

  /// Reads a string starting at its opening quote; checks escapes and refuses raw control characters.
  fn string(&mut self) -> Result<RawStr<'a>, ScanError> {
    let start = self.pos + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
      // Most runs (keys, short values) end within eight bytes: byte by byte first. A longer run goes on eight
      // bytes at a time while none of them can end it, then byte by byte (measured: the word test first cost the
      // fold of fit_breakdown's orders answer 3-8%).
      let short_end = (i + 8).min(self.bytes.len());
      while i < short_end && !STRING_STOP[self.bytes[i] as usize] {
        i += 1;
      }
      if i == short_end {
        while let Some(word) = word_at(self.bytes, i) {
          if may_stop_string(word) {
            break;
          }
          i += 8;
        }
        while i < self.bytes.len() && !STRING_STOP[self.bytes[i] as usize] {
          i += 1;
        }
      }
      match self.bytes.get(i) {
        Some(b'"') => break,
        Some(b'\\') => {
          escaped = true;
          // A lone surrogate is JSON (`JSON.parse` keeps it as a unit): only the escape's grammar is checked here.
          let Some((_, width)) = escape_at(self.bytes, i) else {
            self.pos = i;
            return self.error();
          };
          i += width;
        }
        _ => {
          self.pos = i;
          return self.error();
        }
      }
    }
    self.pos = i + 1;
    // Quotes and backslashes are ASCII, so these are character boundaries.
    let raw = self.text.get(start..i).ok_or(ScanError { offset: start })?;
    Ok(RawStr { raw, escaped })
  }

  /// A number at its first byte (`-` or a digit), checked by [`number_end`].
  fn number(&mut self) -> Result<&'a str, ScanError> {
    let start = self.pos;
    match number_end(self.bytes, start) {
      Ok(number) => self.pos = number.end,
      Err(stop) => {
        self.pos = stop;
        return self.error();
      }
    }
    self
      .text
      .get(start..self.pos)
      .ok_or(ScanError { offset: start })
  }

  /// Passes over the value of the key just returned, with no event for it: an object item past the preview
  /// only merges its keys, and an event per value (and per token of a nested container) was most of that work.
  /// A scalar is checked as [`Self::next_event`] checks it; a container is passed as [`Self::skip_container`]
  /// passes it.
  pub fn skip_member_value(&mut self) -> Result<(), ScanError> {
    debug_assert_eq!(self.expect, Expect::Colon, "called right after a key");
    self.skip_whitespace();
    if self.bytes.get(self.pos) != Some(&b':') {
      return self.error();
    }
    self.pos += 1;
    self.skip_whitespace();
    let Some(&b) = self.bytes.get(self.pos) else {
      return self.error();
    };
    match self.value(b)? {
      Event::ObjectStart | Event::ArrayStart => self.skip_container().map(drop),
      _ => Ok(()),
    }
  }

  /// Skips the rest of the container whose start event was just returned, and counts its direct members.
  ///
  /// Fast path for parts the fold does not keep: brackets and commas are counted, strings jumped over;
  /// the skipped text is not checked (the source is `JSON.stringify` output or was checked before).
  pub fn skip_container(&mut self) -> Result<usize, ScanError> {
    // Whitespace, colons and commas before the first member make no member (only ill-formed text holds the
    // latter two, and its commas still count); once one is found the loop below need not track it per byte.
    let mut members = 0usize;
    while let Some(&b) = self.bytes.get(self.pos) {
      match b {
        b',' => members += 1,
        b' ' | b'\n' | b'\r' | b'\t' | b':' => {}
        b'}' | b']' => {
          self.pos += 1;
          self.close_skipped();
          return Ok(0);
        }
        _ => break,
      }
      self.pos += 1;
    }
    let mut depth = 1usize;
    while let Some(&b) = self.bytes.get(self.pos) {
      match b {
        b'"' => {
          self.pos = self.string_end(self.pos + 1)?;
          // A key's colon right away, rather than one more turn of this loop's unpredictable dispatch.
          if self.bytes.get(self.pos) == Some(&b':') {
            self.pos += 1;
          }
        }
        b'{' | b'[' => {
          depth += 1;
          // `depth` counts from the skipped container, which is already on the stack.
          self.deepest = self.deepest.max(self.stack.len() + depth - 1);
          self.pos += 1;
        }
        b'}' | b']' => {
          depth -= 1;
          self.pos += 1;
          if depth == 0 {
            self.close_skipped();
            return Ok(members + 1);
          }
        }
        b',' => {
          members += usize::from(depth == 1);
          self.pos += 1;
        }
        _ => self.pos += 1,
      }
    }
    self.error()
  }

  fn close_skipped(&mut self) {
    self.stack.pop();
    self.after_value();
  }

  /// The position after the closing quote of a string whose content starts at `from`.
  fn string_end(&self, mut from: usize) -> Result<usize, ScanError> {
    loop {
      let Some(at) = find_quote_or_backslash(self.bytes, from) else {
        return Err(ScanError { offset: from });
      };
      if self.bytes[at] == b'"' {
        return Ok(at + 1);
      }
      from = at + 2;
      if from > self.bytes.len() {
        return Err(ScanError { offset: at });
      }
    }
  }
}

/// Where a number ends and whether it has an exponent (see [`number_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NumberEnd {
  /// Just past its last byte.
  pub end: usize,
  pub exponent: bool,
}

/// The number starting at `bytes[start]`, read by RFC 8259's grammar,
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: where it ends, or the byte where the grammar fails.
/// Every reader that checks a number (the scanner, the query's tape) checks it here.
#[inline(always)]
pub(crate) fn number_end(bytes: &[u8], start: usize) -> Result<NumberEnd, usize> {
  let digits_from = |mut at: usize| {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
      at += 1;
    }
    at
  };
  let mut at = start + usize::from(bytes.get(start) == Some(&b'-'));
  at = match bytes.get(at) {
    Some(b'0') => at + 1,
    Some(b'1'..=b'9') => digits_from(at + 1),
    _ => return Err(at),
  };
  if bytes.get(at) == Some(&b'.') {
    let fraction = digits_from(at + 1);
    if fraction == at + 1 {
      return Err(fraction);
    }
    at = fraction;
  }
  let exponent = matches!(bytes.get(at), Some(b'e' | b'E'));
  if exponent {
    at += 1 + usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
    let digits = digits_from(at);
    if digits == at {
      return Err(digits);
    }
    at = digits;
  }
  Ok(NumberEnd { end: at, exponent })
}
