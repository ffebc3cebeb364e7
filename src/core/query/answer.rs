//! Building the answer `{ path, value, total?, offset?, nextOffset? }`: windows, fields and the size guard.

use std::ops::Range;

use serde_json::value::RawValue;
use serde_json::Value;

use super::args::{QueryArgs, DEFAULT_LIST_LIMIT, DEFAULT_STRING_LIMIT};
use super::json::{escaped_len, write_str, write_value, MAX_SAFE_INTEGER};
use super::walk::{unreadable, Kind};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::json::verbatim::prints_as_written;

/// The items of a list answer, wherever they live.
pub(crate) enum Items<'a> {
  /// An array of a parsed answer.
  Values(&'a [Value]),
  /// Nodes matched by a JSONPath query.
  Refs(&'a [&'a Value]),
  /// An array read lazily from the answer's text: only the items in the window are parsed.
  Raws(Vec<&'a RawValue>),
  /// Matches `base ..` of the `total` nodes a JSONPath query matched, as their JSON text: only those in the
  /// window are parsed.
  Texts {
    items: Vec<&'a str>,
    base: usize,
    total: usize,
  },
  /// Items `base ..` of a list of `total` items, read from a byte range of the answer (the path index route).
  Window {
    items: Vec<&'a RawValue>,
    base: usize,
    total: usize,
  },
}

impl Items<'_> {
  fn len(&self) -> usize {
    match self {
      Items::Values(items) => items.len(),
      Items::Refs(items) => items.len(),
      Items::Raws(items) => items.len(),
      Items::Texts { total, .. } => *total,
      Items::Window { total, .. } => *total,
    }
  }

  fn write(&self, at: usize, out: &mut String, fields: Option<&[String]>) -> CoreResult<()> {
    match self {
      Items::Values(items) => write_value(out, &items[at], fields),
      Items::Refs(items) => write_value(out, items[at], fields),
      Items::Raws(items) => write_text(out, items[at].get(), fields)?,
      Items::Texts { items, base, .. } => {
        let text = at
          .checked_sub(*base)
          .and_then(|i| items.get(i))
          .ok_or_else(|| CoreError::internal("A kept page of matches missed one of its window."))?;
        write_text(out, text, fields)?;
      }
      Items::Window { items, base, .. } => {
        let raw = at
          .checked_sub(*base)
          .and_then(|i| items.get(i))
          .ok_or_else(|| CoreError::internal("An indexed read missed an item of its window."))?;
        write_text(out, raw.get(), fields)?;
      }
    }
    Ok(())
  }
}

/// Writes one item read as JSON text: copied when it already reads as the writer prints it (and no `fields` are
/// picked), else parsed and printed.
fn write_text(out: &mut String, text: &str, fields: Option<&[String]>) -> CoreResult<()> {
  if fields.is_none() && prints_as_written(text) {
    out.push_str(text);
    return Ok(());
  }
  let item: Value = serde_json::from_str(text).map_err(unreadable)?;
  write_value(out, &item, fields);
  Ok(())
}

