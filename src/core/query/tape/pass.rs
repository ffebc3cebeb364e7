//! Passing over the children of a container the query cannot look into, in a text certified to be JSON (see
//! [`Tape::build_clean`]): brackets are counted and strings jumped over, so no grammar is checked and nothing is
//! recorded, but the values are still counted (for the budget), and numbers and nesting are still checked as the
//! checking pass checks them (a number serde_json refuses, or nesting past [`MAX_QUERY_DEPTH`], still sends the
//! query to the full read).
//!
//! Counting without tokens: in JSON text, the values inside a container are its commas (at any depth) plus its
//! non-empty containers (itself included), since each non-empty container holds one value more than it has commas.

// Without SSE2 nothing places keys (see `containers_of_keys`), and what only that serves is compiled but not reached.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

#[cfg(doc)]
use super::Tape;
use super::{Builder, UNRECORDED};
use crate::core::json::scan::number_end;
use crate::core::query::MAX_QUERY_DEPTH;
use memchr::memmem;

#[cfg(target_arch = "x86_64")]
mod blocks;
#[cfg(target_arch = "x86_64")]
pub(crate) use blocks::containers_of_keys;
#[cfg(test)]
mod tests;

/// The long array whose items [`containers_of_keys`] reads in pieces on two threads: its level (the root is level 0),
/// where it closes, and the items that start pieces (after its first ones), increasing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArrayCut {
  pub depth: usize,
  pub close: usize,
  pub items: Vec<usize>,
}

/// A member key the caller of [`containers_of_keys`] looks for, as it found it: where its opening quote is, where its
/// value starts, and which of the caller's names it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FoundKey {
  pub quote: u32,
  pub value: u32,
  pub name: u32,
}

/// What the caller of [`containers_of_keys`] does with the text: finds its keys in a range, and reads what the keys
/// of a part of the text lead to once their values' ends are known, on the thread that read the part (so that the
/// pieces of a long array are followed on two threads, while their bytes are in that core's cache).
pub(crate) trait KeysToFollow: Sync {
  /// What the keys of one part lead to.
  type Led: Send;

  /// The keys whose opening quotes lie in `bytes[from..to]`, increasing. A key never straddles `to`: the pass cuts
  /// the text only where an item of a long array starts, outside every string.
  fn find(&self, bytes: &[u8], from: usize, to: usize) -> Vec<FoundKey>;

  /// What `keys` lead to, given the start of the container each lies in (`containers`) and where each one's value
  /// ends when it is a container (`container_ends`, else 0).
  fn follow(
    &self,
    bytes: &[u8],
    keys: &[FoundKey],
    containers: &[u32],
    container_ends: &[u32],
  ) -> Self::Led;

  /// Whether the caller needs the count of the text's values ([`PlacedKeys::nodes`]); counting them costs the pass
  /// a compare, a popcount and a look inside each container it opens.
  fn counts_values(&self) -> bool;
}

/// Where [`containers_of_keys`] places each key, part by part, and what it counts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlacedKeys<L> {
  /// The parts of the text read (the whole text, or the text before a long array, its pieces and the text after
  /// it), in the text's order. Each keeps its own vectors: joining them would copy every key once more.
  pub parts: Vec<PlacedPart<L>>,
  /// The values in the text at any depth (its commas plus its non-empty containers, plus the root), when the caller
  /// [counts them](KeysToFollow::counts_values).
  pub nodes: Option<u64>,
  /// Objects (their spans) in which the key of a member holding a key (its value's start) was found more than once,
  /// at any depth: the caller counts the object's own members with it.
  pub suspects: Vec<(std::ops::Range<u32>, u32)>,
}

/// The keys found in one part of the text, in the text's order, and what [`KeysToFollow::follow`] made of them (and of
/// where the pass placed them), on the thread that read the part.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlacedPart<L> {
  pub keys: Vec<FoundKey>,
  pub led: L,
}

/// Without SSE2 the pass that places keys is not written: the caller leaves the query to the tape.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn containers_of_keys<K: KeysToFollow>(
  _: &[u8],
  _: &K,
  _: Option<&ArrayCut>,
) -> Option<PlacedKeys<K::Led>> {
  None
}

