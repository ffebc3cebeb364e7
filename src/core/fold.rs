//! Folding: decide whether an answer is too large for the model, and if so describe it in a few bytes.
//!
//! The size is exactly `Buffer.byteLength(JSON.stringify(answer))`. An answer larger than the threshold
//! becomes `{"preview":…,"shape":…,"handle":"…"}`, never larger than the threshold itself. The answer is
//! read once, as a stream of tokens (see `core::json::scan`); no tree of the whole answer is built and
//! nothing recurses on its depth. See `docs/fold.md` for the rules a reader (or a model) can rely on.

mod canonical;
mod measure;
mod nodes;
mod render;
mod skeleton;
mod utf16;

use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::json::write::{push_escaped_str, quoted_len};
use crate::core::options::MIN_THRESHOLD_BYTES;

/// An answer to fold.
#[derive(Debug, Clone, Copy)]
pub enum AnswerSource<'a> {
  /// `JSON.stringify(answer)` output; taken as canonical (its length is the size).
  Json(&'a str),
  /// A tool's text: a JSON object or array in it is folded as that value, any other text as a string.
  Text(&'a str),
}

/// How to fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldSettings {
  /// Answers larger than this many bytes fold; the folded form is never larger.
  pub threshold_bytes: usize,
  /// Items kept from every list in the preview.
  pub preview_items: usize,
  /// UTF-16 units kept from every string in the preview.
  pub preview_chars: usize,
}

/// A folded answer's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldedAnswer {
  /// The answer's size: `Buffer.byteLength(JSON.stringify(answer))`.
  pub bytes: usize,
  /// The preview, JSON.
  pub preview_json: String,
  /// The shape, JSON.
  pub shape_json: String,
  /// The answer as `JSON.stringify` prints it, when that differs from the input: `Some` for
  /// [`AnswerSource::Text`]; `None` for [`AnswerSource::Json`], whose input is kept as it is.
  pub canonical_json: Option<String>,
  /// The answer's deepest container nesting: `[]` is 1, `{"a":[1]}` is 2, a string 0. The hosts send answers
  /// deeper than the query reader's limit whole (they could be folded but never read back).
  pub depth: usize,
}

/// What the fold decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoldOutcome {
  /// Small enough: send it as it is.
  Whole { bytes: usize },
  /// Too large: send the folded form instead.
  Folded(FoldedAnswer),
}

/// Length of the handle (a UUID) the folded form carries.
pub const HANDLE_LEN: usize = 36;

/// `{"preview":P,"shape":S,"handle":"H"}`: the folded answer as the model sees it.
pub fn folded_json(preview_json: &str, shape_json: &str, handle: &str) -> String {
  let mut out = String::with_capacity(preview_json.len() + shape_json.len() + handle.len() + 40);
  out.push_str("{\"preview\":");
  out.push_str(preview_json);
  out.push_str(",\"shape\":");
  out.push_str(shape_json);
  out.push_str(",\"handle\":\"");
  push_escaped_str(handle, &mut out);
  out.push_str("\"}");
  out
}

/// Bytes the folded form spends around preview and shape, with a [`HANDLE_LEN`]-character handle.
fn envelope_bytes() -> usize {
  folded_json("", "", &"0".repeat(HANDLE_LEN)).len()
}

/// Memory the skeleton may use, as a multiple of the budget (bounded both ways).
fn retain_bytes(budget: usize) -> usize {
  budget.saturating_mul(4).clamp(64 * 1024, 256 * 1024 * 1024)
}

