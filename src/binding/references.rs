//! Handle references for JS: the hosts hand a tool call's arguments here before the tool's input is validated.

use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::{Env, Result};
use napi_derive::napi;

use super::engine::ResultHandlesEngine;
use super::error::{run_async, FirstPoll};
use crate::core::references::resolve_references;
use crate::core::store::Owner;

#[napi]
impl ResultHandlesEngine {
  /// Replaces every `{ "$resultHandle", "path"? }` in a tool's arguments (`argsJson`) by the value it names, read
  /// for the owner as `result_query` reads it. Resolves with the arguments' JSON text, or `null` when they hold
  /// no reference. Rejects with RESULT_HANDLE_NOT_FOUND, RESULT_PATH_NOT_FOUND or INVALID_INPUT (bad reference,
  /// or over `handleReferenceLimits`, named in the message).
  #[napi(ts_return_type = "Promise<string | null>")]
  pub fn resolve_references<'env>(
    &self,
    env: &'env Env,
    args_json: String,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, Option<String>>> {
    let store = Arc::clone(&self.core.store);
    let limits = self.core.references.limits;
    let short_args = args_json.len() <= super::error::READ_HERE_BYTES;
    run_async(
      env,
      FirstPoll::here_if(short_args),
      async move {
        let owner = Owner::new(session, subject);
        resolve_references(&store, &args_json, &owner, limits).await
      },
      |_, resolved| Ok(resolved),
    )
  }
}
