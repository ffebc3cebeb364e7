//! The bindings only the specs and benches call (feature `test-bindings`, left out of the shipped addon): test hooks
//! that fail or panic on each of the binding's ways to run work, a store opened from raw settings with its backend,
//! keys and ranges, records sealed and opened on the JS thread, and the limit table.

use napi::bindgen_prelude::{Buffer, Either, PromiseRaw};
use napi::{Env, Result};
use napi_derive::napi;

use super::error::{self, run_async, run_sync, FirstPoll};
use super::store::{open_now, open_store, owner, seal_now, NativeHandleStore, SealedRecord};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::options::input::JsType;
use crate::core::options::{check_store_settings, process_env, OptionsInput, LIMITS};
use crate::core::store::config::configuration_error;
use crate::core::store::HandleStore;

// ─── test hooks ─────────────────────────────────────────────────────────────

/// Environment variable that switches the test hooks on when it is `1` at call time.
const TEST_HOOKS_ENV: &str = "RESULT_HANDLES_TEST_HOOKS";

/// Test hook: rejects with a coded error (or panics, for `PANIC`) so the tests can check that codes, remedies and
/// caught panics cross the boundary. Inert unless `RESULT_HANDLES_TEST_HOOKS=1` is set when it is called: it then
/// rejects with INVALID_INPUT saying the test hooks are off, and never panics.
#[napi(ts_return_type = "Promise<never>")]
pub fn reject_with_code<'env>(env: &'env Env, code: String) -> napi::Result<PromiseRaw<'env, ()>> {
  let hooks_on = hooks_on();
  error::run_blocking(env, move || test_hook(hooks_on, &code), |_, ()| Ok(()))
}

/// Test hook: `rejectWithCode` for async work (store I/O), whose panics are caught where the future is polled:
/// the hook runs on the runtime after the future has yielded once, as work does after an await.
#[napi(ts_return_type = "Promise<never>")]
pub fn reject_with_code_async<'env>(
  env: &'env Env,
  code: String,
) -> napi::Result<PromiseRaw<'env, ()>> {
  let hooks_on = hooks_on();
  let work = async move {
    tokio::task::yield_now().await;
    test_hook(hooks_on, &code)
  };
  error::run_async(env, error::FirstPoll::OnRuntime, work, |_, ()| Ok(()))
}

/// Test hook: `rejectWithCode` for async work polled first on the JS thread (`FirstPoll::Here`), which
/// finishes in that first poll: a panic there must reject the promise too.
#[napi(ts_return_type = "Promise<never>")]
pub fn reject_with_code_now<'env>(
  env: &'env Env,
  code: String,
) -> napi::Result<PromiseRaw<'env, ()>> {
  let hooks_on = hooks_on();
  error::run_async(
    env,
    error::FirstPoll::Here,
    async move { test_hook(hooks_on, &code) },
    |_, ()| Ok(()),
  )
}

/// Whether the test hooks are on: checked when a hook is called, so a test can switch them off and on.
fn hooks_on() -> bool {
  std::env::var_os(TEST_HOOKS_ENV).is_some_and(|value| value == "1")
}

/// What the test hook does: with hooks off, only "test hooks are off". Tested from JS (`__test__/binding.spec.ts`):
/// the binding is left out of `cargo test` builds.
fn test_hook(hooks_on: bool, code: &str) -> CoreResult<()> {
  if !hooks_on {
    return Err(
      CoreError::new(ErrorCode::InvalidInput, "Test hooks are off.").with_remedy(format!(
        "This hook works only in the test suite: set {TEST_HOOKS_ENV}=1 to switch it on."
      )),
    );
  }
  let code = match code {
    "RESULT_PATH_NOT_FOUND" => ErrorCode::PathNotFound,
    "PANIC" => panic!("deliberate panic for the panic-safety test"),
    _ => ErrorCode::InvalidInput,
  };
  Err(
    CoreError::new(code, "Deliberate failure.").with_remedy("Nothing to do: this is a test hook."),
  )
}

// ─── the store ──────────────────────────────────────────────────────────────

fn whole(value: f64, name: &str, min: u64, max: u64) -> CoreResult<u64> {
  if value.fract() == 0.0 && value >= min as f64 && value <= max as f64 {
    Ok(value as u64)
  } else {
    Err(
      CoreError::new(
        ErrorCode::InvalidInput,
        format!("{name} must be a whole number from {min} to {max}."),
      )
      .with_remedy(format!("Pass {name} as a whole number in range.")),
    )
  }
}

/// `NativeHandleStore.open`'s arguments as the one check reads them (`{ storage, namespace, ttlSeconds, secret }`).
fn store_input(
  config_json: Option<String>,
  namespace: Option<String>,
  ttl_seconds: Option<f64>,
  secret: Option<String>,
) -> CoreResult<OptionsInput> {
  let mut input = OptionsInput::default();
  let mut fields = serde_json::Map::new();
  if let Some(text) = config_json {
    let storage = serde_json::from_str(&text)
      .map_err(|_| configuration_error(vec!["storage: must be plain JSON data.".to_string()]))?;
    fields.insert("storage".to_string(), storage);
  }
  if let Some(namespace) = namespace {
    fields.insert("namespace".to_string(), namespace.into());
  }
  match ttl_seconds.map(serde_json::Number::from_f64) {
    Some(Some(ttl)) => {
      fields.insert("ttlSeconds".to_string(), ttl.into());
    }
    Some(None) => {
      input.js_types.insert("ttlSeconds".to_string(), JsType::NaN);
    }
    None => {}
  }
  if let Some(secret) = secret {
    fields.insert("secret".to_string(), secret.into());
  }
  input.options = serde_json::Value::Object(fields);
  Ok(input)
}

