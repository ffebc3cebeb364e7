//! `result_query` for JS: validated arguments in, the answer's JSON text out. The hosts pass arguments through.

use napi::bindgen_prelude::{Buffer, Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use super::error::{run_blocking, run_sync};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::query::{handle_not_found, parse_query_args, run_query, QueryArgs};

fn parse_args(args_json: &str) -> CoreResult<QueryArgs> {
  let value: serde_json::Value = serde_json::from_str(args_json).map_err(|_| {
    CoreError::new(ErrorCode::InvalidInput, "argsJson is not valid JSON.").with_remedy(
      "Pass the result_query arguments as JSON text, for example JSON.stringify({ handle, path }).",
    )
  })?;
  parse_query_args(&value)
}

fn threshold(bytes: f64) -> CoreResult<usize> {
  if bytes.fract() == 0.0 && (1.0..=9_007_199_254_740_991.0).contains(&bytes) {
    Ok(bytes as usize)
  } else {
    Err(
      CoreError::new(
        ErrorCode::InvalidInput,
        "thresholdBytes must be a whole number from 1 to 9007199254740991.",
      )
      .with_remedy("Pass the same thresholdBytes the answer was folded with."),
    )
  }
}

fn answer(
  answer_json: &Either<String, Buffer>,
  args_json: &str,
  threshold_bytes: f64,
) -> CoreResult<String> {
  let args = parse_args(args_json)?;
  let threshold = threshold(threshold_bytes)?;
  let bytes: &[u8] = match answer_json {
    Either::A(text) => text.as_bytes(),
    Either::B(buffer) => buffer.as_ref(),
  };
  run_query(bytes, &args, threshold)
}

/// Answers a `result_query` call from a kept answer, off the JS thread.
///
/// `answerJson` is the answer as `JSON.stringify` printed it; `argsJson` the tool's arguments
/// (`{ handle, path?, offset?, limit?, page?, fields? }`) as JSON text. Resolves to the answer
/// `{ path, value, total?, offset?, nextOffset? }` as JSON text. Rejects with `code`
/// RESULT_PATH_NOT_FOUND, RESULT_SLICE_TOO_LARGE or INVALID_INPUT, and a `remedy`.
///
/// @example
/// const text = await queryAnswer(stored, JSON.stringify({ handle, path: 'orders', limit: 10 }), 20_000);
/// const { value, nextOffset } = JSON.parse(text);
#[napi(ts_return_type = "Promise<string>")]
pub fn query_answer<'env>(
  env: &'env Env,
  answer_json: Either<String, Buffer>,
  args_json: String,
  threshold_bytes: f64,
) -> napi::Result<PromiseRaw<'env, String>> {
  run_blocking(
    env,
    move || answer(&answer_json, &args_json, threshold_bytes),
    |_, text| Ok(text),
  )
}

/// Same as `queryAnswer`, on the calling thread; throws the same coded errors.
#[napi]
pub fn query_answer_sync(
  env: Env,
  answer_json: Either<String, Buffer>,
  args_json: String,
  threshold_bytes: f64,
) -> napi::Result<String> {
  run_sync(&env, || answer(&answer_json, &args_json, threshold_bytes))
}

/// Checks `result_query` arguments before any store is touched.
///
/// Returns the arguments as JSON text with the default `path` (`$`) filled in and absent ones left out;
/// throws INVALID_INPUT naming the argument and its allowed range.
///
/// @example
/// const args = JSON.parse(validateQueryArgs(JSON.stringify(input))); // { handle, path, ... }
#[napi]
pub fn validate_query_args(env: Env, args_json: String) -> napi::Result<String> {
  run_sync(&env, || parse_args(&args_json).map(|args| args.to_json()))
}

/// Throws RESULT_HANDLE_NOT_FOUND with the one message and remedy every host uses (unknown, expired, evicted,
/// or another session's or caller's handle: the same text for all).
#[napi(ts_return_type = "never")]
pub fn throw_handle_not_found(env: Env) -> napi::Result<()> {
  run_sync(&env, || Err(handle_not_found()))
}
