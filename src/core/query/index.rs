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
//! the whole answer as before. [`query_stored`] puts the routes together over a `HandleStore`.
//!
//! An index is written only for a text serde_json reads as one JSON value with no lone surrogate escape (see
//! [`build_index`]); version 2 says so in a flag, [`CERTIFIED_JSON`], which lets a JSONPath query pass over the
//! parts it cannot reach without checking their grammar ([`certifies_json`]). The index is sealed like the answer,
//! under keys only this server derives for the same handle and owner, so the flag cannot be forged by the store.
//!
//! Encoding (all integers unsigned LEB128): `"RHIX" ‖ version 0x02 ‖ flags ‖ answer length ‖ node` (version 0x01,
//! written before, has no flags byte and is still read for its nodes), where a node is
//! `0x01 ‖ start ‖ end ‖ length ‖ n ‖ n × (item delta, byte delta) ‖ m ‖ m × (index, node)` for an array and
//! `0x02 ‖ start ‖ end ‖ m ‖ m × (key length, key UTF-8, node)` for an object and
//! `0x03 ‖ start ‖ end ‖ units ‖ n ‖ n × (unit delta, byte delta)` for a string.

use serde::de::IgnoredAny;

use super::path::{PathElement, Step};

use codec::{encode, put};
use scan::Scan;

pub(crate) mod codec;
mod plan;
mod scan;

/// Where the binding finds it (it reads the store through the index first).
pub use super::stored::query_stored;
pub use plan::{answer_range, plan, IndexedRead};

const MAGIC: &[u8; 4] = b"RHIX";
/// The index encoding this engine writes. It reads this one and version 1 (no flags); any other version is
/// ignored (full read), never guessed.
pub const INDEX_VERSION: u8 = 2;
/// Flag: the answer's text is one JSON value serde_json reads, with no lone surrogate escape.
pub const CERTIFIED_JSON: u8 = 0x01;
/// Nesting the decoder follows at most (the builder writes at most `max_depth` + 1 levels).
const MAX_DECODE_DEPTH: usize = 16;

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
  /// 64 KiB, 8 KiB checkpoints, 4096 checkpoints per array, depth 4.
  pub const DEFAULT: IndexSettings = IndexSettings {
    min_span: 64 * 1024,
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

impl Node {
  /// Its value's byte span in the answer: `[start, end)`.
  fn span(&self) -> (u64, u64) {
    match self {
      Node::Array { start, end, .. }
      | Node::Object { start, end, .. }
      | Node::Text { start, end, .. } => (*start, *end),
    }
  }
}

// ─── building ───────────────────────────────────────────────────────────────

/// The index of `text` (an answer's JSON text), or `None` when it needs none (nothing spans more than
/// `min_span` bytes) or cannot have one (not JSON, nested deeper than 128 levels, or holding a lone surrogate
/// escape, which the full read repairs).
pub fn build_index(text: &str, settings: IndexSettings) -> Option<Vec<u8>> {
  build(text, settings, false).map(|built| built.index)
}

/// [`build_index`] for a text serde_json has already accepted as exactly one JSON value: the text of a
/// `RawValue`, such as the `structuredContent` slice `fit::inspect` located (serde_json checks a `RawValue` with
/// the same grammar check, `ignore_value`, that [`build_index`] runs). The index is the same; only the second
/// check of the text is skipped. Any other text must go through [`build_index`].
pub fn build_index_of_raw_value(raw_value_text: &str, settings: IndexSettings) -> Option<Vec<u8>> {
  build(raw_value_text, settings, true).map(|built| built.index)
}

/// An answer's path index, and the member directories of the long arrays it records (see `query::directory`), each
/// with its array's start in the answer: what the fold keeps beside a large answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltIndex {
  pub index: Vec<u8>,
  pub directories: Vec<(u64, Vec<u8>)>,
}

/// [`build_index`] (or, `grammar_checked`, [`build_index_of_raw_value`]), with the member directories of the long
/// arrays it records.
pub fn build_index_and_directories(
  text: &str,
  settings: IndexSettings,
  grammar_checked: bool,
) -> Option<BuiltIndex> {
  build(text, settings, grammar_checked)
}

fn build(text: &str, settings: IndexSettings, grammar_checked: bool) -> Option<BuiltIndex> {
  if text.len() <= settings.min_span {
    return None;
  }
  let (root, directories) = Scan::root(text, settings)?;
  // The scanner trusts the text's grammar; serde_json checks it exactly as the full read will.
  if !grammar_checked {
    serde_json::from_str::<IgnoredAny>(text).ok()?;
  }
  let mut out = Vec::with_capacity(256);
  out.extend_from_slice(MAGIC);
  out.push(INDEX_VERSION);
  // Both checks ran above: serde_json's grammar check (here or by the caller) and the scanner's surrogate check.
  out.push(CERTIFIED_JSON);
  put(&mut out, text.len() as u64);
  encode(&mut out, &root);
  Some(BuiltIndex {
    index: out,
    directories,
  })
}

