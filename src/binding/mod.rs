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
#[cfg(feature = "test-bindings")]
mod testing;
mod text;
mod warm;

use napi_derive::napi;

use crate::core::error::ErrorCode;

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
