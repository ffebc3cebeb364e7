//! The certified pass 64 bytes at a time, past the first [`super::BYTEWISE_FIRST`] bytes of a container
//! (simdjson's first stage, reduced to what the pass needs). Each block is compared with SSE2 (in every x86_64, so
//! no runtime detection; through `safe_arch`, as the engine forbids `unsafe`) into one bit per byte for quotes,
//! backslashes, brackets, commas, digits and exponent letters; the bits inside strings are cleared with a prefix
//! XOR of the unescaped quotes; then only brackets are visited one by one (for the depth, the nesting bound and the
//! empty containers), commas are counted with a popcount, and only a number that may be refused (one with an
//! exponent, or one filling a whole block) is read byte by byte. A block inside a long string with no quote or
//! backslash is skipped after two compares. It counts what [`super::scan_bytewise`] counts; the tests hold it to
//! that.

use super::{close_if_empty, past_number, Scan};
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
    let inside = prefix_xor(quotes & !escaped) ^ inside_string;
    inside_string = ((inside as i64) >> 63) as u64;
    let outside = !inside;
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
    // Numbers serde_json may refuse: an exponent letter just after a digit, or a whole block of digits.
    let digits = lanes.digits();
    let mut exponents = lanes.folded_equal(b'e') & outside & limit & (digits << 1 | digit_carry);
    digit_carry = digits >> 63;
    while exponents != 0 {
      check_number_around(bytes, base + exponents.trailing_zeros() as usize)?;
      exponents &= exponents - 1;
    }
    if digits & outside == u64::MAX {
      check_number_around(bytes, base)?;
    }
    if scan.depth == 0 {
      return Some(());
    }
    base += BLOCK;
  }
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
