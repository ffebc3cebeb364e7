//! A small pool of emptied vectors, so that a query's large scratch lists land in pages already mapped.
//!
//! A list of a few MB is served by the allocator with a fresh `mmap`: every 4 KiB page written then costs a page
//! fault and the kernel zeroing it. Measured on the 1 MB orders answer (`query::tests::profile`,
//! `PROFILE_STORED=1`): `$..tags[2]`, whose tape lists every value, took about 255 minor faults per query, 2 800
//! at 10 MB, where the filter and wildcard queries (whose tapes stop three levels down) took almost none.

use std::sync::Mutex;

/// Emptied vectors kept for the next query: at most `max_lists` of them and `max_bytes` of capacity in all.
/// Taking from an empty pool allocates as before, so queries running at once never wait on each other.
pub(crate) struct WarmPool<T> {
  lists: Mutex<Vec<Vec<T>>>,
  max_lists: usize,
  max_bytes: usize,
}

impl<T> WarmPool<T> {
  pub(crate) const fn new(max_lists: usize, max_bytes: usize) -> Self {
    WarmPool {
      lists: Mutex::new(Vec::new()),
      max_lists,
      max_bytes,
    }
  }

  /// An empty vector with room for at least `capacity` items: the smallest kept one that has it, else a new one.
  pub(crate) fn take(&self, capacity: usize) -> Vec<T> {
    let mut lists = self.lists.lock().unwrap_or_else(|e| e.into_inner());
    let fitting = lists
      .iter()
      .enumerate()
      .filter(|(_, list)| list.capacity() >= capacity)
      .min_by_key(|(_, list)| list.capacity())
      .map(|(at, _)| at);
    match fitting {
      Some(at) => lists.swap_remove(at),
      None => Vec::with_capacity(capacity),
    }
  }

  /// Keeps `list`, emptied (its items are dropped here, so none outlives the query that wrote it), dropping the
  /// smallest kept lists while the pool is over its bounds.
  pub(crate) fn give(&self, mut list: Vec<T>) {
    list.clear();
    if bytes_of(&list) > self.max_bytes || list.capacity() == 0 {
      return;
    }
    let mut lists = self.lists.lock().unwrap_or_else(|e| e.into_inner());
    lists.push(list);
    while lists.len() > self.max_lists || lists.iter().map(bytes_of).sum::<usize>() > self.max_bytes
    {
      let smallest = lists
        .iter()
        .enumerate()
        .min_by_key(|(_, list)| list.capacity())
        .map(|(at, _)| at);
      match smallest {
        Some(at) => drop(lists.swap_remove(at)),
        None => break,
      }
    }
  }

  /// Capacity kept, in bytes.
  #[cfg(test)]
  pub(crate) fn kept_bytes(&self) -> usize {
    let lists = self.lists.lock().unwrap_or_else(|e| e.into_inner());
    lists.iter().map(bytes_of).sum()
  }
}

fn bytes_of<T>(list: &Vec<T>) -> usize {
  list.capacity().saturating_mul(std::mem::size_of::<T>())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn keeps_within_its_bounds() {
    let pool = WarmPool::<u64>::new(2, 1024);
    pool.give(Vec::with_capacity(200)); // 1 600 bytes: more than the pool keeps
    assert_eq!(pool.kept_bytes(), 0);
    pool.give(Vec::with_capacity(10));
    pool.give(Vec::with_capacity(50));
    pool.give(Vec::with_capacity(40)); // a third list: the smallest goes
    assert_eq!(pool.kept_bytes(), (50 + 40) * 8);
    pool.give(Vec::with_capacity(100)); // 90 + 100 items are over 1 024 bytes: the smallest go
    assert_eq!(pool.kept_bytes(), 100 * 8);
  }

  #[test]
  fn hands_out_the_smallest_that_fits_and_empty() {
    let pool = WarmPool::<u8>::new(4, 1 << 20);
    pool.give(vec![7u8; 300]);
    pool.give(vec![9u8; 100]);
    let taken = pool.take(50);
    assert!(taken.is_empty());
    assert_eq!(taken.capacity(), 100);
    let fresh = pool.take(1000); // nothing kept fits: a new one, the kept one stays
    assert!(fresh.capacity() >= 1000 && fresh.is_empty());
    assert_eq!(pool.kept_bytes(), 300);
  }
}
