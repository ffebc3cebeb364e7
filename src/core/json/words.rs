//! Eight bytes at a time: the word tests the scanner, the decoder and the fit's comparison use to pass over runs
//! of plain string content. Runs between a JSON string's escapes and quotes are short, where one `memchr` call per
//! run costs more (the fit's comparison of a repeating text measured about 1.6× slower that way); `memchr` takes
//! over once a run is long.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `bytes[at..]`, little-endian (the first byte lowest); `None` when fewer are left.
#[inline]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
  let eight: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
  Some(u64::from_le_bytes(eight))
}

/// The high bit of each zero byte of `x` (and possibly of bytes after one; never of none when there is one).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
  x.wrapping_sub(ONES) & !x & HIGHS
}

/// The high bit of each byte of `word` that is `byte` (and possibly of bytes after one; its lowest is exact).
#[inline(always)]
pub(crate) fn bytes_equal(word: u64, byte: u8) -> u64 {
  zero_bytes(word ^ (ONES * u64::from(byte)))
}

/// The high bit of each control character (below 0x20) of `word` (and possibly of bytes after one; its lowest is
/// exact): the classic "has a byte below n" test, as a mask.
#[inline(always)]
pub(crate) fn control_bytes(word: u64) -> u64 {
  word.wrapping_sub(ONES * 0x20) & !word & HIGHS
}

/// Whether any of the eight bytes of `word` is `byte`.
pub(crate) fn has_byte(word: u64, byte: u8) -> bool {
  bytes_equal(word, byte) != 0
}

/// The index (0 to 7) of the first of the eight bytes of `word` that is `byte`; 8 when none is. Exact: a false
/// alarm of the zero-byte test only ever follows a true zero byte.
#[inline]
pub(crate) fn first_byte(word: u64, byte: u8) -> usize {
  (bytes_equal(word, byte).trailing_zeros() / 8) as usize
}

/// The index (0 to 7) of the first byte where two words differ; 8 when they are equal.
#[inline]
pub(crate) fn first_difference(a: u64, b: u64) -> usize {
  ((a ^ b).trailing_zeros() / 8) as usize
}

/// Whether any of the eight bytes of `word` may end a run of string content: a quote, a backslash or a control
/// character. A `true` can be a false alarm (a byte loop then decides); a `false` never misses one. Each test is
/// skipped once one has found one.
#[inline(always)]
pub(crate) fn may_stop_string(word: u64) -> bool {
  has_byte(word, b'"') || has_byte(word, b'\\') || control_bytes(word) != 0
}

/// Where the first `byte` at or after `from` is, or `bytes.len()`.
pub(crate) fn find_byte(bytes: &[u8], from: usize, byte: u8) -> usize {
  let mut at = from;
  while let Some(word) = word_at(bytes, at) {
    let first = first_byte(word, byte);
    if first < 8 {
      return at + first;
    }
    at += 8;
    if at - from >= 32 {
      return memchr::memchr(byte, &bytes[at..]).map_or(bytes.len(), |found| at + found);
    }
  }
  bytes
    .get(at..)
    .and_then(|rest| rest.iter().position(|&b| b == byte))
    .map_or(bytes.len(), |found| at + found)
}

/// Where the first quote or backslash at or after `from` is (the end of a run of string content, control
/// characters aside), or `None`. Word by word first, then `memchr2` once the run is long.
pub(crate) fn find_quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
  let mut at = from;
  while let Some(word) = word_at(bytes, at) {
    // Exact: each test's false alarms only follow its own true zero byte, so the lowest bit of either is true.
    let stops = bytes_equal(word, b'"') | bytes_equal(word, b'\\');
    if stops != 0 {
      return Some(at + (stops.trailing_zeros() / 8) as usize);
    }
    at += 8;
    if at - from >= 32 {
      return memchr::memchr2(b'"', b'\\', bytes.get(at..)?).map(|found| at + found);
    }
  }
  let rest = bytes.get(at..)?;
  rest
    .iter()
    .position(|&b| b == b'"' || b == b'\\')
    .map(|found| at + found)
}
