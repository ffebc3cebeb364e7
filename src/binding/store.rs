//! Sealed storage for JS: the native store (`NativeHandleStore`) and record functions for storages JS manages.

use std::sync::Arc;

use napi::bindgen_prelude::{Buffer, Either, PromiseRaw};
use napi::threadsafe_function::{
  ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::{Env, Result, Status};
use napi_derive::napi;
use zeroize::Zeroizing;

use super::error::{run_async, run_blocking, run_sync, FirstPoll};
use super::options::NativeSettings;
use crate::core::error::CoreResult;
use crate::core::options::StoreSettings;
use crate::core::seal::{Owner, ServerSecret};
use crate::core::store::breaker::Transition;
use crate::core::store::{self, HandleStore};

/// Whether a store answers, for operators (`stats().store`).
#[napi(object)]
pub struct StoreHealth {
  /// `'down'` while the store is not answering: calls fail at once with RESULT_STORE_UNAVAILABLE.
  #[napi(ts_type = "'up' | 'down'")]
  pub state: String,
  /// Outages since the store opened.
  pub outages: f64,
  /// Milliseconds spent down, the outage under way included.
  pub outage_ms: f64,
}

/// An outage that starts (`'down'`, with what failed) or ends (`'up'`, with how long it lasted).
#[napi(object)]
pub struct StoreEvent {
  #[napi(ts_type = "'up' | 'down'")]
  pub state: String,
  /// With `'down'`: the failure that started it (a coded message, no secret).
  pub cause: Option<String>,
  /// With `'up'`: how long it lasted, in milliseconds.
  pub outage_ms: Option<f64>,
}

/// A JS function told of each outage, not keeping the process alive.
pub(crate) type StoreWatcher =
  ThreadsafeFunction<StoreEvent, UnknownReturnValue, StoreEvent, Status, false, true>;

pub(crate) fn health_of(store: &HandleStore) -> StoreHealth {
  let health = store.health();
  StoreHealth {
    state: if health.down { "down" } else { "up" }.to_string(),
    outages: health.outages as f64,
    outage_ms: health.down_for.as_secs_f64() * 1000.0,
  }
}

/// Tells `watcher` of every transition of `store`'s breaker, on the JS thread, whatever thread found it.
pub(crate) fn watch(store: &HandleStore, watcher: StoreWatcher) {
  store.on_transition(Arc::new(move |transition| {
    let event = match transition {
      Transition::Down { cause } => StoreEvent {
        state: "down".to_string(),
        cause: Some(cause.clone()),
        outage_ms: None,
      },
      Transition::Up { lasted } => StoreEvent {
        state: "up".to_string(),
        cause: None,
        outage_ms: Some(lasted.as_secs_f64() * 1000.0),
      },
    };
    watcher.call(event, ThreadsafeFunctionCallMode::NonBlocking);
  }));
}

pub(super) fn owner(session: Option<String>, subject: Option<String>) -> Owner {
  Owner::new(session, subject)
}

fn bytes_of(value: Either<Buffer, String>) -> Vec<u8> {
  match value {
    Either::A(buffer) => buffer.to_vec(),
    Either::B(text) => text.into_bytes(),
  }
}

/// Opens a store with settings already checked.
pub(super) fn open_store<'env>(
  env: &'env Env,
  settings: CoreResult<StoreSettings>,
) -> Result<PromiseRaw<'env, NativeHandleStore>> {
  run_async(
    env,
    FirstPoll::OnRuntime,
    async move { HandleStore::open(&settings?).await },
    |_, store| {
      Ok(NativeHandleStore {
        inner: Arc::new(store),
      })
    },
  )
}

/// A store of sealed answers in one backend (memory, Redis, SQLite, Upstash or Vercel KV), under one namespace
/// and TTL. The backend sees only `namespace:` + a hex storage key and the sealed record.
#[napi]
pub struct NativeHandleStore {
  inner: Arc<HandleStore>,
}

impl NativeHandleStore {
  /// The store itself, for the other bindings (the hosts' engine keeps answers in the same store).
  pub(crate) fn handle_store(&self) -> Arc<HandleStore> {
    Arc::clone(&self.inner)
  }
}

