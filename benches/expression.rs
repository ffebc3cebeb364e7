//! JMESPath expressions in the engine alone (evaluated on a parsed `Value`, no JS boundary) on 1 MB and 10 MB
//! answers of orders: the four questions, and the hostile expressions until they are refused. Before the
//! timings it prints each answer's size and budget, what the hostile expressions spent when refused, and what a
//! tiny evaluation costs on a thread with room on its stack and on a 2 MiB one (where it makes its own stack).
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench expression`.

use std::sync::LazyLock;
use std::time::Instant;

use divan::{black_box, Bencher};
use result_handles_native::core::expression::{Budget, Expression};
use serde_json::{json, Value};

#[path = "../tests/orders/mod.rs"]
mod orders;

const SIZES_MB: [usize; 2] = [1, 10];

/// The answers as values and as JSON text, 1 MB then 10 MB.
static ANSWERS: LazyLock<Vec<(Value, String)>> = LazyLock::new(|| {
  SIZES_MB
    .iter()
    .map(|mb| {
      let answer = orders::orders_answer(mb * 1_050_000);
      let text = serde_json::to_string(&answer).unwrap_or_default();
      (answer, text)
    })
    .collect()
});

fn answer(mb: usize) -> (&'static Value, usize) {
  let (value, text) = &ANSWERS[usize::from(mb != 1)];
  (value, text.len())
}

const QUESTIONS: [&str; 4] = [
  "sum(orders[?status == 'open'].amount)",
  "max(orders[*].amount)",
  "max_by(orders, &amount).id",
  "from_items(items(group_by(orders, &status))[*].[[0], length([1])])",
];

fn copies(n: usize) -> String {
  format!("[{}]", vec!["@"; n].join(","))
}

fn hostile() -> [(&'static str, String); 4] {
  [
    ("2,000 copies of the answer", copies(2_000)),
    (
      "every item sorted, 1,000 times",
      format!("sort_by({}[].orders[].items[], &price)", copies(1_000)),
    ),
    (
      "every order filtered, 1,000 times",
      format!(
        "length({}[*].orders[?contains(tags, 'gift')][])",
        copies(1_000)
      ),
    ),
    (
      "2,000-deep nesting",
      format!("{}@{}", "(".repeat(2_000), ")".repeat(2_000)),
    ),
  ]
}

fn evaluate(expression: &Expression, mb: usize) -> usize {
  let (value, bytes) = answer(mb);
  expression
    .evaluate(value, bytes)
    .map_or(0, |v| v.to_string().len())
}

fn main() {
  for mb in SIZES_MB {
    let (value, bytes) = answer(mb);
    let budget = Budget::for_bytes(bytes);
    let orders = value["orders"].as_array().map_or(0, Vec::len);
    println!(
      "{mb} MB answer: {bytes} bytes, {orders} orders; budget {} steps, {} bytes",
      budget.step_limit, budget.byte_limit
    );
    for question in QUESTIONS {
      let result = Expression::parse(question).and_then(|e| e.evaluate_within(value, budget));
      let (answer, spent) = result.map_or_else(|e| (json!(e.message), budget), |(v, s)| (v, s));
      let answer = answer.to_string();
      println!(
        "  {question}: {answer} ({} bytes), {} steps, {} bytes built",
        answer.len(),
        spent.steps,
        spent.bytes
      );
    }
    for (name, expression) in hostile() {
      let started = Instant::now();
      let refused = Expression::parse(&expression)
        .and_then(|e| e.evaluate(value, bytes))
        .is_err();
      println!(
        "  {name}: refused {refused} after {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
      );
    }
  }
  let per_call = || {
    let tiny = Expression::parse("a.b").expect("valid");
    let value = json!({"a": {"b": 1}});
    let started = Instant::now();
    for _ in 0..20_000 {
      black_box(tiny.evaluate(&value, 20).is_ok());
    }
    started.elapsed().as_secs_f64() * 1e6 / 20_000.0
  };
  let small_stack = std::thread::Builder::new()
    .stack_size(2 << 20)
    .spawn(per_call);
  let small_stack = small_stack
    .ok()
    .and_then(|t| t.join().ok())
    .unwrap_or_default();
  println!(
    "`a.b` on a tiny value: {:.2} µs with room on the stack, {small_stack:.2} µs on a 2 MiB thread",
    per_call()
  );
  divan::main();
}

fn question(bencher: Bencher, mb: usize, text: &str) {
  let expression = Expression::parse(text).expect("valid");
  LazyLock::force(&ANSWERS);
  bencher.bench(|| evaluate(&expression, mb));
}

#[divan::bench(args = SIZES_MB, sample_count = 30)]
fn sum_of_open_amounts(bencher: Bencher, mb: usize) {
  question(bencher, mb, QUESTIONS[0]);
}

#[divan::bench(args = SIZES_MB, sample_count = 30)]
fn largest_amount(bencher: Bencher, mb: usize) {
  question(bencher, mb, QUESTIONS[1]);
}

#[divan::bench(args = SIZES_MB, sample_count = 30)]
fn id_of_the_largest_amount(bencher: Bencher, mb: usize) {
  question(bencher, mb, QUESTIONS[2]);
}

#[divan::bench(args = SIZES_MB, sample_count = 30)]
fn orders_per_status(bencher: Bencher, mb: usize) {
  question(bencher, mb, QUESTIONS[3]);
}

/// What the engine alone leaves out: the answer's text parsed into a `Value` (what JS's JSON.parse does).
#[divan::bench(args = SIZES_MB, sample_count = 10)]
fn parse_the_answer_into_a_value(bencher: Bencher, mb: usize) {
  let text = &ANSWERS[usize::from(mb != 1)].1;
  bencher
    .bench(|| serde_json::from_str::<Value>(text).map_or(0, |v| v["total"].as_u64().unwrap_or(0)));
}

/// Parsing a question (the crate's parser, the nesting check and the conversion).
#[divan::bench(sample_count = 200)]
fn parse_a_question(bencher: Bencher) {
  bencher.bench(|| Expression::parse(black_box(QUESTIONS[3])).is_ok());
}