/// Measures an answer and, when it is larger than the threshold, builds its preview and shape.
pub fn fold_answer(source: AnswerSource<'_>, settings: &FoldSettings) -> CoreResult<FoldOutcome> {
  if (settings.threshold_bytes as u64) < MIN_THRESHOLD_BYTES {
    return Err(
      CoreError::new(
        ErrorCode::InvalidInput,
        format!("thresholdBytes must be at least {MIN_THRESHOLD_BYTES}."),
      )
      .with_remedy("Pass the thresholdBytes of the validated options."),
    );
  }
  match source {
    AnswerSource::Json(json) => {
      if json.len() <= settings.threshold_bytes {
        return Ok(FoldOutcome::Whole { bytes: json.len() });
      }
      let (preview_json, shape_json, depth) = preview_and_shape(json, settings)?;
      Ok(FoldOutcome::Folded(FoldedAnswer {
        bytes: json.len(),
        preview_json,
        shape_json,
        canonical_json: None,
        depth,
      }))
    }
    AnswerSource::Text(text) => {
      let structured = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with(['{', '[']);
      let parsed = if structured {
        canonical::canonicalize(text).ok()
      } else {
        None
      };
      let canonical = match parsed {
        Some(json) => json,
        None => {
          let bytes = quoted_len(text);
          if bytes <= settings.threshold_bytes {
            return Ok(FoldOutcome::Whole { bytes });
          }
          let mut json = String::with_capacity(bytes);
          json.push('"');
          push_escaped_str(text, &mut json);
          json.push('"');
          json
        }
      };
      let bytes = canonical.len();
      if bytes <= settings.threshold_bytes {
        return Ok(FoldOutcome::Whole { bytes });
      }
      let (preview_json, shape_json, depth) = preview_and_shape(&canonical, settings)?;
      Ok(FoldOutcome::Folded(FoldedAnswer {
        bytes,
        preview_json,
        shape_json,
        canonical_json: Some(canonical),
        depth,
      }))
    }
  }
}

/// Whether a text answer, given as the UTF-16 units JS holds, is certainly no larger than `threshold_bytes`,
/// from one pass over the units (and for a text alone that the pass leaves unsure, one scan of its grammar that
/// writes nothing);
/// `repeats_structured` when it is the only text beside structuredContent. `false` means only that the exact way
/// (`fold_answer`) must decide.
pub fn units_certainly_under(
  units: &[u16],
  repeats_structured: bool,
  threshold_bytes: usize,
) -> bool {
  measure::units_certainly_under(units, repeats_structured, threshold_bytes)
}

/// The longest text, in UTF-16 units, certainly no larger than `threshold_bytes` whatever it holds (hosts pass it
/// with no call).
pub fn units_always_under(threshold_bytes: usize) -> usize {
  measure::units_always_under(threshold_bytes)
}

/// [`units_certainly_under`], its pass over the units compiled for AVX2.
///
/// # Safety
///
/// Call it only on a CPU that has AVX2 (`is_x86_feature_detected!("avx2")`): it is safe code, but compiled for
/// instructions an older CPU does not have.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub fn units_certainly_under_avx2(
  units: &[u16],
  repeats_structured: bool,
  threshold_bytes: usize,
) -> bool {
  measure::units_certainly_under_avx2(units, repeats_structured, threshold_bytes)
}

/// For a text given as UTF-16 units (one holding raw lone surrogates, which UTF-8 cannot carry): its canonical
/// JSON when it holds a JSON object or array, else `None`, exactly as `canonical_json` and the fold read a text.
pub fn structured_json_of_utf16(units: &[u16]) -> Option<String> {
  utf16::structured_json(units)
}

/// The JSON a text answer given as UTF-16 units stands for: [`structured_json_of_utf16`], else the quoted text.
/// Folding it as [`AnswerSource::Json`] folds it as [`AnswerSource::Text`] folds a text.
pub fn text_answer_json_of_utf16(units: &[u16]) -> String {
  utf16::text_answer_json(units)
}

/// Preview, shape and the answer's depth.
fn preview_and_shape(json: &str, settings: &FoldSettings) -> CoreResult<(String, String, usize)> {
  let budget = settings.threshold_bytes - envelope_bytes();
  let limits = skeleton::Limits {
    items: settings.preview_items,
    chars: settings.preview_chars,
    retain_bytes: retain_bytes(budget),
    // A shown member costs well over 16 bytes (key, value and its shape), so more than this never fit.
    max_keys: (budget / 16).max(64),
  };
  let skeleton = skeleton::build(json, &limits).map_err(|_| {
    CoreError::new(
      ErrorCode::InvalidInput,
      "The answer is not valid JSON text.",
    )
    .with_remedy("Pass JSON.stringify output as a JSON answer, or pass the text as a text answer.")
  })?;
  let depth = skeleton.depth;
  let (preview_json, shape_json) = render::render(
    &skeleton,
    settings.preview_items,
    settings.preview_chars,
    budget,
    settings.threshold_bytes,
  )
  .ok_or_else(|| {
    CoreError::internal("The folded answer could not be made to fit the threshold.")
  })?;
  Ok((preview_json, shape_json, depth))
}

/// `JSON.stringify(JSON.parse(text))`, built in one pass without recursion; `None` when `text` is not JSON.
pub(crate) fn canonical_json(text: &str) -> Option<String> {
  canonical::canonicalize(text).ok()
}

#[cfg(test)]
mod tests;
