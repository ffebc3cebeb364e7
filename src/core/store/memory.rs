//! `memory`: a bounded map in this process. Oldest entries are dropped past `maxEntries` or `maxBytes`; expired
//! entries are never returned and are swept on every operation (an expiry index keeps that O(expired · log n)).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::{closed_error, Backend, BoxFuture};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::store::config::MemoryConfig;

struct Entry {
  value: Vec<u8>,
  seq: u64,
  expires_at: Instant,
}

#[derive(Default)]
struct State {
  closed: bool,
  entries: HashMap<String, Entry>,
  /// Insertion order: the oldest entry has the smallest sequence number.
  order: BTreeMap<u64, String>,
  /// Expiry order.
  expiry: BTreeSet<(Instant, u64)>,
  bytes: u64,
  next_seq: u64,
  /// Answers let go (replaced, expired, evicted, deleted), freed once the lock is released (see [`release`]).
  released: Vec<Vec<u8>>,
}

impl State {
  fn remove(&mut self, key: &str) -> bool {
    match self.entries.remove(key) {
      Some(entry) => {
        self.order.remove(&entry.seq);
        self.expiry.remove(&(entry.expires_at, entry.seq));
        self.bytes -= (key.len() + entry.value.len()) as u64;
        self.released.push(entry.value);
        true
      }
      None => false,
    }
  }

  fn sweep(&mut self, now: Instant) {
    while let Some(&(at, seq)) = self.expiry.first() {
      if at > now {
        break;
      }
      match self.order.get(&seq).cloned() {
        Some(key) => {
          self.remove(&key);
        }
        None => {
          self.expiry.pop_first();
        }
      }
    }
  }

  fn live(&self, key: &str, now: Instant) -> Option<&Entry> {
    self.entries.get(key).filter(|entry| entry.expires_at > now)
  }
}

/// The store's state while its lock is held; answers it let go are freed after the lock is released.
struct Locked<'a>(Option<MutexGuard<'a, State>>);

impl Deref for Locked<'_> {
  type Target = State;

  fn deref(&self) -> &State {
    self
      .0
      .as_deref()
      .unwrap_or_else(|| unreachable!("held until dropped"))
  }
}

impl DerefMut for Locked<'_> {
  fn deref_mut(&mut self) -> &mut State {
    self
      .0
      .as_deref_mut()
      .unwrap_or_else(|| unreachable!("held until dropped"))
  }
}

impl Drop for Locked<'_> {
  fn drop(&mut self) {
    let released = self
      .0
      .as_mut()
      .map(|state| std::mem::take(&mut state.released));
    drop(self.0.take());
    release(released.unwrap_or_default());
  }
}

/// Answers at least this large are freed on tokio's blocking pool.
const FREE_ELSEWHERE_BYTES: usize = 1 << 20;

/// Frees answers the store let go. A read or write may run in a first poll on the JS thread (the binding's
/// `FirstPoll::Here`), and freeing a large answer unmaps its pages (about a millisecond for 50 MB): where a runtime
/// is at hand, a large one is freed on its blocking pool.
fn release(values: Vec<Vec<u8>>) {
  if values
    .iter()
    .all(|value| value.len() < FREE_ELSEWHERE_BYTES)
  {
    return;
  }
  if let Ok(runtime) = tokio::runtime::Handle::try_current() {
    drop(runtime.spawn_blocking(move || drop(values)));
  }
}

/// The in-process backend.
pub struct MemoryBackend {
  config: MemoryConfig,
  state: Mutex<State>,
}

impl MemoryBackend {
  pub fn new(config: MemoryConfig) -> Self {
    Self {
      config,
      state: Mutex::new(State::default()),
    }
  }

