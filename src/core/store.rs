//! The handle store: sealed records kept in a backend under `namespace:` + hex storage key.
//!
//! The backend never sees a handle, a session, a subject or a plaintext: only the storage key (HKDF output) and the
//! sealed record. Missing, expired, foreign (another owner derives another key) and tampered records all read as
//! `None` through the same path. Backend failures are coded errors (`RESULT_STORE_UNAVAILABLE`,
//! `RESULT_STORE_WRITE_FAILED`) that arrive within [`OPERATION_TIMEOUT`], never a hang, and at once while the
//! backend is known to be unreachable ([`breaker`]).

pub mod breaker;
pub mod config;
#[cfg(test)]
pub(crate) mod counting;
pub mod memory;
mod near_indexes;
pub mod redis;
pub mod redis_cluster;
pub mod rest;
pub mod sqlite;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::options::StoreSettings;
use crate::core::query::index::{recorded_arrays, BuiltIndex};
pub use crate::core::seal::Owner;
use crate::core::seal::{
  self, RecordHeader, RecordKeys, ServerSecret, CHUNK_SIZE, HEADER_LEN, TAG_LEN,
};
use breaker::{Breaker, Health, Listener};
use config::{BackendConfig, MemoryConfig, StorageConfig};
use near_indexes::NearIndexes;

/// The longest any store call may take before it fails with `RESULT_STORE_UNAVAILABLE`.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(10);
/// Records larger than this are sealed and opened on tokio's blocking pool rather than inline: eight chunks with
/// their tags (128 KiB), so the range a page or a singular read needs opens where it was read, without a hand-off to
/// another thread and back. Eight chunks take about 16 microseconds.
const INLINE_CRYPTO_BYTES: usize = 8 * (CHUNK_SIZE + TAG_LEN);

/// [`Backend::get_head_and_range`] as two reads: the default, and what a pipelining backend falls back to when a
/// range is empty (a command for it would be malformed).
pub(crate) async fn head_and_range_apart<B: Backend + ?Sized>(
  backend: &B,
  key: String,
  head: u64,
  start: u64,
  end: u64,
) -> CoreResult<(Vec<u8>, Vec<u8>)> {
  let head = backend.get_range(key.clone(), 0, head).await?;
  let range = backend.get_range(key, start, end).await?;
  Ok((head, range))
}

/// A boxed, sendable future (backends are used as `Arc<dyn Backend>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What every backend does. Keys are opaque strings; values are bytes.
pub trait Backend: Send + Sync {
  /// The backend's `type` name.
  fn kind(&self) -> &'static str;
  /// The value, or `None` when missing or expired.
  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>>;
  /// Bytes `[start, end)` of the value, clamped to its length; empty when missing or expired.
  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>>;
  /// Bytes `[0, head)` and `[start, end)` of the value, each as [`Backend::get_range`] reads it. Backends that can
  /// read both in one round trip (a pipeline, one lock, one statement) override this two-read default.
  fn get_head_and_range(
    &self,
    key: String,
    head: u64,
    start: u64,
    end: u64,
  ) -> BoxFuture<'_, CoreResult<(Vec<u8>, Vec<u8>)>> {
    Box::pin(head_and_range_apart(self, key, head, start, end))
  }
  /// Stores the value with its TTL in one step.
  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>>;
  /// Removes the value; true when there was one.
  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>>;
  /// The cheapest call that shows the backend answers (see [`breaker`]), reading `key` where a read must name one;
  /// one in this process always answers.
  fn probe(&self, _key: String) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async { Ok(()) })
  }
  /// Whether values live in this process's memory, so that a read costs no round trip (see [`NearIndexes`]).
  fn in_process(&self) -> bool {
    false
  }
  /// Releases connections; later calls fail with `RESULT_STORE_UNAVAILABLE`.
  fn close(&self) -> BoxFuture<'_, ()>;
}

/// A `RESULT_STORE_UNAVAILABLE` error.
pub(crate) fn unavailable(message: impl Into<String>) -> CoreError {
  CoreError::new(ErrorCode::StoreUnavailable, message)
}

