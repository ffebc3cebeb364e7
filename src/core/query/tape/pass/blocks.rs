//! The certified pass 64 bytes at a time, past the first [`super::BYTEWISE_FIRST`] bytes of a container
//! (simdjson's first stage, reduced to what the pass needs). Each block is compared with SSE2 (in every x86_64, so
//! no runtime detection; through `safe_arch`, as the engine forbids `unsafe`) into one bit per byte for quotes,
//! backslashes, brackets, commas, digits and exponent letters; the bits inside strings are cleared with a prefix
//! XOR of the unescaped quotes; then only brackets are visited one by one (for the depth, the nesting bound and the
//! empty containers), commas are counted with a popcount, and only a number that may be refused (one with an
//! exponent, or one filling a whole block) is read byte by byte. A block inside a long string with no quote or
//! backslash is skipped after two compares. It counts what [`super::scan_bytewise`] counts; the tests hold it to
//! that.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use memchr::memmem;

use super::{
  after_backslash, close_if_empty, key_closing_quote, keys_found, past_number, plain_key_before,
  reread_limit, ArrayCut, FoundKey, KeysToFollow, PlacedKeys, PlacedPart, Scan,
};
use crate::core::query::MAX_QUERY_DEPTH;
use safe_arch::*;

const BLOCK: usize = 64;

/// One block's classes: bit `i` stands for byte `i` (as the scan reads them, gathered for the tests).
#[cfg(test)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Classes {
  pub(super) quotes: u64,
  pub(super) backslashes: u64,
  /// `[` and `{`.
  pub(super) opens: u64,
  /// `]` and `}`.
  pub(super) closes: u64,
  pub(super) commas: u64,
  /// `0`–`9` and `.`: a number of 300 bytes or more (the only kind without an exponent serde_json may refuse)
  /// fills at least one whole block with them.
  pub(super) digits: u64,
  /// `e` and `E`.
  pub(super) exponents: u64,
}

/// One block as four SSE2 registers.
struct Lanes([m128i; 4]);

impl Lanes {
  fn load(block: &[u8; BLOCK]) -> Lanes {
    let lane = |at: usize| load_unaligned_m128i(block[at..at + 16].try_into().unwrap_or(&[0; 16]));
    Lanes([lane(0), lane(16), lane(32), lane(48)])
  }

  /// One bit per byte for which `test` gives 0xff.
  fn bits(&self, test: impl Fn(m128i) -> m128i) -> u64 {
    self.0.iter().enumerate().fold(0, |bits, (lane, &bytes)| {
      bits | u64::from(move_mask_i8_m128i(test(bytes)) as u16) << (16 * lane)
    })
  }

  fn equal(&self, byte: u8) -> u64 {
    self.bits(|bytes| cmp_eq_mask_i8_m128i(bytes, set_splat_i8_m128i(byte as i8)))
  }

  /// Bytes equal to `byte` once bit 0x20 is set: `[`/`{`, `]`/`}` and `E`/`e` differ only in that bit, and no
  /// other byte joins them.
  fn folded_equal(&self, byte: u8) -> u64 {
    self.bits(|bytes| {
      let folded = bitor_m128i(bytes, set_splat_i8_m128i(0x20));
      cmp_eq_mask_i8_m128i(folded, set_splat_i8_m128i(byte as i8))
    })
  }

  /// `0`–`9` (a byte whose distance above `0` is at most 9, unsigned) and `.`.
  fn digits(&self) -> u64 {
    self.bits(|bytes| {
      let above_zero = sub_i8_m128i(bytes, set_splat_i8_m128i(b'0' as i8));
      let digit = cmp_eq_mask_i8_m128i(min_u8_m128i(above_zero, set_splat_i8_m128i(9)), above_zero);
      bitor_m128i(
        digit,
        cmp_eq_mask_i8_m128i(bytes, set_splat_i8_m128i(b'.' as i8)),
      )
    })
  }
}

