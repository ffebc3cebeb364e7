//! `result_query`: read part of a kept answer by path, page through lists and strings, keep chosen fields.
//!
//! Entry points: [`parse_query_args`] checks the tool's arguments, [`run_query`] answers them from the answer's
//! JSON text, [`run_query_value`] from an answer already parsed. Both give `{ path, value, total?, offset?,
//! nextOffset? }` as JSON text, printed as `JSON.stringify` would print it.
//!
//! Cost: a path naming one node (root, dot path, bracket path, JSON pointer, singular JSONPath) is followed in one
//! pass over the text: nothing the path passes by is built, a named array is kept as item slices (`RawValue`), and
//! only the items in the window are parsed. A JSONPath query that can select several nodes is evaluated by
//! `eval` over the `tape` of the text (one pass writing where each value starts and ends; no tree): `total`
//! counts the matches, and only those in the window are parsed. Its work is bounded by a budget that stops it
//! part way (see `eval`). Text the tape does not read as serde_json does (see `tape`) is parsed whole and
//! evaluated the same way. Through a store, the match spans of recent queries are kept (`pages`) so that the
//! next pages read one byte range each.

mod answer;
mod args;
mod directory;
mod eval;
pub mod index;
mod json;
mod node;
mod pages;
mod path;
mod reach;
mod seek;
mod stored;
mod tape;
mod turns;
mod walk;

use serde_json::value::RawValue;
use serde_json::Value;
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::{QuerySegment, QuerySegmentKind, Segment};
use serde_json_path_core::spec::selector::Selector;

use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::jsonpath_spec::spec_query;
use answer::{answer, list_window, Items, Target};
use directory::select_by_keys;
use eval::{calls_no_function, Budget, Evaluation};
use path::{normalized_path, parse_path, ParsedPath, Step};
use seek::{seek, Terminal};
use tape::{Tape, TapeNode};
use walk::{unreadable, walk, Doc, Kind, Walked};

pub use args::{
  parse_query_args, QueryArgs, QueryPath, DEFAULT_LIST_LIMIT, DEFAULT_STRING_LIMIT, MAX_LIMIT,
};
pub(crate) use json::{write_str, write_value};
pub use node::node_json;
pub use pages::MatchPages;
pub use path::PathForm;
pub use turns::OwnerTurns;

/// The deepest container nesting `result_query` reads (serde_json's recursion limit: `[[…]]` 127 deep reads, 128
/// does not). Deeper answers are refused as unreadable; the hosts send them whole instead of folding them.
pub const MAX_QUERY_DEPTH: usize = 127;

/// The error every host gives when a handle is unknown, expired, evicted, or another session's or caller's.
///
/// One text for all of these, so an answer never tells whether someone else's handle exists.
pub fn handle_not_found() -> CoreError {
  CoreError::new(
    ErrorCode::HandleNotFound,
    "No kept answer matches this handle: it expired, was evicted, was never issued, or belongs to another session or caller.",
  )
  .with_remedy(
    "Call the original tool again to get a fresh answer and handle, then query the new handle.",
  )
}

/// How `path` will be read, or RESULT_PATH_NOT_FOUND when it is no path form at all.
pub fn path_form(path: &str) -> CoreResult<PathForm> {
  parse_path(path).map(|(form, _)| form)
}

