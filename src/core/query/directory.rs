//! The member directory of a long array: where each item starts and ends and, for an item that is an object, where
//! each member's value starts and ends and which key it has. The fold records it beside the path index (see
//! `index::scan`), for every array the index records whose items are small objects with plain keys; the store keeps
//! it as a record of its own, one per array (see `HandleStore::save_directory`).
//!
//! A JSONPath query whose first steps lead to such an array (`$.orders[?@.status=='open']`, `$.orders[*].sku`) is
//! evaluated over the array's text through its directory ([`run_directory_query`]): the evaluator (`eval`, the same
//! as for the tape) asks an item for a member and gets its value's span without a pass over the item, so a filter
//! reads the few bytes it compares and nothing else. No tape is written. What the directory does not describe (the
//! inside of a member's array or object, an item that is not an object) is read from its text when the evaluator
//! asks for it ([`inside`]).
//!
//! A descendant segment that selects members by name (`$.orders..tags[2]`) selects only members of objects, so its
//! walk does not go under a value whose text holds no `{` (the `tags` of each order), and the budget is charged for
//! the most nodes it left out. A descendant segment that selects otherwise (`..*`, `..[0]`) visits every node, which
//! the tape does faster: the route does not take it.
//!
//! The route gives up, and the tape answers as before, where it cannot read as the tape does: a key with an escape
//! or repeated in an object it reads from its text, a directory that does not read back, more passing over text than
//! a few times the text's length (a deep nest is passed over once for each level), or a spent budget. The answers,
//! totals and match spans are the same either way.
//!
//! The fold gives up on a directory, and writes none, for an array with an item over 64 KiB (the index records it),
//! a key with an escape, a key repeated in an item (`JSON.parse` keeps the last value at the first place), more than
//! [`MAX_KEYS`] distinct keys or [`MAX_MEMBERS`] members in an item, nesting deeper than [`MAX_ITEM_DEPTH`], or a
//! number that overflows a double (the tape refuses such a text, and the full read then decides).
//!
//! Encoding (integers unsigned LEB128, offsets from the array's opening bracket):
//! `"RHMD" ‖ version 0x01 ‖ array start in the answer ‖ array length ‖ k ‖ k × (key length, key UTF-8) ‖ n ‖ n × item`
//! where an item is `gap ‖ length ‖ b ‖ members`, its members `b` bytes in all, each `key number (one byte) ‖ gap ‖
//! value length`. An item's gap counts from the end of the item before it (the first from the bracket); a member's
//! gap from the end of the value before it (the first from the item's start). An item that is not an object has no
//! members (b = 0); its first byte tells its kind. The byte count lets a reader list the items without reading their
//! members, which it reads only for the items a query asks about.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json_path_core::spec::query::Query;
use serde_json_path_core::spec::selector::filter::Literal;

use super::answer::{answer, list_window, Items, Target};
use super::eval::{Atom, Budget, Evaluation, LiteralFacts, Node};
use super::index::codec::{put, Reader};
use super::reach::descends_by_name_only;
use super::tape::{atom_of_text, literal_facts_of_text};
use super::walk::Kind;
use super::{query_after, QueryArgs, QuerySpans};
use crate::core::error::{CoreError, CoreResult};
use inside::Entry;

mod inside;
// The keys route rests on the SSE2 pass (`tape::pass::containers_of_keys`); on other CPUs that pass answers `None`,
// so the route is compiled but never reached (the tape answers).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod keys;

pub(crate) use keys::select_by_keys;

const MAGIC: &[u8; 4] = b"RHMD";
/// The directory encoding this engine writes and reads; any other is ignored (the tape answers).
pub const DIRECTORY_VERSION: u8 = 1;
/// Distinct keys one array's directory names at most.
pub const MAX_KEYS: usize = 256;
/// Members one item holds at most.
pub const MAX_MEMBERS: usize = 256;
/// Nesting inside an item the fold passes at most (the tape reads 127 levels in all).
pub const MAX_ITEM_DEPTH: usize = 96;