/// The classes of one block.
#[cfg(test)]
pub(super) fn classify(block: &[u8; BLOCK]) -> Classes {
  let lanes = Lanes::load(block);
  Classes {
    quotes: lanes.equal(b'"'),
    backslashes: lanes.equal(b'\\'),
    opens: lanes.folded_equal(b'{'),
    closes: lanes.folded_equal(b'}'),
    commas: lanes.equal(b','),
    digits: lanes.digits(),
    exponents: lanes.folded_equal(b'e'),
  }
}

/// The bytes escaped by a backslash (the byte after each backslash that is not itself escaped). `carry`: the
/// first byte is escaped by the previous block's last backslash; set for the next block the same way. One step
/// per backslash: they are rare outside long texts, and the loop is plainly right.
fn escaped_bytes(backslashes: u64, carry: &mut bool) -> u64 {
  let mut escaped = u64::from(*carry);
  *carry = false;
  let mut left = backslashes & !escaped;
  while left != 0 {
    let backslash = left & left.wrapping_neg();
    let next = backslash << 1;
    *carry = next == 0;
    escaped |= next;
    left &= !(backslash | next);
  }
  escaped
}

/// Bit `i` is the XOR of bits `0..=i`: with quotes in, the bytes from an opening quote up to (not including) its
/// closing quote.
fn prefix_xor(mut bits: u64) -> u64 {
  for shift in [1, 2, 4, 8, 16, 32] {
    bits ^= bits << shift;
  }
  bits
}

/// The bytes of a block outside strings, from its quotes and the bytes escaped in it. `inside_string`: all ones
/// when the block before ended inside a string; set for the next block the same way.
#[inline(always)]
fn outside_strings(quotes: u64, escaped: u64, inside_string: &mut u64) -> u64 {
  let inside = prefix_xor(quotes & !escaped) ^ *inside_string;
  *inside_string = ((inside as i64) >> 63) as u64;
  !inside
}

/// Bits below bit `at` (`at` ≤ 64).
fn below(at: u32) -> u64 {
  1u64.checked_shl(at).map_or(u64::MAX, |bit| bit - 1)
}

/// [`super::scan_bytewise`] a block at a time, from a token boundary until the container closes.
pub(super) fn scan_blocks(bytes: &[u8], scan: &mut Scan, room: usize) -> Option<()> {
  let mut inside_string = 0u64;
  let mut escape_carry = false;
  let mut digit_carry = 0u64;
  let mut base = scan.at;
  loop {
    let lanes = Lanes::load(&block_at(bytes, base)?);
    let quotes = lanes.equal(b'"');
    let backslashes = lanes.equal(b'\\');
    // Inside a long string, a block without quotes or backslashes holds nothing else to look at.
    if inside_string != 0 && quotes | backslashes == 0 && !escape_carry {
      digit_carry = 0;
      base += BLOCK;
      continue;
    }
    let escaped = escaped_bytes(backslashes, &mut escape_carry);
    let outside = outside_strings(quotes, escaped, &mut inside_string);
    let commas = lanes.equal(b',') & outside;
    let opens = lanes.folded_equal(b'{') & outside;
    let mut brackets = opens | lanes.folded_equal(b'}') & outside;
    // Commas below this bit are counted, at the depth before the next bracket.
    let mut counted_to = 0;
    let mut limit = u64::MAX;
    while brackets != 0 {
      let at = brackets.trailing_zeros();
      if scan.depth == 1 {
        scan.top_commas += (commas & below(at) & !below(counted_to)).count_ones();
      }
      counted_to = at;
      if opens & (1 << at) != 0 {
        // Checked before the emptiness, as the checking pass counts an empty container open too.
        if scan.depth + 1 > room {
          return None;
        }
        scan.depth += 1;
        let mut inner = base + at as usize + 1;
        if !close_if_empty(bytes, &mut inner) {
          scan.filled += 1;
        }
      } else {
        scan.depth -= 1;
        if scan.depth == 0 {
          scan.at = base + at as usize + 1;
          limit = below(at);
          break;
        }
      }
      brackets &= brackets - 1;
    }
    if scan.depth == 1 {
      scan.top_commas += (commas & !below(counted_to)).count_ones();
    }
    scan.commas += u64::from((commas & limit).count_ones());
    check_block_numbers(bytes, base, &lanes, outside, limit, &mut digit_carry)?;
    if scan.depth == 0 {
      return Some(());
    }
    base += BLOCK;
  }
}

