//! The path parser and evaluator: any path over any text answers or refuses with a code, never panics; over a
//! valid JSON answer, reading the text and reading the parsed value give the same answer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use result_handles_native::core::query::{path_form, run_query, run_query_value};
use result_handles_native_fuzz::{args_for, is_js_json, path_and_rest};

const THRESHOLD: usize = 4096;

fuzz_target!(|data: &[u8]| {
  let Some((path, answer)) = path_and_rest(data) else {
    return;
  };
  let _ = path_form(path);
  let args = args_for(path);
  let from_text = run_query(answer, &args, THRESHOLD);
  if let Ok(value) = serde_json::from_slice::<serde_json::Value>(answer) {
    let from_value = run_query_value(&value, &args, THRESHOLD);
    match (&from_text, &from_value) {
      (Ok(a), Ok(b)) => assert_eq!(a, b, "text and value readings differ for {path:?}"),
      (Err(a), Err(b)) => assert_eq!(
        a.code, b.code,
        "text and value readings differ for {path:?}"
      ),
      _ => panic!(
        "one reading answered, the other refused, for {path:?}: {from_text:?} / {from_value:?}"
      ),
    }
  }
  if let Ok(answer) = from_text {
    assert!(is_js_json(&answer), "an answer that is not JSON: {answer}");
  }
});
