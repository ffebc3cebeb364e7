//! The tape: where every value of the answer's JSON text starts and ends, in one flat list, so that a JSONPath
//! query is evaluated over the text itself (see [`super::eval`]) without building a tree of the answer.
//!
//! One pass over the text (checking the grammar as `JSON.parse` does) writes one entry per value, in document
//! order (pre-order): its kind, its byte span, its key's span when it is an object member, and the entry just
//! past its subtree. Nothing is decoded or allocated per value: a string is decoded only when a filter compares
//! it, a number parsed only when compared, and a match is parsed only when it lands in the answer's window.
//! Values deeper than the query can look ([`super::reach`]) are checked and counted but get no entry: for
//! `$.orders[?@.status=='open']` the members of each order are the deepest entries.
//!
//! [`Tape::build_reaching`] returns `None` for what the full read (serde_json) handles differently, so that the
//! caller reads it that way and answers stay byte-identical: text that is not JSON, nesting deeper than
//! [`super::MAX_QUERY_DEPTH`], a lone surrogate escape, a number overflowing a double, an object the query can
//! look into with a repeated key (`JSON.parse` keeps the last value at the first place), or an answer of 4 GiB or
//! more. (A repeated key deeper down changes no selection; a match holding one is parsed, and so printed, as the
//! full read prints it. Only the budget counts such a member once more.)

use super::index::LongArray;
use super::reach::Names;
use super::walk::Kind;
use super::MAX_QUERY_DEPTH;
use crate::core::json::decode::{escape_at, Escaped};
use crate::core::json::scan::number_end;
use crate::core::json::words::may_stop_string;
#[cfg(any(test, not(target_arch = "x86_64")))]
use crate::core::json::words::{bytes_equal, control_bytes};
use keys::{has_repeated_key, key_bit};

mod keys;
mod node;
pub(crate) mod pass;
pub(crate) mod split;

pub(crate) use node::{atom_of_text, literal_facts_of_text, TapeNode};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
  start: u32,
  end: u32,
  /// Where the member's key starts, just past its opening quote (0 off objects). It ends at the closing quote
  /// before the colon before `start` ([`Entry::key`]): not stored, so an entry takes 24 bytes, not 28 (a tape of
  /// every level of a 10 MB answer is then about 30 MB, not 35).
  key_start: u32,
  /// The entry just past this value's subtree.
  next: u32,
  /// Items of an array, members of an object.
  count: u32,
  kind: Kind,
  /// A string (or a key) holding escapes, which must be decoded before use.
  escaped: bool,
  key_escaped: bool,
}

impl Entry {
  /// The member's key between its quotes, escapes still in it (the entry must be an object member).
  fn key(self, bytes: &[u8]) -> &[u8] {
    let end = pass::key_closing_quote(bytes, self.start as usize).unwrap_or_default();
    bytes.get(self.key_start as usize..end).unwrap_or_default()
  }
}

/// The answer's text with one [`Entry`] per value.
pub(crate) struct Tape<'t> {
  text: &'t str,
  entries: Vec<Entry>,
  /// Values in the answer, recorded or not.
  nodes: u64,
}