/// For a certified text (`bytes`, from its first byte) and the keys `route` finds in it: where each key lies and its
/// value ends, the values in the text, and what `route` read the keys lead to ([`PlacedKeys`]). `None` when nesting
/// passes [`MAX_QUERY_DEPTH`], a number is one serde_json refuses, a key lies outside every container, or a string
/// holds a `\u` or `\/` escape (which might spell a key's name): what the caller leaves to the tape.
///
/// `cut`: the items of a long array (its level, its opening and closing brackets, and items that start pieces of it)
/// read in pieces on two threads, as the tape's are; a key in a piece lies inside one of its items. Each piece's keys
/// are found, placed and followed by the thread that claims it; the text before and after the array is read on this
/// one, meanwhile.
pub(crate) fn containers_of_keys<K: KeysToFollow>(
  bytes: &[u8],
  route: &K,
  cut: Option<&ArrayCut>,
) -> Option<PlacedKeys<K::Led>> {
  let Some(cut) = cut else {
    let whole = read_part(bytes, route, 0, bytes.len(), Vec::new())?;
    return joined(vec![whole], route.counts_values());
  };
  let bounds: Vec<(usize, usize)> = cut
    .items
    .iter()
    .zip(cut.items.iter().skip(1).chain([&cut.close]))
    .map(|(&from, &to)| (from, to))
    .collect();
  let next = AtomicUsize::new(0);
  let claim = || {
    let mut read = Vec::new();
    while let Some(&(from, to)) = bounds.get(next.fetch_add(1, Ordering::Relaxed)) {
      // The levels above a piece's items stand open, unknown to it: no key of a piece lies in one.
      let above = vec![Open::above(); cut.depth + 1];
      read.push((from, read_part(bytes, route, from, to, above)));
    }
    read
  };
  let (around, mut pieces) = std::thread::scope(|scope| {
    let helper = std::thread::Builder::new().spawn_scoped(scope, claim);
    let around = read_around(bytes, route, cut);
    let mut pieces = claim();
    if let Ok(helper) = helper {
      pieces.extend(helper.join().unwrap_or_default());
    }
    (around, pieces)
  });
  if pieces.len() != bounds.len() {
    return None;
  }
  pieces.sort_unstable_by_key(|&(from, _)| from);
  let pieces: Vec<Part<K::Led>> = pieces
    .into_iter()
    .map(|(_, piece)| piece)
    .collect::<Option<_>>()?;
  let [head, tail] = around?;
  let parts = [head].into_iter().chain(pieces).chain([tail]).collect();
  joined(parts, route.counts_values())
}

/// The text before the long array `cut` names and after it, read as one scan that passes over the array: the keys of
/// the text before it may hold it, and the scan after it closes them.
fn read_around<K: KeysToFollow>(
  bytes: &[u8],
  route: &K,
  cut: &ArrayCut,
) -> Option<[Part<K::Led>; 2]> {
  let head_keys = route.find(bytes, 0, cut.items[0]);
  let counting = route.counts_values();
  let mut head = scan_keys(
    &bytes[..cut.items[0]],
    0,
    &head_keys,
    0,
    Vec::new(),
    Vec::new(),
    counting,
  )?;
  // The pieces may have found keys in the array's items: it is taken to hold some.
  let mut open = std::mem::take(&mut head.open);
  open.last_mut()?.holds = true;
  let checks = std::mem::take(&mut head.checks);
  let tail_keys = route.find(bytes, cut.close, bytes.len());
  let base = head_keys.len();
  let tail = scan_keys(bytes, cut.close, &tail_keys, base, open, checks, counting)?;
  let mut head_ends = own_ends(&head, 0, base);
  for &(key, end) in tail.ends.iter().filter(|&&(key, _)| (key as usize) < base) {
    head_ends[key as usize] = end;
  }
  let tail_ends = own_ends(&tail, base, tail_keys.len());
  Some([
    Part::followed(bytes, route, head_keys, head, head_ends),
    Part::followed(bytes, route, tail_keys, tail, tail_ends),
  ])
}

