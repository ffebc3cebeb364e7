//! A memory backend that counts what store calls cost: backend calls (each a round trip on a remote store) and the
//! bytes handed out. For tests of how much a read fetches; compiled for tests only.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::config::MemoryConfig;
use super::memory::MemoryBackend;
use super::{Backend, BoxFuture, HandleStore};
use crate::core::error::CoreResult;

/// The memory backend, counting.
pub(crate) struct Counting {
  pub(crate) inner: MemoryBackend,
  /// Calls to `get`, `get_range` and `get_head_and_range` (one round trip each).
  pub(crate) calls: AtomicU64,
  /// Bytes handed out.
  pub(crate) fetched: AtomicU64,
  /// Reads under way now, and the most that were at once (each read yields once, so reads polled together meet).
  in_flight: AtomicU64,
  pub(crate) most_in_flight: AtomicU64,
}

impl Counting {
  /// A store over a counting memory backend (100 entries at most), and the backend.
  pub(crate) fn store() -> (Arc<Counting>, HandleStore) {
    let backend = Arc::new(Counting {
      inner: MemoryBackend::new(MemoryConfig {
        max_entries: 100,
        max_bytes: None,
      }),
      calls: AtomicU64::new(0),
      fetched: AtomicU64::new(0),
      in_flight: AtomicU64::new(0),
      most_in_flight: AtomicU64::new(0),
    });
    let store = backend.another_store();
    (backend, store)
  }

  /// A store over this backend with nothing kept in process yet, as another process sees the backend.
  pub(crate) fn another_store(self: &Arc<Self>) -> HandleStore {
    HandleStore::with_backend(self.clone(), "", "rh", 60, None).unwrap()
  }

  /// The calls since the last time this was asked.
  pub(crate) fn take_calls(&self) -> u64 {
    self.calls.swap(0, Ordering::Relaxed)
  }

  /// Runs one read, counting it while it is under way.
  async fn reading<T>(&self, read: impl std::future::Future<Output = T>) -> T {
    let now = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
    self.most_in_flight.fetch_max(now, Ordering::Relaxed);
    tokio::task::yield_now().await;
    let value = read.await;
    self.in_flight.fetch_sub(1, Ordering::Relaxed);
    value
  }

  fn counted(&self, bytes: usize) {
    self.calls.fetch_add(1, Ordering::Relaxed);
    self.fetched.fetch_add(bytes as u64, Ordering::Relaxed);
  }
}

impl Backend for Counting {
  fn kind(&self) -> &'static str {
    "memory"
  }
  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    Box::pin(async move {
      let value = self.reading(self.inner.get(key)).await?;
      self.counted(value.as_ref().map_or(0, Vec::len));
      Ok(value)
    })
  }
  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    Box::pin(async move {
      let value = self.reading(self.inner.get_range(key, start, end)).await?;
      self.counted(value.len());
      Ok(value)
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
      let read = self.inner.get_head_and_range(key, head, start, end);
      let (head, range) = self.reading(read).await?;
      self.counted(head.len() + range.len());
      Ok((head, range))
    })
  }
  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    self.inner.set(key, value, ttl_seconds)
  }
  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    self.inner.delete(key)
  }
  fn close(&self) -> BoxFuture<'_, ()> {
    self.inner.close()
  }
}