/// Where the value starts when the quoted string of `quoted_len` bytes (quotes included) at `quote` is a member's
/// key: its opening quote escaped by no backslash (in JSON text, one that is escapes nothing outside a string) and
/// a colon after it, past blanks. The caller knows the bytes between the quotes spell the key (no quote or
/// backslash among them).
pub(crate) fn value_after_key(bytes: &[u8], quote: usize, quoted_len: usize) -> Option<usize> {
  let backslashes = bytes[..quote]
    .iter()
    .rev()
    .take_while(|&&byte| byte == b'\\')
    .count();
  let colon = skip_blanks(bytes, quote + quoted_len);
  (backslashes % 2 == 0 && bytes.get(colon) == Some(&b':')).then(|| skip_blanks(bytes, colon + 1))
}

/// Where `finder`'s needle (a key's text in quotes, as [`value_after_key`] takes it) is found as a member's key with
/// its opening quote in `bytes[range]`: the opening quote and where the value starts, increasing.
pub(crate) fn keys_found<'a>(
  bytes: &'a [u8],
  range: std::ops::Range<usize>,
  finder: &'a memmem::Finder<'_>,
) -> impl Iterator<Item = (usize, usize)> + 'a {
  let (start, quoted) = (range.start, finder.needle().len());
  finder
    .find_iter(&bytes[range])
    .filter_map(move |at| Some((start + at, value_after_key(bytes, start + at, quoted)?)))
}

/// Whether the byte before `at` is a backslash: a quote there opens no key (in JSON text a key's opening quote
/// follows a bracket, a comma or a blank).
pub(crate) fn after_backslash(bytes: &[u8], at: usize) -> bool {
  at.checked_sub(1)
    .is_some_and(|before| bytes[before] == b'\\')
}

/// Where the closing quote of a member's key is, from where its value starts (back over blanks, the colon and
/// blanks); `None` when no colon and quote stand there.
pub(crate) fn key_closing_quote(bytes: &[u8], value: usize) -> Option<usize> {
  let back_over_blanks = |mut at: usize| {
    while at > 0 && matches!(bytes[at - 1], b' ' | b'\t' | b'\n' | b'\r') {
      at -= 1;
    }
    at
  };
  let colon = back_over_blanks(value).checked_sub(1)?;
  let quote = back_over_blanks(colon).checked_sub(1)?;
  (bytes[colon] == b':' && bytes[quote] == b'"').then_some(quote)
}

/// The key (its quotes included) of the member whose value starts at `value`, when it holds no escape; `None` when
/// no key stands there or it holds a backslash (its text would have to be decoded to be compared).
pub(crate) fn plain_key_before(bytes: &[u8], value: usize) -> Option<std::ops::Range<usize>> {
  let close = key_closing_quote(bytes, value)?;
  // With no escape in the key, the quote before its closing one opens it.
  let open = bytes[..close].iter().rposition(|&byte| byte == b'"')?;
  let escaped = bytes[open..close].contains(&b'\\') || after_backslash(bytes, open);
  (!escaped).then_some(open..close + 1)
}

/// The first byte at or after `at` that is not a JSON blank.
pub(crate) fn skip_blanks(bytes: &[u8], mut at: usize) -> usize {
  while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
    at += 1;
  }
  at
}

/// How many bytes a route that reads values from a text of `len` bytes may pass over again, searching or listing
/// (nests make it read the same bytes once a level): past it, the tape, which reads the text once, answers.
pub(crate) fn reread_limit(len: usize) -> usize {
  4 * len + (1 << 20)
}

/// Passing over a non-empty container: where the scan is, and what it found so far.
#[derive(Debug, PartialEq, Eq)]
struct Scan {
  /// The next byte to read; just past the closing bracket once `depth` is 0.
  at: usize,
  /// Open containers around `at`, the passed one included.
  depth: usize,
  /// At any depth.
  commas: u64,
  /// Among the passed container's own children.
  top_commas: u32,
  /// Non-empty containers, the passed one included.
  filled: u64,
}

impl Scan {
  /// At the first byte inside a non-empty container.
  fn inside(at: usize) -> Scan {
    Scan {
      at,
      depth: 1,
      commas: 0,
      top_commas: 0,
      filled: 1,
    }
  }
}