/// The keys `route` finds in `bytes[from..to]`, placed by one scan from `from` (a token boundary outside any string,
/// with `open` standing open) and followed: a part that closes every container it opens, the whole text or a piece of
/// a long list.
fn read_part<K: KeysToFollow>(
  bytes: &[u8],
  route: &K,
  from: usize,
  to: usize,
  open: Vec<Open>,
) -> Option<Part<K::Led>> {
  let keys = route.find(bytes, from, to);
  let counting = route.counts_values();
  let scan = scan_keys(&bytes[..to], from, &keys, 0, open, Vec::new(), counting)?;
  let ends = own_ends(&scan, 0, keys.len());
  Some(Part::followed(bytes, route, keys, scan, ends))
}

/// The ends of the container values of keys `base..base + count` that `scan` closed (0 for the others), by key.
fn own_ends(scan: &KeysScan, base: usize, count: usize) -> Vec<u32> {
  let mut ends = vec![0; count];
  for &(key, end) in &scan.ends {
    if let Some(slot) = (key as usize)
      .checked_sub(base)
      .and_then(|at| ends.get_mut(at))
    {
      *slot = end;
    }
  }
  ends
}

/// A part of the text read: its keys, the scan that placed them, and what they led to (given their values' ends).
struct Part<L> {
  keys: Vec<FoundKey>,
  scan: KeysScan,
  led: L,
}

impl<L> Part<L> {
  fn followed<K: KeysToFollow<Led = L>>(
    bytes: &[u8],
    route: &K,
    keys: Vec<FoundKey>,
    scan: KeysScan,
    ends: Vec<u32>,
  ) -> Part<L> {
    let led = route.follow(bytes, &keys, &scan.containers, &ends);
    Part { keys, scan, led }
  }
}

/// A container open around the scan whose start no piece knows (it opened before the piece).
const UNKNOWN: u32 = u32::MAX;
/// An open container that is no listed key's value.
const NO_KEY: u32 = u32::MAX;

/// A container open around the scan: where it starts, the listed key it is the value of, and whether a listed key
/// lies in it (at any depth).
#[derive(Debug, Clone, Copy)]
struct Open {
  start: u32,
  key: u32,
  holds: bool,
}

impl Open {
  /// A level above a piece's items.
  fn above() -> Open {
    Open {
      start: UNKNOWN,
      key: NO_KEY,
      holds: false,
    }
  }
}

/// What one scan of a range found: the containers of its keys, the ends of the keys' values it closed (by key, its
/// keys numbered from the scan's base), the values it counted, the containers still open where it stopped, and the
/// members to check when their objects close (see [`scan_keys`]).
struct KeysScan {
  containers: Vec<u32>,
  ends: Vec<(u32, u32)>,
  nodes: u64,
  open: Vec<Open>,
  checks: Vec<(u32, u32)>,
  /// Objects where a checked member's key was found again, with where the member's value starts.
  suspects: Vec<(std::ops::Range<u32>, u32)>,
}

/// The parts of a read, in order; `None` when a part did not place each of its keys, or a key lies in a container its
/// piece did not see open.
fn joined<L>(parts: Vec<Part<L>>, counted: bool) -> Option<PlacedKeys<L>> {
  let mut placed = PlacedKeys {
    parts: Vec::with_capacity(parts.len()),
    nodes: counted.then_some(1),
    suspects: Vec::new(),
  };
  for part in parts {
    if part.scan.containers.len() != part.keys.len() || part.scan.containers.contains(&UNKNOWN) {
      return None;
    }
    placed.nodes = placed.nodes.map(|nodes| nodes + part.scan.nodes);
    placed.suspects.extend(part.scan.suspects);
    placed.parts.push(PlacedPart {
      keys: part.keys,
      led: part.led,
    });
  }
  Some(placed)
}