/// Answers `args` from the answer's JSON text (UTF-8). Slices over `threshold_bytes` are refused.
///
/// `JSON.stringify` writes a lone surrogate (half of a split emoji, say) as an escape such as `\ud83d`, which
/// serde_json refuses; such an answer is read again with each lone surrogate standing in as a private-use
/// character (one JS unit, like the original), written back as the same escape in the answer. Only when the answer
/// uses every stand-in block does a lone surrogate come back as U+FFFD.
pub fn run_query(
  answer_json: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> CoreResult<String> {
  let parsed = args.path.parsed();
  let text = std::str::from_utf8(answer_json).map_err(|_| {
    CoreError::new(
      ErrorCode::InvalidInput,
      "The stored answer is not UTF-8 text.",
    )
    .with_remedy(
      "Pass the answer as JSON text (JSON.stringify output), or call the original tool again.",
    )
  })?;
  match query_text(text, parsed, args, threshold_bytes) {
    Err(error) if error.code == ErrorCode::InvalidInput => {
      if let Some((stood_in, lone)) = json::LoneSurrogates::stand_in(text, args.path.text()) {
        // Each surrogate is written back 3 bytes longer than its stand-in: keep that room under the threshold.
        let room = threshold_bytes.saturating_sub(lone.count.saturating_mul(3));
        return query_text(&stood_in, parsed, args, room).map(|answer| lone.restore(&answer));
      }
      match json::replace_lone_surrogates(text) {
        Some(repaired) => query_text(&repaired, parsed, args, threshold_bytes),
        None => Err(error),
      }
    }
    outcome => outcome,
  }
}

fn query_text(
  text: &str,
  parsed: &ParsedPath,
  args: &QueryArgs,
  threshold_bytes: usize,
) -> CoreResult<String> {
  match parsed {
    ParsedPath::Steps(steps) => match seek(text, steps).map_err(unreadable)? {
      Some((terminal, elements)) => {
        answer_terminal(terminal, &normalized_path(&elements), args, threshold_bytes)
      }
      None => nothing_at(text, steps),
    },
    ParsedPath::Query {
      query,
      text: query_text,
    } => {
      if let Some(tape) = tape_for(text, query) {
        let nodes = select_nodes_on_tape(&tape, query)?;
        let spans: Vec<(u32, u32)> = nodes.iter().map(|node| node.span()).collect();
        return answer_matches(query_text, text, &spans, args, threshold_bytes);
      }
      let value: Value = serde_json::from_str(text).map_err(unreadable)?;
      let matches = select_in_value(query, &value)?;
      answer(
        query_text,
        Target::List(Items::Refs(&matches)),
        Kind::Array,
        args,
        threshold_bytes,
      )
    }
  }
}

/// The answer for the node a singular path reached (`path`, normalized).
fn answer_terminal(
  terminal: Terminal,
  path: &str,
  args: &QueryArgs,
  threshold_bytes: usize,
) -> CoreResult<String> {
  let (text, value);
  let (target, kind) = match terminal {
    Terminal::Array(items) => (Target::List(Items::Raws(items)), Kind::Array),
    Terminal::Text(string) => {
      text = string;
      (Target::Text(&text), Kind::String)
    }
    Terminal::Whole(whole) => {
      value = whole;
      (Target::Whole(&value), (&value).kind())
    }
  };
  answer(path, target, kind, args, threshold_bytes)
}

/// The answer for a singular path whose first steps reach a node (`prefix`, located: an item of a list, or a large
/// object rebuilt from its small members), given that node's text: the other `steps` are followed inside it. `None`
/// when they name nothing there (the whole read then gives the error, which names the nearest node that exists) or
/// the node does not read.
pub(crate) fn answer_within_node(
  node: &str,
  prefix: &[path::PathElement],
  steps: &[Step],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<CoreResult<String>> {
  let (terminal, elements) = seek(node, steps).ok()??;
  let located: Vec<path::PathElement> = prefix.iter().cloned().chain(elements).collect();
  Some(answer_terminal(
    terminal,
    &normalized_path(&located),
    args,
    threshold_bytes,
  ))
}

/// The error for a singular path that names nothing in `text`: walks again, step by step, to find the deepest
/// node that exists (error path only).
fn nothing_at<T>(text: &str, steps: &[Step]) -> CoreResult<T> {
  let root: &RawValue = serde_json::from_str(text).map_err(unreadable)?;
  match walk(root, steps)? {
    Walked::Missing { parent, elements } => Err(not_found(parent, &elements)?),
    Walked::Found { .. } => Err(CoreError::internal(
      "The path was found on a second reading only.",
    )),
  }
}

/// Answers `args` from an answer already parsed. Same answers as [`run_query`].
pub fn run_query_value(
  answer_value: &Value,
  args: &QueryArgs,
  threshold_bytes: usize,
) -> CoreResult<String> {
  match args.path.parsed() {
    ParsedPath::Steps(steps) => match walk(answer_value, steps)? {
      Walked::Found { node, elements } => {
        let path = normalized_path(&elements);
        let target = match node {
          Value::Array(items) => Target::List(Items::Values(items)),
          Value::String(text) => Target::Text(text),
          other => Target::Whole(other),
        };
        answer(&path, target, node.kind(), args, threshold_bytes)
      }
      Walked::Missing { parent, elements } => Err(not_found(parent, &elements)?),
    },
    ParsedPath::Query { query, text } => {
      let matches = select_in_value(query, answer_value)?;
      answer(
        text,
        Target::List(Items::Refs(&matches)),
        Kind::Array,
        args,
        threshold_bytes,
      )
    }
  }
}

/// The answer for every match of a JSONPath query (`query_text`, as run), given by its byte span in `text`. Only the
/// page's matches are sliced from the text: a match's text is read only when it lands in the page.
fn answer_matches(
  query_text: &str,
  text: &str,
  spans: &[(u32, u32)],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> CoreResult<String> {
  let window = list_window(args, spans.len());
  let items = Items::Texts {
    items: spans[window.clone()]
      .iter()
      .map(|&(start, end)| &text[start as usize..end as usize])
      .collect(),
    base: window.start,
    total: spans.len(),
  };
  answer(
    query_text,
    Target::List(items),
    Kind::Array,
    args,
    threshold_bytes,
  )
}

/// A JSONPath query as run, and the byte spans of its matches in the answer's text, in order.
pub(crate) type QuerySpans = (String, Vec<(u32, u32)>);

/// An answer to a query on the tape, and its matches' byte spans (`None` when the evaluation failed).
type TapeAnswer = (CoreResult<String>, Option<Vec<(u32, u32)>>);

/// [`run_query`], and, for a JSONPath query that can select several nodes and was read through the tape, where
/// its matches are in the answer's text (byte spans, in order), so later pages can read just their own range.
/// `certified`: the long arrays of the answer's path index, when it certifies the answer is JSON (see
/// [`index::certified_arrays`]), so the tape may pass over what the query cannot reach without checking it, and
/// read the items of a long array on two threads.
pub(crate) fn run_query_keeping_spans(
  answer_json: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
  certified: Option<&[index::LongArray]>,
) -> (CoreResult<String>, Option<QuerySpans>) {
  jsonpath_on_tape(answer_json, args, threshold_bytes, certified, Run::Anywhere)
    .unwrap_or_else(|| (run_query(answer_json, args, threshold_bytes), None))
}

/// Work units a query answered in the caller's poll may spend ([`run_query_here`]): about a tenth of a millisecond.
const HERE_BUDGET: u64 = 32 * 1024;

/// Where a query's evaluation runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
  /// On the thread the caller gave it, sharing long lists with a helper, with the answer's whole budget.
  Anywhere,
  /// On the caller's own thread alone, with at most [`HERE_BUDGET`].
  Here,
}

/// [`run_query_keeping_spans`] for a small answer, in the caller's poll: on this thread alone and with at most
/// [`HERE_BUDGET`] work units, so that it takes a fraction of a millisecond whatever the query. `None` when it cannot
/// answer so: the path is not a JSONPath query, it calls a function (a regex may take long to compile), the tape does
/// not read the answer, or the evaluation fails (the capped budget may be spent where the whole one is not, so only a
/// run with the whole budget gives a failure's outcome).
pub(crate) fn run_query_here(
  answer_json: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<(CoreResult<String>, QuerySpans)> {
  match jsonpath_on_tape(answer_json, args, threshold_bytes, None, Run::Here)? {
    (outcome, Some(spans)) => Some((outcome, spans)),
    (_, None) => None,
  }
}

/// The JSONPath query `args` name, answered on the tape of `answer_json` where `run` says, with its match spans
/// (`None` when the evaluation failed); `None` when the path is not a JSONPath query or the tape does not read it.
fn jsonpath_on_tape(
  answer_json: &[u8],
  args: &QueryArgs,
  threshold_bytes: usize,
  certified: Option<&[index::LongArray]>,
  run: Run,
) -> Option<(CoreResult<String>, Option<QuerySpans>)> {
  let (query, query_text) = jsonpath_of(args)?;
  let text = std::str::from_utf8(answer_json).ok()?;
  let (outcome, spans) = answer_on_tape(
    text,
    spec_query(query),
    query_text,
    args,
    threshold_bytes,
    certified,
    run,
  )?;
  Some((outcome, spans.map(|spans| (query_text.clone(), spans))))
}

/// The JSONPath query `args` name, parsed and as written; `None` for any other path form.
fn jsonpath_of(args: &QueryArgs) -> Option<(&serde_json_path::JsonPath, &String)> {
  match args.path.parsed() {
    ParsedPath::Query { query, text } => Some((query, text)),
    _ => None,
  }
}

/// The JSONPath query `args` name without its first `steps` segments, run from the node they lead to, and the
/// query as written (its answers name it).
fn query_after(args: &QueryArgs, steps: usize) -> Option<(Query, &String)> {
  let (query, query_text) = jsonpath_of(args)?;
  let rest = Query {
    kind: QueryKind::Root,
    segments: spec_query(query).segments.get(steps..)?.to_vec(),
  };
  Some((rest, query_text))
}

/// The leading steps of a JSONPath query that each name one child (`$.orders`, `$['a'][3]`), as a singular path's
/// steps: what a fragment of the answer may stand for (see [`index::first_steps`]). None for a query whose filters read
/// from the root, which needs the whole answer.
pub(crate) fn child_steps(query: &serde_json_path::JsonPath) -> Vec<Step> {
  let segments = &spec_query(query).segments;
  if reach::refers_to_root(segments) {
    return Vec::new();
  }
  segments.iter().map_while(child_step).collect()
}

/// The step a segment is when it names one child (`.a`, `['a']`, `[3]`), as a singular path's step.
pub(crate) fn child_step(segment: &QuerySegment) -> Option<Step> {
  if segment.kind != QuerySegmentKind::Child {
    return None;
  }
  match &segment.segment {
    Segment::DotName(name) => Some(Step::Key(name.clone())),
    Segment::LongHand(selectors) => match selectors.as_slice() {
      [Selector::Name(name)] => Some(Step::Key(name.as_str().to_owned())),
      [Selector::Index(at)] => Some(Step::Index(eval::integer(at.0))),
      _ => None,
    },
    Segment::Wildcard => None,
  }
}

/// [`run_query_keeping_spans`] on a fragment of a certified answer (`fragment`, its text, starting at byte
/// `fragment_start` of the answer; see [`index::Fragment`]) that the query's first `steps` steps lead to, as
/// [`child_steps`] gives them (none for a query whose filters read from the root): the query's other segments are
/// evaluated from it, and the match spans are given in the answer. `None` when the whole answer must decide: the
/// tape does not read the fragment, or the evaluation fails (its budget grows with the nodes it may read, so only the
/// whole answer's gives the whole read's outcome).
pub(crate) fn run_fragment_query_keeping_spans(
  fragment: &[u8],
  fragment_start: u64,
  steps: usize,
  args: &QueryArgs,
  threshold_bytes: usize,
  arrays: &[index::LongArray],
) -> Option<(CoreResult<String>, QuerySpans)> {
  let (rest, query_text) = query_after(args, steps)?;
  let text = std::str::from_utf8(fragment).ok()?;
  let (outcome, spans) = answer_on_tape(
    text,
    &rest,
    query_text,
    args,
    threshold_bytes,
    Some(arrays),
    Run::Anywhere,
  )?;
  let offset = u32::try_from(fragment_start).ok()?;
  let spans = spans?
    .into_iter()
    .map(|(start, end)| Some((start.checked_add(offset)?, end.checked_add(offset)?)))
    .collect::<Option<_>>()?;
  Some((outcome, (query_text.clone(), spans)))
}

/// Answers a JSONPath query from the small members of a large object its first `steps` lead to, rebuilt as one
/// object (see `index::object_without_recorded_members`): the rest of the query runs on that object's tape, checked
/// as it is read. No match spans are kept (they would name places in the rebuilt object, not in the answer): the
/// members are small, and a next page reads them again. `None` when the whole answer must decide: the tape does not
/// read the object, or the evaluation fails (the work budget grows with the nodes a query may read, so only the whole
/// answer's budget gives the whole read's outcome).
pub(crate) fn run_members_query(
  object: &str,
  steps: usize,
  args: &QueryArgs,
  threshold_bytes: usize,
) -> Option<CoreResult<String>> {
  let (rest, query_text) = query_after(args, steps)?;
  match answer_on_tape(
    object,
    &rest,
    query_text,
    args,
    threshold_bytes,
    None,
    Run::Anywhere,
  )? {
    (outcome, Some(_)) => Some(outcome),
    (_, None) => None,
  }
}

/// `query` (as run: `query_text`) evaluated on the tape of `text` (certified when `certified` names its long
/// arrays), answered for `args`, with the byte spans of every match; the spans are `None` when the evaluation
/// failed, and the whole is `None` when the tape does not read the text (or, run [`Run::Here`], the query calls a
/// function). A certified text may be answered without a tape: a query that descends from the root by name first,
/// by its keys ([`select_by_keys`]).
fn answer_on_tape(
  text: &str,
  query: &Query,
  query_text: &str,
  args: &QueryArgs,
  threshold_bytes: usize,
  certified: Option<&[index::LongArray]>,
  run: Run,
) -> Option<TapeAnswer> {
  // A regex may take long to compile: only a query that calls no function runs in the caller's poll.
  if run == Run::Here && !calls_no_function(query) {
    return None;
  }
  // Descendants from the root by name, in a certified answer: found without a tape where that route can tell.
  let by_keys = certified
    .filter(|_| run == Run::Anywhere)
    .and_then(|arrays| select_by_keys(text, query, arrays));
  if let Some(spans) = by_keys {
    let outcome = answer_matches(query_text, text, &spans, args, threshold_bytes);
    return Some((outcome, Some(spans)));
  }
  let (reach, names) = (reach::reach(query), reach::names(query));
  let tape = match certified {
    Some(arrays) => Tape::build_clean_naming(text, reach, &names, arrays)?,
    None => Tape::build_naming(text, reach, &names)?,
  };
  let nodes = match select_spec_on_tape(&tape, query, run) {
    Ok(nodes) => nodes,
    Err(error) => return Some((Err(error), None)),
  };
  // Every match's span is kept for the next pages, read off the tape (slicing the text for each match would
  // load two more cache lines of it a match).
  let spans: Vec<(u32, u32)> = nodes.iter().map(|node| node.span()).collect();
  let outcome = answer_matches(query_text, text, &spans, args, threshold_bytes);
  Some((outcome, Some(spans)))
}

/// The tape of `text` as deep as `query` looks; `None` when the full read must answer (see `tape`).
fn tape_for<'t>(text: &'t str, query: &serde_json_path::JsonPath) -> Option<Tape<'t>> {
  let spec = spec_query(query);
  Tape::build_naming(text, reach::reach(spec), &reach::names(spec))
}

/// The nodes `query` selects on the tape of an answer's text, as their JSON text.
fn select_on_tape<'t>(
  tape: &'t Tape<'t>,
  query: &serde_json_path::JsonPath,
) -> CoreResult<Vec<&'t str>> {
  let matches = select_nodes_on_tape(tape, query)?;
  Ok(matches.into_iter().map(TapeNode::text).collect())
}

