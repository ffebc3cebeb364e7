//! Query latency for 20 items at the end of a 100k-item list, in the engine alone (no JS boundary); then the
//! query cost bound: descendant segments inside filters on deep chains, sized to just under the budget (the
//! worst accepted case) and over it (refused before evaluation).
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench query_latency`. Prints medians; asserts nothing.

mod support;

use std::time::Duration;

use support::median_time;

use result_handles_native::core::query::index::{answer_range, build_index, plan, IndexSettings};
use result_handles_native::core::query::{run_query, run_query_value, QueryArgs};
use serde_json::{json, Value};

fn measure(label: &str, runs: usize, work: impl FnMut() -> usize) -> Duration {
  let m = median_time(runs, 3, work);
  println!(
    "{label:<62} median {:>10.3} ms  ({runs} runs)",
    m.as_secs_f64() * 1e3
  );
  m
}

fn main() {
  let items: Vec<Value> = (0..100_000)
    .map(|i| json!({"id": i, "name": format!("item {i}"), "price": i as f64 * 0.25, "tags": ["a", "b"], "ok": i % 3 == 0}))
    .collect();
  let doc = json!({"data": {"items": items}});
  let text = serde_json::to_string(&doc).unwrap_or_default();
  println!(
    "answer: 100000 items, {:.1} MB of JSON",
    text.len() as f64 / 1e6
  );

  let mut args = QueryArgs::new("h", "data.items").expect("a valid path");
  args.offset = Some(99_980);
  let mut query_args = QueryArgs::new("h", "$.data.items[-20:]").expect("a valid path");
  query_args.limit = Some(20);
  let threshold = 1 << 20;

  let expected = run_query_value(&doc, &args, threshold).unwrap_or_default();
  assert_eq!(
    run_query(text.as_bytes(), &args, threshold).unwrap_or_default(),
    expected
  );

  measure("dot path, parsed Value in memory", 200, || {
    run_query_value(&doc, &args, threshold)
      .map(|a| a.len())
      .unwrap_or(0)
  });
  measure(
    "JSONPath `$.data.items[-20:]`, parsed Value in memory",
    200,
    || {
      run_query_value(&doc, &query_args, threshold)
        .map(|a| a.len())
        .unwrap_or(0)
    },
  );
  measure(
    "dot path from JSON text (one pass, what run_query does)",
    30,
    || {
      run_query(text.as_bytes(), &args, threshold)
        .map(|a| a.len())
        .unwrap_or(0)
    },
  );
  measure(
    "dot path from JSON text, full parse into a Value first",
    30,
    || {
      let value: Value = serde_json::from_slice(text.as_bytes()).unwrap_or(Value::Null);
      run_query_value(&value, &args, threshold)
        .map(|a| a.len())
        .unwrap_or(0)
    },
  );
  measure(
    "JSONPath `$.data.items[-20:]` from JSON text (parse + query)",
    30,
    || {
      run_query(text.as_bytes(), &query_args, threshold)
        .map(|a| a.len())
        .unwrap_or(0)
    },
  );

  // The path index: its cost at save time, its size, and a window answered from the byte range it names.
  let index = build_index(&text, IndexSettings::DEFAULT).unwrap_or_default();
  println!(
    "path index: {} bytes ({:.3} % of the answer)",
    index.len(),
    index.len() as f64 * 100.0 / text.len() as f64
  );
  measure("build the path index (at save time)", 30, || {
    build_index(&text, IndexSettings::DEFAULT).map_or(0, |i| i.len())
  });
  measure(
    "dot path through the index (plan + range answer, no I/O)",
    200,
    || {
      plan(&index, &args)
        .and_then(|read| {
          let range = text
            .as_bytes()
            .get(read.start as usize..read.end as usize)?;
          answer_range(&read, range, &args, threshold)?.ok()
        })
        .map_or(0, |a| a.len())
    },
  );

  cost_bound();
}

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

fn cost_bound() {
  let threshold = 1 << 30;
  // (query, chains, levels): N × D^k just under 10 000 000 (N = chains × (levels + 2) + 1, D = levels + 3).
  for (query, count, levels) in [
    ("$..[?@..c]", 660, 120),
    ("$..[?@..[?@..c]]", 5, 120),
    ("$..[?@..[?@..[?@..c]]]", 1, 52),
    ("$..*..*", 660, 120),
  ] {
    let doc = chains(count, levels);
    let args = QueryArgs::new("h", query).expect("a valid path");
    let outcome = run_query_value(&doc, &args, threshold);
    measure(
      &format!(
        "{query} on {count} chains x {levels} (accepted: {})",
        outcome.is_ok()
      ),
      3,
      || {
        run_query_value(&doc, &args, threshold)
          .map(|a| a.len())
          .unwrap_or(0)
      },
    );
  }
  let doc = chains(2000, 120);
  for query in ["$..[?@..c]", "$..[?@..[?@..c]]"] {
    let args = QueryArgs::new("h", query).expect("a valid path");
    measure(
      &format!(
        "{query} on 2000 chains x 120, refused: {}",
        run_query_value(&doc, &args, threshold).is_err()
      ),
      10,
      || {
        run_query_value(&doc, &args, threshold)
          .map(|a| a.len())
          .unwrap_or(0)
      },
    );
  }
}