/// The scan of `bytes` from `from` (a token boundary outside any string) to its end, with `open` standing open and
/// `checks` pending; the values counted when `counting`.
///
/// A member of an object whose value holds a listed key must be its object's only member with that key: `JSON.parse`
/// keeps a repeated key's last value at its first place, which would hide the value or move it. Such a member is
/// checked when its object closes ([`CheckedKeys::found_once`]): `checks` holds the level of the object and where the
/// member's value starts.
fn scan_keys(
  bytes: &[u8],
  from: usize,
  keys: &[FoundKey],
  key_base: usize,
  mut open: Vec<Open>,
  mut checks: Vec<(u32, u32)>,
  counting: bool,
) -> Option<KeysScan> {
  let mut scan = KeysScan {
    containers: Vec::with_capacity(keys.len()),
    ends: Vec::new(),
    nodes: 0,
    open: Vec::new(),
    checks: Vec::new(),
    suspects: Vec::new(),
  };
  let (mut next_key, mut next_value) = (0, 0);
  let (mut inside_string, mut escape_carry, mut digit_carry) = (0u64, false, 0u64);
  let mut checked = CheckedKeys::new(from, reread_limit(bytes.len()));
  let mut base = from;
  while base < bytes.len() {
    let lanes = Lanes::load(&block_at(bytes, base)?);
    let escaped = escaped_bytes(lanes.equal(b'\\'), &mut escape_carry);
    // `\u` may spell any key's name, `\/` a name with a slash: keys are compared as written.
    if escaped != 0 && (lanes.equal(b'u') | lanes.equal(b'/')) & escaped != 0 {
      return None;
    }
    let outside = outside_strings(lanes.equal(b'"'), escaped, &mut inside_string);
    if counting {
      scan.nodes += u64::from((lanes.equal(b',') & outside).count_ones());
    }
    let opens = lanes.folded_equal(b'{') & outside;
    let mut brackets = opens | lanes.folded_equal(b'}') & outside;
    let end = (base + BLOCK).min(bytes.len());
    loop {
      let bracket = match brackets {
        0 => end,
        _ => base + brackets.trailing_zeros() as usize,
      };
      // The keys before the next bracket lie in the innermost open container.
      while keys
        .get(next_key)
        .is_some_and(|key| (key.quote as usize) < bracket)
      {
        let container = open.last_mut()?;
        container.holds = true;
        scan.containers.push(container.start);
        next_key += 1;
      }
      if brackets == 0 {
        break;
      }
      if opens & (1 << (bracket - base)) != 0 {
        if open.len() + 1 > MAX_QUERY_DEPTH {
          return None;
        }
        while keys
          .get(next_value)
          .is_some_and(|key| (key.value as usize) < bracket)
        {
          next_value += 1;
        }
        let key = match keys.get(next_value) {
          Some(key) if key.value as usize == bracket => (key_base + next_value) as u32,
          _ => NO_KEY,
        };
        open.push(Open {
          start: bracket as u32,
          key,
          holds: false,
        });
        if counting {
          let mut inner = bracket + 1;
          scan.nodes += u64::from(!close_if_empty(bytes, &mut inner));
        }
      } else {
        let closed = open.pop()?;
        if closed.key != NO_KEY {
          scan.ends.push((closed.key, bracket as u32 + 1));
        }
        let level = open.len() as u32;
        while checks.last().is_some_and(|&(object, _)| object == level) {
          let (_, value) = checks.pop()?;
          let object = closed.start..bracket as u32 + 1;
          let span = object.start as usize..object.end as usize;
          if !checked.found_once(bytes, value as usize, span)? {
            scan.suspects.push((object, value));
          }
        }
        if let Some(parent) = open.last_mut().filter(|_| closed.holds) {
          parent.holds = true;
          if parent.start != UNKNOWN && bytes.get(parent.start as usize) == Some(&b'{') {
            checks.push((level - 1, closed.start));
          }
        }
      }
      brackets &= brackets - 1;
    }
    check_block_numbers(bytes, base, &lanes, outside, u64::MAX, &mut digit_carry)?;
    base += BLOCK;
  }
  scan.open = open;
  scan.checks = checks;
  Some(scan)
}

