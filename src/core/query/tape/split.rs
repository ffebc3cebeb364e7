//! The tape of a certified answer on two threads: the items of its longest array (as the path index records it)
//! are cut into pieces at items the index knows. This thread reads the text up to the first cut; the pieces after
//! it go to whichever thread is free first (this one or a helper: on a busy machine the helper may start late, or
//! not at all), each into entries of its own; then the pieces' entries are appended in order (their links
//! shifted), the array closed, and this thread reads on. The tape is the one a single pass writes.
//!
//! Only an array the query reads through (its items within the reach) is cut, so that every piece records its
//! items as one pass would; a cut that does not land between two of its items, or any read that fails, gives
//! `None`, and the caller reads on one thread.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::pass::ArrayCut;
use super::{Builder, Entry, Names, Open, Tape, UNRECORDED};
use crate::core::query::index::LongArray;
use crate::core::query::walk::Kind;

/// Arrays shorter than this are read on one thread. Queries from JS on fresh handles, the two floors alternated in
/// one process: a second thread took up to a third off the filter and the wildcard on 1 MB of orders (descendants
/// about the same), nothing on 0.25-0.5 MB. A helper that starts late (about one query in six on a 2-vCPU VM) costs
/// the wait to be scheduled, about 0.1 ms. Tests cut shorter ones.
const MIN_SPLIT_BYTES: u64 = if cfg!(test) { 256 * 1024 } else { 512 * 1024 };

/// About this many bytes of items per piece, in at most [`MAX_PIECES`] pieces: a piece is the unit the two
/// threads share, so smaller pieces even out a thread that starts late.
const PIECE_BYTES: u64 = 128 * 1024;
const MAX_PIECES: u64 = 8;

/// Where one array's items are cut, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cuts {
  /// The array's level (the root is level 0).
  depth: usize,
  /// Its opening bracket.
  array: usize,
  /// `(the comma before an item, where that item starts)`, one per cut.
  at: Vec<(usize, usize)>,
}

/// The cuts to make in `text` for a query that records `reach` levels: in the longest array (of at least
/// `min_bytes`) whose items it records, at the items the index knows nearest to even pieces.
fn choose_cuts(text: &[u8], reach: usize, arrays: &[LongArray], min_bytes: u64) -> Option<Cuts> {
  let array = arrays
    .iter()
    .filter(|array| array.depth < reach && array.end.saturating_sub(array.start) >= min_bytes)
    .max_by_key(|array| array.end - array.start)?;
  let span = array.end - array.start;
  let pieces = (span / PIECE_BYTES).clamp(2, MAX_PIECES);
  let known = array.item_starts.get(1..)?;
  let items: Vec<u64> = (1..pieces)
    .filter_map(|piece| {
      let even = array.start + span * piece / pieces;
      known.iter().copied().min_by_key(|at| at.abs_diff(even))
    })
    .collect();
  cuts_at(text, array, &items)
}

/// Cuts of `array` before each of `items` (item starts), skipping repeats; `None` when one is not an item start
/// after a comma.
fn cuts_at(text: &[u8], array: &LongArray, items: &[u64]) -> Option<Cuts> {
  let array_at = usize::try_from(array.start).ok()?;
  if text.get(array_at) != Some(&b'[') {
    return None;
  }
  let mut at: Vec<(usize, usize)> = Vec::with_capacity(items.len());
  for &item in items {
    let item = usize::try_from(item).ok()?;
    if at.last().is_some_and(|&(_, last)| last >= item) || item <= array_at {
      continue;
    }
    let comma = text[array_at..item]
      .iter()
      .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
      .map(|before| array_at + before)
      .filter(|&before| text[before] == b',')?;
    at.push((comma, item));
  }
  (!at.is_empty()).then_some(Cuts {
    depth: array.depth,
    array: array_at,
    at,
  })
}

/// Where to cut the longest long array of `text` (as the tape cuts it for a query that reads every level) for
/// [`containers_of_keys`](super::pass::containers_of_keys); `None` when none is long enough.
pub(crate) fn array_cut(text: &[u8], arrays: &[LongArray]) -> Option<ArrayCut> {
  let cuts = choose_cuts(text, usize::MAX, arrays, MIN_SPLIT_BYTES)?;
  let array = arrays
    .iter()
    .find(|array| array.start == cuts.array as u64)?;
  let close = usize::try_from(array.end).ok()?.checked_sub(1)?;
  (text.get(close) == Some(&b']')).then(|| ArrayCut {
    depth: cuts.depth,
    close,
    items: cuts.at.iter().map(|&(_, item)| item).collect(),
  })
}