/// What a path named, ready to answer.
pub(crate) enum Target<'a> {
  List(Items<'a>),
  Text(&'a str),
  /// A window already cut from part of a string: `window.bytes` index into `text`, its units count in the whole.
  TextWindow {
    text: &'a str,
    window: StringWindow,
  },
  Whole(&'a Value),
}

/// Where a window starts and how long it is, from `offset` / `page` / `limit`.
pub(crate) fn window(args: &QueryArgs, default_limit: usize) -> (u64, usize) {
  let limit = args.limit.unwrap_or(default_limit);
  let start = match (args.offset, args.page) {
    (Some(offset), _) => offset,
    (None, Some(page)) => (page - 1).saturating_mul(limit as u64),
    (None, None) => 0,
  };
  // Echoed back as `offset`: past 2^53 - 1 a JS number would no longer say where the page starts.
  (start.min(MAX_SAFE_INTEGER), limit)
}

/// The items of a list of `total` that the page `args` asks for (the window [`answer`] writes).
pub(crate) fn list_window(args: &QueryArgs, total: usize) -> Range<usize> {
  let (start, limit) = window(args, DEFAULT_LIST_LIMIT);
  let first = usize::try_from(start).unwrap_or(usize::MAX).min(total);
  first..first.saturating_add(limit).min(total)
}

fn push_counters(out: &mut String, total: u64, offset: u64, next: Option<u64>) {
  out.push_str(",\"total\":");
  out.push_str(&total.to_string());
  out.push_str(",\"offset\":");
  out.push_str(&offset.to_string());
  if let Some(next) = next {
    out.push_str(",\"nextOffset\":");
    out.push_str(&next.to_string());
  }
  out.push('}');
}

fn counters_len(total: u64, offset: u64, next: Option<u64>) -> usize {
  let mut out = String::new();
  push_counters(&mut out, total, offset, next);
  out.len()
}

/// Writes the answer for `target` found at `path` (a normalized path or the query as run).
pub(crate) fn answer(
  path: &str,
  target: Target,
  kind: Kind,
  args: &QueryArgs,
  threshold: usize,
) -> CoreResult<String> {
  write_answer(path, target, kind, args, threshold).map_err(|error| {
    let mut echo = String::new();
    write_str(&mut echo, path);
    if error.code == ErrorCode::SliceTooLarge && echo.len() > threshold / 2 {
      path_too_long(echo.len(), threshold)
    } else {
      error
    }
  })
}

fn write_answer(
  path: &str,
  target: Target,
  kind: Kind,
  args: &QueryArgs,
  threshold: usize,
) -> CoreResult<String> {
  let fields = args.fields.as_deref();
  let mut out = String::from("{\"path\":");
  write_str(&mut out, path);
  out.push_str(",\"value\":");
  match target {
    Target::List(items) => {
      let total = items.len();
      let start = window(args, DEFAULT_LIST_LIMIT).0;
      let Range { start: first, end } = list_window(args, total);
      let next = (end < total).then_some(end as u64);
      out.push('[');
      let value_start = out.len();
      let mut ends = Vec::with_capacity(end - first);
      for at in first..end {
        if at > first {
          out.push(',');
        }
        items.write(at, &mut out, fields)?;
        ends.push(out.len());
      }
      out.push(']');
      push_counters(&mut out, total as u64, start, next);
      if out.len() > threshold {
        // Largest k whose answer fits: the same prefix, the first k items, then the counters for k.
        let fits = (0..=ends.len())
          .rev()
          .find(|&k| {
            let items_len = if k == 0 { 0 } else { ends[k - 1] - value_start };
            let k_end = first + k;
            let k_next = (k_end < total).then_some(k_end as u64);
            value_start + items_len + 1 + counters_len(total as u64, start, k_next) <= threshold
          })
          .unwrap_or(0);
        return Err(too_large_list(
          out.len(),
          threshold,
          fits,
          path,
          first,
          kind,
        ));
      }
    }
    Target::Text(text) => {
      let (start, limit) = window(args, DEFAULT_STRING_LIMIT);
      let slice = string_window(text, start, limit);
      text_answer(&mut out, &text[slice.bytes.clone()], &slice, threshold)?;
    }
    Target::TextWindow {
      text,
      window: slice,
    } => {
      let part = text
        .get(slice.bytes.clone())
        .ok_or_else(|| CoreError::internal("An indexed read cut a string off its characters."))?;
      text_answer(&mut out, part, &slice, threshold)?;
    }
    Target::Whole(value) => {
      if args.offset.is_some_and(|o| o > 0) || args.page.is_some_and(|p| p > 1) {
        let what = match kind {
          Kind::Object => "an object",
          Kind::Number => "a number",
          Kind::Boolean => "a boolean",
          _ => "null",
        };
        return Err(
          CoreError::new(
            ErrorCode::InvalidInput,
            format!("offset and page apply only to lists and strings; the value at this path is {what}."),
          )
          .with_remedy(
            "Leave out offset and page to read this value whole, or point path at a list or string inside it.",
          ),
        );
      }
      write_value(&mut out, value, fields);
      out.push('}');
      if out.len() > threshold {
        let remedy = if kind == Kind::Object {
          format!(
            "Keep fewer keys with fields, or read one of its keys with a deeper path (`{path}['<key>']`)."
          )
        } else {
          "Read a smaller value.".to_string()
        };
        return Err(too_large(out.len(), threshold, remedy));
      }
    }
  }
  Ok(out)
}

/// Writes a string window's value and counters; RESULT_SLICE_TOO_LARGE over the threshold.
fn text_answer(
  out: &mut String,
  part: &str,
  slice: &StringWindow,
  threshold: usize,
) -> CoreResult<()> {
  let before_value = out.len();
  write_str(out, part);
  push_counters(out, slice.total, slice.start, slice.next);
  if out.len() > threshold {
    let fits = string_fit(part, before_value + 2, threshold, slice);
    return Err(too_large(
      out.len(),
      threshold,
      if fits == 0 {
        "Not even one character fits: raise the threshold or read a smaller value.".to_string()
      } else {
        format!(
          "At most {fits} characters fit in one answer from this offset: pass limit: {fits} or less and page on with nextOffset."
        )
      },
    ));
  }
  Ok(())
}

/// The answer repeats `path`: when an answer does not fit and its path takes more than half of it, the path is the
/// cause, and a slice-too-large remedy (fewer items, fewer keys) could not help.
fn path_too_long(echo_bytes: usize, threshold: usize) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "path is too long: an answer repeats it ({echo_bytes} bytes, over half of the {threshold}-byte limit for one answer), and the answer does not fit."
    ),
  )
  .with_remedy(
    "Use a shorter path: read in two steps (a short path to the list, then a short filter), or name fewer alternatives.",
  )
}

fn too_large(size: usize, threshold: usize, remedy: String) -> CoreError {
  CoreError::new(
    ErrorCode::SliceTooLarge,
    format!("The requested slice is {size} bytes of JSON, over the {threshold}-byte limit for one answer."),
  )
  .with_remedy(remedy)
}

