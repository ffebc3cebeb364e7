//! Reading through the index: [`plan`] follows a singular path to a large array or string (or into an item of such
//! an array, or a member of a large object that the index does not record) and names the byte ranges that hold the
//! requested window (or the item, or the object's small members); [`answer_range`] answers from those bytes alone,
//! through the same answer writer as the full read, so both routes give byte-identical answers.

use serde_json::value::RawValue;

use super::codec::decode;
use super::{follow, object_without_recorded_members, Followed, Members, Node};
use crate::core::error::CoreResult;
use crate::core::query::answer::{answer, string_window_within, window, Items, Target};
use crate::core::query::answer_within_node;
use crate::core::query::args::{QueryArgs, DEFAULT_LIST_LIMIT, DEFAULT_STRING_LIMIT};
use crate::core::query::path::{normalized_path, ParsedPath, PathElement};
use crate::core::query::walk::Kind;

/// The byte ranges of the answer that hold a query's window, and what to expect in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedRead {
  /// Answer bytes `[start, end)` to read (for an object's members, from the first part to the last).
  pub start: u64,
  pub end: u64,
  /// The located path to the list or string (for an item, to the item).
  elements: Vec<PathElement>,
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
#[derive(Debug, Clone, PartialEq, Eq)]
enum Within {
  /// Items of a list, separated by commas.
  List,
  /// Part of a string literal, between its quotes.
  Text,
  /// Items of a list, one of which (item `at`) the path goes on into, from its step `rest`.
  Item { at: u64, rest: usize },
  /// The parts of a large object between the members the index records (in order: from its opening brace to the
  /// first such member's value, between two of them, from the last one to the closing brace), whose small members
  /// the path goes on into, from its step `Members::steps`.
  Members(Members),
}

/// The range to read for `args`, when the index covers its path and window; `None` means "read it all".
pub fn plan(index: &[u8], args: &QueryArgs) -> Option<IndexedRead> {
  let ParsedPath::Steps(steps) = args.path.parsed() else {
    return None;
  };
  let (_, root) = decode(index)?;
  let mut node = &root;
  let mut elements = Vec::with_capacity(steps.len());
  for (taken, step) in steps.iter().enumerate() {
    let Some((element, followed)) = follow(node, step) else {
      // A member the index does not record, of an object it does: among the small ones, if anywhere.
      return members_range(node, elements, taken);
    };
    elements.push(element);
    match followed {
      Followed::Recorded(child) => node = child,
      // A small item, not recorded: read the range of items around it, and go on inside it.
      Followed::SmallItem(at) => {
        let Node::Array {
          end,
          len,
          checkpoints,
          ..
        } = node
        else {
          return None;
        };
        return Some(item_range(elements, at, taken + 1, *len, checkpoints, *end));
      }
    }
  }
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
      Some(range(
        elements,
        Within::List,
        *total,
        checkpoints,
        a,
        b,
        *end,
      ))
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
      Some(range(
        elements,
        Within::Text,
        *total,
        checkpoints,
        a,
        b,
        *end,
      ))
    }
    Node::Object { .. } => None,
  }
}

/// The range of a list's items (`len` of them) that holds item `at`, which the path goes on into from its step
/// `rest`: from the checkpoint at or before it to the next one.
fn item_range(
  elements: Vec<PathElement>,
  at: u64,
  rest: usize,
  len: u64,
  checkpoints: &[(u64, u64)],
  end: u64,
) -> IndexedRead {
  let next = checkpoints.partition_point(|&(item, _)| item <= at);
  let item = Within::Item { at, rest };
  range(
    elements,
    item,
    len,
    checkpoints,
    next.saturating_sub(1),
    next,
    end,
  )
}

/// The small members of `node` (see [`Members`]), to follow the path on from its step `rest`.
fn members_range(node: &Node, elements: Vec<PathElement>, rest: usize) -> Option<IndexedRead> {
  let members = Members::of(node, rest)?;
  Some(IndexedRead {
    start: members.parts.first()?.0,
    end: members.parts.last()?.1,
    elements,
    within: Within::Members(members),
    total: 0,
    base: 0,
    count: 0,
    to_close: true,
  })
}

impl IndexedRead {
  /// The answer's byte ranges to read, in order; [`answer_range`] takes their bytes one after the other.
  pub fn ranges(&self) -> Vec<(u64, u64)> {
    match &self.within {
      Within::Members(members) => members.parts.clone(),
      _ => vec![(self.start, self.end)],
    }
  }
}

/// Checkpoints `a` to `b` (or to the node's closing bracket or quote, just before `end`).
fn range(
  elements: Vec<PathElement>,
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
    elements,
    within,
    total,
    base,
    count,
    to_close,
  }
}

/// Answers `args` from the bytes `plan` named (its [`IndexedRead::ranges`], one after the other); `None` when they
/// are not what the index promised (then read it all). Same answers, byte for byte, as
/// [`run_query`](crate::core::query::run_query) over the whole answer.
pub fn answer_range(
  read: &IndexedRead,
  fragment: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<CoreResult<String>> {
  if let Within::Members(members) = &read.within {
    let ParsedPath::Steps(steps) = args.path.parsed() else {
      return None;
    };
    let object = object_without_recorded_members(&members.parts, fragment)?;
    return answer_within_node(
      &object,
      &read.elements,
      steps.get(members.steps..)?,
      args,
      threshold_bytes,
    );
  }
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
      &normalized_path(&read.elements),
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
  if let Within::Item { at, rest } = read.within {
    let ParsedPath::Steps(steps) = args.path.parsed() else {
      return None;
    };
    let item = items.get(usize::try_from(at.checked_sub(read.base)?).ok()?)?;
    return answer_within_node(
      item.get(),
      &read.elements,
      steps.get(rest..)?,
      args,
      threshold_bytes,
    );
  }
  let target = Target::List(Items::Window {
    items,
    base: usize::try_from(read.base).ok()?,
    total: usize::try_from(read.total).ok()?,
  });
  Some(answer(
    &normalized_path(&read.elements),
    target,
    Kind::Array,
    args,
    threshold_bytes,
  ))
}