impl<'t> Tape<'t> {
  /// The tape of `text`, or `None` when the full read must answer instead (see the module docs).
  #[cfg(test)]
  pub(crate) fn build(text: &'t str) -> Option<Tape<'t>> {
    Self::build_reaching(text, None)
  }

  /// [`Tape::build`], with entries only for values at most `reach` levels deep (the root is level 0; `None`: all
  /// of them). Deeper values are checked the same way and counted in [`Tape::nodes`], but a container at level
  /// `reach` lists no children: only a query that looks no deeper (see [`super::reach`]) may run on it.
  #[cfg(test)]
  pub(crate) fn build_reaching(text: &'t str, reach: Option<usize>) -> Option<Tape<'t>> {
    Self::build_naming(text, reach, &Names::EVERY)
  }

  /// [`Tape::build_reaching`], recording at each level only the values the query can select there (`names`, see
  /// [`Names`]): the others are checked and counted the same way, but get no entry, nor do their children. Only a
  /// query whose [`super::reach::names`] these are may run on it.
  pub(crate) fn build_naming(
    text: &'t str,
    reach: Option<usize>,
    names: &Names,
  ) -> Option<Tape<'t>> {
    Self::build_with(text, reach, names, false)
  }

  /// [`Tape::build_reaching`] for a text known to be one JSON value as serde_json reads it, with no lone
  /// surrogate escape (what a current path index certifies, see `query::index`): the same tape, but a container
  /// whose children the query cannot reach is passed over by counting brackets, without checking its grammar (its
  /// values are still counted, and its numbers and nesting still checked). Given any other text it may read values
  /// the full read refuses, so only a certified text may come here.
  ///
  /// `arrays`: the long arrays the answer's path index records; the items of the longest one the query reads
  /// through may be read on two threads ([`split`]), giving the same tape.
  #[cfg(test)]
  pub(crate) fn build_clean(
    text: &'t str,
    reach: Option<usize>,
    arrays: &[LongArray],
  ) -> Option<Tape<'t>> {
    Self::build_clean_naming(text, reach, &Names::EVERY, arrays)
  }

  /// [`Tape::build_clean`], recording only what `names` lets the query select ([`Tape::build_naming`]); a value
  /// with no entry is passed over like one below the reach.
  pub(crate) fn build_clean_naming(
    text: &'t str,
    reach: Option<usize>,
    names: &Names,
    arrays: &[LongArray],
  ) -> Option<Tape<'t>> {
    split::build_split(text, reach, names, arrays)
      .or_else(|| Self::build_with(text, reach, names, true))
  }

  fn build_with(
    text: &'t str,
    reach: Option<usize>,
    names: &Names,
    clean: bool,
  ) -> Option<Tape<'t>> {
    u32::try_from(text.len()).ok()?;
    let reach = reach.unwrap_or(usize::MAX);
    let mut builder = Builder::new(text.as_bytes(), reach, names, clean, text.len());
    builder.document()?;
    Some(builder.into_tape(text))
  }

  /// The top-level value.
  pub(crate) fn root(&self) -> TapeNode<'_> {
    TapeNode { tape: self, at: 0 }
  }

  /// Values in the answer, at any depth (recorded or not).
  pub(crate) fn nodes(&self) -> u64 {
    self.nodes
  }
}

/// The first byte at or after `at` that may end a run of plain string content (a quote, a backslash or a control
/// character), or `bytes.len()`. A stop in the first eight bytes is found byte by byte (most keys and values are
/// that short, and there the branches run ahead of the data: reading the stop off a mask makes the next token wait
/// for it, measured slower on short strings); past them, the stop is read off a mask of many bytes at once.
#[inline(always)]
fn string_stop(bytes: &[u8], mut at: usize) -> usize {
  if bytes
    .get(at..at + 8)
    .is_some_and(|word| !may_stop_string(u64::from_le_bytes(word.try_into().unwrap_or_default())))
  {
    at = long_string_stop(bytes, at + 8);
  }
  while bytes
    .get(at)
    .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
  {
    at += 1;
  }
  at
}

/// [`string_stop`] sixteen bytes at a time with SSE2 (in every x86_64), or the first byte of the last sixteen.
#[cfg(target_arch = "x86_64")]
fn long_string_stop(bytes: &[u8], mut at: usize) -> usize {
  use safe_arch::*;
  while let Some(chunk) = bytes.get(at..at + 16) {
    let chunk = load_unaligned_m128i(chunk.try_into().unwrap_or(&[0; 16]));
    let equal = |byte: u8| cmp_eq_mask_i8_m128i(chunk, set_splat_i8_m128i(byte as i8));
    let control = cmp_eq_mask_i8_m128i(min_u8_m128i(chunk, set_splat_i8_m128i(0x1f)), chunk);
    let stops = move_mask_i8_m128i(bitor_m128i(bitor_m128i(equal(b'"'), equal(b'\\')), control));
    if stops != 0 {
      return at + stops.trailing_zeros() as usize;
    }
    at += 16;
  }
  at
}