// ─── writing ────────────────────────────────────────────────────────────────

/// Writes one array's directory while the fold's index scan passes its items (see `index::scan`).
pub(crate) struct Recorder<'t> {
  array_start: usize,
  keys: Vec<&'t [u8]>,
  items: Vec<u8>,
  count: u64,
  objects: bool,
  last_end: usize,
  /// The item being written: its start, its members `(key number, value start, value end)`, the keys it has.
  item_start: usize,
  members: Vec<(u8, usize, usize)>,
  seen: [u64; MAX_KEYS / 64],
  /// The key numbers of the last item, by place: the next item most often has the same keys in the same order.
  last_keys: Vec<u8>,
}

impl<'t> Recorder<'t> {
  /// A directory for the array whose opening bracket is at byte `array_start` of the answer.
  pub(crate) fn new(array_start: usize) -> Self {
    Recorder {
      array_start,
      keys: Vec::new(),
      items: Vec::new(),
      count: 0,
      objects: false,
      last_end: array_start + 1,
      item_start: 0,
      members: Vec::new(),
      seen: [0; MAX_KEYS / 64],
      last_keys: Vec::new(),
    }
  }

  /// An object item starts at `start`.
  pub(crate) fn begin_object(&mut self, start: usize) {
    self.item_start = start;
    self.members.clear();
    self.seen = [0; MAX_KEYS / 64];
  }

  /// A member of the object item being written: its key (between the quotes, with no escape) and its value's span.
  /// False when the directory must be given up (see the module docs).
  pub(crate) fn member(&mut self, key: &'t [u8], value_start: usize, value_end: usize) -> bool {
    if self.members.len() == MAX_MEMBERS {
      return false;
    }
    let Some(number) = self.key_number(key) else {
      return false;
    };
    let (word, bit) = (usize::from(number) / 64, 1u64 << (number % 64));
    if self.seen[word] & bit != 0 {
      return false;
    }
    self.seen[word] |= bit;
    self.members.push((number, value_start, value_end));
    true
  }

  fn key_number(&mut self, key: &'t [u8]) -> Option<u8> {
    let place = self.members.len();
    if let Some(&guess) = self.last_keys.get(place) {
      if self.keys[usize::from(guess)] == key {
        return Some(guess);
      }
    }
    let number = match self.keys.iter().position(|known| *known == key) {
      Some(found) => found,
      None if self.keys.len() < MAX_KEYS => {
        self.keys.push(key);
        self.keys.len() - 1
      }
      None => return None,
    };
    let number = u8::try_from(number).ok()?;
    match self.last_keys.get_mut(place) {
      Some(slot) => *slot = number,
      None => self.last_keys.push(number),
    }
    Some(number)
  }

  /// The object item being written ends just before `end`.
  pub(crate) fn end_object(&mut self, end: usize) {
    self.objects = true;
    let mut members = Vec::with_capacity(self.members.len() * 3);
    let mut last = self.item_start;
    for &(number, start, value_end) in &self.members {
      members.push(number);
      put(&mut members, (start - last) as u64);
      put(&mut members, (value_end - start) as u64);
      last = value_end;
    }
    self.put_item(self.item_start, end, &members);
  }

  /// An item that is not an object spans `[start, end)`.
  pub(crate) fn other(&mut self, start: usize, end: usize) {
    self.put_item(start, end, &[]);
  }

  fn put_item(&mut self, start: usize, end: usize, members: &[u8]) {
    put(&mut self.items, (start - self.last_end) as u64);
    put(&mut self.items, (end - start) as u64);
    put(&mut self.items, members.len() as u64);
    self.items.extend_from_slice(members);
    self.last_end = end;
    self.count += 1;
  }