/// The keys of the members [`scan_keys`] checks, and where each is found as a key.
///
/// A key is searched for in each object it is checked in, until it is checked a second time: it is then searched for
/// once in all the text the scan reads, and each check after counts the places found inside its object. In a long list
/// of objects that each hold a checked member (a customer in each order), one search of the text costs about half as
/// much as a search of each object (`memmem` spends more starting on a short text than reading it).
struct CheckedKeys {
  /// Where the scan starts: the places found cover the objects that start there or after.
  from: usize,
  keys: Vec<CheckedKey>,
  /// The bytes searched so far, and how many the scan may search: each check searches an object, and the objects of
  /// nested members that hold keys nest too. Past the limit (four times the text), a deep nest of them is left to
  /// the tape, which reads it once.
  searched: usize,
  limit: usize,
}

/// A key [`CheckedKeys`] checks: its text in quotes, whether it was checked before, and where it is found as a key
/// once it is checked again.
struct CheckedKey {
  finder: memmem::Finder<'static>,
  checked_before: bool,
  found: Option<Places>,
}

/// Where a key is found as a key, from the scan's start on, increasing; and the first of them at or after the start of
/// the last object counted (the objects of a list close one after the other, so the next count starts near it).
struct Places {
  at: Vec<u32>,
  cursor: usize,
}

impl CheckedKeys {
  fn new(from: usize, limit: usize) -> CheckedKeys {
    CheckedKeys {
      from,
      keys: Vec::new(),
      searched: 0,
      limit,
    }
  }

  /// Whether the key of the member whose value starts at `value` is found as a key nowhere else in the object spanning
  /// `object`, at any depth (where it is found again, the caller counts the object's own members); `None` when the key
  /// holds an escape, or the bytes searched pass the limit (each check counts its object, as if searched).
  fn found_once(&mut self, bytes: &[u8], value: usize, object: Range<usize>) -> Option<bool> {
    let key = self.key_before(bytes, value)?;
    self.searched += object.len();
    if self.searched > self.limit {
      return None;
    }
    let covered = object.start >= self.from;
    let text = self.from..bytes.len();
    let checked = &mut self.keys[key];
    if checked.found.is_none()
      && covered
      && checked.checked_before
      && self.searched + text.len() <= self.limit
    {
      self.searched += text.len();
      let at = keys_found(bytes, text, &checked.finder)
        .map(|(quote, _)| quote as u32)
        .collect();
      checked.found = Some(Places { at, cursor: 0 });
    }
    checked.checked_before = true;
    let len = checked.finder.needle().len();
    if let Some(places) = checked.found.as_mut().filter(|_| covered) {
      return Some(inside_once(&places.at, &mut places.cursor, len, object));
    }
    let mut found = keys_found(bytes, object, &checked.finder);
    Some(found.next().is_some() && found.next().is_none())
  }

  /// Which of the keys is the one before `value` (added when none is); `None` when that key holds an escape.
  fn key_before(&mut self, bytes: &[u8], value: usize) -> Option<usize> {
    // The same few keys are checked in object after object: compared where the key ends, as written.
    let close = key_closing_quote(bytes, value)?;
    let known = self.keys.iter().position(|key| {
      let needle = key.finder.needle();
      (close + 1)
        .checked_sub(needle.len())
        .and_then(|open| bytes.get(open..=close))
        .is_some_and(|written| written == needle)
    });
    if let Some(known) = known {
      // The needle holds no quote between its own: its first quote opens the key, unless a backslash escapes it.
      let open = close + 1 - self.keys[known].finder.needle().len();
      return (!after_backslash(bytes, open)).then_some(known);
    }
    let needle = &bytes[plain_key_before(bytes, value)?];
    self.keys.push(CheckedKey {
      finder: memmem::Finder::new(needle).into_owned(),
      checked_before: false,
      found: None,
    });
    Some(self.keys.len() - 1)
  }
}