/// [`long_string_stop`] where SSE2 is not at hand.
#[cfg(not(target_arch = "x86_64"))]
fn long_string_stop(bytes: &[u8], at: usize) -> usize {
  long_string_stop_by_words(bytes, at)
}

/// [`long_string_stop`] eight bytes at a time ([`string_stops`]: its lowest flagged byte is exact), or the first
/// byte of the last eight.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn long_string_stop_by_words(bytes: &[u8], mut at: usize) -> usize {
  while let Some(word) = bytes.get(at..at + 8) {
    let stops = string_stops(u64::from_le_bytes(word.try_into().unwrap_or_default()));
    if stops != 0 {
      return at + (stops.trailing_zeros() / 8) as usize;
    }
    at += 8;
  }
  at
}

/// The high bit of each byte of `word` (little-endian) that is a quote, a backslash or a control character, exact
/// up to the lowest one (a false flag only ever sits above a true one).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn string_stops(word: u64) -> u64 {
  bytes_equal(word, b'"') | bytes_equal(word, b'\\') | control_bytes(word)
}

/// One pass over the text, checking RFC 8259's grammar (what `JSON.parse` accepts) while it writes the entries.
/// An explicit stack of open containers, no recursion. Every `None` sends the query to the full read.
struct Builder<'b> {
  bytes: &'b [u8],
  at: usize,
  entries: Vec<Entry>,
  /// Open containers, innermost last.
  open: Vec<Open>,
  /// The key read for the next value: `(start, length, escaped)`.
  key: Option<(u32, u32, bool)>,
  /// The deepest level recorded.
  reach: usize,
  /// What the query can select at each level: only that is recorded.
  names: &'b Names,
  /// Values read, recorded or not.
  nodes: u64,
  /// The text is certified JSON: unreached subtrees are passed over (see [`Tape::build_clean`]).
  clean: bool,
  /// Open containers left when the text read ends: 0 for a whole document; for the second half of a split array
  /// (see [`split`]), the array's level, as the read ends with the array.
  floor: usize,
  /// For the first half of a split array ([`split`]): where the array starts; `bytes` ends just before the comma
  /// between two of its items.
  cut: Option<usize>,
}

/// An open container: its entry ([`UNRECORDED`] below the reach), and whether it is an object.
#[derive(Clone, Copy)]
struct Open {
  entry: u32,
  object: bool,
  /// One bit per recorded member key ([`key_bit`]): only an object where two keys share a bit, or a key holds an
  /// escape, is checked for a repeated key when it closes.
  keys: u64,
  maybe_repeated: bool,
}

const UNRECORDED: u32 = u32::MAX;