  /// The directory's bytes, the array closing just before `array_end`; `None` when no item is an object (a directory
  /// would then help no query).
  pub(crate) fn finish(self, array_end: usize) -> Option<(u64, Vec<u8>)> {
    if !self.objects {
      return None;
    }
    let keys: usize = self.keys.iter().map(|key| key.len() + 2).sum();
    let mut out = Vec::with_capacity(32 + keys + self.items.len());
    out.extend_from_slice(MAGIC);
    out.push(DIRECTORY_VERSION);
    put(&mut out, self.array_start as u64);
    put(&mut out, (array_end - self.array_start) as u64);
    put(&mut out, self.keys.len() as u64);
    for key in &self.keys {
      put(&mut out, key.len() as u64);
      out.extend_from_slice(key);
    }
    put(&mut out, self.count);
    out.extend_from_slice(&self.items);
    Some((self.array_start as u64, out))
  }
}

// ─── reading ────────────────────────────────────────────────────────────────

/// A directory as read back, its offsets from the array's opening bracket. The items are listed; their members are
/// read from the directory's bytes when asked for ([`Directory::members`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Directory {
  /// Where the array starts in the answer, and its length in bytes.
  pub start: u64,
  pub len: u64,
  keys: Vec<String>,
  items: Vec<Item>,
  /// Members in all (what the budget counts).
  member_bytes: usize,
  bytes: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Item {
  start: u32,
  end: u32,
  /// Its members' bytes in the directory: `bytes[members..members_end]`.
  members: u32,
  members_end: u32,
}

impl Item {
  fn has_members(self) -> bool {
    self.members_end > self.members
  }
}

/// A member of an object item: its key's number and its value's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Member {
  key: u8,
  start: u32,
  end: u32,
}

impl Directory {
  /// The directory of a text of `len` bytes that describes none of it: every value is read from the text.
  fn without_items(len: usize) -> Directory {
    Directory {
      start: 0,
      len: len as u64,
      keys: Vec::new(),
      items: Vec::new(),
      member_bytes: 0,
      bytes: Vec::new(),
    }
  }

  /// Reads a directory's header and lists its items, checked (every item inside the array and after the one before
  /// it, its members' bytes inside the directory); `None` for anything else, which the caller ignores. Members are
  /// checked as they are read.
  pub(crate) fn decode(bytes: Vec<u8>) -> Option<Directory> {
    if bytes.get(..4)? != MAGIC || *bytes.get(4)? != DIRECTORY_VERSION {
      return None;
    }
    let mut reader = Reader::at(&bytes, 5);
    let start = reader.number()?;
    let len = reader.number()?;
    let end = u32::try_from(len).ok()?;
    let key_count = reader.count()?;
    let mut keys = Vec::with_capacity(key_count);
    for _ in 0..key_count {
      let key_len = reader.count()?;
      keys.push(std::str::from_utf8(reader.take(key_len)?).ok()?.to_owned());
    }
    let item_count = reader.count()?;
    let mut items = Vec::with_capacity(item_count);
    let mut last_end = 1u32;
    for _ in 0..item_count {
      let item_start = last_end.checked_add(u32::try_from(reader.number()?).ok()?)?;
      let item_end = item_start.checked_add(u32::try_from(reader.number()?).ok()?)?;
      let members = reader.count()?;
      if item_end >= end {
        return None;
      }
      let from = reader.position();
      reader.take(members)?;
      items.push(Item {
        start: item_start,
        end: item_end,
        members: u32::try_from(from).ok()?,
        members_end: u32::try_from(reader.position()).ok()?,
      });
      last_end = item_end;
    }
    let read = reader.position();
    let member_bytes = read - items.first().map_or(read, |item| item.members as usize);
    (read == bytes.len()).then_some(Directory {
      start,
      len,
      keys,
      items,
      member_bytes,
      bytes,
    })
  }

