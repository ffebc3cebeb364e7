//! The tape: where every value of the answer's JSON text starts and ends, in one flat list, so that a JSONPath
//! query is evaluated over the text itself (see [`super::eval`]) without building a tree of the answer.
//!
//! One pass of the fold's scanner (which checks the grammar as `JSON.parse` does) writes one entry per value, in
//! document order: its kind, its byte span, its key's span when it is an object member, and the entry just past
//! its subtree. Nothing is decoded or allocated per value: a string is decoded only when a filter compares it,
//! a number parsed only when compared, and a match is parsed only when it lands in the answer's window.
//!
//! [`Tape::build`] returns `None` for what the full read (serde_json) handles differently, so that the caller
//! reads it that way and answers stay byte-identical: text that is not JSON, nesting deeper than
//! [`super::MAX_QUERY_DEPTH`], a lone surrogate escape, an object with a repeated key (`JSON.parse` keeps the
//! last value at the first place), or an answer of 4 GiB or more.

use std::borrow::Cow;

use super::eval::{Atom, Node};
use super::walk::Kind;
use super::MAX_QUERY_DEPTH;
use crate::core::error::{CoreError, CoreResult};
use crate::core::json::decode::decode_str;

/// Objects with more members than this are checked for repeated keys with a hash set, smaller ones pairwise.
const PAIRWISE_KEYS: usize = 32;

#[derive(Debug, Clone, Copy)]
struct Entry {
  start: u32,
  end: u32,
  /// The member's key, between its quotes, escapes still in it (`key_len` 0 and `key_start` 0 off objects).
  key_start: u32,
  key_len: u32,
  /// The entry just past this value's subtree.
  next: u32,
  /// Items of an array, members of an object.
  count: u32,
  kind: Kind,
  /// A string (or a key) holding escapes, which must be decoded before use.
  escaped: bool,
  key_escaped: bool,
}

/// The answer's text with one [`Entry`] per value.
pub(crate) struct Tape<'t> {
  text: &'t str,
  entries: Vec<Entry>,
}

impl<'t> Tape<'t> {
  /// The tape of `text`, or `None` when the full read must answer instead (see the module docs).
  pub(crate) fn build(text: &'t str) -> Option<Tape<'t>> {
    u32::try_from(text.len()).ok()?;
    let mut builder = Builder {
      bytes: text.as_bytes(),
      at: 0,
      entries: Vec::with_capacity(text.len() / 8),
      open: Vec::new(),
      key: None,
    };
    builder.document()?;
    Some(Tape {
      text,
      entries: builder.entries,
    })
  }

  /// The top-level value.
  pub(crate) fn root(&self) -> TapeNode<'_> {
    TapeNode { tape: self, at: 0 }
  }

  /// Values in the answer, at any depth.
  pub(crate) fn nodes(&self) -> u64 {
    self.entries.len() as u64
  }
}

/// Whether any of the eight bytes is a quote, a backslash or a control character (the classic "has a zero byte" and
/// "has a byte below n" tests).
fn may_stop_string(word: u64) -> bool {
  const ONES: u64 = 0x0101_0101_0101_0101;
  const HIGHS: u64 = 0x8080_8080_8080_8080;
  let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
  has_zero(word ^ (ONES * u64::from(b'"')))
    || has_zero(word ^ (ONES * u64::from(b'\\')))
    || word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0
}

/// One pass over the text, checking RFC 8259's grammar (what `JSON.parse` accepts) while it writes the entries.
/// An explicit stack of open containers, no recursion. Every `None` sends the query to the full read.
struct Builder<'b> {
  bytes: &'b [u8],
  at: usize,
  entries: Vec<Entry>,
  /// Open containers, innermost last.
  open: Vec<u32>,
  /// The key read for the next value: `(start, length, escaped)`.
  key: Option<(u32, u32, bool)>,
}