pub(crate) fn closed_error() -> CoreError {
  unavailable("The result store is closed.")
    .with_remedy("Open a new store; this one was shut down.")
}

fn timed_out() -> CoreError {
  unavailable("The result store did not answer in time.").with_remedy(
    "Check that the storage server is up and reachable; calls recover once it is back.",
  )
}

async fn bounded<T>(work: impl Future<Output = CoreResult<T>>) -> CoreResult<T> {
  tokio::time::timeout(OPERATION_TIMEOUT, work)
    .await
    .unwrap_or_else(|_| Err(timed_out()))
}

async fn crypto<T: Send + 'static>(
  size: usize,
  work: impl FnOnce() -> T + Send + 'static,
) -> CoreResult<T> {
  if size <= INLINE_CRYPTO_BYTES {
    return Ok(work());
  }
  tokio::task::spawn_blocking(work)
    .await
    .map_err(|_| CoreError::internal("Sealing failed inside the engine."))
}

/// Opens the backend a config names (bounded in time). `fallback: 'memory'` turns an unreachable backend into a
/// memory store.
pub async fn open_backend(config: &StorageConfig) -> CoreResult<Arc<dyn Backend>> {
  let opened: CoreResult<Arc<dyn Backend>> = bounded(async {
    Ok(match &config.backend {
      BackendConfig::Memory(memory) => {
        Arc::new(memory::MemoryBackend::new(*memory)) as Arc<dyn Backend>
      }
      BackendConfig::Redis(config::RedisConfig::Cluster { nodes }) => {
        Arc::new(redis_cluster::connect(nodes).await?)
      }
      BackendConfig::Redis(redis) => Arc::new(redis::RedisBackend::connect(redis).await?),
      BackendConfig::Sqlite(sqlite) => Arc::new(sqlite::SqliteBackend::open(sqlite).await?),
      BackendConfig::Rest(rest) => Arc::new(rest::RestBackend::connect(rest).await?),
    })
  })
  .await;
  match opened {
    Err(error) if error.code == ErrorCode::StoreUnavailable && config.fallback_memory => Ok(
      Arc::new(memory::MemoryBackend::new(MemoryConfig::default())),
    ),
    other => other,
  }
}

// ─── records for JS-provided storages ───────────────────────────────────────

/// A sealed record and the storage key it must be kept under.
pub struct SealedRecord {
  /// 64 lowercase hex characters.
  pub storage_key: String,
  pub record: Vec<u8>,
}

/// Seals an answer for a storage the caller manages (the JS `ResultHandleStore` over a FrontMCP storage).
pub fn seal_record(
  handle: &str,
  plaintext: &[u8],
  owner: &Owner,
  secret: Option<&ServerSecret>,
) -> CoreResult<SealedRecord> {
  check_handle(handle)?;
  let keys = RecordKeys::derive(handle, owner, secret)?;
  Ok(SealedRecord {
    storage_key: keys.storage_key_hex(),
    record: seal::seal(&keys, plaintext)?,
  })
}

/// Opens a record read from such a storage; `None` when it is not this owner's, altered or not a record.
pub fn open_record(
  handle: &str,
  record: &[u8],
  owner: &Owner,
  secret: Option<&ServerSecret>,
) -> CoreResult<Option<Vec<u8>>> {
  let keys = RecordKeys::derive(handle, owner, secret)?;
  Ok(seal::open(&keys, record).ok())
}

/// The storage key (hex) a handle and owner derive.
pub fn storage_key_for(
  handle: &str,
  owner: &Owner,
  secret: Option<&ServerSecret>,
) -> CoreResult<String> {
  Ok(RecordKeys::derive(handle, owner, secret)?.storage_key_hex())
}

fn check_handle(handle: &str) -> CoreResult<()> {
  if handle.is_empty() {
    return Err(
      CoreError::new(
        ErrorCode::InvalidInput,
        "handle must be a non-empty string.",
      )
      .with_remedy("Use newHandle() to make one."),
    );
  }
  Ok(())
}

/// An answer sealed for one handle and owner, with the full key it is kept under.
pub struct SealedAnswer {
  key: String,
  record: Vec<u8>,
}