  /// The members of item `item`, in order; a member that does not read back (a damaged directory) ends the list
  /// with `None`.
  fn members(&self, item: usize) -> impl Iterator<Item = Option<Member>> + '_ {
    let (mut at, mut last, mut failed) = (
      self.items[item].members as usize,
      self.items[item].start,
      false,
    );
    std::iter::from_fn(move || {
      if failed || at == self.items[item].members_end as usize {
        return None;
      }
      let read = self.member_at(item, at, last);
      failed = read.is_err();
      Some(read.ok().map(|(member, next)| {
        (at, last) = (next, member.end);
        member
      }))
    })
  }

  fn key_number(&self, key: &str) -> Option<u8> {
    let found = self.keys.iter().position(|known| known == key)?;
    u8::try_from(found).ok()
  }

  /// The member of item `item` whose key has number `key`: `Ok(None)` when it has none, `Err(())` when its members do
  /// not read back (a damaged directory). What [`Directory::members`] finds, without an iterator: it runs for every
  /// item a filter tests.
  fn find_member(&self, item: usize, key: u8) -> Result<Option<Member>, ()> {
    let (mut at, mut last) = (self.items[item].members as usize, self.items[item].start);
    while at < self.items[item].members_end as usize {
      let (member, next) = self.member_at(item, at, last)?;
      if member.key == key {
        return Ok(Some(member));
      }
      (at, last) = (next, member.end);
    }
    Ok(None)
  }

  /// The member of item `item` written at byte `at` of the directory, the value before it ending at `last`, and
  /// where the next one is written; `Err(())` when it does not read back (a key number past the keys, a value
  /// outside its item).
  fn member_at(&self, item: usize, at: usize, last: u32) -> Result<(Member, usize), ()> {
    let Item {
      end, members_end, ..
    } = self.items[item];
    let bytes = &self.bytes[..members_end as usize];
    let key = *bytes.get(at).ok_or(())?;
    let (gap, gap_len) = short_number(bytes.get(at + 1..).ok_or(())?).ok_or(())?;
    let (len, len_len) = short_number(bytes.get(at + 1 + gap_len..).ok_or(())?).ok_or(())?;
    let start = last.checked_add(gap).ok_or(())?;
    let value_end = start.checked_add(len).ok_or(())?;
    if value_end > end || start == value_end || usize::from(key) >= self.keys.len() {
      return Err(());
    }
    let member = Member {
      key,
      start,
      end: value_end,
    };
    Ok((member, at + 1 + gap_len + len_len))
  }
}

/// An LEB128 number of at most 32 bits at the start of `bytes`, and its length.
fn short_number(bytes: &[u8]) -> Option<(u32, usize)> {
  let mut n = 0u32;
  for (at, &byte) in bytes.iter().enumerate().take(5) {
    n |= u32::from(byte & 0x7f).checked_shl(7 * at as u32)?;
    if byte & 0x80 == 0 {
      return Some((n, at + 1));
    }
  }
  None
}

// ─── evaluating ─────────────────────────────────────────────────────────────

/// The array's text and its directory, as the evaluator's nodes share them.
struct View<'d> {
  /// Its text, checked as UTF-8 only where a value is read (a slice between two values is whole characters).
  text: &'d [u8],
  directory: &'d Directory,
  /// Set when the evaluator asked for what this route cannot read (a key with an escape or repeated, a damaged
  /// directory, passes over more bytes than [`View::scan_limit`]): the answer is then not given.
  strayed: AtomicBool,
  /// Bytes passed over to list the children of values the directory does not describe, and how many may be: a value
  /// is passed over each time the evaluator lists its children, so a deep nest costs its depth times its length.
  scanned: AtomicU64,
  scan_limit: u64,
}

impl<'d> View<'d> {
  /// `text` read through `directory`, nothing passed over yet (up to [`scan_limit`]).
  fn new(text: &'d [u8], directory: &'d Directory) -> View<'d> {
    View {
      text,
      directory,
      strayed: AtomicBool::new(false),
      scanned: AtomicU64::new(0),
      scan_limit: scan_limit(text.len()),
    }
  }

  /// Whether the evaluation may be answered: it asked for nothing this route cannot read.
  fn kept_to_the_route(&self) -> bool {
    !self.strayed.load(Ordering::Relaxed)
  }
}

/// Bytes a route may pass over to list the children of values read from a text of `len` bytes: a value is passed
/// over each time its children are listed, so a deep nest costs its depth times its length; 8 times the text, plus
/// 1 MiB.
fn scan_limit(len: usize) -> u64 {
  8 * len as u64 + (1 << 20)
}

