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
use super::json::replace_lone_surrogates;
use super::walk::Kind;
use super::MAX_QUERY_DEPTH;
use crate::core::error::{CoreError, CoreResult};
use crate::core::fold::scan::{Event, RawStr, Scanner};

/// Objects with more members than this are checked for repeated keys with a hash set, smaller ones pairwise.
const PAIRWISE_KEYS: usize = 16;

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
    if u32::try_from(text.len()).is_err() {
      return None;
    }
    let mut scanner = Scanner::new(text);
    let mut entries: Vec<Entry> = Vec::with_capacity(text.len() / 16);
    let mut open: Vec<u32> = Vec::new();
    let mut key: Option<RawStr> = None;
    let offset = |slice: &str| (slice.as_ptr() as usize - text.as_ptr() as usize) as u32;
    while let Some(event) = scanner.next_event().ok()? {
      let end = scanner.offset() as u32;
      let (kind, start, escaped) = match event {
        Event::Key(raw) => {
          key = Some(raw);
          continue;
        }
        Event::ObjectEnd | Event::ArrayEnd => {
          let at = open.pop()? as usize;
          let next = entries.len() as u32;
          let entry = &mut entries[at];
          entry.end = end;
          entry.next = next;
          if entry.kind == Kind::Object && has_repeated_key(text, &entries, at) {
            return None;
          }
          continue;
        }
        Event::ObjectStart => (Kind::Object, end - 1, false),
        Event::ArrayStart => (Kind::Array, end - 1, false),
        Event::Str(raw) => {
          if raw.escaped && lone_surrogate(raw.raw) {
            return None;
          }
          (Kind::String, offset(raw.raw) - 1, raw.escaped)
        }
        Event::Number(number) => {
          if !number_reads(number) {
            return None;
          }
          (Kind::Number, offset(number), false)
        }
        Event::Bool(b) => (Kind::Boolean, end - if b { 4 } else { 5 }, false),
        Event::Null => (Kind::Null, end - 4, false),
      };
      let (key_start, key_len, key_escaped) = match key.take() {
        Some(raw) => {
          if raw.escaped && lone_surrogate(raw.raw) {
            return None;
          }
          (offset(raw.raw), raw.raw.len() as u32, raw.escaped)
        }
        None => (0, 0, false),
      };
      if let Some(&parent) = open.last() {
        entries[parent as usize].count += 1;
      }
      let index = entries.len() as u32;
      entries.push(Entry {
        start,
        end,
        key_start,
        key_len,
        next: index + 1,
        count: 0,
        kind,
        escaped,
        key_escaped,
      });
      if matches!(kind, Kind::Object | Kind::Array) {
        open.push(index);
      }
    }
    if scanner.deepest() > MAX_QUERY_DEPTH {
      return None;
    }
    Some(Tape { text, entries })
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

/// Whether serde_json reads the number (it refuses one that overflows a double, such as `1e400`); only long ones
/// and ones with an exponent can overflow.
fn number_reads(number: &str) -> bool {
  number.len() < 300 && !number.contains(['e', 'E'])
    || serde_json::from_str::<serde_json::Number>(number).is_ok()
}

fn lone_surrogate(raw: &str) -> bool {
  raw.contains("\\u") && replace_lone_surrogates(raw).is_some()
}

/// A key as `JSON.parse` reads it.
fn decode_key(raw: &str, escaped: bool) -> Cow<'_, str> {
  if !escaped {
    return Cow::Borrowed(raw);
  }
  // The scanner checked the escapes and there is no lone surrogate, so this decodes.
  serde_json::from_str::<String>(&format!("\"{raw}\"")).map_or(Cow::Borrowed(raw), Cow::Owned)
}

/// Whether the object at `at` (closed) holds a key twice.
fn has_repeated_key(text: &str, entries: &[Entry], at: usize) -> bool {
  let object = &entries[at];
  if object.count < 2 {
    return false;
  }
  let mut keys: Vec<(&str, bool)> = Vec::with_capacity(object.count as usize);
  let mut child = at + 1;
  while child < object.next as usize {
    let entry = &entries[child];
    let start = entry.key_start as usize;
    keys.push((
      &text[start..start + entry.key_len as usize],
      entry.key_escaped,
    ));
    child = entry.next as usize;
  }
  if keys.iter().any(|&(_, escaped)| escaped) {
    let decoded: Vec<Cow<str>> = keys
      .iter()
      .map(|&(raw, escaped)| decode_key(raw, escaped))
      .collect();
    let mut seen = std::collections::HashSet::with_capacity(decoded.len());
    return !decoded.iter().all(|key| seen.insert(key.as_ref()));
  }
  if keys.len() <= PAIRWISE_KEYS {
    return keys
      .iter()
      .enumerate()
      .any(|(i, (key, _))| keys[i + 1..].iter().any(|(other, _)| other == key));
  }
  let mut seen = std::collections::HashSet::with_capacity(keys.len());
  !keys.iter().all(|(key, _)| seen.insert(*key))
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
