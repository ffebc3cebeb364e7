//! The path index: a small map of a kept answer, written at save time, so that a window of a large list is read
//! from the store as one byte range instead of the whole sealed answer.
//!
//! [`build_index`] walks the answer's JSON text once and records every array, object and string at depth ≤ 4 whose
//! text spans more than one sealed chunk (64 KiB): its byte span; for an array its length and checkpoints
//! `(item index, byte offset of that item)` about every 8 KiB; for a string its length in JS units and checkpoints
//! `(unit offset, byte offset)` at character boundaries about every 8 KiB (at most 4096 checkpoints per node; the
//! stride grows past 32 MiB). Objects keep only their large children, by key, so the index stays well under 0.1 %
//! of the answer.
//!
//! [`plan`] follows a singular path through the index to a large array or string and names the byte range that
//! holds the requested window (from the checkpoint at or before its start to the one past its end).
//! [`answer_range`] answers from that range alone, through the same answer writer as [`super::run_query`], so the
//! two routes give byte-identical answers. Everything the index does not cover (queries that can match several
//! nodes, objects, small or deep nodes, missing paths, unknown index versions) returns `None`: the caller reads
//! the whole answer as before. [`query_stored`] puts the two routes together over a [`HandleStore`].
//!
//! Encoding (all integers unsigned LEB128): `"RHIX" ‖ version 0x01 ‖ answer length ‖ node`, where a node is
//! `0x01 ‖ start ‖ end ‖ length ‖ n ‖ n × (item delta, byte delta) ‖ m ‖ m × (index, node)` for an array and
//! `0x02 ‖ start ‖ end ‖ m ‖ m × (key length, key UTF-8, node)` for an object and
//! `0x03 ‖ start ‖ end ‖ units ‖ n ‖ n × (unit delta, byte delta)` for a string.

use std::sync::Arc;

use memchr::memchr2;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::answer::{answer, string_window_within, window, Items, Target};
use super::args::{QueryArgs, DEFAULT_LIST_LIMIT, DEFAULT_STRING_LIMIT};
use super::path::{normalized_path, ParsedPath, PathElement, Step};
use super::walk::Kind;
use super::{handle_not_found, run_query_keeping_spans};
use crate::core::error::{CoreError, CoreResult};
use crate::core::seal::CHUNK_SIZE;
use crate::core::store::{HandleStore, Owner};

const MAGIC: &[u8; 4] = b"RHIX";
/// The index encoding this engine writes and reads. Any other version is ignored (full read), never guessed.
pub const INDEX_VERSION: u8 = 1;
/// Nesting the decoder follows at most (the builder writes at most `max_depth` + 1 levels).
const MAX_DECODE_DEPTH: usize = 16;
/// Fragments larger than this are answered on tokio's blocking pool.
const INLINE_FRAGMENT_BYTES: usize = 64 * 1024;

/// What the builder records. [`IndexSettings::DEFAULT`] is what the engine uses; tests shrink it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexSettings {
  /// Arrays and objects whose text is at most this many bytes are not recorded.
  pub min_span: usize,
  /// Bytes between two array checkpoints, at least.
  pub stride: usize,
  /// Checkpoints per array, at most (the stride grows to keep to it).
  pub max_checkpoints: usize,
  /// Deepest level recorded (the root is level 0).
  pub max_depth: usize,
}

impl IndexSettings {
  /// One sealed chunk, 8 KiB checkpoints, 4096 checkpoints per array, depth 4.
  pub const DEFAULT: IndexSettings = IndexSettings {
    min_span: CHUNK_SIZE,
    stride: 8 * 1024,
    max_checkpoints: 4096,
    max_depth: 4,
  };
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
  Array {
    start: u64,
    end: u64,
    len: u64,
    /// `(item index, byte offset of the item)`, strictly increasing in both; the first is item 0.
    checkpoints: Vec<(u64, u64)>,
    children: Vec<(u64, Node)>,
  },
  Object {
    start: u64,
    end: u64,
    children: Vec<(String, Node)>,
  },
  Text {
    start: u64,
    end: u64,
    /// JS string units (UTF-16) in the string.
    units: u64,
    /// `(unit offset, byte offset)` at character boundaries of the literal, strictly increasing; the first is unit
    /// 0 just past the opening quote.
    checkpoints: Vec<(u64, u64)>,
  },
}