#[derive(Clone, Copy)]
enum Place {
  Array,
  Item(u32),
  /// Any other value (a member's, or one inside a member or an item), by its span.
  Value(u32, u32),
}

/// A value of the array as the evaluator sees it: the array, one of its items, or a value inside an item.
#[derive(Clone, Copy)]
struct DirectoryNode<'d> {
  view: &'d View<'d>,
  place: Place,
}

impl<'d> DirectoryNode<'d> {
  fn at(view: &'d View<'d>, place: Place) -> Self {
    DirectoryNode { view, place }
  }

  fn span(self) -> (u32, u32) {
    match self.place {
      Place::Array => (0, self.view.directory.len as u32),
      Place::Item(at) => {
        let item = self.view.directory.items[at as usize];
        (item.start, item.end)
      }
      Place::Value(start, end) => (start, end),
    }
  }

  fn bytes(self) -> &'d [u8] {
    let (start, end) = self.span();
    &self.view.text[start as usize..end as usize]
  }

  /// The value's JSON text; `None` (and the route gives up) when it is not UTF-8, which a kept answer always is.
  fn text(self) -> Option<&'d str> {
    let text = std::str::from_utf8(self.bytes()).ok();
    if text.is_none() {
      self.stray(());
    }
    text
  }

  /// The evaluator asked for what this route cannot read: it gives no answer.
  fn stray<T>(self, anyway: T) -> T {
    self.view.strayed.store(true, Ordering::Relaxed);
    anyway
  }

  fn escaped(self) -> bool {
    self.bytes().contains(&b'\\')
  }

  /// The item's number, when it is an item whose members the directory names (an object).
  fn described_object(self) -> Option<u32> {
    match self.place {
      Place::Item(at) if self.view.directory.items[at as usize].has_members() => Some(at),
      _ => None,
    }
  }

  /// The members of this item (an object the directory describes), in order; strays at one that does not read back.
  fn each_member(self, item: u32) -> impl Iterator<Item = Member> + 'd {
    let view = self.view;
    view
      .directory
      .members(item as usize)
      .map_while(move |member| {
        if member.is_none() {
          view.strayed.store(true, Ordering::Relaxed);
        }
        member
      })
  }

  /// Calls `each` on the children of this array or object read from its text (see [`inside`]); false (and the
  /// route gives up) when they cannot be read so, or passing over them would pass the view's limit.
  fn each_entry(self, each: impl FnMut(Entry) -> ControlFlow<()>) -> bool {
    let view = self.view;
    let span = self.span();
    let scanned = view
      .scanned
      .fetch_add(u64::from(span.1 - span.0), Ordering::Relaxed);
    if scanned > view.scan_limit || inside::each_entry(view.text, span, each).is_err() {
      return self.stray(false);
    }
    true
  }

  /// The children of this array or object read from its text; `None` (strayed) when they cannot be, or an object
  /// repeats a key (`JSON.parse` keeps its first place and last value, which the tape reads).
  fn entries(self) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    if !self.each_entry(|entry| {
      entries.push(entry);
      ControlFlow::Continue(())
    }) {
      return None;
    }
    if entries.len() > 1 && entries[0].key.is_some() {
      let text = self.view.text;
      let mut keys: Vec<&[u8]> = entries
        .iter()
        .filter_map(|entry| entry.key.map(|(s, e)| &text[s as usize..e as usize]))
        .collect();
      keys.sort_unstable();
      if keys.windows(2).any(|pair| pair[0] == pair[1]) {
        return self.stray(None);
      }
    }
    Some(entries)
  }

  fn value(self, start: u32, end: u32) -> Self {
    DirectoryNode::at(self.view, Place::Value(start, end))
  }

  /// Whether this is an array or object under which no object can be: the text inside its brackets holds no `{`.
  fn holds_no_object(self) -> bool {
    let read_from_text = match self.place {
      Place::Value(..) => true,
      Place::Item(_) => self.described_object().is_none(),
      Place::Array => false,
    };
    read_from_text
      && matches!(self.bytes(), [b'[' | b'{', inside @ ..] if memchr::memchr(b'{', inside).is_none())
  }

  /// The members of this item (an object the directory describes) whose text holds a `{` (each `{` of the item's
  /// text found in one pass), which are or may hold objects; the nodes the others are and may hold, which a walk for
  /// names leaves out, are counted.
  fn members_that_may_hold_objects(self, item: u32, out: &mut Vec<Self>) -> u64 {
    let (item_start, _) = self.span();
    let mut braces = memchr::memchr_iter(b'{', &self.bytes()[1..])
      .map(|at| item_start + 1 + at as u32)
      .peekable();
    let mut left_out = 0;
    for member in self.each_member(item) {
      while braces.next_if(|&at| at < member.start).is_some() {}
      if braces.peek().is_some_and(|&at| at < member.end) {
        out.push(self.value(member.start, member.end));
      } else {
        let text = &self.view.text[member.start as usize..member.end as usize];
        left_out += 1 + most_nodes_inside(text);
      }
    }
    left_out
  }
}