impl SealedAnswer {
  /// The record's length in bytes.
  pub fn len(&self) -> usize {
    self.record.len()
  }

  /// Whether the record is empty (never: a record has a header).
  pub fn is_empty(&self) -> bool {
    self.record.is_empty()
  }
}

/// An answer's record as the store gave it, with the keys that open it.
pub struct UnopenedAnswer {
  keys: RecordKeys,
  record: Vec<u8>,
}

impl UnopenedAnswer {
  /// The answer, decrypted on this thread; `None` when the record does not open (as [`HandleStore::read`]).
  pub fn open(self) -> Option<Vec<u8>> {
    seal::open_in_place(&self.keys, self.record).ok()
  }
}

/// The chunks that cover a range of an answer, as the store gave them, with what opens them.
pub struct UnopenedRange {
  keys: RecordKeys,
  header: RecordHeader,
  span: seal::ChunkSpan,
  bytes: Vec<u8>,
}

impl UnopenedRange {
  /// The range, decrypted on this thread; `None` when its chunks do not open (as [`HandleStore::read_range`]).
  pub fn open(self) -> Option<Vec<u8>> {
    seal::open_span(&self.keys, &self.header, &self.span, self.bytes).ok()
  }

  fn len(&self) -> usize {
    self.bytes.len()
  }
}

// ─── the store ──────────────────────────────────────────────────────────────

/// Sealed answers in one backend, under one namespace and TTL.
pub struct HandleStore {
  backend: Arc<dyn Backend>,
  key_prefix: String,
  ttl_seconds: u64,
  secret: Option<ServerSecret>,
  /// Where the matches of recent JSONPath queries are, for their next pages (offsets only, bounded).
  match_pages: crate::core::query::MatchPages,
  /// One full-read query at a time per owner.
  query_turns: crate::core::query::OwnerTurns,
  /// Recent sealed path indexes, for a backend outside this process (`None` for memory).
  near_indexes: Option<NearIndexes>,
  /// Fails calls at once while the backend is unreachable (see [`breaker`]).
  breaker: Arc<Breaker>,
}

impl HandleStore {
  /// Opens the configured backend (bounded in time). The settings were checked once, by `options`.
  pub async fn open(settings: &StoreSettings) -> CoreResult<Self> {
    let backend = open_backend(&settings.storage).await?;
    Self::with_backend(
      backend,
      &settings.storage.key_prefix,
      &settings.namespace,
      settings.ttl_seconds,
      settings.secret.clone(),
    )
  }

  /// A store over a backend already open. Keys are `{key_prefix}{namespace}:{hex storage key}`.
  pub fn with_backend(
    backend: Arc<dyn Backend>,
    key_prefix: &str,
    namespace: &str,
    ttl_seconds: u64,
    secret: Option<ServerSecret>,
  ) -> CoreResult<Self> {
    Ok(Self {
      key_prefix: format!("{key_prefix}{namespace}:"),
      ttl_seconds,
      secret,
      match_pages: Default::default(),
      query_turns: Default::default(),
      near_indexes: (!backend.in_process()).then(|| NearIndexes::new(ttl_seconds)),
      backend,
      breaker: Arc::default(),
    })
  }

  /// One backend call, under the breaker and the time bound.
  async fn guarded<T>(&self, work: impl Future<Output = CoreResult<T>>) -> CoreResult<T> {
    breaker::guarded(&self.breaker, &self.backend, &self.key_prefix, work).await
  }

  /// Whether the store answers now, its outages and their time (see [`breaker`]).
  pub fn health(&self) -> Health {
    self.breaker.health(tokio::time::Instant::now())
  }

  /// Calls `listener` when an outage starts and when it ends.
  pub fn on_transition(&self, listener: Listener) {
    self.breaker.listen(listener);
  }

  /// Whose turn it is to read a whole answer for a query (see `query::turns`).
  pub fn query_turns(&self) -> &crate::core::query::OwnerTurns {
    &self.query_turns
  }

