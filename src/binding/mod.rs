//! The napi binding layer: the only place that carries `#[napi]`.
//!
//! Each file maps one engine area onto JS. Large values cross as JSON strings or bytes, never as JS objects.

mod engine;
mod error;
mod fold;
mod options;
mod query;
mod store;

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;

use crate::core::error::{CoreError, ErrorCode};

/// The version of the native engine.
#[napi]
pub fn engine_version() -> String {
  env!("CARGO_PKG_VERSION").to_string()
}

/// Rejects with a coded error; used by the tests to check that codes and remedies cross the boundary.
#[napi(ts_return_type = "Promise<never>")]
pub fn reject_with_code<'env>(env: &'env Env, code: String) -> napi::Result<PromiseRaw<'env, ()>> {
  error::run_blocking(
    env,
    move || {
      let code = match code.as_str() {
        "RESULT_PATH_NOT_FOUND" => ErrorCode::PathNotFound,
        "PANIC" => panic!("deliberate panic for the panic-safety test"),
        _ => ErrorCode::InvalidInput,
      };
      Err(
        CoreError::new(code, "Deliberate failure.")
          .with_remedy("Nothing to do: this is a test hook."),
      )
    },
    |_, ()| Ok(()),
  )
}
