//! Unit tests of the expression engine: the nesting bound (every shape that recurses, at the limit and past it,
//! on a small stack), parse errors and what the evaluator adds to the spec (numbers, key order, built values).

use serde_json::{json, Value};

use super::compile::nesting;
use super::{Budget, Expression, MAX_EXPRESSION_BYTES, MAX_NESTING};
use crate::core::error::{CoreError, ErrorCode};

fn eval(expression: &str, input: &Value) -> Result<Value, CoreError> {
  let bytes = serde_json::to_string(input).unwrap_or_default().len();
  Expression::parse(expression)?.evaluate(input, bytes)
}

fn ok(expression: &str, input: &Value) -> Value {
  eval(expression, input).unwrap_or_else(|e| panic!("{expression}: {e}"))
}

fn refused(expression: &str, input: &Value) -> CoreError {
  let error = eval(expression, input).expect_err(expression);
  assert_eq!(error.code, ErrorCode::InvalidInput, "{error}");
  assert!(error.message.starts_with("expression "), "{error}");
  error
}

type Shape = fn(usize) -> String;

/// Each shape that makes the crate's parser or the evaluator recurse, `n` times over.
const SHAPES: [(&str, Shape); 13] = [
  ("lists", |n| format!("{}@{}", "[".repeat(n), "]".repeat(n))),
  ("parentheses", |n| {
    format!("{}@{}", "(".repeat(n), ")".repeat(n))
  }),
  ("negations", |n| format!("{}@", "!".repeat(n))),
  ("projections", |n| vec!["a[*]"; n].join(".")),
  ("calls", |n| {
    format!("{}a{}", "abs(".repeat(n), ")".repeat(n))
  }),
  ("hashes", |n| {
    format!("{}@{}", "{a:".repeat(n), "}".repeat(n))
  }),
  ("dots", |n| vec!["a"; n].join(".")),
  ("ors", |n| vec!["a"; n].join(" || ")),
  ("filters", |n| {
    format!("{}@{}", "[?".repeat(n), "]".repeat(n))
  }),
  ("sorts", |n| {
    format!("{}@{}", "sort_by(@, &".repeat(n), ")".repeat(n))
  }),
  ("pipes", |n| vec!["[@]"; n].join(" | ")),
  ("flattens", |n| format!("a{}", "[]".repeat(n))),
  ("comparisons", |n| vec!["a"; n + 1].join(" == ")),
];

/// On a stack far smaller than a blocking-pool thread's: parsing and evaluating must make their own.
fn on_small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
  std::thread::Builder::new()
    .stack_size(256 << 10)
    .spawn(work)
    .and_then(|thread| thread.join().map_err(|_| std::io::Error::other("panicked")))
    .expect("no overflow, no panic")
}

#[test]
fn every_recursive_shape_runs_at_the_nesting_limit_and_is_refused_past_it() {
  for (name, shape) in SHAPES {
    let n = (1..4096)
      .find(|&n| nesting(&shape(n + 1)) > MAX_NESTING)
      .unwrap_or_else(|| panic!("{name} never reaches the limit"));
    let (at_limit, past) = (shape(n), shape(n + 1));
    // Some shapes count two levels at a time.
    assert!(nesting(&at_limit) + 2 > MAX_NESTING, "{name}");
    let input = json!({"a": [{"a": [[1]]}]});
    let outcome = on_small_stack(move || {
      let accepted = Expression::parse(&at_limit).map(|e| e.evaluate(&input, 100).map(|_| ()));
      (accepted, Expression::parse(&past).err())
    });
    match outcome.0 {
      Ok(Ok(())) => {}
      Ok(Err(error)) => assert!(error.message.contains("it expects"), "{name}: {error}"),
      Err(error) => panic!("{name} at the limit was refused: {error}"),
    }
    let error = outcome
      .1
      .unwrap_or_else(|| panic!("{name} past the limit was accepted"));
    assert!(error.message.contains("nests too deep"), "{name}: {error}");
    assert!(
      error.message.contains(&MAX_NESTING.to_string()),
      "{name}: {error}"
    );
  }
}

#[test]
fn five_thousand_deep_nesting_is_refused_before_parsing() {
  for (name, shape) in SHAPES {
    let error = Expression::parse(&shape(5000)).expect_err(name);
    assert_eq!(error.code, ErrorCode::InvalidInput, "{name}");
    assert!(
      error.message.contains(&MAX_EXPRESSION_BYTES.to_string()),
      "{name}: {error}"
    );
  }
  // The same nesting that fits in the length limit is refused for its depth.
  let error = Expression::parse(&format!("{}@{}", "[".repeat(2000), "]".repeat(2000))).unwrap_err();
  assert!(error.message.contains("nests too deep"), "{error}");
}

#[test]
fn a_real_question_nests_far_below_the_limit() {
  let question = "orders[?status == 'open' && amount > `100`].{id: id, n: length(items), total: \
                  sum(items[*].price)} | sort_by(@, &total) | reverse(@)[:10]";
  assert!(Expression::parse(question).is_ok());
  assert!(nesting(question) < 16, "{}", nesting(question));
  // Quoted text is not counted.
  assert_eq!(nesting("'((((' == `\"[[[[\"` || \"a.b.c\""), 2);
}