/// What only the specs call: opening from raw settings, the backend's name, keys and ranges.
#[napi]
impl NativeHandleStore {
  /// Opens a store. `configJson` is `JSON.stringify(storage)` (FrontMCP `StorageConfig` shapes, `type` defaults
  /// to `'auto'`); `secret` (≥ 32 bytes) defaults to `RESULT_HANDLES_SECRET` when set. The settings go through the
  /// same check as `createResultHandleStore`'s. Rejects with `RESULT_HANDLES_CONFIGURATION` (every problem named)
  /// or `RESULT_STORE_UNAVAILABLE`.
  #[napi(ts_return_type = "Promise<NativeHandleStore>")]
  pub fn open<'env>(
    env: &'env Env,
    config_json: Option<String>,
    namespace: Option<String>,
    ttl_seconds: Option<f64>,
    secret: Option<String>,
  ) -> Result<PromiseRaw<'env, NativeHandleStore>> {
    let settings = store_input(config_json, namespace, ttl_seconds, secret)
      .and_then(|input| check_store_settings(&input, &process_env).map_err(configuration_error));
    open_store(env, settings)
  }

  /// The backend in use after `auto` and any fallback: `'memory'`, `'redis'`, `'sqlite'`, `'upstash'` or
  /// `'vercel-kv'`.
  #[napi(getter)]
  pub fn backend(&self) -> String {
    self.handle_store().backend_kind().to_string()
  }

  /// A fresh handle: a random UUID v4 from the OS CSPRNG.
  #[napi]
  pub fn new_handle(&self) -> String {
    HandleStore::new_handle()
  }

  /// The full key a handle's record lives under for this owner (prefix, namespace, hex storage key): for
  /// diagnostics and tests; it reveals nothing about the handle or the owner.
  #[napi]
  pub fn storage_key(
    &self,
    env: Env,
    handle: String,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<String> {
    run_sync(&env, || {
      self
        .handle_store()
        .storage_key(&handle, &owner(session, subject))
    })
  }

  /// Answer bytes `[start, end)` (clamped to the answer), reading and decrypting only the 16 KiB chunks that cover
  /// them; `null` as for `read`.
  #[napi(ts_return_type = "Promise<Buffer | null>")]
  pub fn read_range<'env>(
    &self,
    env: &'env Env,
    handle: String,
    start: f64,
    end: f64,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, Option<Buffer>>> {
    let inner = self.handle_store();
    let range = whole(start, "start", 0, u64::MAX >> 11)
      .and_then(|s| Ok((s, whole(end, "end", 0, u64::MAX >> 11)?)));
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move {
        let (start, end) = range?;
        inner
          .read_range(&handle, &owner(session, subject), start, end)
          .await
      },
      |_, bytes| Ok(bytes.map(Buffer::from)),
    )
  }
}

// ─── records on the JS thread ───────────────────────────────────────────────

/// `sealRecord` on the JS thread.
#[napi]
pub fn seal_record_sync(
  env: Env,
  handle: String,
  value: Either<&[u8], String>,
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> Result<SealedRecord> {
  let sealed = run_sync(&env, || {
    let bytes: &[u8] = match &value {
      Either::A(bytes) => bytes,
      Either::B(text) => text.as_bytes(),
    };
    seal_now(&handle, bytes, session, subject, secret)
  })?;
  Ok(SealedRecord {
    storage_key: sealed.storage_key,
    record: sealed.record.into(),
  })
}

/// `openRecord` on the JS thread.
#[napi]
pub fn open_record_sync(
  env: Env,
  handle: String,
  record: &[u8],
  session: Option<String>,
  subject: Option<String>,
  secret: Option<String>,
) -> Result<Option<Buffer>> {
  run_sync(&env, || open_now(&handle, record, session, subject, secret))
    .map(|bytes| bytes.map(Buffer::from))
}

// ─── the limit table ────────────────────────────────────────────────────────

/// One bounded setting of the limit table.
#[napi(object)]
pub struct OptionLimit {
  /// The option as users write it (`preview.items`).
  pub option: String,
  /// What is counted.
  pub unit: String,
  pub min: f64,
  /// `null` when unbounded.
  pub max: Option<f64>,
  /// `null` when there is no numeric default.
  pub default: Option<f64>,
}

/// Every bound an option or store setting takes (the README's limits table lists the same).
#[napi]
pub fn option_limits() -> Vec<OptionLimit> {
  LIMITS
    .iter()
    .map(|limit| OptionLimit {
      option: limit.option.to_string(),
      unit: limit.unit.to_string(),
      min: limit.min as f64,
      max: limit.max.map(|max| max as f64),
      default: limit.default.map(|default| default as f64),
    })
    .collect()
}
