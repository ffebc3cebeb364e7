//! The fit/fold reader: any text, as a CallToolResult or as an answer, is passed or folded without a panic, and a
//! folded form is valid JSON no larger than the threshold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use result_handles_native::core::fit::{inspect, Answer, Verdict};
use result_handles_native::core::fold::{
  fold_answer, folded_json, AnswerSource, FoldOutcome, FoldSettings, HANDLE_LEN,
};
use result_handles_native_fuzz::is_js_json;

fuzz_target!(|data: &[u8]| {
  let Ok(text) = std::str::from_utf8(data) else {
    return;
  };
  // A small threshold so that small inputs fold; the preview settings move with the input.
  let settings = FoldSettings {
    threshold_bytes: 1024,
    preview_items: 1 + data.len() % 4,
    preview_chars: 8 + data.len() % 64,
  };
  let inspection = inspect(text, text.get(..data.len().min(64)));
  if let Verdict::Candidate(answer) = inspection.verdict {
    match answer {
      Answer::Structured(json) => {
        if let Some(json) = canonical(json) {
          check(AnswerSource::Json(&json), &settings);
        }
      }
      Answer::Text(text) => check(AnswerSource::Text(&text), &settings),
    }
  }
  check(AnswerSource::Text(text), &settings);
  if let Some(json) = canonical(text) {
    check(AnswerSource::Json(&json), &settings);
  }
});

/// The JSON text of `text` without whitespace, as the hosts pass a `JSON.stringify` output.
fn canonical(text: &str) -> Option<String> {
  let value: serde_json::Value = serde_json::from_str(text).ok()?;
  serde_json::to_string(&value).ok()
}

fn check(source: AnswerSource<'_>, settings: &FoldSettings) {
  let Ok(FoldOutcome::Folded(folded)) = fold_answer(source, settings) else {
    return;
  };
  let form = folded_json(
    &folded.preview_json,
    &folded.shape_json,
    &"0".repeat(HANDLE_LEN),
  );
  assert!(
    form.len() <= settings.threshold_bytes,
    "a folded form of {} bytes over a threshold of {}",
    form.len(),
    settings.threshold_bytes
  );
  assert!(is_js_json(&form), "a folded form that is not JSON: {form}");
}