impl<'b> Builder<'b> {
  /// At the start of `bytes`, for a read of about `span` bytes.
  fn new(bytes: &'b [u8], reach: usize, names: &'b Names, clean: bool, span: usize) -> Builder<'b> {
    Builder {
      bytes,
      at: 0,
      // About one value per 8 bytes of JSON, half as many when the deepest ones are not recorded (growing the list
      // copies it, so too many beats too few).
      entries: Vec::with_capacity(span / if reach < 4 { 16 } else { 8 }),
      open: Vec::new(),
      key: None,
      reach,
      names,
      nodes: 0,
      clean,
      floor: 0,
      cut: None,
    }
  }

  fn into_tape<'t>(self, text: &'t str) -> Tape<'t> {
    Tape {
      text,
      entries: self.entries,
      nodes: self.nodes,
    }
  }

  fn blank(&mut self) {
    self.at = pass::skip_blanks(self.bytes, self.at);
  }

  fn peek(&self) -> Option<u8> {
    self.bytes.get(self.at).copied()
  }

  /// Values from the cursor until the document (or the fragment, see [`Builder::floor`]) ends.
  fn document(&mut self) -> Option<()> {
    loop {
      self.blank();
      self.value()?;
      if self.after_value()? {
        return Some(());
      }
    }
  }

  /// Closes containers and reads separators after a value: `true` once the document (or the fragment) is read,
  /// `false` when another value is due.
  #[inline(always)]
  fn after_value(&mut self) -> Option<bool> {
    loop {
      if self.open.len() == self.floor {
        if self.floor > 0 {
          return Some(true);
        }
        self.blank();
        return (self.at == self.bytes.len()).then_some(true);
      }
      let in_object = self.open.last()?.object;
      self.blank();
      let Some(byte) = self.peek() else {
        return self.stop_at_cut();
      };
      match (byte, in_object) {
        (b',', _) => {
          self.at += 1;
          if in_object {
            self.member_key()?;
          }
          return Some(false);
        }
        (b'}', true) | (b']', false) => self.close()?,
        _ => return None,
      }
    }
  }

  /// `"key" :` inside an object.
  #[inline(always)]
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

  /// Counts a value and records it when it is within the reach; its entry, or [`UNRECORDED`].
  #[inline(always)]
  fn push(&mut self, kind: Kind, start: usize, escaped: bool) -> u32 {
    self.nodes += 1;
    let (key_start, key_len, key_escaped) = self.key.take().unwrap_or((0, 0, false));
    let level = self.open.len();
    let mut recorded = level <= self.reach;
    if let Some(parent) = self.open.last_mut() {
      if parent.entry == UNRECORDED {
        return UNRECORDED;
      }
      self.entries[parent.entry as usize].count += 1;
      let key = &self.bytes[key_start as usize..(key_start + key_len) as usize];
      recorded = recorded
        && self
          .names
          .may_select(level, parent.object.then_some(key), key_escaped);
      if parent.object && recorded {
        let bit = key_bit(key);
        parent.maybe_repeated |= key_escaped || parent.keys & bit != 0;
        parent.keys |= bit;
      }
    }
    if !recorded {
      return UNRECORDED;
    }
    let index = self.entries.len() as u32;
    self.entries.push(Entry {
      start: start as u32,
      end: self.at as u32,
      key_start,
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
        let entry = self.push(kind, start, false);
        self.open.push(Open {
          entry,
          object: kind == Kind::Object,
          keys: 0,
          maybe_repeated: false,
        });
        if self.open.len() > MAX_QUERY_DEPTH {
          return None;
        }
        if self.clean && (self.open.len() > self.reach || entry == UNRECORDED) {
          return self.pass_children(entry);
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
    let closed = self.open.pop()?;
    let at = closed.entry;
    if at == UNRECORDED {
      return Some(());
    }
    let at = at as usize;
    let next = self.entries.len() as u32;
    let entry = &mut self.entries[at];
    entry.end = self.at as u32;
    entry.next = next;
    if closed.maybe_repeated && has_repeated_key(self.bytes, &self.entries, at) {
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

  /// Past a string literal (at its opening quote): where its content starts, and whether it holds escapes. A
  /// lone surrogate escape gives `None` (serde_json refuses it; the full read repairs it).
  #[inline(always)]
  fn string(&mut self) -> Option<(usize, bool)> {
    let start = self.at + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
      i = string_stop(self.bytes, i);
      match self.bytes.get(i)? {
        b'"' => break,
        b'\\' => {
          escaped = true;
          match escape_at(self.bytes, i)? {
            (Escaped::Char(_), width) => i += width,
            (Escaped::Lone(_), _) => return None,
          }
        }
        _ => return None,
      }
    }
    self.at = i + 1;
    Some((start, escaped))
  }

  /// A number ([`number_end`]) that serde_json reads (see [`serde_reads_number`]).
  fn number(&mut self) -> Option<()> {
    let start = self.at;
    let number = number_end(self.bytes, start).ok()?;
    self.at = number.end;
    serde_reads_number(&self.bytes[start..number.end], number.exponent).then_some(())
  }
}

/// Whether serde_json reads the number `raw` (one JSON's grammar allows): it refuses one that overflows a double
/// (`1e400`), which only a long one (300 bytes or more) or one with an exponent can be, so only those are parsed.
#[inline(always)]
fn serde_reads_number(raw: &[u8], exponent: bool) -> bool {
  if raw.len() < 300 && !exponent {
    return true;
  }
  std::str::from_utf8(raw)
    .is_ok_and(|number| serde_json::from_str::<serde_json::Number>(number).is_ok())
}

#[cfg(test)]
mod tests;
