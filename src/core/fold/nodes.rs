//! What the skeleton keeps of an answer, and what the renderer reads: kept values, lists with the first item of
//! each type and the merged keys of their object items, objects with their first members.

use std::collections::HashMap;

use crate::core::json::Kind;

/// A kept value.
pub(crate) enum Node {
  Null,
  Bool(bool),
  /// The number as JS prints it.
  Number(Box<str>),
  Str(Box<StrNode>),
  Array(Box<ArrayNode>),
  Object(Box<ObjectNode>),
}

pub(crate) struct StrNode {
  /// The whole string's length in UTF-16 units.
  pub units: usize,
  /// Its first units (possibly none).
  pub prefix: Vec<u16>,
}

pub(crate) struct ArrayNode {
  /// How many items the list has.
  pub len: usize,
  /// Its first items, as many as were kept.
  pub items: Vec<Node>,
  /// Only counted: the items were not read.
  pub cut: bool,
  /// The first item of each JSON type, in the order the types first appear.
  pub kinds: Vec<(Kind, Src)>,
  /// The keys of the list's object items, merged.
  pub merge: Option<ObjMerge>,
}

/// Where the first item of a type is kept.
pub(crate) enum Src {
  /// `items[i]`.
  Item(usize),
  /// Kept apart (it came after the kept items).
  Own(Node),
  /// Not kept (budget or depth).
  Missing,
}

pub(crate) struct ObjectNode {
  /// How many keys the object has.
  pub len: usize,
  /// Its first members, as many as were kept (long keys are left out).
  pub entries: Vec<Entry>,
  /// Only counted: the members were not read.
  pub cut: bool,
}

pub(crate) struct Entry {
  /// The key as JSON.stringify quotes it, without the quotes.
  pub key: Box<str>,
  pub value: Node,
}

/// The union of the keys of a list's object items.
#[derive(Default)]
pub(crate) struct ObjMerge {
  /// How many object items the list has.
  pub objects: usize,
  /// Keys in first-seen order.
  pub keys: Vec<MergeKey>,
  lookup: HashMap<Box<str>, usize>,
  /// Some keys of some items were not seen (left out, or over `max_keys`).
  pub incomplete: bool,
}

pub(crate) struct MergeKey {
  pub key: Box<str>,
  /// How many object items have this key.
  pub count: usize,
  pub src: MergeSrc,
}

/// Where the value that describes a merged key is kept.
pub(crate) enum MergeSrc {
  /// `items[item].entries[entry]`.
  Item {
    item: usize,
    entry: usize,
  },
  /// `kinds[slot]` (an object kept apart) `.entries[entry]`.
  Kind {
    slot: usize,
    entry: usize,
  },
  /// Kept with the key.
  Own(Node),
  Missing,
}

/// `a == b`, byte by byte: keys are a few bytes long, where a call to `memcmp` per key was 6% of a fold of
/// small object items (perf, fit_breakdown's orders answer).
fn same_key(a: &str, b: &str) -> bool {
  a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

impl ObjMerge {
  pub(super) fn find(&self, position: usize, key: &str) -> Option<usize> {
    // Items of a list usually list their keys in the same order: try the same position first.
    match self.keys.get(position) {
      Some(k) if same_key(&k.key, key) => Some(position),
      _ => self.lookup.get(key).copied(),
    }
  }

  pub(super) fn add(&mut self, key: Box<str>, src: MergeSrc, max_keys: usize) -> Option<usize> {
    if self.keys.len() >= max_keys {
      self.incomplete = true;
      return None;
    }
    let index = self.keys.len();
    self.lookup.insert(key.clone(), index);
    self.keys.push(MergeKey { key, count: 1, src });
    Some(index)
  }

  /// Counts the keys of an object item kept in full.
  pub(super) fn absorb(
    &mut self,
    object: &ObjectNode,
    max_keys: usize,
    src: impl Fn(usize) -> MergeSrc,
  ) {
    self.objects += 1;
    if object.cut || object.entries.len() < object.len {
      self.incomplete = true;
    }
    for (position, entry) in object.entries.iter().enumerate() {
      match self.find(position, &entry.key) {
        Some(index) => self.keys[index].count += 1,
        None => {
          self.add(entry.key.clone(), src(position), max_keys);
        }
      }
    }
  }
}