impl<'d> Node<'d> for DirectoryNode<'d> {
  fn kind(self) -> Kind {
    match self.place {
      Place::Array => Kind::Array,
      // An item with members is an object: told without reading the text (a filter or wildcard over a long array
      // would otherwise wait on memory at every item).
      Place::Item(_) if self.described_object().is_some() => Kind::Object,
      _ => Kind::of_first_byte(self.view.text.get(self.span().0 as usize).copied()),
    }
  }

  fn children(self, out: &mut Vec<Self>) {
    let view = self.view;
    if let Place::Array = self.place {
      let items = view.directory.items.len() as u32;
      return out.extend((0..items).map(|at| DirectoryNode::at(view, Place::Item(at))));
    }
    if let Some(item) = self.described_object() {
      return out.extend(
        self
          .each_member(item)
          .map(|member| self.value(member.start, member.end)),
      );
    }
    if matches!(self.kind(), Kind::Array | Kind::Object) {
      if let Some(entries) = self.entries() {
        out.extend(
          entries
            .into_iter()
            .map(|entry| self.value(entry.start, entry.end)),
        );
      }
    }
  }

  fn member(self, key: &str) -> Option<Self> {
    if let Some(item) = self.described_object() {
      let directory = self.view.directory;
      let number = directory.key_number(key)?;
      return match directory.find_member(item as usize, number) {
        Ok(found) => found.map(|found| self.value(found.start, found.end)),
        Err(()) => self.stray(None),
      };
    }
    if self.kind() != Kind::Object {
      return None;
    }
    let mut seek = inside::MemberNamed::new(self.view.text, key.as_bytes());
    let read = self.each_entry(|entry| seek.see(entry));
    match seek.found(read) {
      Some(found) => found.map(|entry| self.value(entry.start, entry.end)),
      None => self.stray(None),
    }
  }

  fn item(self, index: usize) -> Option<Self> {
    if let Place::Array = self.place {
      let items = self.view.directory.items.len();
      return (index < items).then_some(DirectoryNode::at(self.view, Place::Item(index as u32)));
    }
    if self.kind() != Kind::Array {
      return None;
    }
    let mut seek = inside::ItemAt::new(index);
    let read = self.each_entry(|entry| seek.see(entry));
    let found = seek.found(read).flatten();
    found.map(|entry| self.value(entry.start, entry.end))
  }

  fn length(self) -> usize {
    if let Place::Array = self.place {
      return self.view.directory.items.len();
    }
    if let Some(item) = self.described_object() {
      return self.each_member(item).count();
    }
    match self.kind() {
      Kind::Array | Kind::Object => self.entries().map_or(0, |entries| entries.len()),
      Kind::String => match self.atom() {
        Ok(Atom::Str(text)) => text.chars().count(),
        _ => 0,
      },
      _ => 0,
    }
  }

  fn literal_facts(self, literal: &Literal) -> Option<LiteralFacts> {
    let kind = self.kind();
    let escaped = kind == Kind::String && self.escaped();
    literal_facts_of_text(kind, self.text()?, escaped, literal)
  }

  fn atom(self) -> CoreResult<Atom<'d>> {
    let kind = self.kind();
    let escaped = kind == Kind::String && self.escaped();
    let text = self
      .text()
      .ok_or_else(|| CoreError::internal("A value of the answer is not UTF-8."))?;
    atom_of_text(kind, text, escaped)
  }

  fn preorder_for_names(self) -> impl Iterator<Item = (Self, u64)> {
    let mut stack = vec![self];
    std::iter::from_fn(move || {
      let node = stack.pop()?;
      if node.holds_no_object() {
        return Some((node, most_nodes_inside(node.bytes())));
      }
      let before = stack.len();
      let left_out = match node.described_object() {
        Some(item) => node.members_that_may_hold_objects(item, &mut stack),
        None => {
          node.children(&mut stack);
          0
        }
      };
      stack[before..].reverse();
      Some((node, left_out))
    })
  }
}