/// The nodes `query` selects on the tape of an answer's text.
fn select_nodes_on_tape<'t>(
  tape: &'t Tape<'t>,
  query: &serde_json_path::JsonPath,
) -> CoreResult<Vec<TapeNode<'t>>> {
  select_spec_on_tape(tape, spec_query(query), Run::Anywhere)
}

/// [`select_nodes_on_tape`] for a spec query.
fn select_spec_on_tape<'t>(
  tape: &'t Tape<'t>,
  query: &Query,
  run: Run,
) -> CoreResult<Vec<TapeNode<'t>>> {
  let budget = Budget::for_nodes(tape.nodes());
  match run {
    Run::Anywhere => Evaluation::new(tape.root(), budget).select(query),
    Run::Here => Evaluation::on_this_thread(tape.root(), budget.capped(HERE_BUDGET)).select(query),
  }
}

/// The nodes `query` selects in an answer's text, parsed: through the tape when it reads the text, else from the
/// whole answer parsed.
fn select_values(text: &str, query: &serde_json_path::JsonPath) -> CoreResult<Vec<Value>> {
  match tape_for(text, query) {
    Some(tape) => select_on_tape(&tape, query)?
      .into_iter()
      .map(|node| serde_json::from_str(node).map_err(unreadable))
      .collect(),
    None => {
      let value: Value = serde_json::from_str(text).map_err(unreadable)?;
      Ok(
        select_in_value(query, &value)?
          .into_iter()
          .cloned()
          .collect(),
      )
    }
  }
}

