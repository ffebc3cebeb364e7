//! Member keys on the tape: a key decoded as `JSON.parse` reads it, and the repeated-key check that sends an object
//! holding one key twice to the full read.

use std::borrow::Cow;

use super::Entry;
use crate::core::json::decode::decode_str;

/// Objects with more members than this are checked for repeated keys with a hash set, smaller ones pairwise.
const PAIRWISE_KEYS: usize = 32;

/// A key as `JSON.parse` reads it.
pub(super) fn decode_key(raw: &str, escaped: bool) -> Cow<'_, str> {
  if !escaped {
    return Cow::Borrowed(raw);
  }
  // The scanner checked the escapes and there is no lone surrogate, so this decodes.
  decode_str(raw).unwrap_or(Cow::Borrowed(raw))
}

/// A 64-bit sketch of a raw key (length, first and last byte): two keys with different bits differ.
pub(super) fn key_bit(key: &[u8]) -> u64 {
  let hash = key.len()
    ^ key.first().map_or(0, |&b| usize::from(b) * 7)
    ^ key.last().map_or(0, |&b| usize::from(b) * 31);
  1u64 << (hash % 64)
}

/// Whether the object at `at` (closed) holds a key twice.
pub(super) fn has_repeated_key(bytes: &[u8], entries: &[Entry], at: usize) -> bool {
  let object = &entries[at];
  if object.count < 2 {
    return false;
  }
  let members = || {
    let mut child = at + 1;
    std::iter::from_fn(move || {
      let entry = entries
        .get(child)
        .filter(|_| child < object.next as usize)?;
      child = entry.next as usize;
      Some(entry)
    })
  };
  let raw = |entry: &Entry| entry.key(bytes);
  if members().any(|entry| entry.key_escaped) {
    // Escapes spell one key several ways: compare what they decode to.
    let mut seen = std::collections::HashSet::with_capacity(object.count as usize);
    return !members().all(|entry| {
      let text = std::str::from_utf8(raw(entry)).unwrap_or_default();
      seen.insert(decode_key(text, entry.key_escaped).into_owned())
    });
  }
  if object.count as usize <= PAIRWISE_KEYS {
    // A 64-bit sketch of each key (length, first and last byte) clears almost every object without comparing
    // keys; only a clash in the sketch compares them pairwise.
    let mut sketch = 0u64;
    let clash = members().any(|entry| {
      let bit = key_bit(raw(entry));
      let seen = sketch & bit != 0;
      sketch |= bit;
      seen
    });
    return clash
      && members()
        .enumerate()
        .any(|(i, entry)| members().skip(i + 1).any(|other| raw(other) == raw(entry)));
  }
  let mut seen = std::collections::HashSet::with_capacity(object.count as usize);
  !members().all(|entry| seen.insert(raw(entry)))
}
