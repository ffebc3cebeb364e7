//! A short list of what the engine keeps between calls (the match spans of recent queries, the sealed indexes kept
//! beside a remote store): least recently used first out, bounded by entries and by a weight in all, one lock.

use std::collections::VecDeque;
use std::sync::Mutex;

/// How much of a list's weight bound a value takes (matches, bytes).
pub(crate) trait Weighed {
  fn weight(&self) -> usize;
}

/// Values under keys, most recently used last, within `max_entries` and `max_weight` in all; a value weighing more
/// than `max_one` is not kept.
pub(crate) struct RecentlyUsed<K, V> {
  entries: Mutex<VecDeque<(K, V)>>,
  max_entries: usize,
  max_weight: usize,
  max_one: usize,
}

impl<K: PartialEq, V: Weighed + Clone> RecentlyUsed<K, V> {
  pub(crate) const fn new(max_entries: usize, max_weight: usize, max_one: usize) -> Self {
    Self {
      entries: Mutex::new(VecDeque::new()),
      max_entries,
      max_weight,
      max_one,
    }
  }

  /// The value of the entry whose key `is_key` picks (a key made of borrowed parts needs no copy), marked most
  /// recently used.
  pub(crate) fn get(&self, is_key: impl Fn(&K) -> bool) -> Option<V> {
    let mut entries = self.entries.lock().ok()?;
    let at = entries.iter().position(|(key, _)| is_key(key))?;
    let entry = entries.remove(at)?;
    let value = entry.1.clone();
    entries.push_back(entry);
    Some(value)
  }

  /// Keeps `value` under `key` (in place of what it held), dropping the least recently used past the bounds.
  pub(crate) fn put(&self, key: K, value: V) {
    if value.weight() > self.max_one {
      return;
    }
    let Ok(mut entries) = self.entries.lock() else {
      return;
    };
    entries.retain(|(kept, _)| *kept != key);
    entries.push_back((key, value));
    let mut total: usize = entries.iter().map(|(_, value)| value.weight()).sum();
    while entries.len() > self.max_entries || total > self.max_weight {
      let Some((_, dropped)) = entries.pop_front() else {
        break;
      };
      total -= dropped.weight();
    }
  }

  /// Forgets what `key` held.
  pub(crate) fn remove(&self, key: &K) {
    if let Ok(mut entries) = self.entries.lock() {
      entries.retain(|(kept, _)| kept != key);
    }
  }

  /// Entries kept now.
  #[cfg(test)]
  pub(crate) fn len(&self) -> usize {
    self
      .entries
      .lock()
      .map(|entries| entries.len())
      .unwrap_or(0)
  }
}
