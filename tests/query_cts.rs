//! The RFC 9535 JSONPath compliance test suite (all 703 cases) through the `path` argument of `result_query`.
//!
//! Valid selectors must answer one of the listed results; invalid ones must answer RESULT_PATH_NOT_FOUND.
//! Every case runs through both entry points (answer text and parsed value).

use std::path::PathBuf;

use result_handles_native::core::error::ErrorCode;
use result_handles_native::core::query::{
  path_form, run_query, run_query_value, PathForm, QueryArgs, MAX_LIMIT,
};
use serde_json::Value;
use serde_json_path::JsonPath;

mod support;
use support::same;

/// The vendored suite (tests/vectors/jsonpath-cts, with its license and notice).
fn vectors() -> PathBuf {
  PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// RFC 9535 allows only singular queries as comparables, so the crate's own parser tells whether a query is one.
fn singular_by_the_crate(selector: &str) -> bool {
  JsonPath::parse(&format!("$[?{selector}==0]")).is_ok()
}

struct Outcome {
  passed: bool,
  note: String,
}

fn check_valid(case: &Value, selector: &str) -> Outcome {
  let document = &case["document"];
  let alternatives: Vec<&Vec<Value>> = match (case["result"].as_array(), case["results"].as_array())
  {
    (Some(one), _) => vec![one],
    (None, Some(many)) => many.iter().filter_map(Value::as_array).collect(),
    _ => {
      return Outcome {
        passed: false,
        note: "case lists no result".into(),
      }
    }
  };
  let expected_paths: Vec<String> = case["result_paths"]
    .as_array()
    .or_else(|| {
      case["results_paths"]
        .as_array()
        .and_then(|all| all.first())
        .and_then(Value::as_array)
    })
    .map(|paths| {
      paths
        .iter()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
    })
    .unwrap_or_default();
  let singular = singular_by_the_crate(selector);
  let form = path_form(selector);
  let form_agrees = match form {
    Ok(PathForm::Root) | Ok(PathForm::Simple) | Ok(PathForm::Pointer) => singular,
    Ok(PathForm::Query) => !singular,
    Err(_) => false,
  };
  if !form_agrees {
    return Outcome {
      passed: false,
      note: format!("form {form:?} but singular={singular}"),
    };
  }
  let mut args = QueryArgs::new("h", selector).expect("a valid path");
  args.limit = Some(MAX_LIMIT);
  let text = serde_json::to_string(document).unwrap_or_default();
  let by_text = run_query(text.as_bytes(), &args, usize::MAX);
  let by_value = run_query_value(document, &args, usize::MAX);
  if by_text != by_value {
    return Outcome {
      passed: false,
      note: "text and value routes disagree".into(),
    };
  }
  if singular {
    let expected = alternatives.first().copied().cloned().unwrap_or_default();
    return match (expected.first(), by_text) {
      (None, Err(error)) if error.code == ErrorCode::PathNotFound => Outcome {
        passed: true,
        note: String::new(),
      },
      (Some(node), Ok(answer)) => {
        let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        let value_ok = same(&answer["value"], node);
        let path_ok = expected_paths.first().map(String::as_str) == answer["path"].as_str();
        Outcome {
          passed: value_ok && path_ok && expected.len() == 1,
          note: format!("answer {answer}"),
        }
      }
      (_, other) => Outcome {
        passed: false,
        note: format!("singular: {other:?}"),
      },
    };
  }
  match by_text {
    Ok(answer) => {
      let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
      let list = answer["value"].as_array().cloned().unwrap_or_default();
      let matched = alternatives
        .iter()
        .any(|alt| same(&Value::Array((*alt).clone()), &Value::Array(list.clone())));
      let total_ok = answer["total"].as_u64() == Some(list.len() as u64);
      let path_ok = answer["path"].as_str() == Some(selector);
      Outcome {
        passed: matched && total_ok && path_ok,
        note: format!("answer {answer}"),
      }
    }
    Err(error) => Outcome {
      passed: false,
      note: format!("error {error}"),
    },
  }
}

#[test]
fn jsonpath_compliance_suite() {
  let file = vectors().join("jsonpath-cts/cts.json");
  let text = std::fs::read_to_string(&file)
    .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
  let suite: Value = serde_json::from_str(&text).expect("cts.json is JSON");
  let cases = suite["tests"].as_array().expect("a tests array");
  assert_eq!(
    cases.len(),
    703,
    "the vendored suite (tests/vectors/jsonpath-cts) has 703 cases"
  );

  let (mut valid, mut valid_passed, mut invalid, mut invalid_passed) = (0, 0, 0, 0);
  let mut extensions = Vec::new();
  let (mut singular, mut lists) = (0, 0);
  let mut failures = Vec::new();
  for case in cases {
    let name = case["name"].as_str().unwrap_or("?");
    let selector = case["selector"].as_str().expect("a selector");
    if case["invalid_selector"].as_bool() == Some(true) {
      invalid += 1;
      // Refused with the arguments, before any answer is read; or, for a dot path by this engine's own grammar
      // (see below), found naming nothing.
      let outcome = QueryArgs::new("h", selector).and_then(|args| {
        let by_text = run_query(b"{}", &args, usize::MAX);
        let by_value = run_query_value(&Value::Object(Default::default()), &args, usize::MAX);
        if by_text == by_value {
          by_text
        } else {
          Ok("routes disagree".into())
        }
      });
      match outcome {
        Err(error) if error.code == ErrorCode::PathNotFound => invalid_passed += 1,
        outcome => failures.push(format!("{name} `{selector}`: {outcome:?}")),
      }
      // Not JSONPath, but a dot path by this engine's own grammar: refused above only because nothing is there.
      if path_form(selector).is_ok() {
        extensions.push(selector.to_string());
      }
    } else {
      valid += 1;
      if singular_by_the_crate(selector) {
        singular += 1;
      } else {
        lists += 1;
      }
      let outcome = check_valid(case, selector);
      if outcome.passed {
        valid_passed += 1;
      } else {
        failures.push(format!("{name} `{selector}`: {}", outcome.note));
      }
    }
  }
  let passed = valid_passed + invalid_passed;
  println!(
    "JSONPath CTS: {passed}/{} passed (valid selectors {valid_passed}/{valid}, invalid selectors \
     {invalid_passed}/{invalid}); valid ones: {singular} singular paths walked, {lists} queries answered as lists; \
     invalid selectors read as dot paths: {extensions:?}",
    cases.len()
  );
  for failure in &failures {
    println!("FAILED {failure}");
  }
  assert!(failures.is_empty(), "{} CTS cases failed", failures.len());
  assert_eq!(passed, 703);
  // The dot-path grammar takes `$.1` (digits index arrays) and `$.&` (keys outside the JSONPath shorthand);
  // every other invalid selector is refused as a path before any data is read.
  assert_eq!(extensions, ["$.&", "$.1"]);
}