/// Whether `index` (an answer's path index, as read from the store) certifies that the answer, `answer_len` bytes
/// long, is JSON as serde_json reads it with no lone surrogate escape. Reads the header only.
pub fn certifies_json(index: &[u8], answer_len: usize) -> bool {
  codec::header(index).is_some_and(|(flags, len)| {
    flags & CERTIFIED_JSON != 0 && usize::try_from(len).is_ok_and(|len| len == answer_len)
  })
}

/// A long array of a certified answer, as its index records it: where the tape may split its items between two
/// threads (see `tape::split`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LongArray {
  /// Its level (the root is level 0).
  pub depth: usize,
  /// The byte offsets of its opening and closing brackets (`end` is just past the closing one).
  pub start: u64,
  pub end: u64,
  /// Where some of its items start, about every 8 KiB, increasing; the first is item 0.
  pub item_starts: Vec<u64>,
}

/// The long arrays `index` records, when it certifies the answer (`answer_len` bytes) as JSON (see
/// [`certifies_json`]); `None` when it does not (an empty list when it certifies but records no array).
pub(crate) fn certified_arrays(index: &[u8], answer_len: usize) -> Option<Vec<LongArray>> {
  certifies_json(index, answer_len).then(|| recorded_arrays(index))
}

/// Every long array `index` records, certified or not (the arrays that may have a member directory).
pub(crate) fn recorded_arrays(index: &[u8]) -> Vec<LongArray> {
  let mut arrays = Vec::new();
  if let Some((_, root)) = codec::decode(index) {
    collect_arrays(&root, 0, &mut arrays);
  }
  arrays
}

/// A container of a certified answer that a query may be read from instead of the whole answer: the deepest node
/// the index records along the query's first steps (only large nodes are recorded, so it may stand for fewer
/// steps than the query has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fragment {
  /// How many of the query's first steps lead to it (at least one).
  pub steps: usize,
  /// Its byte span in the answer: from its opening bracket to just past its closing one.
  pub start: u64,
  pub end: u64,
  pub object: bool,
  /// The long arrays inside it, as [`certified_arrays`] gives them for the fragment alone (offsets from its
  /// start, levels from it).
  pub arrays: Vec<LongArray>,
}

/// Where a JSONPath query's first steps lead in the index, walked once: the small members of a large object when
/// a step names a member the index does not record ([`Members`]), and the deepest container it records along them
/// ([`Fragment`]). A query reads the members when there are some, else the fragment, else the whole answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FirstSteps {
  pub members: Option<Members>,
  pub fragment: Option<Fragment>,
  /// The array all the steps lead to, when the index records it, however much of the answer it is: its member
  /// directory may answer the rest of the query (see `query::directory`), and its text is what the tape reads if not.
  pub array: Option<Fragment>,
}

/// Follows `steps` through the nodes `index` records (see [`FirstSteps`]). The fragment is given only when the
/// index certifies the answer as JSON and the fragment leaves out at least a quarter of it. (Reading a fragment moves
/// it once more than reading the whole answer does, which costs less than reading, decrypting and passing over a
/// quarter of the answer.)
pub(crate) fn first_steps(index: &[u8], steps: &[Step]) -> FirstSteps {
  let (Some((flags, answer_len)), Some((_, root))) = (codec::header(index), codec::decode(index))
  else {
    return FirstSteps::default();
  };
  let mut node = &root;
  let mut deepest = None;
  let mut members = None;
  for (taken, step) in steps.iter().enumerate() {
    match follow(node, step) {
      Some((_, Followed::Recorded(child))) => {
        node = child;
        if !matches!(node, Node::Text { .. }) {
          deepest = Some((taken + 1, node));
        }
      }
      Some((_, Followed::SmallItem(_))) => break,
      None => {
        members = Members::of(node, taken);
        break;
      }
    }
  }
  let certified = flags & CERTIFIED_JSON != 0;
  let array = match deepest {
    Some((taken, node @ Node::Array { .. })) if certified && taken == steps.len() => {
      fragment_of(node, taken, None)
    }
    _ => None,
  };
  FirstSteps {
    members,
    array,
    fragment: deepest
      .filter(|_| certified)
      .and_then(|(steps, node)| fragment_of(node, steps, Some(answer_len))),
  }
}

/// The fragment `node` stands for, `steps` steps down, when it is a container (and, given the answer's length
/// `answer_len`, of at most three quarters of it).
fn fragment_of(node: &Node, steps: usize, answer_len: Option<u64>) -> Option<Fragment> {
  let (start, end, object) = match node {
    Node::Array { start, end, .. } => (*start, *end, false),
    Node::Object { start, end, .. } => (*start, *end, true),
    Node::Text { .. } => return None,
  };
  if answer_len.is_some_and(|len| (end - start).saturating_mul(4) > len.saturating_mul(3)) {
    return None;
  }
  let mut arrays = Vec::new();
  collect_arrays(node, 0, &mut arrays);
  for array in &mut arrays {
    array.start -= start;
    array.end -= start;
    array.item_starts.iter_mut().for_each(|at| *at -= start);
  }
  Some(Fragment {
    steps,
    start,
    end,
    object,
    arrays,
  })
}