fn too_large_list(
  size: usize,
  threshold: usize,
  fits: usize,
  path: &str,
  first: usize,
  kind: Kind,
) -> CoreError {
  let remedy = if fits > 0 {
    format!(
      "At most {fits} items fit in one answer from this offset: pass limit: {fits} or less and page on with nextOffset, keep fewer keys with fields, or read a deeper path."
    )
  } else if kind == Kind::Array {
    format!(
      "Not even one item fits: keep fewer keys with fields, or read inside one item with a deeper path such as `{path}[{first}]`."
    )
  } else {
    "Not even one item fits: keep fewer keys with fields, or read inside one match with a deeper path.".to_string()
  };
  too_large(size, threshold, remedy)
}

/// A window of a string in JS units (UTF-16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StringWindow {
  /// Byte range of the window in the Rust string.
  pub bytes: std::ops::Range<usize>,
  /// First unit read (the requested start, moved forward past a low surrogate when it fell inside a pair).
  pub start: u64,
  /// Units in the whole string (JS `length`).
  pub total: u64,
  /// Where the next window starts, while any text remains.
  pub next: Option<u64>,
}

/// Cuts `limit` units from `start`. A boundary that falls inside a surrogate pair moves one unit forward, so a
/// pair is never split and consecutive windows (by `nextOffset` or by `page`) cover each character exactly once.
pub(crate) fn string_window(text: &str, start: u64, limit: usize) -> StringWindow {
  let cut = cut(text, 0, start, limit);
  StringWindow {
    bytes: cut.begin_byte..cut.end_byte,
    start: cut.begin_unit,
    total: cut.units_end,
    next: (cut.end_unit < cut.units_end).then_some(cut.end_unit),
  }
}

/// The same window, cut from `part`: the units of a string of `total` units starting at unit `base` (a character
/// boundary). `part` must reach one character past the window's end (or the string's end), as the path index's
/// ranges do.
pub(crate) fn string_window_within(
  part: &str,
  base: u64,
  total: u64,
  start: u64,
  limit: usize,
) -> StringWindow {
  let cut = cut(part, base, start, limit);
  StringWindow {
    bytes: cut.begin_byte..cut.end_byte,
    start: cut.begin_unit,
    total,
    next: (cut.end_unit < total).then_some(cut.end_unit),
  }
}

struct Cut {
  begin_byte: usize,
  begin_unit: u64,
  end_byte: usize,
  end_unit: u64,
  /// The unit just past `text`.
  units_end: u64,
}

fn cut(text: &str, base: u64, start: u64, limit: usize) -> Cut {
  let end_unit = start.saturating_add(limit as u64);
  let mut unit: u64 = base;
  let mut begin: Option<(usize, u64)> = None;
  let mut finish: Option<(usize, u64)> = None;
  for (byte, c) in text.char_indices() {
    if begin.is_none() && unit >= start {
      begin = Some((byte, unit));
    }
    if finish.is_none() && unit >= end_unit {
      finish = Some((byte, unit));
    }
    unit += c.len_utf16() as u64;
  }
  let (begin_byte, begin_unit) = begin.unwrap_or((text.len(), start.max(unit)));
  let (end_byte, end_unit) = finish.unwrap_or((text.len(), unit));
  Cut {
    begin_byte,
    begin_unit,
    end_byte: end_byte.max(begin_byte),
    end_unit,
    units_end: unit,
  }
}

/// Most units of `slice` whose answer fits in `threshold`, never splitting a pair.
fn string_fit(slice: &str, prefix: usize, threshold: usize, window: &StringWindow) -> u64 {
  let mut size = prefix; // includes both quotes
  let mut units: u64 = 0;
  let mut best: u64 = 0;
  for c in slice.chars() {
    size += escaped_len(c);
    units += c.len_utf16() as u64;
    let end = window.start + units;
    let next = (end < window.total).then_some(end);
    if size + counters_len(window.total, window.start, next) <= threshold {
      best = units;
    } else {
      break;
    }
  }
  best
}

#[cfg(test)]
mod tests {
  use super::*;

  fn pieces(text: &str, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    loop {
      let w = string_window(text, start, limit);
      out.push(text[w.bytes.clone()].to_string());
      match w.next {
        Some(next) => start = next,
        None => return out,
      }
    }
  }

  #[test]
  fn string_windows_never_split_pairs() {
    let text = "a😀b😀😀c";
    assert_eq!(pieces(text, 2), ["a😀", "b😀", "😀", "c"].map(String::from));
    assert_eq!(
      pieces(text, 1),
      ["a", "😀", "b", "😀", "😀", "c"].map(String::from)
    );
    assert_eq!(pieces(text, 3), ["a😀", "b😀", "😀c"].map(String::from));
    let w = string_window(text, 2, 2);
    assert_eq!((w.start, w.total, w.next), (3, 9, Some(4)));
    assert_eq!(&text[w.bytes], "b");
    // Page 2 of 1 unit on a pair: empty, and the walk goes on.
    let w = string_window("😀x", 1, 1);
    assert_eq!((w.start, w.next, w.bytes.is_empty()), (2, Some(2), true));
    let past = string_window(text, 50, 2);
    assert_eq!(
      (past.start, past.next, past.bytes.is_empty()),
      (50, None, true)
    );
  }
}