// ─── building ───────────────────────────────────────────────────────────────

/// The index of `text` (an answer's JSON text), or `None` when it needs none (nothing spans more than
/// `min_span` bytes) or cannot have one (not JSON, nested deeper than 128 levels, or holding a lone surrogate
/// escape, which the full read repairs).
pub fn build_index(text: &str, settings: IndexSettings) -> Option<Vec<u8>> {
  build(text, settings, false)
}

/// [`build_index`] for a text serde_json has already accepted as exactly one JSON value: the text of a
/// `RawValue`, such as the `structuredContent` slice `fit::inspect` located (serde_json checks a `RawValue` with
/// the same grammar check, `ignore_value`, that [`build_index`] runs). The index is the same; only the second
/// check of the text is skipped. Any other text must go through [`build_index`].
pub fn build_index_of_raw_value(raw_value_text: &str, settings: IndexSettings) -> Option<Vec<u8>> {
  build(raw_value_text, settings, true)
}

fn build(text: &str, settings: IndexSettings, grammar_checked: bool) -> Option<Vec<u8>> {
  if text.len() <= settings.min_span {
    return None;
  }
  let mut scan = Scan {
    bytes: text.as_bytes(),
    at: 0,
    settings,
    lone_surrogate: false,
  };
  let root = scan.value(0)??;
  scan.blank();
  if scan.at != text.len() || scan.lone_surrogate {
    return None;
  }
  // The scanner trusts the text's grammar; serde_json checks it exactly as the full read will.
  if !grammar_checked {
    serde_json::from_str::<IgnoredAny>(text).ok()?;
  }
  let mut out = Vec::with_capacity(256);
  out.extend_from_slice(MAGIC);
  out.push(INDEX_VERSION);
  put(&mut out, text.len() as u64);
  encode(&mut out, &root);
  Some(out)
}

struct Scan<'a> {
  bytes: &'a [u8],
  at: usize,
  settings: IndexSettings,
  lone_surrogate: bool,
}