/// An object's small members are read on their own only when the parts between its recorded members come to at
/// most this many bytes, in at most [`MAX_MEMBER_PARTS`] parts (read at once): otherwise the whole answer.
const MAX_MEMBER_BYTES: u64 = 64 * 1024;
const MAX_MEMBER_PARTS: usize = 8;

/// The parts of `node`, an object the index records, between the members it records (from the opening brace to the
/// first one's value, between two of them, from the last one to the closing brace), in order; `None` when they are
/// too many or too long, or `node` is not an object. Every member the index does not record lies in them, however
/// often its key is repeated (the index records only a key's last member).
fn member_parts(node: &Node) -> Option<Vec<(u64, u64)>> {
  let Node::Object {
    start,
    end,
    children,
  } = node
  else {
    return None;
  };
  if children.len() >= MAX_MEMBER_PARTS {
    return None;
  }
  let mut spans: Vec<(u64, u64)> = children.iter().map(|(_, child)| child.span()).collect();
  spans.sort_unstable();
  let mut parts = Vec::with_capacity(spans.len() + 1);
  let mut from = *start;
  for (value_start, value_end) in spans {
    parts.push((from, value_start));
    from = value_end;
  }
  parts.push((from, *end));
  let bytes: u64 = parts
    .iter()
    .map(|(a, b)| b.checked_sub(*a))
    .sum::<Option<u64>>()?;
  (bytes <= MAX_MEMBER_BYTES).then_some(parts)
}

/// The object [`member_parts`] come from, rebuilt from their bytes (`bytes`, one part after the other) with each
/// recorded member's value written `null`: its small members as they are.
pub(crate) fn object_without_recorded_members(
  parts: &[(u64, u64)],
  bytes: &[u8],
) -> Option<String> {
  let mut object = String::with_capacity(bytes.len() + 4 * parts.len());
  let mut at = 0usize;
  for (i, (start, end)) in parts.iter().enumerate() {
    let len = usize::try_from(end - start).ok()?;
    if i > 0 {
      object.push_str("null");
    }
    object.push_str(std::str::from_utf8(bytes.get(at..at + len)?).ok()?);
    at += len;
  }
  (at == bytes.len()).then_some(object)
}

/// Small members of a large object that a path's first steps lead into: the object's parts between its recorded
/// members (see [`member_parts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Members {
  /// How many of the path's first steps lead to the object (the next one names a member the index does not record).
  pub steps: usize,
  pub parts: Vec<(u64, u64)>,
}

impl Members {
  /// The small members of `node`, which the first `steps` steps lead to; `None` as for [`member_parts`].
  fn of(node: &Node, steps: usize) -> Option<Members> {
    member_parts(node).map(|parts| Members { steps, parts })
  }
}

/// Where one step of a singular path leads from a node of the index.
enum Followed<'n> {
  /// A node the index records.
  Recorded(&'n Node),
  /// Item `at` of the list, too small to be recorded (its checkpoints name the range of items around it).
  SmallItem(u64),
}

/// The child `step` names in `node`, and the path element locating it, when the index can tell where it is;
/// `None` for a key it does not record, an index past the end, or a step that names nothing on that kind of node.
fn follow<'n>(node: &'n Node, step: &Step) -> Option<(PathElement, Followed<'n>)> {
  match node {
    Node::Object { children, .. } => {
      let (Step::Key(key) | Step::Member { key, .. }) = step else {
        return None;
      };
      let (_, child) = children.iter().find(|(name, _)| name == key)?;
      Some((PathElement::Name(key.clone()), Followed::Recorded(child)))
    }
    Node::Array { len, children, .. } => {
      let (Step::Index(index)
      | Step::Member {
        index: Some(index), ..
      }) = step
      else {
        return None;
      };
      let at = if *index >= 0 {
        index.unsigned_abs()
      } else {
        len.checked_sub(index.unsigned_abs())?
      };
      if at >= *len {
        return None;
      }
      let element = PathElement::Index(usize::try_from(at).ok()?);
      Some(match children.iter().find(|(i, _)| *i == at) {
        Some((_, child)) => (element, Followed::Recorded(child)),
        None => (element, Followed::SmallItem(at)),
      })
    }
    Node::Text { .. } => None,
  }
}

fn collect_arrays(node: &Node, depth: usize, out: &mut Vec<LongArray>) {
  match node {
    Node::Array {
      start,
      end,
      checkpoints,
      children,
      ..
    } => {
      out.push(LongArray {
        depth,
        start: *start,
        end: *end,
        item_starts: checkpoints.iter().map(|&(_, at)| at).collect(),
      });
      for (_, child) in children {
        collect_arrays(child, depth + 1, out);
      }
    }
    Node::Object { children, .. } => {
      for (_, child) in children {
        collect_arrays(child, depth + 1, out);
      }
    }
    Node::Text { .. } => {}
  }
}

#[cfg(test)]
mod tests;