  /// Where the matches of recent JSONPath queries on this store are (see `query::pages`).
  pub fn match_pages(&self) -> &crate::core::query::MatchPages {
    &self.match_pages
  }

  /// Sealed path indexes kept in process now (see [`NearIndexes`]).
  #[cfg(test)]
  pub(crate) fn near_indexes_kept(&self) -> usize {
    self.near_indexes.as_ref().map_or(0, NearIndexes::len)
  }

  /// The backend's `type` (after `auto` and any fallback).
  pub fn backend_kind(&self) -> &'static str {
    self.backend.kind()
  }

  /// The TTL every record is saved with.
  pub fn ttl_seconds(&self) -> u64 {
    self.ttl_seconds
  }

  /// A fresh handle: a random UUID v4 from the OS CSPRNG, never derived from the answer.
  pub fn new_handle() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
  }

  fn keys(&self, handle: &str, owner: &Owner) -> CoreResult<(RecordKeys, String)> {
    Ok(self.named(RecordKeys::derive(handle, owner, self.secret.as_ref())?))
  }

  /// A record's keys and the full key it lives under (prefix, namespace, hex storage key).
  fn named(&self, keys: RecordKeys) -> (RecordKeys, String) {
    let key = format!("{}{}", self.key_prefix, keys.storage_key_hex());
    (keys, key)
  }

  /// Seals `plaintext` under `keys` (over its own buffer) and stores it under `key` with the TTL.
  async fn seal_and_keep(
    &self,
    (keys, key): (RecordKeys, String),
    plaintext: Vec<u8>,
  ) -> CoreResult<()> {
    let record = crypto(plaintext.len(), move || {
      seal::seal_in_place(&keys, plaintext)
    })
    .await??;
    self
      .guarded(self.backend.set(key, record, self.ttl_seconds))
      .await
  }

  /// The record under `key`, with the `keys` that open it; `None` when missing or expired.
  async fn read_record(
    &self,
    (keys, key): (RecordKeys, String),
  ) -> CoreResult<Option<UnopenedAnswer>> {
    let record = self.guarded(self.backend.get(key)).await?;
    Ok(record.map(|record| UnopenedAnswer { keys, record }))
  }

  /// The record under `key`, opened with `keys`; `None` when missing, expired or it does not open.
  async fn read_and_open(&self, named: (RecordKeys, String)) -> CoreResult<Option<Vec<u8>>> {
    let Some(unopened) = self.read_record(named).await? else {
      return Ok(None);
    };
    crypto(unopened.record.len(), move || unopened.open()).await
  }

  /// The full key a handle and owner's record lives under (prefix, namespace, hex storage key).
  pub fn storage_key(&self, handle: &str, owner: &Owner) -> CoreResult<String> {
    self.keys(handle, owner).map(|(_, key)| key)
  }

  fn index_keys(&self, handle: &str, owner: &Owner) -> CoreResult<(RecordKeys, String)> {
    let keys = RecordKeys::derive_index(handle, owner, self.secret.as_ref())?;
    Ok(self.named(keys))
  }

  /// Seals an answer's path index (built by `query::index`) and stores it with the TTL, under the key the
  /// index labels derive (see `docs/record-format.md`).
  pub async fn save_index(&self, handle: &str, index: Vec<u8>, owner: &Owner) -> CoreResult<()> {
    check_handle(handle)?;
    let (keys, key) = self.index_keys(handle, owner)?;
    let record = crypto(index.len(), move || seal::seal(&keys, &index)).await??;
    let near = self
      .near_indexes
      .as_ref()
      .map(|near| (near, key.clone(), record.clone()));
    self
      .guarded(self.backend.set(key, record, self.ttl_seconds))
      .await?;
    if let Some((near, key, record)) = near {
      near.put(&key, record);
    }
    Ok(())
  }

  /// Keeps an answer's path index and the member directories of its long arrays (see `query::directory`), at once.
  /// Only the index's failure is reported: a directory only speeds some queries up, and a query without one reads
  /// the array as before.
  pub async fn save_index_and_directories(
    &self,
    handle: &str,
    built: BuiltIndex,
    owner: &Owner,
  ) -> CoreResult<()> {
    let directories = built
      .directories
      .into_iter()
      .map(|(start, directory)| self.save_directory(handle, start, directory, owner));
    let (index, _) = tokio::join!(
      self.save_index(handle, built.index, owner),
      futures_util::future::join_all(directories)
    );
    index
  }

  fn directory_keys(
    &self,
    handle: &str,
    owner: &Owner,
    array_start: u64,
  ) -> CoreResult<(RecordKeys, String)> {
    let keys = RecordKeys::derive_directory(handle, owner, self.secret.as_ref(), array_start)?;
    Ok(self.named(keys))
  }

  /// Seals the member directory of the array starting at byte `array_start` of the answer and stores it with the
  /// TTL, under the key its labels derive for that start (see `docs/record-format.md`).
  pub async fn save_directory(
    &self,
    handle: &str,
    array_start: u64,
    directory: Vec<u8>,
    owner: &Owner,
  ) -> CoreResult<()> {
    check_handle(handle)?;
    let named = self.directory_keys(handle, owner, array_start)?;
    self.seal_and_keep(named, directory).await
  }

  /// The member directory of the array starting at byte `array_start` of the answer, as read, not yet opened (see
  /// [`UnopenedAnswer::open`]), for a caller that decrypts it on the thread that goes on to use it; `None` when there
  /// is none (as for [`HandleStore::read_index`]).
  pub async fn read_directory_unopened(
    &self,
    handle: &str,
    owner: &Owner,
    array_start: u64,
  ) -> CoreResult<Option<UnopenedAnswer>> {
    self
      .read_record(self.directory_keys(handle, owner, array_start)?)
      .await
  }

  /// The answer's path index, or `None` when there is none (small answer, evicted, expired, another owner's,
  /// tampered with).
  pub async fn read_index(&self, handle: &str, owner: &Owner) -> CoreResult<Option<Vec<u8>>> {
    let (keys, key) = self.index_keys(handle, owner)?;
    let Some(record) = self.sealed_index(key).await? else {
      return Ok(None);
    };
    crypto(record.len(), move || {
      seal::open_in_place(&keys, record).ok()
    })
    .await
  }

  /// The sealed index under `key`: the one kept in this process, or the backend's (then kept).
  async fn sealed_index(&self, key: String) -> CoreResult<Option<Vec<u8>>> {
    let Some(near) = &self.near_indexes else {
      return self.guarded(self.backend.get(key)).await;
    };
    if let Some(record) = near.get(&key) {
      return Ok(Some(record));
    }
    let record = self.guarded(self.backend.get(key.clone())).await?;
    if let Some(record) = &record {
      near.put(&key, record.clone());
    }
    Ok(record)
  }

  /// Seals the answer and stores it with the TTL. Fails with a coded error when the store cannot keep it.
  pub async fn save(
    &self,
    handle: &str,
    plaintext: impl Into<Vec<u8>>,
    owner: &Owner,
  ) -> CoreResult<()> {
    check_handle(handle)?;
    let named = self.keys(handle, owner)?;
    self.seal_and_keep(named, plaintext.into()).await
  }

  /// Seals an answer for `owner` on the calling thread (CPU only), written over the answer's own buffer (see
  /// [`seal::seal_in_place`]); keep it later with [`HandleStore::keep_sealed`].
  pub fn seal_answer(
    &self,
    handle: &str,
    plaintext: Vec<u8>,
    owner: &Owner,
  ) -> CoreResult<SealedAnswer> {
    check_handle(handle)?;
    let (keys, key) = self.keys(handle, owner)?;
    Ok(SealedAnswer {
      key,
      record: seal::seal_in_place(&keys, plaintext)?,
    })
  }

  /// Stores an answer [`HandleStore::seal_answer`] sealed, with the TTL.
  pub async fn keep_sealed(&self, sealed: SealedAnswer) -> CoreResult<()> {
    let keep = self
      .backend
      .set(sealed.key, sealed.record, self.ttl_seconds);
    self.guarded(keep).await
  }

  /// The answer, or `None` when missing, expired, another owner's or tampered with.
  pub async fn read(&self, handle: &str, owner: &Owner) -> CoreResult<Option<Vec<u8>>> {
    let named = self.keys(handle, owner)?;
    self.read_and_open(named).await
  }

  /// The answer's record as read, not yet opened (see [`UnopenedAnswer::open`]), for a caller that decrypts it on
  /// the thread that goes on to use it (a hop between threads less than [`HandleStore::read`]); `None` when missing
  /// or expired.
  pub async fn read_unopened(
    &self,
    handle: &str,
    owner: &Owner,
  ) -> CoreResult<Option<UnopenedAnswer>> {
    self.read_record(self.keys(handle, owner)?).await
  }

  /// Answer bytes `[start, end)` (clamped), reading and decrypting only the chunks that cover them; `None` as for
  /// [`HandleStore::read`].
  pub async fn read_range(
    &self,
    handle: &str,
    owner: &Owner,
    start: u64,
    end: u64,
  ) -> CoreResult<Option<Vec<u8>>> {
    let Some(unopened) = self.read_range_unopened(handle, owner, start, end).await? else {
      return Ok(None);
    };
    crypto(unopened.len(), move || unopened.open()).await
  }

  /// [`HandleStore::read_range`]'s chunks as read, not yet opened, for a caller that decrypts them on the thread
  /// that goes on to use them (a hop between threads less); `None` when missing or expired.
  pub async fn read_range_unopened(
    &self,
    handle: &str,
    owner: &Owner,
    start: u64,
    end: u64,
  ) -> CoreResult<Option<UnopenedRange>> {
    let (keys, key) = self.keys(handle, owner)?;
    // The chunks a range needs depend on the record's length, known from its header: read both at once,
    // assuming the record runs past `end`, and read again only when it does not (a range past the answer's end).
    let (head, guessed) = match seal::span_before_header(start, end) {
      Some((from, to)) => {
        let read = self
          .backend
          .get_head_and_range(key.clone(), HEADER_LEN as u64, from, to);
        let (head, bytes) = self.guarded(read).await?;
        (head, Some((from, bytes)))
      }
      None => (
        self
          .guarded(self.backend.get_range(key.clone(), 0, HEADER_LEN as u64))
          .await?,
        None,
      ),
    };
    let Ok(header) = RecordHeader::parse(&head) else {
      return Ok(None);
    };
    let span = header.span_for(start, end);
    let wanted = usize::try_from(span.byte_end - span.byte_start).unwrap_or(usize::MAX);
    let bytes = match guessed {
      Some((from, mut bytes)) if from == span.byte_start && bytes.len() >= wanted => {
        bytes.truncate(wanted);
        bytes
      }
      _ => {
        self
          .guarded(self.backend.get_range(key, span.byte_start, span.byte_end))
          .await?
      }
    };
    Ok(Some(UnopenedRange {
      keys,
      header,
      span,
      bytes,
    }))
  }

  /// Removes a record, its path index and the member directories the index names (for tests and explicit
  /// invalidation); true when a record was there.
  pub async fn delete(&self, handle: &str, owner: &Owner) -> CoreResult<bool> {
    let (_, key) = self.keys(handle, owner)?;
    let (_, index_key) = self.index_keys(handle, owner)?;
    let arrays = match self.read_index(handle, owner).await? {
      Some(index) => recorded_arrays(&index),
      None => Vec::new(),
    };
    if let Some(near) = &self.near_indexes {
      near.remove(&index_key);
    }
    let removed = self.guarded(self.backend.delete(key)).await?;
    for array in arrays {
      let (_, directory_key) = self.directory_keys(handle, owner, array.start)?;
      self.guarded(self.backend.delete(directory_key)).await?;
    }
    self.guarded(self.backend.delete(index_key)).await?;
    Ok(removed)
  }

  /// Releases the backend's connections. Later calls fail with `RESULT_STORE_UNAVAILABLE`.
  pub async fn close(&self) {
    self.breaker.shut();
    let _ = tokio::time::timeout(OPERATION_TIMEOUT, self.backend.close()).await;
  }
}

#[cfg(test)]
mod tests;
