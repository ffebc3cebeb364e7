//! JMESPath expressions on a 1 MB answer of orders: the issue's four questions answered, and each hostile
//! expression refused with INVALID_INPUT naming `expression` and the limit or budget it passed.

use std::sync::LazyLock;

use result_handles_native::core::error::{CoreError, ErrorCode};
use result_handles_native::core::expression::{Expression, MAX_EXPRESSION_BYTES, MAX_NESTING};
use serde_json::{json, Value};

mod orders;
use orders::{orders_answer, STATUSES};

static ANSWER: LazyLock<(Value, usize)> = LazyLock::new(|| {
  let answer = orders_answer(1_050_000);
  let bytes = serde_json::to_string(&answer).map_or(0, |text| text.len());
  (answer, bytes)
});

fn evaluate(expression: &str) -> Result<Value, CoreError> {
  let (answer, bytes) = &*ANSWER;
  Expression::parse(expression)?.evaluate(answer, *bytes)
}

fn orders() -> &'static Vec<Value> {
  ANSWER.0["orders"].as_array().expect("orders")
}

fn amount(order: &Value) -> f64 {
  order["amount"].as_f64().unwrap_or_default()
}

#[test]
fn the_answer_is_the_issues_size() {
  let (_, bytes) = &*ANSWER;
  assert!((1_000_000..1_100_000).contains(bytes), "{bytes}");
  assert!(
    (4_000..4_500).contains(&orders().len()),
    "{}",
    orders().len()
  );
}

#[test]
fn the_four_questions_are_answered_in_one_expression_each() {
  let open: f64 = orders()
    .iter()
    .filter(|order| order["status"] == "open")
    .map(amount)
    .sum();
  assert_eq!(
    evaluate("sum(orders[?status == 'open'].amount)").ok(),
    Some(json!(open))
  );
  let largest = orders().iter().map(amount).fold(f64::MIN, f64::max);
  assert_eq!(evaluate("max(orders[*].amount)").ok(), Some(json!(largest)));
  let id = orders()
    .iter()
    .find(|order| amount(order) == largest)
    .map(|order| order["id"].clone());
  assert_eq!(evaluate("max_by(orders, &amount).id").ok(), id);
  let per_status = evaluate("from_items(items(group_by(orders, &status))[*].[[0], length([1])])");
  let per_status = per_status.unwrap_or_else(|e| panic!("{e}"));
  for status in STATUSES {
    let count = orders()
      .iter()
      .filter(|order| order["status"] == status)
      .count();
    assert_eq!(per_status[status], json!(count), "{status}");
  }
}

#[test]
fn sorting_every_item_of_every_order_once_is_within_the_budget() {
  let sorted =
    evaluate("sort_by(orders[].items[], &price)[*].price").unwrap_or_else(|e| panic!("{e}"));
  let prices: Vec<f64> = sorted
    .as_array()
    .into_iter()
    .flatten()
    .filter_map(Value::as_f64)
    .collect();
  assert!(
    prices.len() > 8_000 && prices.is_sorted(),
    "{}",
    prices.len()
  );
}

fn refused(expression: &str, naming: &[&str]) {
  let error = evaluate(expression).expect_err("refused");
  assert_eq!(error.code, ErrorCode::InvalidInput, "{error}");
  assert!(error.message.starts_with("expression "), "{error}");
  for word in naming {
    assert!(error.message.contains(word), "{word}: {error}");
  }
  assert!(error.remedy.is_some());
}

/// `[@, @, …]`: a multiselect list of `n` copies of the current value.
fn copies(n: usize) -> String {
  format!("[{}]", vec!["@"; n].join(","))
}

#[test]
fn five_thousand_deep_nesting_is_refused() {
  let limit = MAX_EXPRESSION_BYTES.to_string();
  refused(
    &format!("{}@{}", "[".repeat(5_000), "]".repeat(5_000)),
    &[&limit, "bytes"],
  );
  refused(&format!("{}@", "!".repeat(5_000)), &[&limit]);
  // Within the length limit, the nesting limit refuses it.
  refused(
    &format!("{}@{}", "(".repeat(2_000), ")".repeat(2_000)),
    &["nests", &MAX_NESTING.to_string()],
  );
}

#[test]
fn a_list_of_two_thousand_copies_of_the_answer_is_refused() {
  refused(&copies(2_000), &["budget of", "bytes"]);
}

#[test]
fn a_hash_of_twenty_thousand_keys_is_refused() {
  let keys: Vec<String> = (0..20_000).map(|i| format!("k{i}: @")).collect();
  refused(
    &format!("{{{}}}", keys.join(", ")),
    &[&MAX_EXPRESSION_BYTES.to_string(), "bytes"],
  );
}

#[test]
fn sorting_every_item_of_every_order_a_thousand_times_is_refused() {
  let expression = format!("sort_by({}[].orders[].items[], &price)", copies(1_000));
  refused(&expression, &["budget of"]);
}

#[test]
fn filtering_every_order_a_thousand_times_is_refused() {
  let expression = format!(
    "length({}[*].orders[?contains(tags, 'gift')][])",
    copies(1_000)
  );
  refused(&expression, &["budget of", "steps"]);
}