impl Scan<'_> {
  fn peek(&self) -> Option<u8> {
    self.bytes.get(self.at).copied()
  }

  fn blank(&mut self) {
    while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
      self.at += 1;
    }
  }

  fn hex4(&self, at: usize) -> Option<u32> {
    let digits = self.bytes.get(at..at + 4)?;
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
  }

  /// Past a string literal (at its opening quote); notes lone surrogate escapes.
  fn string(&mut self) -> Option<()> {
    self.at += 1;
    loop {
      let found = self.at + memchr2(b'"', b'\\', self.bytes.get(self.at..)?)?;
      if self.bytes[found] == b'"' {
        self.at = found + 1;
        return Some(());
      }
      if self.bytes.get(found + 1) != Some(&b'u') {
        self.at = found + 2;
        continue;
      }
      let unit = self.hex4(found + 2)?;
      self.at = found + 6;
      if (0xD800..=0xDBFF).contains(&unit)
        && self.bytes.get(found + 6..found + 8) == Some(b"\\u")
        && self
          .hex4(found + 8)
          .is_some_and(|low| (0xDC00..=0xDFFF).contains(&low))
      {
        self.at = found + 12;
      } else if (0xD800..=0xDFFF).contains(&unit) {
        self.lone_surrogate = true;
      }
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
      b'[' => self.array(depth),
      b'{' => self.object(depth),
      b'"' => self.text(),
      _ => self.skip().map(|()| None),
    }
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
        b'\\' if self.bytes.get(self.at + 1) == Some(&b'u') => {
          let unit = self.hex4(self.at + 2)?;
          let paired = (0xD800..=0xDBFF).contains(&unit)
            && self.bytes.get(self.at + 6..self.at + 8) == Some(b"\\u")
            && self
              .hex4(self.at + 8)
              .is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
          if paired {
            (12, 2)
          } else {
            (6, 1)
          }
        }
        b'\\' => (2, 1),
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
      if let Some(child) = self.value(depth + 1)? {
        children.push((len, child));
      }
      len += 1;
      self.blank();
      match self.peek()? {
        b',' => self.at += 1,
        b']' => {
          self.at += 1;
          break;
        }
        _ => return None,
      }
    }
    if self.at - start <= self.settings.min_span {
      return Some(None);
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
      self.blank();
      match self.peek()? {
        b',' => self.at += 1,
        b'}' => {
          self.at += 1;
          break;
        }
        _ => return None,
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

/// A key's text (with its quotes) as the string it names.
fn decode_key(raw: &[u8]) -> Option<String> {
  let text = std::str::from_utf8(raw).ok()?;
  if !raw.contains(&b'\\') {
    return Some(text.get(1..text.len().checked_sub(1)?)?.to_string());
  }
  serde_json::from_str(text).ok()
}

// ─── encoding ───────────────────────────────────────────────────────────────

fn put(out: &mut Vec<u8>, mut n: u64) {
  loop {
    let low = (n & 0x7f) as u8;
    n >>= 7;
    if n == 0 {
      out.push(low);
      return;
    }
    out.push(low | 0x80);
  }
}

fn encode(out: &mut Vec<u8>, node: &Node) {
  match node {
    Node::Array {
      start,
      end,
      len,
      checkpoints,
      children,
    } => {
      out.push(1);
      put(out, *start);
      put(out, *end);
      put(out, *len);
      put(out, checkpoints.len() as u64);
      let (mut item, mut byte) = (0, *start);
      for &(next_item, next_byte) in checkpoints {
        put(out, next_item - item);
        put(out, next_byte - byte);
        (item, byte) = (next_item, next_byte);
      }
      put(out, children.len() as u64);
      for (index, child) in children {
        put(out, *index);
        encode(out, child);
      }
    }
    Node::Object {
      start,
      end,
      children,
    } => {
      out.push(2);
      put(out, *start);
      put(out, *end);
      put(out, children.len() as u64);
      for (key, child) in children {
        put(out, key.len() as u64);
        out.extend_from_slice(key.as_bytes());
        encode(out, child);
      }
    }
    Node::Text {
      start,
      end,
      units,
      checkpoints,
    } => {
      out.push(3);
      put(out, *start);
      put(out, *end);
      put(out, *units);
      put_checkpoints(out, *start, checkpoints);
    }
  }
}

fn put_checkpoints(out: &mut Vec<u8>, start: u64, checkpoints: &[(u64, u64)]) {
  put(out, checkpoints.len() as u64);
  let (mut at, mut byte) = (0, start);
  for &(next_at, next_byte) in checkpoints {
    put(out, next_at - at);
    put(out, next_byte - byte);
    (at, byte) = (next_at, next_byte);
  }
}

struct Reader<'a> {
  bytes: &'a [u8],
  at: usize,
}

impl Reader<'_> {
  fn byte(&mut self) -> Option<u8> {
    let byte = *self.bytes.get(self.at)?;
    self.at += 1;
    Some(byte)
  }

  fn number(&mut self) -> Option<u64> {
    let mut n: u64 = 0;
    for shift in (0..64).step_by(7) {
      let byte = self.byte()?;
      n |= u64::from(byte & 0x7f).checked_shl(shift)?;
      if byte & 0x80 == 0 {
        return Some(n);
      }
    }
    None
  }

  /// A count of entries, each at least one byte long (so a forged count cannot make a huge allocation).
  fn count(&mut self) -> Option<usize> {
    let n = usize::try_from(self.number()?).ok()?;
    (n <= self.bytes.len() - self.at).then_some(n)
  }

  /// A node, checked: spans inside the answer, checkpoints increasing and inside their array, children in range.
  fn node(&mut self, depth: usize, answer_len: u64) -> Option<Node> {
    if depth > MAX_DECODE_DEPTH {
      return None;
    }
    let tag = self.byte()?;
    let start = self.number()?;
    let end = self.number()?;
    if start >= end || end > answer_len {
      return None;
    }
    match tag {
      1 => {
        let len = self.number()?;
        let checkpoints = self.checkpoints(start, end, len)?;
        let m = self.count()?;
        let mut children = Vec::with_capacity(m);
        for _ in 0..m {
          let index = self.number()?;
          if index >= len {
            return None;
          }
          children.push((index, self.node(depth + 1, answer_len)?));
        }
        Some(Node::Array {
          start,
          end,
          len,
          checkpoints,
          children,
        })
      }
      2 => {
        let m = self.count()?;
        let mut children = Vec::with_capacity(m);
        for _ in 0..m {
          let key_len = self.count()?;
          let key = std::str::from_utf8(self.bytes.get(self.at..self.at + key_len)?).ok()?;
          self.at += key_len;
          children.push((key.to_string(), self.node(depth + 1, answer_len)?));
        }
        Some(Node::Object {
          start,
          end,
          children,
        })
      }
      3 => {
        let units = self.number()?;
        let checkpoints = self.checkpoints(start, end, units)?;
        Some(Node::Text {
          start,
          end,
          units,
          checkpoints,
        })
      }
      _ => None,
    }
  }

  /// Checkpoints: the first at 0, both coordinates strictly increasing, below `len` and inside `[start, end)`.
  fn checkpoints(&mut self, start: u64, end: u64, len: u64) -> Option<Vec<(u64, u64)>> {
    let n = self.count()?;
    let mut checkpoints = Vec::with_capacity(n);
    let (mut at, mut byte) = (0u64, start);
    for i in 0..n {
      let (at_delta, byte_delta) = (self.number()?, self.number()?);
      if i > 0 && (at_delta == 0 || byte_delta == 0) {
        return None;
      }
      at = at.checked_add(at_delta)?;
      byte = byte.checked_add(byte_delta)?;
      if at >= len || byte >= end {
        return None;
      }
      checkpoints.push((at, byte));
    }
    if checkpoints.first().is_none_or(|&(first, _)| first != 0) {
      return None;
    }
    Some(checkpoints)
  }
}

