//! Descendants from the root by name without a tape (`$..tags[2]`): the keys so named are found with `memmem`, one
//! pass over the text's brackets (64 bytes at a time, nothing recorded: `tape::pass::containers_of_keys`) tells the
//! object each lies in, and the rest of the query runs on their values, read from the text as the directory route
//! reads what its directory does not describe.
//!
//! In JSON text, a quote that no odd run of backslashes escapes opens or closes a string, and a closing quote is
//! followed only by a blank, `,`, `:`, `]`, `}` or the end. So where `"tags"` appears with its first quote
//! unescaped, that quote opens a string which holds exactly `tags`, and a colon after it (past blanks) makes it a
//! key. That holds for a name that starts with none of those bytes and holds no quote, backslash, slash or control
//! character (which only an escape can spell); an escape `\u` could spell any other, and `\/` the slash of a key
//! the repeat check below compares as written, so a text holding either is left to the tape, as is every case the
//! checking pass refuses or reads differently (a named key repeated in an object, deep nesting, a number
//! serde_json refuses) and any query this route cannot evaluate as the tape does.
//!
//! A key repeated in an object hides its first value from `JSON.parse` (the last value takes the first place): the
//! pass checks that each member holding a selected key is the only one with its key in its object (or the tape
//! answers), and a selected key repeated in its object goes to the tape. Kept answers never repeat a key
//! (`JSON.stringify` output or a text's canonical form); the check costs a search of each such object.
//!
//! A rest of steps that each name one child (`[2]`, `.name`) is followed from the values directly in the text; any
//! other rest is evaluated on them as the directory route evaluates, through [`DirectoryNode`].

use std::ops::{ControlFlow, Range};

use memchr::memmem;
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::QuerySegmentKind;

use super::inside::{each_entry, value_end, Entry, ItemAt, MemberNamed};
use super::{scan_limit, Directory, DirectoryNode, Place, View};
use crate::core::query::child_step;
use crate::core::query::eval::{member_names, named_walk_cost, Budget, Evaluation};
use crate::core::query::index::LongArray;
use crate::core::query::path::Step;
use crate::core::query::reach::{descends_by_name_only, refers_to_root};
use crate::core::query::tape::pass::{
  containers_of_keys, plain_key_before, reread_limit, value_after_key,
};
use crate::core::query::tape::split::array_cut;

/// A key the query's first segment names: where its opening quote is, where its value starts, which name it is.
#[derive(Debug, Clone, Copy)]
struct Key {
  quote: u32,
  value: u32,
  end: u32,
  name: u32,
}

/// The spans of the nodes `query` selects from the root of `text` (a certified answer), in order, when it descends
/// from the root by name first (`$..tags…`) and this route can tell; `None` leaves it to the tape.
pub(crate) fn select_by_keys(
  text: &str,
  query: &Query,
  arrays: &[LongArray],
) -> Option<Vec<(u32, u32)>> {
  let bytes = text.as_bytes();
  let (names, order) = names_from_root(query)?;
  u32::try_from(bytes.len()).ok()?;
  if !names.iter().all(|name| plain_name(name)) {
    return None;
  }
  let mut keys = keys_named(bytes, &names);
  let places: Vec<(usize, usize)> = keys
    .iter()
    .map(|key| (key.quote as usize, key.value as usize))
    .collect();
  let placed = containers_of_keys(bytes, &places, array_cut(bytes, arrays).as_ref())?;
  // Counting an object's members passes over it: past four times the text, the tape reads it instead.
  let counted: usize = placed.suspects.iter().map(|(object, _)| object.len()).sum();
  if counted > reread_limit(bytes.len()) {
    return None;
  }
  for (object, value) in &placed.suspects {
    if !only_member_with_its_key(bytes, object.clone(), *value) {
      return None;
    }
  }
  for (key, &end) in keys.iter_mut().zip(&placed.container_ends) {
    key.end = match end {
      0 => value_end(bytes, key.value as usize).ok()? as u32,
      end => end,
    };
  }
  let members = keys_in_object_order(&keys, &placed.containers)?;
  let mut values = Vec::with_capacity(members.len());
  for object in members.chunk_by(|a, b| a.0 == b.0) {
    for &name in &order {
      if let Some(&(_, key)) = object.iter().find(|(_, key)| key.name == name) {
        values.push((key.value, key.end));
      }
    }
  }
  run_rest(bytes, query, values, placed.nodes)
}

