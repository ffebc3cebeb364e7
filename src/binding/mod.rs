//! The napi binding layer: the only place that carries `#[napi]`.
//!
//! Each file maps one engine area onto JS. Large values cross as JSON strings or bytes, never as JS objects.

mod engine;
mod error;
mod fit_checks;
#[cfg(feature = "test-bindings")]
mod fold;
mod memory;
mod options;
#[cfg(feature = "test-bindings")]
mod query;
mod references;
mod store;
mod text;
mod warm;

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;

use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// The version of the native engine.
#[napi]
pub fn engine_version() -> String {
  env!("CARGO_PKG_VERSION").to_string()
}

/// The error codes a `result_query` caller may see as they are; hosts report any other failure as an internal
/// fault with a generic message.
#[napi]
pub fn query_public_error_codes() -> Vec<&'static str> {
  ErrorCode::ALL
    .into_iter()
    .filter(|code| code.is_public_to_query_callers())
    .map(ErrorCode::as_str)
    .collect()
}

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
