//! Descendants from the root by name without a tape (`$..tags[2]`): one pass over the text's brackets (64 bytes at a
//! time, nothing recorded: `tape::pass::containers_of_keys`) tells the object each key so named lies in, and the rest
//! of the query runs on their values, read from the text as the directory route reads what its directory does not
//! describe. The text of a long list is read in pieces on two threads: the thread that claims a piece finds its keys
//! with `memmem`, places them, follows their values and puts them in the order of their objects, while the piece is in
//! its cache; the pieces' orders are then put one after the other, and the keys of the text after the list merged in.
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
//! (`JSON.stringify` output or a text's canonical form); the check costs a search of the text for each key it checks
//! more than once (of each object for the others).
//!
//! A rest of steps that each name one child (`[2]`, `.name`) is followed from the values directly in the text, by
//! the thread that placed them; any other rest is evaluated on them as the directory route evaluates, through
//! [`DirectoryNode`], once every key is placed.
//!
//! The values of the text are counted (for the budget the tape would set) only where the rest could spend it: a rest
//! of at most [`CHILD_STEPS_WITHIN_ANY_BUDGET`] such steps never does, and spares the pass the count.

use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicU64, Ordering};

use memchr::memmem;
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::QuerySegmentKind;

use super::inside::{each_entry, value_end, Entry, ItemAt, MemberNamed};
use super::{scan_limit, Directory, DirectoryNode, Place, View};
use crate::core::query::child_step;
use crate::core::query::eval::{
  member_names, named_walk_cost, Budget, Evaluation, CHILD_STEPS_WITHIN_ANY_BUDGET,
};
use crate::core::query::index::LongArray;
use crate::core::query::path::Step;
use crate::core::query::reach::{descends_by_name_only, refers_to_root};
use crate::core::query::tape::pass::{
  containers_of_keys, keys_found, plain_key_before, reread_limit, FoundKey, KeysToFollow,
};
use crate::core::query::tape::split::array_cut;

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
  let steps: Option<Vec<Step>> = query.segments[1..].iter().map(child_step).collect();
  let route = KeysRoute {
    finders: names
      .iter()
      .map(|name| memmem::Finder::new(&format!("\"{name}\"")).into_owned())
      .collect(),
    steps: steps.as_deref(),
    limit: scan_limit(bytes.len()),
    passed_over: AtomicU64::new(0),
  };
  let placed = containers_of_keys(bytes, &route, array_cut(bytes, arrays).as_ref())?;
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
  let parts: Vec<(Vec<FoundKey>, Followed)> = placed
    .parts
    .into_iter()
    .map(|part| Some((part.keys, part.led?)))
    .collect::<Option<_>>()?;
  let selected = selected_in_object_order(&parts, &order, route.steps.is_none())?;
  let Some(nodes) = placed.nodes else {
    // Counted unless the rest cannot spend the budget (`KeysRoute::counts_values`).
    return Some(selected);
  };
  let mut budget = Budget::for_nodes(nodes);
  budget.spent = named_walk_cost(nodes);
  match route.steps {
    Some(_) => {
      Followed::within(parts.iter().map(|(_, followed)| followed), budget).then_some(selected)
    }
    None => run_rest(bytes, query, selected, budget),
  }
}

/// What the keys of `parts` (`(keys, followed)`, in the text's order) lead to, in the order of their objects and, in
/// each, of the names the segment lists (`order`). `None` when an object repeats a key across parts, or when a key
/// leads nowhere `without_steps`: each key then leads to its own value, a miss is a fault, and the tape answers.
fn selected_in_object_order(
  parts: &[(Vec<FoundKey>, Followed)],
  order: &[u32],
  without_steps: bool,
) -> Option<Vec<(u32, u32)>> {
  let keys = parts.iter().map(|(keys, _)| keys.len()).sum();
  let mut selected = Vec::with_capacity(keys);
  let mut select = |span: &Option<(u32, u32)>| {
    if span.is_none() && without_steps {
      return None;
    }
    selected.extend(*span);
    Some(())
  };
  if order == [0] && parts_follow_each_other(parts) {
    // One name listed: each object holds one key (a repeat went to the tape), so each part's keys come in the
    // selection's order, and the parts one after the other.
    for (_, followed) in parts {
      for &(_, key) in &followed.in_order {
        select(&followed.spans[key as usize])?;
      }
    }
    return Some(selected);
  }
  let members = in_object_order(parts)?;
  for object in members.chunk_by(|a, b| a.0 == b.0) {
    for &name in order {
      if let Some(&(_, part, key)) = object
        .iter()
        .find(|&&(_, part, key)| parts[part as usize].0[key as usize].name == name)
      {
        select(&parts[part as usize].1.spans[key as usize])?;
      }
    }
  }
  Some(selected)
}