#[test]
fn a_syntax_error_gives_the_character_where_parsing_stopped() {
  let error = Expression::parse("orders[?status == 'open'").unwrap_err();
  assert_eq!(error.code, ErrorCode::InvalidInput);
  assert!(
    error
      .message
      .starts_with("expression is not valid JMESPath"),
    "{error}"
  );
  assert!(error.message.contains("at character 24"), "{error}");
  // Characters, not bytes; and the crate's reason never quotes the expression.
  let error = Expression::parse("'é' == `{bad json}`").unwrap_err();
  assert!(error.message.contains("at character 7"), "{error}");
  assert!(!error.message.contains("bad json"), "{error}");
}

#[test]
fn unknown_functions_and_arities_are_refused_when_parsed() {
  assert!(Expression::parse("sum_all(@)")
    .unwrap_err()
    .message
    .contains("unknown function"));
  let error = Expression::parse("join(',')").unwrap_err();
  assert!(
    error
      .message
      .contains("join() with 1 arguments; it takes 2"),
    "{error}"
  );
  assert!(Expression::parse("merge()")
    .unwrap_err()
    .message
    .contains("at least 1"));
}

#[test]
fn sums_and_averages_add_in_doubles_as_js_does() {
  let input = json!({"a": [0.1, 0.2, 0.3], "big": 12345678901234567890u64, "n": -0.0});
  assert_eq!(ok("sum(a)", &input), json!(0.6000000000000001));
  assert_eq!(ok("avg(a)", &input), json!(0.20000000000000004));
  assert_eq!(ok("sum(`[]`)", &input), json!(0));
  assert_eq!(ok("length(a)", &input), json!(3));
  // A number passed through keeps what the input holds; a computed one is a double.
  assert_eq!(ok("big", &input), json!(12345678901234567890u64));
  assert_eq!(ok("max([big])", &input), json!(12345678901234567890u64));
  assert_eq!(ok("abs(big)", &input), json!(1.2345678901234567e19));
  assert_eq!(ok("abs(n)", &input), json!(0));
}

#[test]
fn built_objects_list_index_keys_first_as_js_does() {
  let input = json!([{"k": "b"}, {"k": "10"}, {"k": "2"}, {"k": null}, {"k": "b"}]);
  let groups = ok("group_by(@, &k)", &input);
  let keys: Vec<&String> = groups
    .as_object()
    .map(|o| o.keys().collect())
    .unwrap_or_default();
  assert_eq!(keys, ["2", "10", "b"]);
  assert_eq!(groups["b"].as_array().map(Vec::len), Some(2));
  assert_eq!(
    ok("{z: `1`, \"7\": `2`, a: `3`}", &json!({})).to_string(),
    r#"{"7":2,"z":1,"a":3}"#
  );
}

#[test]
fn community_functions_follow_their_definitions() {
  let input = json!({"o": {"a": 1, "b": [2]}, "pairs": [["x", 1], ["y", 2], ["x", 3]]});
  assert_eq!(ok("items(o)", &input), json!([["a", 1], ["b", [2]]]));
  assert_eq!(ok("from_items(pairs)", &input), json!({"x": 3, "y": 2}));
  assert_eq!(ok("from_items(items(o))", &input), input["o"]);
  for bad in [
    "from_items(`[[\"a\"]]`)",
    "from_items(`[[1, 2]]`)",
    "from_items(o)",
    "items(pairs)",
  ] {
    assert!(refused(bad, &input).message.contains("it expects"), "{bad}");
  }
  let orders = json!([{"s": "open"}, {"s": "paid"}, {"s": "open"}, {"t": 1}]);
  assert_eq!(
    ok("keys(group_by(@, &s))", &orders),
    json!(["open", "paid"])
  );
  let counts = "from_items(items(group_by(@, &s))[*].[[0], length([1])])";
  assert_eq!(ok(counts, &orders), json!({"open": 2, "paid": 1}));
  assert!(refused("group_by(@, &t)", &json!([{"t": 1}]))
    .message
    .contains("giving strings"));
}

#[test]
fn the_budget_counts_steps_and_what_is_built() {
  let input = json!({"a": (0..1000).collect::<Vec<_>>()});
  let expr = Expression::parse("a[*].[@, @]").unwrap_or_else(|e| panic!("{e}"));
  let (value, spent) = expr
    .evaluate_within(&input, Budget::new(1 << 20, 1 << 30))
    .unwrap_or_else(|e| panic!("{e}"));
  assert_eq!(value.as_array().map(Vec::len), Some(1000));
  assert!(spent.steps > 3000 && spent.bytes > 3000 * 32, "{spent:?}");
  let error = expr
    .evaluate_within(&input, Budget::new(2000, 1 << 30))
    .unwrap_err();
  assert!(error.message.contains("budget of 2000 steps"), "{error}");
  let error = expr
    .evaluate_within(&input, Budget::new(1 << 20, 10_000))
    .unwrap_err();
  assert!(error.message.contains("budget of 10000 bytes"), "{error}");
}

#[test]
fn an_expression_can_move_to_another_thread() {
  fn send_and_share<T: Send + Sync>(_: &T) {}
  send_and_share(&Expression::parse("a").unwrap_or_else(|e| panic!("{e}")));
}