/// Whether exactly one of `found` (places of a key `len` bytes long, increasing) lies wholly inside `object`; moves
/// `cursor` to the first place at or after its start.
fn inside_once(found: &[u32], cursor: &mut usize, len: usize, object: Range<usize>) -> bool {
  let mut at = (*cursor).min(found.len());
  while at > 0 && found[at - 1] as usize >= object.start {
    at -= 1;
  }
  while found
    .get(at)
    .is_some_and(|&place| (place as usize) < object.start)
  {
    at += 1;
  }
  *cursor = at;
  let inside = found[at..]
    .iter()
    .take_while(|&&place| place as usize + len <= object.end)
    .take(2)
    .count();
  inside == 1
}

/// Checks the numbers of the block at `base` serde_json may refuse: an exponent letter just after a digit (outside
/// strings, below `limit`'s bits), or a whole block of digits. `digit_carry`: the last byte of the block before was
/// a digit; set for the next block the same way. The digits are compared only in a block that may hold either: one
/// with an exponent letter outside strings, or none inside (most blocks of JSON text hold a string and no letter).
#[inline(always)]
fn check_block_numbers(
  bytes: &[u8],
  base: usize,
  lanes: &Lanes,
  outside: u64,
  limit: u64,
  digit_carry: &mut u64,
) -> Option<()> {
  let letters = lanes.folded_equal(b'e') & outside & limit;
  if letters != 0 || outside == u64::MAX {
    let digits = lanes.digits();
    let mut exponents = letters & (digits << 1 | *digit_carry);
    while exponents != 0 {
      check_number_around(bytes, base + exponents.trailing_zeros() as usize)?;
      exponents &= exponents - 1;
    }
    if digits & outside == u64::MAX {
      check_number_around(bytes, base)?;
    }
  }
  let last = bytes.get(base + BLOCK - 1);
  *digit_carry = u64::from(last.is_some_and(|&byte| byte.is_ascii_digit() || byte == b'.'));
  Some(())
}

/// The 64 bytes at `base`, blanks past the end of the text; `None` past it.
fn block_at(bytes: &[u8], base: usize) -> Option<[u8; BLOCK]> {
  match bytes.get(base..base + BLOCK) {
    Some(block) => block.try_into().ok(),
    None => {
      let tail = bytes.get(base..).filter(|tail| !tail.is_empty())?;
      let mut block = [b' '; BLOCK];
      block[..tail.len()].copy_from_slice(tail);
      Some(block)
    }
  }
}

/// `None` when the number holding the byte at `at` is one serde_json refuses.
fn check_number_around(bytes: &[u8], at: usize) -> Option<()> {
  let start = bytes[..at]
    .iter()
    .rposition(|b| !matches!(b, b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E'))
    .map_or(0, |before| before + 1);
  past_number(bytes, start).map(drop)
}

#[cfg(test)]
mod checked_tests {
  use super::inside_once;

  #[test]
  fn a_place_counts_inside_an_object_when_its_key_ends_there() {
    let found = [10, 40, 45, 90];
    let mut cursor = 0;
    assert!(inside_once(&found, &mut cursor, 5, 0..20));
    assert_eq!(cursor, 0);
    assert!(!inside_once(&found, &mut cursor, 5, 30..60));
    assert_eq!(cursor, 1);
    // Back to an object that starts before the last one (an outer object closes after its inner ones).
    assert!(!inside_once(&found, &mut cursor, 5, 5..100));
    assert_eq!(cursor, 0);
    assert!(inside_once(&found, &mut cursor, 5, 42..94));
    assert_eq!(cursor, 2);
    // A key that runs past the object's end is not inside it.
    assert!(!inside_once(&found, &mut cursor, 5, 86..94));
    assert!(inside_once(&found, &mut cursor, 5, 86..95));
    assert!(!inside_once(&found, &mut cursor, 5, 96..120));
    assert_eq!(cursor, 4);
  }
}