/// The most nodes an array or object whose text is `bytes` may hold, at any depth (each takes two bytes at least,
/// with its comma): what a walk that leaves them out is charged for, so that this route spends no less than the tape
/// would. Nothing for a scalar.
fn most_nodes_inside(bytes: &[u8]) -> u64 {
  match bytes.first() {
    Some(b'[' | b'{') => bytes.len() as u64 / 2,
    _ => 0,
  }
}

/// Whether the part of a query after its first steps may be answered through a directory: a descendant segment,
/// which visits every node under it, only where it selects members by name (the walk then need not go under a value
/// that holds no object).
fn fits(rest: &Query) -> bool {
  descends_by_name_only(rest)
}

/// Whether the JSONPath query `args` name may be answered through the directory of the array its first `steps`
/// steps lead to (see [`fits`]): checked before the directory is read.
pub(crate) fn may_answer_through_directory(args: &QueryArgs, steps: usize) -> bool {
  query_after(args, steps).is_some_and(|(rest, _)| fits(&rest))
}

/// Answers the JSONPath query `args` name from the array its first `steps` steps lead to, through the array's
/// directory: `array` is the array's text (starting at byte `directory.start` of the answer). Gives the answer and
/// the matches' spans in the answer, or `None` when this route cannot tell (the directory is not this array's, the
/// query looks where the route cannot read, or the evaluation fails: the tape then answers, and gives any error).
pub(crate) fn run_directory_query(
  array: &[u8],
  directory: &Directory,
  steps: usize,
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<(CoreResult<String>, QuerySpans)> {
  let (rest, query_text) = query_after(args, steps)?;
  if !fits(&rest) || array.len() as u64 != directory.len {
    return None;
  }
  let offset = u32::try_from(directory.start).ok()?;
  let view = View::new(array, directory);
  let root = DirectoryNode::at(&view, Place::Array);
  // The directory counts fewer values than the array holds: a budget this route spends is left to the tape's, which
  // counts them all. A member takes eleven bytes at most (its key's number, a gap and a length of five bytes each).
  let nodes = 1 + directory.items.len() + directory.member_bytes / 11;
  let matches = Evaluation::new(root, Budget::for_nodes(nodes as u64))
    .select(&rest)
    .ok()?;
  if !view.kept_to_the_route() {
    return None;
  }
  let spans = matches
    .iter()
    .map(|node| {
      let (start, end) = node.span();
      Some((start.checked_add(offset)?, end.checked_add(offset)?))
    })
    .collect::<Option<Vec<_>>>()?;
  let window = list_window(args, matches.len());
  let items = Items::Texts {
    items: matches[window.clone()]
      .iter()
      .map(|node| node.text())
      .collect::<Option<_>>()?,
    base: window.start,
    total: matches.len(),
  };
  let outcome = answer(
    query_text,
    Target::List(items),
    Kind::Array,
    args,
    threshold_bytes,
  );
  Some((outcome, (query_text.clone(), spans)))
}

#[cfg(test)]
mod tests;