/// The answer length and root node of an index; `None` for another version or anything malformed.
fn decode(index: &[u8]) -> Option<(u64, Node)> {
  if index.get(..4)? != MAGIC || *index.get(4)? != INDEX_VERSION {
    return None;
  }
  let mut reader = Reader {
    bytes: index,
    at: 5,
  };
  let answer_len = reader.number()?;
  let root = reader.node(0, answer_len)?;
  (reader.at == index.len()).then_some((answer_len, root))
}

// ─── reading ────────────────────────────────────────────────────────────────

/// The byte range of the answer that holds a query's window, and what to expect in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedRead {
  /// Answer bytes `[start, end)` to read.
  pub start: u64,
  pub end: u64,
  path: String,
  within: Within,
  /// Items in the list, or units in the string.
  total: u64,
  /// The first item (or unit) in the range.
  base: u64,
  /// Items (or units) the range holds.
  count: u64,
  /// The range ends at the array's closing bracket (otherwise at the start of the next checkpoint's item).
  to_close: bool,
}

/// What a range holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Within {
  /// Items of a list, separated by commas.
  List,
  /// Part of a string literal, between its quotes.
  Text,
}

/// The range to read for `args`, when the index covers its path and window; `None` means "read it all".
pub fn plan(index: &[u8], args: &QueryArgs) -> Option<IndexedRead> {
  let ParsedPath::Steps(steps) = args.path.parsed() else {
    return None;
  };
  let (_, root) = decode(index)?;
  let mut node = &root;
  let mut elements = Vec::with_capacity(steps.len());
  for step in steps {
    node = match node {
      Node::Object { children, .. } => {
        let key = match step {
          Step::Key(key) | Step::Member { key, .. } => key,
          Step::Index(_) => return None,
        };
        elements.push(PathElement::Name(key.clone()));
        &children.iter().find(|(name, _)| name == key)?.1
      }
      Node::Array { len, children, .. } => {
        let index = match step {
          Step::Index(index)
          | Step::Member {
            index: Some(index), ..
          } => *index,
          _ => return None,
        };
        let at = if index >= 0 {
          index as u64
        } else {
          len.checked_sub(index.unsigned_abs())?
        };
        elements.push(PathElement::Index(usize::try_from(at).ok()?));
        &children.iter().find(|(i, _)| *i == at)?.1
      }
      Node::Text { .. } => return None,
    };
  }
  let path = normalized_path(&elements);
  match node {
    Node::Array {
      end,
      len: total,
      checkpoints,
      ..
    } => {
      let (start, limit) = window(args, DEFAULT_LIST_LIMIT);
      let first = start.min(*total);
      let last = first.saturating_add(limit as u64).min(*total);
      // From the checkpoint at or before the first item to the one at or after the window's end.
      let a = checkpoints
        .partition_point(|&(item, _)| item <= first)
        .checked_sub(1)?;
      let b = checkpoints
        .partition_point(|&(item, _)| item < last)
        .max(a + 1);
      Some(range(path, Within::List, *total, checkpoints, a, b, *end))
    }
    Node::Text {
      end,
      units: total,
      checkpoints,
      ..
    } => {
      let (start, limit) = window(args, DEFAULT_STRING_LIMIT);
      let end_unit = start.saturating_add(limit as u64);
      // A window boundary inside a surrogate pair moves one unit forward: the range reaches a checkpoint past
      // the window's end, so both boundaries fall inside it (or at the string's end).
      let a = checkpoints
        .partition_point(|&(unit, _)| unit <= start)
        .checked_sub(1)?;
      let b = checkpoints
        .partition_point(|&(unit, _)| unit <= end_unit)
        .max(a + 1);
      Some(range(path, Within::Text, *total, checkpoints, a, b, *end))
    }
    Node::Object { .. } => None,
  }
}