impl Builder<'_> {
  fn blank(&mut self) {
    while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
      self.at += 1;
    }
  }

  fn peek(&self) -> Option<u8> {
    self.bytes.get(self.at).copied()
  }

  fn document(&mut self) -> Option<()> {
    loop {
      self.blank();
      self.value()?;
      // Close containers and read separators until another value is due.
      loop {
        let Some(&parent) = self.open.last() else {
          self.blank();
          return (self.at == self.bytes.len()).then_some(());
        };
        self.blank();
        let in_object = self.entries[parent as usize].kind == Kind::Object;
        match (self.peek()?, in_object) {
          (b',', _) => {
            self.at += 1;
            if in_object {
              self.member_key()?;
            }
            break;
          }
          (b'}', true) | (b']', false) => self.close()?,
          _ => return None,
        }
      }
    }
  }

  /// `"key" :` inside an object.
  fn member_key(&mut self) -> Option<()> {
    self.blank();
    if self.peek()? != b'"' {
      return None;
    }
    let (start, escaped) = self.string()?;
    let len = (self.at - 1 - start) as u32;
    self.key = Some((start as u32, len, escaped));
    self.blank();
    if self.peek()? != b':' {
      return None;
    }
    self.at += 1;
    Some(())
  }

  fn push(&mut self, kind: Kind, start: usize, escaped: bool) -> u32 {
    let (key_start, key_len, key_escaped) = self.key.take().unwrap_or((0, 0, false));
    if let Some(&parent) = self.open.last() {
      self.entries[parent as usize].count += 1;
    }
    let index = self.entries.len() as u32;
    self.entries.push(Entry {
      start: start as u32,
      end: self.at as u32,
      key_start,
      key_len,
      next: index + 1,
      count: 0,
      kind,
      escaped,
      key_escaped,
    });
    index
  }

  /// One value at the cursor; a container is opened (and closed at once when empty).
  fn value(&mut self) -> Option<()> {
    let start = self.at;
    match self.peek()? {
      b'{' | b'[' => {
        let kind = if self.peek()? == b'{' {
          Kind::Object
        } else {
          Kind::Array
        };
        self.at += 1;
        let index = self.push(kind, start, false);
        self.open.push(index);
        if self.open.len() > MAX_QUERY_DEPTH {
          return None;
        }
        self.blank();
        match (self.peek()?, kind) {
          (b'}', Kind::Object) | (b']', Kind::Array) => return self.close(),
          (_, Kind::Object) => self.member_key()?,
          _ => {}
        }
        if kind == Kind::Array {
          self.blank();
          return self.value();
        }
        self.blank();
        self.value()
      }
      b'"' => {
        let (_, escaped) = self.string()?;
        self.push(Kind::String, start, escaped);
        Some(())
      }
      b'-' | b'0'..=b'9' => {
        self.number()?;
        self.push(Kind::Number, start, false);
        Some(())
      }
      b't' => self.literal(b"true", Kind::Boolean, start),
      b'f' => self.literal(b"false", Kind::Boolean, start),
      b'n' => self.literal(b"null", Kind::Null, start),
      _ => None,
    }
  }

  fn close(&mut self) -> Option<()> {
    self.at += 1;
    let at = self.open.pop()? as usize;
    let next = self.entries.len() as u32;
    let entry = &mut self.entries[at];
    entry.end = self.at as u32;
    entry.next = next;
    if entry.kind == Kind::Object && has_repeated_key(self.bytes, &self.entries, at) {
      return None;
    }
    Some(())
  }

  fn literal(&mut self, word: &[u8], kind: Kind, start: usize) -> Option<()> {
    if !self.bytes[self.at..].starts_with(word) {
      return None;
    }
    self.at += word.len();
    self.push(kind, start, false);
    Some(())
  }

  fn hex4(&self, at: usize) -> Option<u32> {
    let digits = self.bytes.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
      return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
  }

  /// Past a string literal (at its opening quote): where its content starts, and whether it holds escapes. A
  /// lone surrogate escape gives `None` (serde_json refuses it; the full read repairs it).
  fn string(&mut self) -> Option<(usize, bool)> {
    let start = self.at + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
      // Eight bytes at a time while none of them can end the run, then byte by byte.
      while let Some(word) = self.bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if may_stop_string(word) {
          break;
        }
        i += 8;
      }
      while self
        .bytes
        .get(i)
        .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
      {
        i += 1;
      }
      match self.bytes.get(i)? {
        b'"' => break,
        b'\\' => {
          escaped = true;
          match self.bytes.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            b'u' => {
              let unit = self.hex4(i + 2)?;
              i += 6;
              if (0xD800..=0xDBFF).contains(&unit) {
                let low = (self.bytes.get(i..i + 2)? == b"\\u")
                  .then(|| self.hex4(i + 2))
                  .flatten()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                  return None;
                }
                i += 6;
              } else if (0xDC00..=0xDFFF).contains(&unit) {
                return None;
              }
            }
            _ => return None,
          }
        }
        _ => return None,
      }
    }
    self.at = i + 1;
    Some((start, escaped))
  }

  fn digits(&mut self) -> usize {
    let start = self.at;
    while self.peek().is_some_and(|b| b.is_ascii_digit()) {
      self.at += 1;
    }
    self.at - start
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and one serde_json reads: it refuses one that
  /// overflows a double (`1e400`), which only long ones and ones with an exponent can do.
  fn number(&mut self) -> Option<()> {
    let start = self.at;
    if self.peek() == Some(b'-') {
      self.at += 1;
    }
    match self.peek()? {
      b'0' => self.at += 1,
      b'1'..=b'9' => {
        self.digits();
      }
      _ => return None,
    }
    let mut exponent = false;
    if self.peek() == Some(b'.') {
      self.at += 1;
      if self.digits() == 0 {
        return None;
      }
    }
    if matches!(self.peek(), Some(b'e' | b'E')) {
      exponent = true;
      self.at += 1;
      if matches!(self.peek(), Some(b'+' | b'-')) {
        self.at += 1;
      }
      if self.digits() == 0 {
        return None;
      }
    }
    if self.at - start < 300 && !exponent {
      return Some(());
    }
    let number = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
    serde_json::from_str::<serde_json::Number>(number)
      .ok()
      .map(drop)
  }
}

