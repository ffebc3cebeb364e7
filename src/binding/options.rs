//! Option checks for JS: every rule lives in `core::options`.

use napi::Env;
use napi_derive::napi;
use serde_json::{json, Value};

use super::error::run_sync;
use crate::core::options::{problems_message, validate_options as check};

/// Checks plugin options once, in Rust.
///
/// `optionsJson` is the user's options serialized by the TS layer (functions as `{"$function":true}`, values
/// JSON cannot carry as `{"$jsType":"<typeof>"}`). Returns JSON text:
/// `{"ok":true,"options":{thresholdBytes,ttlSeconds,preview:{items,chars},hasFoldPolicy,storage,namespace,secret?}}`
/// with every default applied, or `{"ok":false,"problems":[…],"message":"…"}` naming every problem.
#[napi]
pub fn validate_options(env: &Env, options_json: String) -> napi::Result<String> {
  run_sync(env, move || {
    let outcome = match serde_json::from_str::<Value>(&options_json) {
      Ok(input) => check(&input),
      Err(_) => Err(vec!["options: could not be read as JSON.".to_string()]),
    };
    let answer = match outcome {
      Ok(options) => json!({ "ok": true, "options": options }),
      Err(problems) => {
        let message = problems_message(&problems);
        json!({ "ok": false, "problems": problems, "message": message })
      }
    };
    Ok(answer.to_string())
  })
}

// ─── constants (each one written once, in the engine) ───────────────────────

/// Smallest `thresholdBytes` accepted: below it the folded form itself would not fit.
#[napi]
pub const MIN_THRESHOLD_BYTES: u32 = crate::core::options::MIN_THRESHOLD_BYTES as u32;

/// How many answers the in-memory store keeps before it evicts the oldest.
#[napi]
pub const DEFAULT_MEMORY_MAX_ENTRIES: u32 =
  crate::core::store::config::DEFAULT_MEMORY_MAX_ENTRIES as u32;

/// The `_meta` key a folded tool result carries `{ handle, bytes, ttlSeconds }` under.
#[napi]
pub const RESULT_HANDLE_META_KEY: &str = crate::core::fit::RESULT_HANDLE_META_KEY;

/// The name of the tool a model calls to read parts of a folded answer.
#[napi]
pub const RESULT_QUERY_TOOL_NAME: &str = crate::core::fit::RESULT_QUERY_TOOL_NAME;

/// `result_query`: largest `limit` accepted.
#[napi]
pub const RESULT_QUERY_MAX_LIMIT: u32 = crate::core::query::MAX_LIMIT as u32;

/// `result_query`: items read from a list when `limit` is not given.
#[napi]
pub const RESULT_QUERY_DEFAULT_LIST_LIMIT: u32 = crate::core::query::DEFAULT_LIST_LIMIT as u32;

/// `result_query`: characters read from a string when `limit` is not given.
#[napi]
pub const RESULT_QUERY_DEFAULT_STRING_LIMIT: u32 = crate::core::query::DEFAULT_STRING_LIMIT as u32;