/// Checkpoints `a` to `b` (or to the node's closing bracket or quote, just before `end`).
fn range(
  path: String,
  within: Within,
  total: u64,
  checkpoints: &[(u64, u64)],
  a: usize,
  b: usize,
  end: u64,
) -> IndexedRead {
  let (base, from) = checkpoints[a];
  let (to, count, to_close) = match checkpoints.get(b) {
    Some(&(at, byte)) => (byte, at - base, false),
    None => (end - 1, total - base, true),
  };
  IndexedRead {
    start: from,
    end: to,
    path,
    within,
    total,
    base,
    count,
    to_close,
  }
}

/// Answers `args` from the bytes `plan` named; `None` when they are not what the index promised (then read it
/// all). Same answers, byte for byte, as [`run_query`] over the whole answer.
pub fn answer_range(
  read: &IndexedRead,
  fragment: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<CoreResult<String>> {
  let text = std::str::from_utf8(fragment).ok()?;
  if read.within == Within::Text {
    let part: String = serde_json::from_str(&format!("\"{text}\"")).ok()?;
    let units: u64 = part.chars().map(|c| c.len_utf16() as u64).sum();
    if units != read.count {
      return None;
    }
    let (start, limit) = window(args, DEFAULT_STRING_LIMIT);
    let window = string_window_within(&part, read.base, read.total, start, limit);
    let target = Target::TextWindow {
      text: &part,
      window,
    };
    return Some(answer(
      &read.path,
      target,
      Kind::String,
      args,
      threshold_bytes,
    ));
  }
  let blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
  let text = text.trim_end_matches(blank);
  let body = if read.to_close {
    text
  } else {
    text.strip_suffix(',')?.trim_end_matches(blank)
  };
  let wrapped = format!("[{body}]");
  let items: Vec<&RawValue> = serde_json::from_str(&wrapped).ok()?;
  if items.len() as u64 != read.count {
    return None;
  }
  let target = Target::List(Items::Window {
    items,
    base: usize::try_from(read.base).ok()?,
    total: usize::try_from(read.total).ok()?,
  });
  Some(answer(
    &read.path,
    target,
    Kind::Array,
    args,
    threshold_bytes,
  ))
}

/// Answers `result_query` for `owner` from `store`: through the path index when it covers the query (reading
/// the index and one byte range), otherwise by reading the whole answer. RESULT_HANDLE_NOT_FOUND when the
/// handle is unknown, expired or another owner's.
pub async fn query_stored(
  store: &HandleStore,
  args: QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
) -> CoreResult<String> {
  if let Some(index) = store.read_index(&args.handle, owner).await? {
    if let Some(read) = plan(&index, &args) {
      let fragment = store
        .read_range(&args.handle, owner, read.start, read.end)
        .await?
        .ok_or_else(handle_not_found)?;
      let indexed = if fragment.len() <= INLINE_FRAGMENT_BYTES {
        answer_range(&read, &fragment, &args, threshold_bytes)
      } else {
        let args = args.clone();
        tokio::task::spawn_blocking(move || answer_range(&read, &fragment, &args, threshold_bytes))
          .await
          .map_err(|_| CoreError::internal("The query failed inside the engine."))?
      };
      if let Some(outcome) = indexed {
        return outcome;
      }
    }
  }
  if let Some(outcome) = answer_kept_page(store, &args, owner, threshold_bytes).await? {
    return outcome;
  }
  let answer = store
    .read(&args.handle, owner)
    .await?
    .ok_or_else(handle_not_found)?;
  // Querying the whole answer is the costly part: one at a time per owner (taken after the read, so a slow store
  // does not make an owner's queries wait on each other's I/O).
  let _turn = store.query_turns().take(owner).await?;
  let (handle, owner, limit) = (
    args.handle.clone(),
    owner.clone(),
    window(&args, DEFAULT_LIST_LIMIT).1,
  );
  let (outcome, spans) =
    tokio::task::spawn_blocking(move || run_query_keeping_spans(&answer, &args, threshold_bytes))
      .await
      .map_err(|_| CoreError::internal("The query failed inside the engine."))?;
  // Worth keeping when there is a next page to read.
  if let (Ok(_), Some((query, spans))) = (&outcome, spans) {
    if spans.len() > limit {
      store
        .match_pages()
        .put(&handle, &owner, &query, Arc::new(spans));
    }
  }
  outcome
}

/// Answers a page of a JSONPath query whose match spans this store kept: reads only the byte range that holds the
/// window's matches. `None` when nothing is kept for the query (or the range is not what was kept).
async fn answer_kept_page(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
) -> CoreResult<Option<CoreResult<String>>> {
  let ParsedPath::Query { text: query, .. } = args.path.parsed() else {
    return Ok(None);
  };
  let Some(spans) = store.match_pages().get(&args.handle, owner, query) else {
    return Ok(None);
  };
  let total = spans.len();
  let (start, limit) = window(args, DEFAULT_LIST_LIMIT);
  let first = usize::try_from(start).unwrap_or(usize::MAX).min(total);
  let last = first.saturating_add(limit).min(total);
  let page = &spans[first..last];
  // Matches need not be in document order (`$[2,0]`): the range runs from the lowest start to the highest end.
  let from = page.iter().map(|&(s, _)| s).min().unwrap_or(0);
  let to = page.iter().map(|&(_, e)| e).max().unwrap_or(0);
  // Every page reads the store, so a handle that expired or was removed reads as missing.
  let fragment = store
    .read_range(&args.handle, owner, u64::from(from), u64::from(to))
    .await?
    .ok_or_else(handle_not_found)?;
  let (page, query) = (page.to_vec(), query.clone());
  let args = args.clone();
  let read = move || {
    let text = std::str::from_utf8(&fragment).ok()?;
    let items: Vec<&str> = page
      .iter()
      .map(|&(s, e)| text.get((s - from) as usize..(e - from) as usize))
      .collect::<Option<_>>()
      .filter(|_| text.len() == (to - from) as usize)?;
    let matches = Items::Texts {
      items,
      base: first,
      total,
    };
    Some(answer(
      &query,
      Target::List(matches),
      Kind::Array,
      &args,
      threshold_bytes,
    ))
  };
  if (to - from) as usize <= INLINE_FRAGMENT_BYTES {
    return Ok(read());
  }
  tokio::task::spawn_blocking(read)
    .await
    .map_err(|_| CoreError::internal("The query failed inside the engine."))
}

#[cfg(test)]
mod tests;