/// A key as `JSON.parse` reads it.
fn decode_key(raw: &str, escaped: bool) -> Cow<'_, str> {
  if !escaped {
    return Cow::Borrowed(raw);
  }
  // The scanner checked the escapes and there is no lone surrogate, so this decodes.
  decode_str(raw).unwrap_or(Cow::Borrowed(raw))
}

/// Whether the object at `at` (closed) holds a key twice.
fn has_repeated_key(bytes: &[u8], entries: &[Entry], at: usize) -> bool {
  let object = &entries[at];
  if object.count < 2 {
    return false;
  }
  let members = || {
    let mut child = at + 1;
    std::iter::from_fn(move || {
      let entry = entries
        .get(child)
        .filter(|_| child < object.next as usize)?;
      child = entry.next as usize;
      Some(entry)
    })
  };
  let raw =
    |entry: &Entry| &bytes[entry.key_start as usize..(entry.key_start + entry.key_len) as usize];
  if members().any(|entry| entry.key_escaped) {
    // Escapes spell one key several ways: compare what they decode to.
    let mut seen = std::collections::HashSet::with_capacity(object.count as usize);
    return !members().all(|entry| {
      let text = std::str::from_utf8(raw(entry)).unwrap_or_default();
      seen.insert(decode_key(text, entry.key_escaped).into_owned())
    });
  }
  if object.count as usize <= PAIRWISE_KEYS {
    // A 64-bit sketch of each key (length, first and last byte) clears almost every object without comparing
    // keys; only a clash in the sketch compares them pairwise.
    let mut sketch = 0u64;
    let clash = members().any(|entry| {
      let key = raw(entry);
      let hash = key.len()
        ^ key.first().map_or(0, |&b| usize::from(b) * 7)
        ^ key.last().map_or(0, |&b| usize::from(b) * 31);
      let bit = 1u64 << (hash % 64);
      let seen = sketch & bit != 0;
      sketch |= bit;
      seen
    });
    return clash
      && members()
        .enumerate()
        .any(|(i, entry)| members().skip(i + 1).any(|other| raw(other) == raw(entry)));
  }
  let mut seen = std::collections::HashSet::with_capacity(object.count as usize);
  !members().all(|entry| seen.insert(raw(entry)))
}

/// A value on a [`Tape`].
#[derive(Clone, Copy)]
pub(crate) struct TapeNode<'t> {
  tape: &'t Tape<'t>,
  at: u32,
}

impl<'t> TapeNode<'t> {
  fn entry(self) -> &'t Entry {
    &self.tape.entries[self.at as usize]
  }

  /// The value's JSON text.
  pub(crate) fn text(self) -> &'t str {
    let entry = self.entry();
    &self.tape.text[entry.start as usize..entry.end as usize]
  }

  fn key_is(self, key: &str) -> bool {
    let entry = self.entry();
    let start = entry.key_start as usize;
    let raw = &self.tape.text[start..start + entry.key_len as usize];
    if entry.key_escaped {
      decode_key(raw, true) == key
    } else {
      raw == key
    }
  }

  /// Children in order, each once.
  fn each_child(self) -> impl Iterator<Item = TapeNode<'t>> {
    let entry = self.entry();
    let container = matches!(entry.kind, Kind::Array | Kind::Object);
    let end = if container { entry.next } else { self.at + 1 };
    let tape = self.tape;
    let mut at = self.at + 1;
    std::iter::from_fn(move || {
      if at >= end {
        return None;
      }
      let node = TapeNode { tape, at };
      at = tape.entries[at as usize].next;
      Some(node)
    })
  }
}