/// The keys the query's first segment names and the steps of its rest when each names one child (`None` for a rest
/// the evaluator runs): what the pass finds, and follows in each part of the text it reads.
struct KeysRoute<'q> {
  /// For each name, its text in quotes.
  finders: Vec<memmem::Finder<'static>>,
  steps: Option<&'q [Step]>,
  /// The bytes the steps may pass over, by all parts, and how many they have.
  limit: u64,
  passed_over: AtomicU64,
}

impl KeysToFollow for KeysRoute<'_> {
  /// `None` where following a value gave up.
  type Led = Option<Followed>;

  fn find(&self, bytes: &[u8], from: usize, to: usize) -> Vec<FoundKey> {
    let mut keys = Vec::new();
    for (name, finder) in self.finders.iter().enumerate() {
      // The text's length fits in a `u32` (checked by `select_by_keys`).
      let found = keys_found(bytes, from..to, finder).map(|(quote, value)| FoundKey {
        quote: quote as u32,
        value: value as u32,
        name: name as u32,
      });
      keys.extend(found);
    }
    if self.finders.len() > 1 {
      keys.sort_unstable_by_key(|key| key.quote);
    }
    keys
  }

  fn follow(
    &self,
    bytes: &[u8],
    keys: &[FoundKey],
    containers: &[u32],
    container_ends: &[u32],
  ) -> Option<Followed> {
    let steps = self.steps.unwrap_or_default();
    let mut followed = Followed {
      spans: Vec::with_capacity(keys.len()),
      reached: vec![0; steps.len()],
      in_order: keys_in_object_order(keys, containers)?,
    };
    let mut passing = Passing {
      bytes,
      passed_over: &self.passed_over,
      unreported: 0,
      limit: self.limit,
    };
    for (key, &end) in keys.iter().zip(container_ends) {
      let end = match end {
        0 => value_end(bytes, key.value as usize).ok()? as u32,
        end => end,
      };
      let led = passing.follow(steps, (key.value, end), &mut followed.reached)?;
      followed.spans.push(led);
    }
    passing.report()?;
    Some(followed)
  }

  /// Not for a rest of steps that each name one child, few enough never to spend the budget.
  fn counts_values(&self) -> bool {
    self
      .steps
      .is_none_or(|steps| steps.len() > CHILD_STEPS_WITHIN_ANY_BUDGET)
  }
}

/// Where the values of one part's keys lead through the rest's child steps (their own spans when it has none), how
/// many values each step applied to, and the keys in the order of their objects: all read by the thread that read
/// the part.
#[derive(Debug, Default, PartialEq, Eq)]
struct Followed {
  /// By key: the node it leads to, if any.
  spans: Vec<Option<(u32, u32)>>,
  reached: Vec<u64>,
  /// The part's keys as [`keys_in_object_order`] orders them: `(object, key)`.
  in_order: Vec<(u32, u32)>,
}

impl Followed {
  /// Whether following the steps in every part fits `budget`: one unit for each value a step applied to, as the
  /// evaluator charges it (charged step by step, it would pass the budget at the step where the total does).
  fn within<'f>(parts: impl IntoIterator<Item = &'f Followed>, budget: Budget) -> bool {
    let charged = parts
      .into_iter()
      .flat_map(|part| &part.reached)
      .fold(budget.spent, |spent, &reached| {
        spent.saturating_add(reached)
      });
    charged <= budget.limit
  }

  /// Whether the part's keys all lie in objects that start after `last`, the last object of the parts before it
  /// (`None` when they hold no key): its keys then follow theirs in the order of their objects.
  fn starts_after(&self, last: Option<u32>) -> bool {
    match (last, self.in_order.first()) {
      (Some(last), Some(&(first, _))) => last < first,
      _ => true,
    }
  }
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

/// The keys (by their place in `keys`), from the first found in the text's order, with the objects they lie in
/// (`objects`, by key): the order of the objects (pre-order, as a descendant segment visits them), a key read after
/// the keys of an object nested in its own moved up past them (so each key passes over at most those nested deeper
/// in its object). `None` when an object repeats a key.
fn keys_in_object_order(keys: &[FoundKey], objects: &[u32]) -> Option<Vec<(u32, u32)>> {
  let mut ordered: Vec<(u32, u32)> = Vec::with_capacity(keys.len());
  for (key, &object) in objects.iter().enumerate() {
    // The text's length fits in a `u32`, and so does the count of keys in it.
    let entry = (object, key as u32);
    ordered.push(entry);
    let mut at = ordered.len() - 1;
    while at > 0 && ordered[at - 1].0 > object {
      ordered[at] = ordered[at - 1];
      at -= 1;
    }
    ordered[at] = entry;
    let repeated = ordered[..at]
      .iter()
      .rev()
      .take_while(|(before, _)| *before == object)
      .any(|&(_, before)| keys[before as usize].name == keys[key].name);
    if repeated {
      return None;
    }
  }
  Some(ordered)
}