  fn state(&self) -> Locked<'_> {
    // A panic while holding the lock leaves the maps consistent (every mutation completes or none starts).
    let guard = self
      .state
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    Locked(Some(guard))
  }

  /// Every live entry as stored (key, value): for tests that inspect what the store holds.
  pub fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
    let mut state = self.state();
    state.sweep(Instant::now());
    state
      .entries
      .iter()
      .map(|(k, e)| (k.clone(), e.value.clone()))
      .collect()
  }

  /// Number of entries held (expired ones swept first).
  pub fn len(&self) -> usize {
    let mut state = self.state();
    state.sweep(Instant::now());
    state.entries.len()
  }

  /// True when nothing is held.
  pub fn is_empty(&self) -> bool {
    self.len() == 0
  }

  /// Bytes held: keys plus values.
  pub fn bytes(&self) -> u64 {
    let mut state = self.state();
    state.sweep(Instant::now());
    state.bytes
  }

  fn open_state(&self) -> CoreResult<Locked<'_>> {
    let state = self.state();
    if state.closed {
      return Err(closed_error());
    }
    Ok(state)
  }

  fn get_now(&self, key: &str) -> CoreResult<Option<Vec<u8>>> {
    let now = Instant::now();
    let mut state = self.open_state()?;
    state.sweep(now);
    Ok(state.live(key, now).map(|entry| entry.value.clone()))
  }

  /// Bytes `[start, end)` of each range of one live value (clamped), under one lock; all empty when missing.
  fn get_ranges_now<const N: usize>(
    &self,
    key: &str,
    ranges: [(u64, u64); N],
  ) -> CoreResult<[Vec<u8>; N]> {
    let now = Instant::now();
    let mut state = self.open_state()?;
    state.sweep(now);
    let value = state.live(key, now).map(|entry| entry.value.as_slice());
    Ok(ranges.map(|(start, end)| match value {
      Some(value) => {
        let len = value.len() as u64;
        let from = start.min(len);
        value[from as usize..end.clamp(from, len) as usize].to_vec()
      }
      None => Vec::new(),
    }))
  }

  fn set_now(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> CoreResult<()> {
    let size = (key.len() + value.len()) as u64;
    if let Some(max) = self.config.max_bytes {
      if size > max {
        return Err(
          CoreError::new(
            ErrorCode::StoreWriteFailed,
            "The answer is larger than the memory store's maxBytes.",
          )
          .with_remedy("Raise storage.memory.maxBytes, or use a store that keeps larger answers."),
        );
      }
    }
    let now = Instant::now();
    let expires_at = now
      .checked_add(Duration::from_secs(ttl_seconds))
      .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365 * 100));
    let mut state = self.open_state()?;
    state.sweep(now);
    state.remove(&key);
    let seq = state.next_seq;
    state.next_seq += 1;
    state.order.insert(seq, key.clone());
    state.expiry.insert((expires_at, seq));
    state.bytes += size;
    state.entries.insert(
      key,
      Entry {
        value,
        seq,
        expires_at,
      },
    );
    // Drop the oldest until both caps hold (the new entry alone always fits).
    loop {
      let over_entries =
        self.config.max_entries > 0 && state.entries.len() > self.config.max_entries;
      let over_bytes = self.config.max_bytes.is_some_and(|max| state.bytes > max);
      if !(over_entries || over_bytes) {
        break;
      }
      let Some((_, oldest)) = state.order.first_key_value().map(|(s, k)| (*s, k.clone())) else {
        break;
      };
      state.remove(&oldest);
    }
    Ok(())
  }
}