/// The distinct names a query's first segment selects by, when it is a descendant segment from the root that
/// selects by name only, and the rest of the query reads nothing from the root; and each name the segment lists,
/// in its order, as an index into them.
fn names_from_root(query: &Query) -> Option<(Vec<&str>, Vec<u32>)> {
  let first = query.segments.first()?;
  let fits = query.kind == QueryKind::Root
    && first.kind == QuerySegmentKind::Descendant
    && descends_by_name_only(query)
    && !refers_to_root(&query.segments[1..]);
  if !fits {
    return None;
  }
  let listed = member_names(&first.segment)?;
  let mut names: Vec<&str> = Vec::new();
  let order = listed
    .iter()
    .map(|name| match names.iter().position(|known| known == name) {
      Some(at) => at as u32,
      None => {
        names.push(name);
        names.len() as u32 - 1
      }
    })
    .collect();
  Some((names, order))
}

/// Whether a key named `name` is found only where its text is `"name"` (see the module docs).
fn plain_name(name: &str) -> bool {
  let starts_plain = name.bytes().next().is_some_and(|first| {
    !matches!(
      first,
      b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b']' | b'}'
    )
  });
  starts_plain
    && !name
      .bytes()
      .any(|byte| matches!(byte, b'"' | b'\\' | b'/' | 0..=0x1f))
}

/// Every key named one of `names` in `bytes`, in the text's order.
fn keys_named(bytes: &[u8], names: &[&str]) -> Vec<Key> {
  let mut keys = Vec::new();
  for (index, name) in names.iter().enumerate() {
    let needle = format!("\"{name}\"");
    let found = memmem::find_iter(bytes, needle.as_bytes()).filter_map(|quote| {
      // The text's length fits in a `u32` (checked by the caller).
      value_after_key(bytes, quote, needle.len()).map(|value| Key {
        quote: quote as u32,
        value: value as u32,
        end: 0,
        name: index as u32,
      })
    });
    keys.extend(found);
  }
  if names.len() > 1 {
    keys.sort_unstable_by_key(|key| key.quote);
  }
  keys
}

/// The objects' keys, from the first found in the text's order: the order of the objects (pre-order, as a
/// descendant segment visits them), a key read after the keys of an object nested in its own moved up past them (so
/// each key passes over at most those nested deeper in its object). `None` when an object repeats a key.
fn keys_in_object_order(keys: &[Key], objects: &[u32]) -> Option<Vec<(u32, Key)>> {
  let mut ordered: Vec<(u32, Key)> = Vec::with_capacity(keys.len());
  for (&key, &object) in keys.iter().zip(objects) {
    ordered.push((object, key));
    let mut at = ordered.len() - 1;
    while at > 0 && ordered[at - 1].0 > object {
      ordered[at] = ordered[at - 1];
      at -= 1;
    }
    ordered[at] = (object, key);
    let repeated = ordered[..at]
      .iter()
      .rev()
      .take_while(|(before, _)| *before == object)
      .any(|(_, before)| before.name == key.name);
    if repeated {
      return None;
    }
  }
  Some(ordered)
}

/// Whether the member whose value starts at `value` is the only one with its key among the own members of the
/// object spanning `object`, as the tape reads them: false when another has it, or they cannot be read so (a key
/// with an escape).
fn only_member_with_its_key(bytes: &[u8], object: Range<u32>, value: u32) -> bool {
  let Some(key) = plain_key_before(bytes, value as usize) else {
    return false;
  };
  let mut seek = MemberNamed::new(bytes, &bytes[key.start + 1..key.end - 1]);
  let read = each_entry(bytes, (object.start, object.end), |member| seek.see(member)).is_ok();
  seek
    .found(read)
    .flatten()
    .is_some_and(|member| member.start == value)
}