/// [`Tape::build_clean`] on two threads, or `None` (see the module docs).
pub(super) fn build_split<'t>(
  text: &'t str,
  reach: Option<usize>,
  names: &Names,
  arrays: &[LongArray],
) -> Option<Tape<'t>> {
  let reach = reach.unwrap_or(usize::MAX);
  let cuts = choose_cuts(text.as_bytes(), reach, arrays, MIN_SPLIT_BYTES)?;
  build_cut(text, reach, names, &cuts)
}

/// The tape of `text` (certified), recording `reach` levels, read in pieces between `cuts` on two threads.
fn build_cut<'t>(text: &'t str, reach: usize, names: &Names, cuts: &Cuts) -> Option<Tape<'t>> {
  u32::try_from(text.len()).ok()?;
  let bytes = text.as_bytes();
  let pieces = cuts.at.len();
  let next = AtomicUsize::new(1);
  // Pieces 1..=pieces, each claimed by one thread.
  let claim = || {
    let mut read = Vec::new();
    loop {
      let piece = next.fetch_add(1, Ordering::Relaxed);
      if piece > pieces {
        return read;
      }
      read.push((piece, read_piece(bytes, reach, names, cuts, piece)));
    }
  };
  let mut first = Builder::new(&bytes[..cuts.at[0].0], reach, names, true, bytes.len());
  first.cut = Some(cuts.array);
  let (first_read, mut read) = std::thread::scope(|scope| {
    let helper = std::thread::Builder::new().spawn_scoped(scope, claim);
    let first_read = first.document();
    let mut read = claim();
    if let Ok(helper) = helper {
      read.extend(helper.join().unwrap_or_default());
    }
    (first_read, read)
  });
  first_read?;
  if read.len() != pieces {
    return None;
  }
  read.sort_unstable_by_key(|&(piece, _)| piece);
  for (piece, builder) in read {
    first.append(builder?, piece == pieces)?;
  }
  Some(first.into_tape(text))
}

/// The reader of piece `piece` (from 1): the cut array's items from that cut to the next (or to its closing
/// bracket, for the last), the array open as entry 0 at its level (the levels above it stand open, unrecorded, so
/// that depths count as in one pass).
fn read_piece<'b>(
  bytes: &'b [u8],
  reach: usize,
  names: &'b Names,
  cuts: &Cuts,
  piece: usize,
) -> Option<Builder<'b>> {
  let from = cuts.at[piece - 1].1;
  let (to, cut) = match cuts.at.get(piece) {
    Some(&(comma, _)) => (comma, Some(cuts.array)),
    None => (bytes.len(), None),
  };
  let mut builder = Builder::new(&bytes[..to], reach, names, true, to - from);
  builder.at = from;
  builder.floor = cuts.depth;
  builder.cut = cut;
  let above = Open {
    entry: UNRECORDED,
    object: false,
    keys: 0,
    maybe_repeated: false,
  };
  builder.open = vec![above; cuts.depth];
  builder.open.push(Open { entry: 0, ..above });
  builder.entries.push(Entry {
    start: cuts.array as u32,
    end: 0,
    key_start: 0,
    next: 1,
    count: 0,
    kind: Kind::Array,
    escaped: false,
    key_escaped: false,
  });
  builder.document()?;
  Some(builder)
}

impl<'b> Builder<'b> {
  /// At the end of a cut text, where the next separator would be: `Some(true)` when the cut array is the innermost
  /// open container (the first half is read), else `None`.
  pub(super) fn stop_at_cut(&self) -> Option<bool> {
    let array = self.cut?;
    let top = self.open.last()?;
    let entry = self.entries.get(top.entry as usize)?;
    (entry.start as usize == array && entry.kind == Kind::Array).then_some(true)
  }

  /// After the text up to the first cut: a piece's entries appended (the array still open at the cut); after the
  /// `last` piece, the array closed where the piece closed it and the rest of the text read.
  fn append(&mut self, piece: Builder<'b>, last: bool) -> Option<()> {
    let top = *self.open.last()?;
    let still_open = piece.floor + usize::from(!last);
    let levels_agree = self.open.len() == piece.floor + 1 && piece.open.len() == still_open;
    let array = *piece.entries.first().filter(|_| levels_agree)?;
    let shift = u32::try_from(self.entries.len()).ok()? - 1;
    self
      .entries
      .extend(piece.entries[1..].iter().map(|entry| Entry {
        next: entry.next + shift,
        ..*entry
      }));
    self.nodes += piece.nodes;
    self.entries.get_mut(top.entry as usize)?.count += array.count;
    if !last {
      return Some(());
    }
    self.open.pop();
    let next = self.entries.len() as u32;
    let entry = &mut self.entries[top.entry as usize];
    entry.end = array.end;
    entry.next = next;
    self.bytes = piece.bytes;
    self.at = piece.at;
    self.cut = None;
    if self.after_value()? {
      Some(())
    } else {
      self.document()
    }
  }
}

#[cfg(test)]
mod tests;
