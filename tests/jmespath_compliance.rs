//! The official JMESPath compliance suite (jmespath.test, every case), and the JMESPath Community cases for
//! `group_by`, `items` and `from_items`, through the expression engine.
//!
//! A case with a result must give it (numbers compared by value, objects whatever their order); a case with an
//! error must give INVALID_INPUT whose message names that kind of error; a benchmark case must evaluate.

use std::path::{Path, PathBuf};

use result_handles_native::core::error::ErrorCode;
use result_handles_native::core::expression::Expression;
use serde_json::Value;

mod support;
use support::same;

/// Cases in the vendored files (tests/vectors/README.md): the official suite, then the community's.
const OFFICIAL_CASES: usize = 908;
const COMMUNITY_CASES: usize = 10;

fn suites(folder: &str) -> Vec<(String, Value)> {
  let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    .join("tests/vectors")
    .join(folder);
  let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
    .expect("the vendored suite")
    .filter_map(|entry| entry.ok().map(|entry| entry.path()))
    .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
    .collect();
  files.sort();
  files
    .iter()
    .map(|path| (name_of(path), read(path)))
    .collect()
}

fn name_of(path: &Path) -> String {
  path
    .file_stem()
    .unwrap_or_default()
    .to_string_lossy()
    .into_owned()
}

fn read(path: &Path) -> Value {
  serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

/// The words each kind of error's message holds.
fn error_words(kind: &str) -> &'static str {
  match kind {
    "syntax" => "not valid JMESPath",
    "invalid-arity" => "arguments; it takes",
    "unknown-function" => "unknown function",
    "invalid-type" => "it expects",
    "invalid-value" => "step of 0",
    _ => "(an unknown kind of error)",
  }
}

/// `None` when the case passes, else what went wrong.
fn check(given: &Value, case: &Value) -> Option<String> {
  let text = case["expression"].as_str().unwrap_or_default();
  let bytes = serde_json::to_string(given).unwrap_or_default().len();
  let outcome = Expression::parse(text).and_then(|expr| expr.evaluate(given, bytes));
  match (&outcome, case.get("result"), case["error"].as_str()) {
    (Ok(got), Some(want), _) if same(got, want) => None,
    (Err(err), _, Some(kind))
      if err.code == ErrorCode::InvalidInput && err.message.contains(error_words(kind)) =>
    {
      None
    }
    (Ok(_), None, None) if case.get("bench").is_some() => None,
    _ => Some(format!(
      "{text:?}: want {:?} / error {:?}, got {outcome:?}",
      case.get("result"),
      case.get("error")
    )),
  }
}

fn run(folder: &str) -> (usize, Vec<String>) {
  let mut count = 0;
  let mut failures = Vec::new();
  for (file, suites) in suites(folder) {
    for (at, suite) in suites
      .as_array()
      .expect("a list of suites")
      .iter()
      .enumerate()
    {
      for case in suite["cases"].as_array().expect("cases") {
        count += 1;
        if let Some(failure) = check(&suite["given"], case) {
          failures.push(format!("{file} suite {at}: {failure}"));
        }
      }
    }
  }
  (count, failures)
}

#[test]
fn every_official_case_passes() {
  let (count, failures) = run("jmespath");
  assert_eq!(count, OFFICIAL_CASES, "the vendored suite changed");
  assert!(
    failures.is_empty(),
    "{} of {count} failed:\n{}",
    failures.len(),
    failures.join("\n")
  );
}

#[test]
fn every_community_case_for_group_by_and_items_passes() {
  let (count, failures) = run("jmespath-community");
  assert_eq!(count, COMMUNITY_CASES, "the vendored cases changed");
  assert!(
    failures.is_empty(),
    "{} of {count} failed:\n{}",
    failures.len(),
    failures.join("\n")
  );
}
