//! The sealed path indexes of recent answers, kept in this process beside a store across the network (or a file), so
//! that a read through the index (a singular path, a query's first steps) costs one round trip, not two.
//!
//! Only the sealed records are kept, byte for byte as the store holds them: nothing here is readable without the
//! keys a handle and its owner derive, and every read still opens the record (a few microseconds). An index never
//! changes once saved (a handle is written once), so a kept copy is never stale; a record that expired or was
//! removed meanwhile reads as missing, because every read through the index also reads the record. Bounded: at most
//! [`MAX_INDEXES`] records and [`MAX_BYTES`] in all, least recently used first out, each for at most the store's
//! TTL.

use std::time::{Duration, Instant};

use crate::core::recent::{RecentlyUsed, Weighed};

/// Sealed indexes kept per store.
pub(crate) const MAX_INDEXES: usize = 256;
/// Bytes kept per store, all indexes together (a 50 MB list's index is about 64 KiB).
pub(crate) const MAX_BYTES: usize = 8 << 20;
/// A sealed index larger than this is not kept (it would push out too many others).
const MAX_ONE: usize = MAX_BYTES / 16;

#[derive(Clone)]
struct Kept {
  sealed: Vec<u8>,
  until: Instant,
}

impl Weighed for Kept {
  fn weight(&self) -> usize {
    self.sealed.len()
  }
}

/// The sealed indexes kept for one store, by their full storage key.
pub(crate) struct NearIndexes {
  recent: RecentlyUsed<String, Kept>,
  lifetime: Duration,
}

impl NearIndexes {
  /// Keeps each index for at most `ttl_seconds` (the store's TTL: a record saved now expires no later).
  pub(crate) fn new(ttl_seconds: u64) -> Self {
    Self {
      recent: RecentlyUsed::new(MAX_INDEXES, MAX_BYTES, MAX_ONE),
      lifetime: Duration::from_secs(ttl_seconds),
    }
  }

  /// A copy of the sealed index kept under `key` (marked most recently used), unless it has outlived the TTL.
  pub(crate) fn get(&self, key: &str) -> Option<Vec<u8>> {
    let kept = self.recent.get(|kept| kept == key)?;
    if kept.until <= Instant::now() {
      self.recent.remove(&key.to_string());
      return None;
    }
    Some(kept.sealed)
  }

  /// Keeps `sealed` under `key`, dropping the least recently used past the bounds.
  pub(crate) fn put(&self, key: &str, sealed: Vec<u8>) {
    let kept = Kept {
      sealed,
      until: Instant::now() + self.lifetime,
    };
    self.recent.put(key.to_string(), kept);
  }

  /// Forgets the index kept under `key`.
  pub(crate) fn remove(&self, key: &str) {
    self.recent.remove(&key.to_string());
  }

  /// Indexes kept now.
  #[cfg(test)]
  pub(crate) fn len(&self) -> usize {
    self.recent.len()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn keeps_the_most_recently_used_within_both_bounds() {
    let near = NearIndexes::new(60);
    for i in 0..MAX_INDEXES + 10 {
      near.put(&format!("k{i}"), vec![i as u8; 16]);
    }
    assert_eq!(near.len(), MAX_INDEXES);
    assert_eq!(near.get("k0"), None, "the oldest went first");
    assert_eq!(near.get("k10"), Some(vec![10; 16]));

    // k10 was just used: older ones go first when large records come in, by count and then by bytes.
    let large = vec![7u8; MAX_ONE];
    for i in 0..15 {
      near.put(&format!("large{i}"), large.clone());
    }
    assert_eq!(near.len(), MAX_INDEXES);
    assert_eq!(near.get("k25"), None);
    assert!(near.get("k10").is_some() && near.get("k26").is_some());
    // Over the bytes: the small ones not used since go, then the oldest large one; k10 and k26 were just used.
    near.put("large15", large);
    assert_eq!(near.len(), 17);
    assert_eq!(near.get("large0"), None);
    assert!(near.get("k10").is_some() && near.get("k26").is_some() && near.get("large1").is_some());
  }

  #[test]
  fn leaves_out_a_record_too_large_and_forgets_a_removed_one() {
    let near = NearIndexes::new(60);
    near.put("huge", vec![1u8; MAX_ONE + 1]);
    assert_eq!(near.get("huge"), None);
    near.put("k", b"sealed".to_vec());
    near.put("k", b"sealed again".to_vec());
    assert_eq!(near.len(), 1);
    assert_eq!(near.get("k").as_deref(), Some(&b"sealed again"[..]));
    near.remove("k");
    assert_eq!(near.get("k"), None);
  }

  #[test]
  fn an_index_kept_past_the_ttl_is_gone() {
    let near = NearIndexes::new(0);
    near.put("k", b"sealed".to_vec());
    assert_eq!(near.get("k"), None);
    assert_eq!(near.len(), 0);
  }
}
