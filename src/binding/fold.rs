//! Folding for JS: the answer crosses as a string; preview, shape and canonical JSON come back as strings.

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;

use super::error::{run_blocking, run_sync};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::fold::{self, AnswerSource, FoldOutcome};

/// How to fold: pass the values `normalizeOptions` resolved.
#[napi(object, object_to_js = false)]
pub struct FoldSettings {
  /// Answers larger than this many bytes fold; the folded answer is never larger. At least 1024.
  pub threshold_bytes: u32,
  /// Items kept from every list in the preview.
  pub preview_items: u32,
  /// Characters (UTF-16 units) kept from every string in the preview.
  pub preview_chars: u32,
}

/// What the fold decided.
#[napi(object, js_name = "FoldResult")]
pub struct FoldResult {
  /// Whether the answer is larger than `thresholdBytes` and was folded.
  pub folded: bool,
  /// The answer's size: `Buffer.byteLength(JSON.stringify(answer))`.
  pub bytes: f64,
  /// The preview, as JSON text (only when folded).
  pub preview_json: Option<String>,
  /// The shape, as JSON text (only when folded).
  pub shape_json: Option<String>,
  /// For a folded text answer: the answer as `JSON.stringify` prints it (what the store should keep).
  /// Absent for JSON answers, whose input is already that text.
  pub canonical_json: Option<String>,
}

fn settings(settings: &FoldSettings) -> fold::FoldSettings {
  fold::FoldSettings {
    threshold_bytes: settings.threshold_bytes as usize,
    preview_items: settings.preview_items as usize,
    preview_chars: settings.preview_chars as usize,
  }
}

fn run(answer: &str, kind: &str, settings: &fold::FoldSettings) -> CoreResult<FoldResult> {
  let source = match kind {
    "json" => AnswerSource::Json(answer),
    "text" => AnswerSource::Text(answer),
    _ => {
      return Err(
        CoreError::new(ErrorCode::InvalidInput, "kind must be 'json' or 'text'.")
          .with_remedy("Pass 'json' for JSON.stringify output, 'text' for a tool's text."),
      )
    }
  };
  Ok(match fold::fold_answer(source, settings)? {
    FoldOutcome::Whole { bytes } => FoldResult {
      folded: false,
      bytes: bytes as f64,
      preview_json: None,
      shape_json: None,
      canonical_json: None,
    },
    FoldOutcome::Folded(answer) => FoldResult {
      folded: true,
      bytes: answer.bytes as f64,
      preview_json: Some(answer.preview_json),
      shape_json: Some(answer.shape_json),
      canonical_json: answer.canonical_json,
    },
  })
}

/// Measures an answer and, when it is larger than `thresholdBytes`, builds its preview and shape, off the
/// JS thread. `kind` is `'json'` for `JSON.stringify` output, `'text'` for a tool's text (a JSON object or
/// array in it folds as that value; other text as a string). Rejects with `INVALID_INPUT` for a bad kind,
/// a threshold below 1024, or a `'json'` answer that is not JSON.
#[napi(
  ts_args_type = "answer: string, kind: 'json' | 'text', settings: FoldSettings",
  ts_return_type = "Promise<FoldResult>"
)]
pub fn fold_answer<'env>(
  env: &'env Env,
  answer: String,
  kind: String,
  settings: FoldSettings,
) -> napi::Result<PromiseRaw<'env, FoldResult>> {
  let settings = self::settings(&settings);
  run_blocking(
    env,
    move || run(&answer, &kind, &settings),
    |_, result| Ok(result),
  )
}

/// The synchronous twin of `foldAnswer`, on the JS thread: same result, same errors (thrown).
#[napi(ts_args_type = "answer: string, kind: 'json' | 'text', settings: FoldSettings")]
pub fn fold_answer_sync(
  env: &Env,
  answer: String,
  kind: String,
  settings: FoldSettings,
) -> napi::Result<FoldResult> {
  let settings = self::settings(&settings);
  run_sync(env, || run(&answer, &kind, &settings))
}

/// `{"preview":…,"shape":…,"handle":"…"}`: the folded answer as the model sees it, from `foldAnswer`'s
/// `previewJson` and `shapeJson` and the handle the store gave. Throws `INVALID_INPUT` when either is not one
/// JSON value (the result would not be JSON).
#[napi]
pub fn folded_json(
  env: &Env,
  preview_json: String,
  shape_json: String,
  handle: String,
) -> napi::Result<String> {
  run_sync(env, || {
    for (name, json) in [("previewJson", &preview_json), ("shapeJson", &shape_json)] {
      if serde_json::from_str::<serde::de::IgnoredAny>(json).is_err() {
        return Err(
          CoreError::new(ErrorCode::InvalidInput, format!("{name} is not JSON."))
            .with_remedy("Pass previewJson and shapeJson exactly as foldAnswer returned them."),
        );
      }
    }
    Ok(fold::folded_json(&preview_json, &shape_json, &handle))
  })
}
