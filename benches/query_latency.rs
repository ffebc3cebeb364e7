//! Query latency for 20 items at the end of a 100k-item list, in the engine alone (no JS boundary); then the
//! query cost bound: descendant segments inside filters on deep chains, sized to just under the budget (the
//! worst accepted case) and over it (refused before evaluation).
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench query_latency` (divan prints the fastest, slowest,
//! median and mean of each). Asserts only that the ways of answering a window agree.

use std::sync::LazyLock;

use divan::{black_box, Bencher};
use result_handles_native::core::query::index::{answer_range, build_index, plan, IndexSettings};
use result_handles_native::core::query::{run_query, run_query_value, QueryArgs};
use serde_json::{json, Value};

const THRESHOLD: usize = 1 << 20;

/// The 100k-item answer, as a `Value`, as JSON text, and its path index.
struct Answer {
  doc: Value,
  text: String,
  index: Vec<u8>,
}

static ANSWER: LazyLock<Answer> = LazyLock::new(|| {
  let items: Vec<Value> = (0..100_000)
    .map(|i| json!({"id": i, "name": format!("item {i}"), "price": i as f64 * 0.25, "tags": ["a", "b"], "ok": i % 3 == 0}))
    .collect();
  let doc = json!({"data": {"items": items}});
  let text = serde_json::to_string(&doc).unwrap_or_default();
  let index = build_index(&text, IndexSettings::DEFAULT).unwrap_or_default();
  println!(
    "answer: 100000 items, {:.1} MB of JSON; path index {} bytes ({:.3} %)",
    text.len() as f64 / 1e6,
    index.len(),
    index.len() as f64 * 100.0 / text.len() as f64
  );
  Answer { doc, text, index }
});

/// `data.items` from offset 99 980: the last 20 items.
fn dot_path() -> QueryArgs {
  let mut args = QueryArgs::new("h", "data.items");
  args.offset = Some(99_980);
  args
}

/// `$.data.items[-20:]`, limit 20.
fn json_path() -> QueryArgs {
  let mut args = QueryArgs::new("h", "$.data.items[-20:]");
  args.limit = Some(20);
  args
}

fn answer_len(answer: Result<String, impl Sized>) -> usize {
  answer.map_or(0, |a| a.len())
}

fn main() {
  let answer = &*ANSWER;
  let expected = run_query_value(&answer.doc, &dot_path(), THRESHOLD).unwrap_or_default();
  assert_eq!(
    run_query(answer.text.as_bytes(), &dot_path(), THRESHOLD).unwrap_or_default(),
    expected
  );
  // Whether each cost-bound case was accepted or refused, said once before the timings.
  for query in ACCEPTED {
    let (count, levels) = accepted_case(query);
    let accepted =
      run_query_value(&chains(count, levels), &QueryArgs::new("h", query), 1 << 30).is_ok();
    println!("{query} on {count} chains x {levels}: accepted {accepted}");
  }
  for query in REFUSED {
    let refused =
      run_query_value(&chains(2000, 120), &QueryArgs::new("h", query), 1 << 30).is_err();
    println!("{query} on 2000 chains x 120: refused {refused}");
  }
  divan::main();
}

#[divan::bench(sample_count = 200)]
fn dot_path_on_a_parsed_value(bencher: Bencher) {
  let args = dot_path();
  bencher.bench(|| answer_len(run_query_value(&ANSWER.doc, &args, THRESHOLD)));
}

#[divan::bench(sample_count = 200)]
fn json_path_on_a_parsed_value(bencher: Bencher) {
  let args = json_path();
  bencher.bench(|| answer_len(run_query_value(&ANSWER.doc, &args, THRESHOLD)));
}

/// One pass over the text: what `run_query` does.
#[divan::bench(sample_count = 30)]
fn dot_path_from_text(bencher: Bencher) {
  let args = dot_path();
  bencher.bench(|| answer_len(run_query(ANSWER.text.as_bytes(), &args, THRESHOLD)));
}

/// The alternative `run_query` avoids: a full parse into a `Value` first.
#[divan::bench(sample_count = 30)]
fn dot_path_from_text_parsed_first(bencher: Bencher) {
  let args = dot_path();
  bencher.bench(|| {
    let value: Value = serde_json::from_slice(ANSWER.text.as_bytes()).unwrap_or(Value::Null);
    answer_len(run_query_value(&value, &args, THRESHOLD))
  });
}

#[divan::bench(sample_count = 30)]
fn json_path_from_text(bencher: Bencher) {
  let args = json_path();
  bencher.bench(|| answer_len(run_query(ANSWER.text.as_bytes(), &args, THRESHOLD)));
}

/// The path index's cost at save time.
#[divan::bench(sample_count = 30)]
fn build_the_path_index(bencher: Bencher) {
  bencher.bench(|| build_index(&ANSWER.text, IndexSettings::DEFAULT).map_or(0, |i| i.len()));
}

/// A window answered from the byte range the index names (plan + range answer, no I/O).
#[divan::bench(sample_count = 200)]
fn dot_path_through_the_index(bencher: Bencher) {
  let args = dot_path();
  bencher.bench(|| {
    plan(&ANSWER.index, &args)
      .and_then(|read| {
        let range = ANSWER
          .text
          .as_bytes()
          .get(read.start as usize..read.end as usize)?;
        answer_range(&read, range, &args, THRESHOLD)?.ok()
      })
      .map_or(0, |a| a.len())
  });
}

// ─── the cost bound ─────────────────────────────────────────────────────────

/// The cost-bound queries sized to just under the budget (see `accepted_case`).
const ACCEPTED: [&str; 4] = [
  "$..[?@..c]",
  "$..[?@..[?@..c]]",
  "$..[?@..[?@..[?@..c]]]",
  "$..*..*",
];
/// The cost-bound queries over the budget on 2000 chains × 120.
const REFUSED: [&str; 2] = ["$..[?@..c]", "$..[?@..[?@..c]]"];

/// `[{"a":{"a":…{"c":1}}}, …]`: `chains` chains of `levels` nested objects.
fn chains(chains: usize, levels: usize) -> Value {
  let chain = format!(
    "{}{{\"c\":1}}{}",
    "{\"a\":".repeat(levels),
    "}".repeat(levels)
  );
  let text = format!("[{}]", vec![chain; chains].join(","));
  serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// The chains each query runs on, just under the budget: N × D^k below 10 000 000 (N = chains × (levels + 2) + 1,
/// D = levels + 3).
fn accepted_case(query: &str) -> (usize, usize) {
  match query {
    "$..[?@..[?@..c]]" => (5, 120),
    "$..[?@..[?@..[?@..c]]]" => (1, 52),
    _ => (660, 120),
  }
}

/// The worst cases meant to be accepted (`main` says whether each was): evaluated in full.
#[divan::bench(args = ACCEPTED, sample_count = 3)]
fn cost_bound_accepted(bencher: Bencher, query: &str) {
  let (count, levels) = accepted_case(query);
  let doc = chains(count, levels);
  let args = QueryArgs::new("h", query);
  bencher.bench(|| answer_len(run_query_value(black_box(&doc), &args, 1 << 30)));
}

/// Over the budget on 2000 chains × 120: refused before evaluation (`main` says whether each was).
#[divan::bench(args = REFUSED, sample_count = 10)]
fn cost_bound_refused(bencher: Bencher, query: &str) {
  let doc = chains(2000, 120);
  let args = QueryArgs::new("h", query);
  bencher.bench(|| answer_len(run_query_value(black_box(&doc), &args, 1 << 30)));
}