/// The nodes `query` selects in a parsed answer.
fn select_in_value<'v>(
  query: &serde_json_path::JsonPath,
  answer_value: &'v Value,
) -> CoreResult<Vec<&'v Value>> {
  let budget = Budget::for_nodes(eval::count_nodes(answer_value));
  Evaluation::new(answer_value, budget).select(spec_query(query))
}

/// RESULT_PATH_NOT_FOUND for a path that names nothing, pointing at the deepest node that exists.
fn not_found<'a, D: Doc<'a>>(parent: D, elements: &[path::PathElement]) -> CoreResult<CoreError> {
  let at = normalized_path(elements);
  let holds = match parent.kind() {
    Kind::Array => match parent.len()? {
      0 => "an empty array".to_string(),
      1 => "an array of 1 item (index 0 or -1)".to_string(),
      n => format!(
        "an array of {n} items (indexes 0 to {} or -{n} to -1)",
        n - 1
      ),
    },
    Kind::Object => match parent.len()? {
      0 => "an empty object".to_string(),
      1 => "an object with 1 key".to_string(),
      n => format!("an object with {n} keys"),
    },
    Kind::String => {
      "a string (no keys or items; page through it with offset and limit)".to_string()
    }
    Kind::Number => "a number".to_string(),
    Kind::Boolean => "a boolean".to_string(),
    Kind::Null => "null".to_string(),
  };
  Ok(
    CoreError::new(ErrorCode::PathNotFound, "Nothing exists at that path.").with_remedy(format!(
      "The nearest existing parent is `{at}`, {holds}. Read `{at}` to see what it holds, or use a path present in the shape."
    )),
  )
}

#[cfg(test)]
mod tests;
