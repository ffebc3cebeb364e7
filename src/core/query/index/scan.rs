//! The index builder's one pass over the answer's text: records every large array, object and string down to
//! `max_depth`, with checkpoints, and notes lone surrogate escapes (the grammar itself is checked by serde_json,
//! see `build`). It keeps its own pass (the shared scanner measured 1.6× slower here) but finds string ends with
//! the shared word search ([`crate::core::json::words`]) and reads escapes and decodes keys with the shared decoder,
//! [`crate::core::json::decode`].

use std::borrow::Cow;

use super::{IndexSettings, Node};
use crate::core::json::decode::{decode_str, escape_at, Escaped};
use crate::core::json::words::find_quote_or_backslash;
use crate::core::query::directory::Recorder;

mod directory;

pub(super) struct Scan<'a> {
  bytes: &'a [u8],
  at: usize,
  settings: IndexSettings,
  lone_surrogate: bool,
  /// The member directories of the long arrays passed so far.
  directories: Vec<Directory>,
}

/// A long array's member directory (see `query::directory`), with the array's start in the answer.
pub(super) type Directory = (u64, Vec<u8>);

impl Scan<'_> {
  /// The recorded root of `text` and the member directories of its long arrays (see `query::directory`); `None` when
  /// nothing is recorded, the text is not one value, or it holds a lone surrogate escape.
  pub(super) fn root(text: &str, settings: IndexSettings) -> Option<(Node, Vec<Directory>)> {
    let mut scan = Scan {
      bytes: text.as_bytes(),
      at: 0,
      settings,
      lone_surrogate: false,
      directories: Vec::new(),
    };
    let root = scan.value(0)??;
    scan.blank();
    (scan.at == text.len() && !scan.lone_surrogate).then_some((root, scan.directories))
  }

  fn peek(&self) -> Option<u8> {
    self.bytes.get(self.at).copied()
  }

  fn blank(&mut self) {
    while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
      self.at += 1;
    }
  }

  /// Past a string literal (at its opening quote); notes lone surrogate escapes.
  fn string(&mut self) -> Option<()> {
    self.at += 1;
    loop {
      let found = find_quote_or_backslash(self.bytes, self.at)?;
      if self.bytes[found] == b'"' {
        self.at = found + 1;
        return Some(());
      }
      let (escaped, width) = escape_at(self.bytes, found)?;
      self.lone_surrogate |= matches!(escaped, Escaped::Lone(_));
      self.at = found + width;
    }
  }

  /// Past any value, recording nothing.
  fn skip(&mut self) -> Option<()> {
    self.blank();
    match self.peek()? {
      b'"' => self.string(),
      b'[' | b'{' => {
        let mut depth = 0usize;
        loop {
          match self.peek()? {
            b'"' => self.string()?,
            b'[' | b'{' => {
              depth += 1;
              self.at += 1;
            }
            b']' | b'}' => {
              depth = depth.checked_sub(1)?;
              self.at += 1;
              if depth == 0 {
                return Some(());
              }
            }
            _ => self.at += 1,
          }
        }
      }
      _ => {
        while !matches!(
          self.peek(),
          None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
          self.at += 1;
        }
        Some(())
      }
    }
  }

  /// Past a value at `depth`; `Some(Some(node))` when it is recorded, `None` when the text is malformed.
  fn value(&mut self, depth: usize) -> Option<Option<Node>> {
    self.blank();
    if depth > self.settings.max_depth {
      return self.skip().map(|()| None);
    }
    match self.peek()? {
      b'[' | b'{' if self.pass_small_container() => Some(None),
      b'[' => self.array(depth),
      b'{' => self.object(depth),
      b'"' => self.text(),
      _ => self.skip().map(|()| None),
    }
  }

  /// Past the container opening here when it closes within `min_span` bytes and holds no escape: it is never
  /// recorded, nor is anything in it (a child spans less than its parent), so it needs no walk, only its end. The
  /// look ahead stops at `min_span` bytes, so a large container costs at most that much more; one with an escape
  /// goes the careful way, which reads escapes for lone surrogates (10 MB orders answer: index 14.5 -> 5.7 ms).
  fn pass_small_container(&mut self) -> bool {
    let limit = self.bytes.len().min(self.at + self.settings.min_span);
    let mut depth = 0usize;
    let mut at = self.at;
    while at < limit {
      match self.bytes[at] {
        b'"' => match string_end_without_escape(self.bytes, at + 1, limit) {
          Some(end) => at = end,
          None => return false,
        },
        b'[' | b'{' => depth += 1,
        b']' | b'}' => {
          let Some(open) = depth.checked_sub(1) else {
            return false;
          };
          if open == 0 {
            self.at = at + 1;
            return true;
          }
          depth = open;
        }
        _ => {}
      }
      at += 1;
    }
    false
  }

  /// A string literal: past it, and recorded when it spans more than `min_span` bytes.
  fn text(&mut self) -> Option<Option<Node>> {
    let start = self.at;
    self.string()?;
    if self.at - start <= self.settings.min_span {
      return Some(None);
    }
    // Large: count its units again, with checkpoints at character (or escape) boundaries.
    self.at = start + 1;
    let first = self.at as u64;
    let mut checkpoints: Vec<(u64, u64)> = Vec::new();
    let mut units: u64 = 0;
    let mut last = self.at;
    loop {
      let byte = *self.bytes.get(self.at)?;
      if byte == b'"' {
        self.at += 1;
        break;
      }
      if self.at - last >= self.settings.stride {
        if checkpoints.is_empty() {
          checkpoints.push((0, first));
        }
        checkpoints.push((units, self.at as u64));
        last = self.at;
      }
      let (width, count) = match byte {
        b'\\' => {
          let (escaped, width) = escape_at(self.bytes, self.at)?;
          let units = match escaped {
            Escaped::Char(c) => c.len_utf16() as u64,
            Escaped::Lone(_) => 1,
          };
          (width, units)
        }
        0x00..=0x7F => (1, 1),
        0xF0..=0xFF => (4, 2),
        0xE0..=0xEF => (3, 1),
        _ => (2, 1),
      };
      self.at += width;
      units += count;
    }
    let checkpoints = self.thinned(checkpoints, first);
    Some(Some(Node::Text {
      start: start as u64,
      end: self.at as u64,
      units,
      checkpoints,
    }))
  }

  /// The checkpoints kept for a node: at least the first, at most `max_checkpoints`, evenly thinned.
  fn thinned(&self, mut checkpoints: Vec<(u64, u64)>, first: u64) -> Vec<(u64, u64)> {
    if checkpoints.is_empty() {
      checkpoints.push((0, first));
    }
    let max = self.settings.max_checkpoints.max(1);
    if checkpoints.len() > max {
      let every = checkpoints.len().div_ceil(max);
      checkpoints = checkpoints.into_iter().step_by(every).collect();
    }
    checkpoints
  }

  fn array(&mut self, depth: usize) -> Option<Option<Node>> {
    let start = self.at;
    self.at += 1;
    self.blank();
    if self.peek()? == b']' {
      self.at += 1;
      return Some(None);
    }
    // Item 0 is always a checkpoint; the list is allocated only once a second one is due.
    let first = self.at as u64;
    let mut checkpoints: Vec<(u64, u64)> = Vec::new();
    let mut children = Vec::new();
    let mut len: u64 = 0;
    let mut last = self.at;
    let mut directory = Some(Recorder::new(start));
    loop {
      self.blank();
      let item = self.at;
      if item - last >= self.settings.stride {
        if checkpoints.is_empty() {
          checkpoints.push((0, first));
        }
        checkpoints.push((len, item as u64));
        last = item;
      }
      // An item the directory cannot describe ends it, and is passed again the usual way.
      if directory
        .as_mut()
        .is_none_or(|recorder| !self.directory_item(recorder, depth + 1))
      {
        directory = None;
        self.at = item;
        if let Some(child) = self.value(depth + 1)? {
          children.push((len, child));
        }
      }
      len += 1;
      if self.closed(b']')? {
        break;
      }
    }
    if self.at - start <= self.settings.min_span {
      return Some(None);
    }
    if let Some(directory) = directory.and_then(|recorder| recorder.finish(self.at)) {
      self.directories.push(directory);
    }
    let checkpoints = self.thinned(checkpoints, first);
    Some(Some(Node::Array {
      start: start as u64,
      end: self.at as u64,
      len,
      checkpoints,
      children,
    }))
  }

  /// Past the comma after an item or member (`false`), or past the container's `close` (`true`).
  fn closed(&mut self, close: u8) -> Option<bool> {
    self.blank();
    let byte = self.peek()?;
    if byte != b',' && byte != close {
      return None;
    }
    self.at += 1;
    Some(byte == close)
  }

  fn object(&mut self, depth: usize) -> Option<Option<Node>> {
    let start = self.at;
    self.at += 1;
    self.blank();
    if self.peek()? == b'}' {
      self.at += 1;
      return Some(None);
    }
    // Only keys after a recorded child are decoded: a repeated key wins over the child named before it (the last
    // one wins, as in JSON.parse), whatever its value.
    let mut children: Vec<(String, Node)> = Vec::new();
    loop {
      self.blank();
      if self.peek()? != b'"' {
        return None;
      }
      let key_start = self.at;
      self.string()?;
      let key_end = self.at;
      self.blank();
      if self.peek()? != b':' {
        return None;
      }
      self.at += 1;
      let child = self.value(depth + 1)?;
      if !children.is_empty() || child.is_some() {
        let name = decode_key(self.bytes.get(key_start..key_end)?)?;
        children.retain(|(known, _)| *known != name);
        if let Some(child) = child {
          children.push((name, child));
        }
      }
      if self.closed(b'}')? {
        break;
      }
    }
    if self.at - start <= self.settings.min_span || children.is_empty() {
      return Some(None);
    }
    Some(Some(Node::Object {
      start: start as u64,
      end: self.at as u64,
      children,
    }))
  }
}

/// The closing quote of the string whose content starts at `from`, when it comes before `limit` with no backslash
/// on the way.
fn string_end_without_escape(bytes: &[u8], from: usize, limit: usize) -> Option<usize> {
  let at = find_quote_or_backslash(bytes.get(..limit)?, from)?;
  (bytes[at] == b'"').then_some(at)
}

/// A key's text (with its quotes) as the string it names; `None` for a lone surrogate, which no `String` holds.
fn decode_key(raw: &[u8]) -> Option<String> {
  let text = std::str::from_utf8(raw).ok()?;
  let content = text.get(1..text.len().checked_sub(1)?)?;
  decode_str(content).map(Cow::into_owned)
}
