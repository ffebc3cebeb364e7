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