#[napi]
impl NativeHandleStore {
  /// Opens a store with settings `checkOptions` or `checkStoreOptions` made (nothing is checked again).
  /// Rejects with `RESULT_STORE_UNAVAILABLE` when the backend cannot be reached.
  #[napi(ts_return_type = "Promise<NativeHandleStore>")]
  pub fn open_checked<'env>(
    env: &'env Env,
    settings: &NativeSettings,
  ) -> Result<PromiseRaw<'env, NativeHandleStore>> {
    open_store(env, Ok(settings.store.clone()))
  }

  /// The TTL, in seconds, every answer is saved with.
  #[napi(getter)]
  pub fn ttl_seconds(&self) -> f64 {
    self.inner.ttl_seconds() as f64
  }

  /// Whether the store answers now, and its outages since it opened.
  #[napi(getter)]
  pub fn health(&self) -> StoreHealth {
    health_of(&self.inner)
  }

  /// Seals `value` (the answer's JSON text, as a Buffer or string) and stores it with the TTL.
  /// Rejects with `RESULT_STORE_UNAVAILABLE` or `RESULT_STORE_WRITE_FAILED` when the store cannot keep it.
  #[napi(ts_return_type = "Promise<void>")]
  pub fn save<'env>(
    &self,
    env: &'env Env,
    handle: String,
    value: Either<Buffer, String>,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, ()>> {
    let inner = Arc::clone(&self.inner);
    let value = bytes_of(value);
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move { inner.save(&handle, value, &owner(session, subject)).await },
      |_, ()| Ok(()),
    )
  }

  /// The answer's bytes, or `null` when the handle is missing, expired, another owner's or tampered with.
  #[napi(ts_return_type = "Promise<Buffer | null>")]
  pub fn read<'env>(
    &self,
    env: &'env Env,
    handle: String,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, Option<Buffer>>> {
    let inner = Arc::clone(&self.inner);
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move { inner.read(&handle, &owner(session, subject)).await },
      |_, bytes| Ok(bytes.map(Buffer::from)),
    )
  }

  /// Closes the backend's connections. Later calls reject with `RESULT_STORE_UNAVAILABLE`.
  #[napi(ts_return_type = "Promise<void>")]
  pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
    let inner = Arc::clone(&self.inner);
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move {
        inner.close().await;
        super::memory::release_free_memory();
        Ok(())
      },
      |_, ()| Ok(()),
    )
  }
}

// ─── records for storages JS manages ────────────────────────────────────────

/// A sealed record and the key to keep it under.
#[napi(object)]
pub struct SealedRecord {
  /// 64 lowercase hex characters (HKDF output): the only name the storage sees.
  pub storage_key: String,
  /// The sealed record bytes (see docs/record-format.md).
  pub record: Buffer,
}

/// A fresh handle: a random UUID v4 from the OS CSPRNG.
#[napi]
pub fn new_handle() -> String {
  HandleStore::new_handle()
}

/// The storage key (hex) a handle and owner derive. `secret` defaults to `RESULT_HANDLES_SECRET` when set.
#[napi]
pub fn storage_key_for(
  env: Env,
  handle: String,
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> Result<String> {
  run_sync(&env, || {
    let secret = Zeroizing::new(secret);
    let secret = ServerSecret::resolve(secret.as_deref())?;
    store::storage_key_for(&handle, &owner(session, subject), secret.as_ref())
  })
}

pub(super) fn seal_now(
  handle: &str,
  value: &[u8],
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> CoreResult<store::SealedRecord> {
  let secret = Zeroizing::new(secret);
  let secret = ServerSecret::resolve(secret.as_deref())?;
  store::seal_record(handle, value, &owner(session, subject), secret.as_ref())
}

pub(super) fn open_now(
  handle: &str,
  record: &[u8],
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> CoreResult<Option<Vec<u8>>> {
  let secret = Zeroizing::new(secret);
  let secret = ServerSecret::resolve(secret.as_deref())?;
  store::open_record(handle, record, &owner(session, subject), secret.as_ref())
}

/// Seals `value` for a storage JS manages (off the JS thread). Keep `record` under `storageKey` with the TTL.
/// `secret` defaults to `RESULT_HANDLES_SECRET` when set.
#[napi(ts_return_type = "Promise<SealedRecord>")]
pub fn seal_record<'env>(
  env: &'env Env,
  handle: String,
  value: Either<Buffer, String>,
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> Result<PromiseRaw<'env, SealedRecord>> {
  let value = bytes_of(value);
  run_blocking(
    env,
    move || seal_now(&handle, &value, session, subject, secret),
    |_, sealed| {
      Ok(SealedRecord {
        storage_key: sealed.storage_key,
        record: sealed.record.into(),
      })
    },
  )
}

/// Opens a record read back from such a storage (off the JS thread): the answer's bytes, or `null` when the record
/// is not this owner's, was altered, or is not a record.
#[napi(ts_return_type = "Promise<Buffer | null>")]
pub fn open_record<'env>(
  env: &'env Env,
  handle: String,
  record: Buffer,
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> Result<PromiseRaw<'env, Option<Buffer>>> {
  let record = record.to_vec();
  run_blocking(
    env,
    move || open_now(&handle, &record, session, subject, secret),
    |_, bytes| Ok(bytes.map(Buffer::from)),
  )
}