/// Whether each part's objects (those of its keys) all start after the objects of the parts before it: the parts' keys
/// are then in the order of their objects one part after the other.
fn parts_follow_each_other(parts: &[(Vec<FoundKey>, Followed)]) -> bool {
  let mut last = None;
  parts.iter().all(|(_, followed)| {
    let follows = followed.starts_after(last);
    last = followed.in_order.last().map(|&(object, _)| object).or(last);
    follows
  })
}

/// The keys of every part (`(keys, followed)`, in the text's order), in the order of their objects: `(object, part,
/// key)`. A part whose objects all start after the last one's (the next piece of a long list) is appended; another
/// (the text after a long list, whose keys may lie in the objects that hold it) is merged in, after the keys read
/// before it in the same object. `None` when an object repeats a key across parts.
fn in_object_order(parts: &[(Vec<FoundKey>, Followed)]) -> Option<Vec<(u32, u32, u32)>> {
  let count = parts.iter().map(|(keys, _)| keys.len()).sum();
  let mut ordered: Vec<(u32, u32, u32)> = Vec::with_capacity(count);
  for (part, (_, followed)) in parts.iter().enumerate() {
    let run = followed
      .in_order
      .iter()
      .map(|&(object, key)| (object, part as u32, key));
    if followed.starts_after(ordered.last().map(|&(object, _, _)| object)) {
      ordered.extend(run);
      continue;
    }
    let name = |&(_, part, key): &(u32, u32, u32)| parts[part as usize].0[key as usize].name;
    let mut merged = Vec::with_capacity(count);
    let mut before = std::mem::take(&mut ordered).into_iter().peekable();
    for entry in run {
      while let Some(earlier) = before.next_if(|earlier| earlier.0 <= entry.0) {
        merged.push(earlier);
      }
      let repeated = merged
        .iter()
        .rev()
        .take_while(|earlier| earlier.0 == entry.0)
        .any(|earlier| name(earlier) == name(&entry));
      if repeated {
        return None;
      }
      merged.push(entry);
    }
    merged.extend(before);
    ordered = merged;
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

/// The rest of `query` (past its first segment) from `values`, under `budget` (the tape's, the first segment
/// charged as the tape's walk charges it), through the evaluator.
fn run_rest(
  bytes: &[u8],
  query: &Query,
  values: Vec<(u32, u32)>,
  budget: Budget,
) -> Option<Vec<(u32, u32)>> {
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

/// Bytes passed over that a part counts before adding them to the parts' total: the total is shared by the threads
/// that follow the parts, so each adds to it rarely, and they pass the limit by at most this much each.
const REPORT_BYTES: u64 = 256 << 10;

/// Values read from the text to find a child, and the bytes passed over against their limit: by all parts (reported)
/// and by this one since its last report.
struct Passing<'t> {
  bytes: &'t [u8],
  passed_over: &'t AtomicU64,
  unreported: u64,
  limit: u64,
}

impl Passing<'_> {
  /// Where the value at `span` leads through `steps` that each name one child, read as the evaluator reads them
  /// through [`DirectoryNode`] (`Some(None)` when a step finds no child), counting in `reached` the values each step
  /// applies to; `None` where the evaluator would fail or the route give up: a key with an escape, a key repeated in
  /// an object, passing over too much.
  fn follow(
    &mut self,
    steps: &[Step],
    mut span: (u32, u32),
    reached: &mut [u64],
  ) -> Option<Option<(u32, u32)>> {
    for (step, reached) in steps.iter().zip(reached) {
      *reached += 1;
      let child = match step {
        Step::Key(name) => self.member(span, name)?,
        Step::Index(index) => self.item(span, *index)?,
        Step::Member { .. } => return None,
      };
      match child {
        Some(child) => span = child,
        None => return Some(None),
      }
    }
    Some(Some(span))
  }

  /// Calls `each` on the children of the container at `span`; `None` when they cannot be read so or passing over
  /// them passes the limit.
  fn each_entry(
    &mut self,
    span: (u32, u32),
    each: impl FnMut(Entry) -> ControlFlow<()>,
  ) -> Option<()> {
    self.unreported += u64::from(span.1 - span.0);
    if self.unreported >= REPORT_BYTES {
      self.report()?;
    }
    each_entry(self.bytes, span, each).ok()
  }

  /// Adds what was passed over since the last report to the parts' total; `None` once that passes the limit.
  fn report(&mut self) -> Option<()> {
    let reported = std::mem::take(&mut self.unreported);
    let total = self.passed_over.fetch_add(reported, Ordering::Relaxed) + reported;
    (total <= self.limit).then_some(())
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