/// The rest of `query` (past its first segment) from `values`, under the budget the tape would set (`nodes` values
/// in the answer), the first segment charged as the tape's walk charges it: one unit for the root and two for each
/// node under it.
fn run_rest(
  bytes: &[u8],
  query: &Query,
  values: Vec<(u32, u32)>,
  nodes: u64,
) -> Option<Vec<(u32, u32)>> {
  let mut budget = Budget::for_nodes(nodes);
  budget.spent = named_walk_cost(nodes);
  let steps: Option<Vec<Step>> = query.segments[1..].iter().map(child_step).collect();
  if let Some(steps) = steps {
    return follow_child_steps(bytes, &steps, values, budget);
  }
  let directory = Directory::without_items(bytes.len());
  let view = View::new(bytes, &directory);
  let first: Vec<DirectoryNode> = values
    .into_iter()
    .map(|(start, end)| DirectoryNode::at(&view, Place::Value(start, end)))
    .collect();
  let root = DirectoryNode::at(&view, Place::Value(0, bytes.len() as u32));
  // On this thread: the values' text is read by passes that count what they read in `view`, and two threads counting
  // into it measured slower than one.
  let matches = Evaluation::on_this_thread(root, budget)
    .select_from(first, &query.segments[1..])
    .ok()?;
  view
    .kept_to_the_route()
    .then(|| matches.iter().map(|node| node.span()).collect())
}

/// The rest of a query whose steps each name one child (`$..tags[2]`, `$..customer.name`), followed from the values
/// at `spans` as the evaluator follows them through [`DirectoryNode`] (the same reading of the text, the same charge
/// of one unit a node each step applies to, the same limit on passing over values), without building its nodes.
/// `None` where the evaluator would fail or the route give up: the budget spent, a key with an escape, a key
/// repeated in an object, passing over too much.
fn follow_child_steps(
  bytes: &[u8],
  steps: &[Step],
  mut spans: Vec<(u32, u32)>,
  mut budget: Budget,
) -> Option<Vec<(u32, u32)>> {
  let mut passing = Passing {
    bytes,
    passed_over: 0,
    limit: scan_limit(bytes.len()),
  };
  for step in steps {
    budget.spent = budget.spent.saturating_add(spans.len() as u64);
    if budget.spent > budget.limit {
      return None;
    }
    let mut kept = 0;
    for at in 0..spans.len() {
      let child = match step {
        Step::Key(name) => passing.member(spans[at], name)?,
        Step::Index(index) => passing.item(spans[at], *index)?,
        Step::Member { .. } => return None,
      };
      if let Some(child) = child {
        spans[kept] = child;
        kept += 1;
      }
    }
    spans.truncate(kept);
  }
  Some(spans)
}

/// Values read from the text to find a child, and the bytes passed over so far against their limit.
struct Passing<'t> {
  bytes: &'t [u8],
  passed_over: u64,
  limit: u64,
}

impl Passing<'_> {
  /// Calls `each` on the children of the container at `span`; `None` when they cannot be read so or passing over
  /// them passes the limit.
  fn each_entry(
    &mut self,
    span: (u32, u32),
    each: impl FnMut(Entry) -> ControlFlow<()>,
  ) -> Option<()> {
    if self.passed_over > self.limit {
      return None;
    }
    self.passed_over += u64::from(span.1 - span.0);
    each_entry(self.bytes, span, each).ok()
  }

  /// The member named `name` of the value at `span` when it is an object (`Some(None)` when it has none or is no
  /// object); `None` when its members cannot be read or repeat the key.
  fn member(&mut self, span: (u32, u32), name: &str) -> Option<Option<(u32, u32)>> {
    if self.bytes.get(span.0 as usize) != Some(&b'{') {
      return Some(None);
    }
    let mut seek = MemberNamed::new(self.bytes, name.as_bytes());
    let read = self.each_entry(span, |entry| seek.see(entry)).is_some();
    let found = seek.found(read)?;
    Some(found.map(|entry| (entry.start, entry.end)))
  }

  /// The item at `index` (from the end when negative) of the value at `span` when it is an array (`Some(None)` when
  /// it has none or is no array); `None` when its items cannot be read.
  fn item(&mut self, span: (u32, u32), index: i64) -> Option<Option<(u32, u32)>> {
    if self.bytes.get(span.0 as usize) != Some(&b'[') {
      return Some(None);
    }
    let wanted = match usize::try_from(index) {
      Ok(wanted) => Some(wanted),
      Err(_) => {
        let mut length = 0usize;
        self.each_entry(span, |_| {
          length += 1;
          ControlFlow::Continue(())
        })?;
        length.checked_sub(index.unsigned_abs() as usize)
      }
    };
    let Some(wanted) = wanted else {
      return Some(None);
    };
    let mut seek = ItemAt::new(wanted);
    let read = self.each_entry(span, |entry| seek.see(entry)).is_some();
    let found = seek.found(read)?;
    Some(found.map(|entry| (entry.start, entry.end)))
  }
}

#[cfg(test)]
mod tests;