impl Backend for MemoryBackend {
  fn kind(&self) -> &'static str {
    "memory"
  }
  fn in_process(&self) -> bool {
    true
  }

  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    Box::pin(async move { self.get_now(&key) })
  }

  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    Box::pin(async move {
      let [range] = self.get_ranges_now(&key, [(start, end)])?;
      Ok(range)
    })
  }

  fn get_head_and_range(
    &self,
    key: String,
    head: u64,
    start: u64,
    end: u64,
  ) -> BoxFuture<'_, CoreResult<(Vec<u8>, Vec<u8>)>> {
    Box::pin(async move {
      let [head, range] = self.get_ranges_now(&key, [(0, head), (start, end)])?;
      Ok((head, range))
    })
  }

  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move { self.set_now(key, value, ttl_seconds) })
  }

  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    Box::pin(async move {
      let mut state = self.open_state()?;
      state.sweep(Instant::now());
      Ok(state.remove(&key))
    })
  }

  fn close(&self) -> BoxFuture<'_, ()> {
    Box::pin(async move {
      let mut state = self.state();
      *state = State {
        closed: true,
        ..State::default()
      };
    })
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn store(max_entries: usize, max_bytes: Option<u64>) -> MemoryBackend {
    MemoryBackend::new(MemoryConfig {
      max_entries,
      max_bytes,
    })
  }

  #[tokio::test]
  async fn caps_by_entries_drop_the_oldest() {
    let memory = store(3, None);
    for i in 0..5 {
      memory
        .set(format!("k{i}"), vec![i as u8; 10], 60)
        .await
        .unwrap();
    }
    assert_eq!(memory.len(), 3);
    assert_eq!(memory.get("k0".into()).await.unwrap(), None);
    assert_eq!(memory.get("k1".into()).await.unwrap(), None);
    assert_eq!(memory.get("k4".into()).await.unwrap(), Some(vec![4; 10]));
    // Rewriting a key makes it the newest.
    memory.set("k2".into(), vec![9], 60).await.unwrap();
    memory.set("k5".into(), vec![5], 60).await.unwrap();
    assert_eq!(memory.get("k3".into()).await.unwrap(), None);
    assert_eq!(memory.get("k2".into()).await.unwrap(), Some(vec![9]));
  }

  #[tokio::test]
  async fn answers_let_go_are_freed_once_the_lock_is_released() {
    let memory = store(1, None);
    memory
      .set("big".into(), vec![7; 2 << 20], 60)
      .await
      .unwrap();
    memory.set("small".into(), vec![1; 10], 60).await.unwrap(); // evicts the big one
    memory.set("small".into(), vec![2; 10], 60).await.unwrap(); // replaces the small one
    assert!(memory.state().released.is_empty());
    assert_eq!(memory.get("big".into()).await.unwrap(), None);
    assert_eq!(memory.get("small".into()).await.unwrap(), Some(vec![2; 10]));
    assert_eq!(memory.bytes(), ("small".len() + 10) as u64);
  }

  #[tokio::test]
  async fn caps_by_bytes() {
    let memory = store(0, Some(100));
    for i in 0..10 {
      memory.set(format!("k{i}"), vec![0; 38], 60).await.unwrap(); // 40 bytes each with the key
    }
    assert_eq!(memory.len(), 2);
    assert!(memory.bytes() <= 100);
    assert!(memory.get("k9".into()).await.unwrap().is_some());
    assert!(memory.get("k7".into()).await.unwrap().is_none());
    let error = memory
      .set("big".into(), vec![0; 200], 60)
      .await
      .unwrap_err();
    assert_eq!(error.code, ErrorCode::StoreWriteFailed);
    assert_eq!(memory.len(), 2, "a refused value evicts nothing");
  }

  #[tokio::test]
  async fn no_limit_with_zero() {
    let memory = store(0, None);
    for i in 0..2500 {
      memory.set(format!("k{i}"), vec![1], 60).await.unwrap();
    }
    assert_eq!(memory.len(), 2500);
  }

  #[tokio::test]
  async fn expired_entries_are_not_returned_and_are_swept() {
    let memory = store(10, None);
    memory.set("short".into(), vec![1; 5], 0).await.unwrap();
    memory.set("long".into(), vec![2; 5], 60).await.unwrap();
    assert_eq!(memory.get("short".into()).await.unwrap(), None);
    assert!(memory
      .get_range("short".into(), 0, 5)
      .await
      .unwrap()
      .is_empty());
    assert_eq!(memory.len(), 1);
    assert_eq!(memory.bytes(), 9);
    assert_eq!(
      memory.get_range("long".into(), 1, 3).await.unwrap(),
      vec![2, 2]
    );
    assert_eq!(
      memory.get_range("long".into(), 4, 100).await.unwrap(),
      vec![2]
    );
    assert!(memory
      .get_range("long".into(), 9, 100)
      .await
      .unwrap()
      .is_empty());
    assert!(memory.delete("long".into()).await.unwrap());
    assert!(memory.is_empty());
  }
}