impl Builder<'_> {
  /// At the first byte inside the container just opened (`entry`, [`UNRECORDED`] or not): past its closing
  /// bracket, with its children counted and the container closed.
  pub(super) fn pass_children(&mut self, entry: u32) -> Option<()> {
    // How deep the answer may still go, the passed container included.
    let room = MAX_QUERY_DEPTH.checked_sub(self.open.len() - 1)?;
    let mut at = self.at;
    let scan = if close_if_empty(self.bytes, &mut at) {
      Scan {
        filled: 0,
        ..Scan::inside(at)
      }
    } else {
      scan(self.bytes, at, room)?
    };
    self.at = scan.at;
    self.nodes += scan.commas + scan.filled;
    self.open.pop();
    if entry != UNRECORDED {
      let next = self.entries.len() as u32;
      let entry = &mut self.entries[entry as usize];
      entry.end = scan.at as u32;
      entry.next = next;
      entry.count = if scan.filled > 0 {
        scan.top_commas + 1
      } else {
        0
      };
    }
    Some(())
  }
}

/// The bytes read one at a time before the scan turns to 64-byte blocks: most passed containers are shorter (a
/// customer, a list of tags), and a block costs about as much as this many bytes.
#[cfg(target_arch = "x86_64")]
const BYTEWISE_FIRST: usize = 64;

/// From the first byte inside a non-empty container (`start`): past its closing bracket, its values counted; `None`
/// when nesting passes `room` or a number is one serde_json refuses.
fn scan(bytes: &[u8], start: usize, room: usize) -> Option<Scan> {
  let mut scan = Scan::inside(start);
  #[cfg(target_arch = "x86_64")]
  if !scan_bytewise(bytes, &mut scan, room, start + BYTEWISE_FIRST)? {
    blocks::scan_blocks(bytes, &mut scan, room)?;
  }
  #[cfg(not(target_arch = "x86_64"))]
  scan_bytewise(bytes, &mut scan, room, usize::MAX)?;
  Some(scan)
}

/// [`scan`] a byte at a time, until the container closes (`true`) or the next token starts at `until` or later.
fn scan_bytewise(bytes: &[u8], scan: &mut Scan, room: usize, until: usize) -> Option<bool> {
  let mut at = scan.at;
  while at < until {
    match *bytes.get(at)? {
      b'"' => at = past_string(bytes, at + 1)?,
      b'[' | b'{' => {
        // Checked before the emptiness, as the checking pass counts an empty container open too.
        if scan.depth + 1 > room {
          return None;
        }
        at += 1;
        if !close_if_empty(bytes, &mut at) {
          scan.depth += 1;
          scan.filled += 1;
        }
      }
      b']' | b'}' => {
        at += 1;
        scan.depth -= 1;
        if scan.depth == 0 {
          break;
        }
      }
      b',' => {
        at += 1;
        scan.commas += 1;
        if scan.depth == 1 {
          scan.top_commas += 1;
        }
      }
      b'-' | b'0'..=b'9' => at = past_number(bytes, at)?,
      _ => at += 1,
    }
  }
  scan.at = at;
  Some(scan.depth == 0)
}

/// Whether the container whose inside starts at `*at` is empty; if so, moves `*at` past its closing bracket.
fn close_if_empty(bytes: &[u8], at: &mut usize) -> bool {
  let i = skip_blanks(bytes, *at);
  if matches!(bytes.get(i), Some(b']' | b'}')) {
    *at = i + 1;
    return true;
  }
  false
}

/// Past the closing bracket of the container that opens at byte `open` of a certified text; `None` when nesting
/// passes [`MAX_QUERY_DEPTH`], a number is one serde_json refuses, or the text ends first.
pub(crate) fn past_container(bytes: &[u8], open: usize) -> Option<usize> {
  let mut at = open + 1;
  if close_if_empty(bytes, &mut at) {
    return Some(at);
  }
  scan(bytes, at, MAX_QUERY_DEPTH).map(|scan| scan.at)
}

/// Past the closing quote of the string whose content starts at `at`.
pub(crate) fn past_string(bytes: &[u8], mut at: usize) -> Option<usize> {
  loop {
    at = super::string_stop(bytes, at);
    match *bytes.get(at)? {
      b'"' => return Some(at + 1),
      // The escape is valid (the text is certified): its second byte is never the closing quote.
      b'\\' => at += 2,
      // A control character, which certified text holds in no string: plain content all the same.
      _ => at += 1,
    }
  }
}

/// Past the number starting at `at` ([`number_end`]); `None` when serde_json would refuse it (see
/// [`super::serde_reads_number`]).
pub(crate) fn past_number(bytes: &[u8], start: usize) -> Option<usize> {
  let number = number_end(bytes, start).ok()?;
  super::serde_reads_number(&bytes[start..number.end], number.exponent).then_some(number.end)
}