fn unreadable(error: serde_json::Error) -> CoreError {
  CoreError::internal(format!("A value the tape checked did not parse: {error}"))
}

impl<'t> Node<'t> for TapeNode<'t> {
  fn kind(self) -> Kind {
    self.entry().kind
  }

  fn children(self, out: &mut Vec<Self>) {
    out.extend(self.each_child());
  }

  fn member(self, key: &str) -> Option<Self> {
    if self.kind() != Kind::Object {
      return None;
    }
    self.each_child().find(|child| child.key_is(key))
  }

  fn item(self, index: usize) -> Option<Self> {
    if self.kind() != Kind::Array {
      return None;
    }
    self.each_child().nth(index)
  }

  fn length(self) -> usize {
    let entry = self.entry();
    match entry.kind {
      Kind::Array | Kind::Object => entry.count as usize,
      Kind::String => match self.atom() {
        Ok(Atom::Str(text)) => text.chars().count(),
        _ => 0,
      },
      _ => 0,
    }
  }

  fn atom(self) -> CoreResult<Atom<'t>> {
    let entry = self.entry();
    let text = self.text();
    Ok(match entry.kind {
      Kind::Null => Atom::Null,
      Kind::Boolean => Atom::Bool(text == "true"),
      Kind::Number => Atom::Number(serde_json::from_str(text).map_err(unreadable)?),
      Kind::String if !entry.escaped => Atom::Str(Cow::Borrowed(&text[1..text.len() - 1])),
      Kind::String => Atom::Str(Cow::Owned(serde_json::from_str(text).map_err(unreadable)?)),
      Kind::Array | Kind::Object => {
        Atom::Tree(Cow::Owned(serde_json::from_str(text).map_err(unreadable)?))
      }
    })
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::core::query::eval::count_nodes;
  use serde_json::Value;

  #[test]
  fn builds_what_serde_json_reads_and_nothing_else() {
    let texts = [
      r#"{"a":[1,-2.5e3,"x\"y\u00e9😀",true,false,null,{}],"b":{"c":[]}}"#,
      " [ 1 , [ 2 ] , { \"k\" : \"v\" } ] ",
      "0",
      "\"a\\ud83d\\ude00\"",
      "[1e308,123456789012345678901234567890]",
      "[01]",
      "[1.]",
      "[.5]",
      "[-]",
      "[1e]",
      "[tru]",
      "[nul]",
      "{\"a\" 1}",
      "{\"a\":1,}",
      "[1,]",
      "[1 2]",
      "{1:2}",
      "\"a\u{1}b\"",
      "\"\\x\"",
      "\"\\u12g4\"",
      "[1] [2]",
      "[",
      "\"abc",
      "",
      "{\"a\":1}}",
    ];
    for text in texts {
      let by_serde: Result<Value, _> = serde_json::from_str(text);
      let tape = Tape::build(text);
      assert_eq!(tape.is_some(), by_serde.is_ok(), "{text:?}");
      if let (Some(tape), Ok(value)) = (tape, by_serde) {
        assert_eq!(tape.nodes(), count_nodes(&value), "{text:?}");
        assert_eq!(tape.root().text(), text.trim(), "{text:?}");
      }
    }
  }

  #[test]
  fn leaves_to_the_full_read_what_it_reads_differently() {
    for text in [
      r#"{"a":1,"a":2}"#,
      r#"{"a":1,"\u0061":2}"#,
      r#"["\ud800"]"#,
      r#"["\udc00x"]"#,
      "[1e400]",
    ] {
      assert!(Tape::build(text).is_none(), "{text}");
    }
    let wide: String = (0..40)
      .map(|i| format!("\"k{i}\":{i}"))
      .collect::<Vec<_>>()
      .join(",");
    assert!(Tape::build(&format!("{{{wide}}}")).is_some());
    assert!(Tape::build(&format!("{{{wide},\"k7\":0}}")).is_none());
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(Tape::build(&deep(MAX_QUERY_DEPTH)).is_some());
    assert!(Tape::build(&deep(MAX_QUERY_DEPTH + 1)).is_none());
  }
}
