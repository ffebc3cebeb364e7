//! Where a fit's time goes, in the engine alone (no JS boundary), for the hosts bench's answer shape:
//! `structuredContent` plus one text that repeats it (`text: JSON.stringify(data)`), 1 MB and 10 MB.
//!
//! Rows marked "(before)" are what a fit ran before the fit work, kept for comparison; the total sums the steps a
//! fit runs now, one after the other (the engine builds the index of a large answer while it folds).
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench fit_breakdown`. Prints medians; asserts nothing.

mod support;

use std::hint::black_box;

use support::median_time;

use result_handles_native::core::fit::{self, Answer, Envelope, FoldFacts, Verdict};
use result_handles_native::core::fold::{fold_answer, AnswerSource, FoldOutcome, FoldSettings};
use result_handles_native::core::query::index::{
  build_index, build_index_of_raw_value, IndexSettings,
};
use result_handles_native::core::seal::Owner;
use result_handles_native::core::store::seal_record;

fn measure(label: &str, runs: usize, work: impl FnMut() -> usize) -> f64 {
  let ms = median_time(runs, 1, work).as_secs_f64() * 1e3;
  println!("  {label:<44} {ms:>9.2} ms");
  ms
}

/// The hosts bench's orders answer, as `JSON.stringify` prints it.
fn orders_answer(bytes: usize) -> String {
  const STATUSES: [&str; 4] = ["open", "shipped", "delivered", "returned"];
  let mut orders = Vec::new();
  let mut size = 0;
  let mut i = 0;
  while size < bytes {
    let items: Vec<String> = (0..1 + i % 3)
      .map(|j| {
        let price = 9.99 + j as f64;
        format!(r#"{{"sku":"SKU-{i}-{j}","qty":{},"price":{price}}}"#, j + 1)
      })
      .collect();
    let order = format!(
      r#"{{"id":{i},"status":"{}","customer":{{"name":"Customer {i}","email":"c{i}@example.test"}},"items":[{}]}}"#,
      STATUSES[i % 4],
      items.join(",")
    );
    size += order.len() + 1;
    orders.push(order);
    i += 1;
  }
  format!(
    r#"{{"orders":[{}],"total":{}}}"#,
    orders.join(","),
    orders.len()
  )
}

fn main() {
  let settings = FoldSettings {
    threshold_bytes: 16_384,
    preview_items: 5,
    preview_chars: 500,
  };
  let owner = Owner::new(Some("bench-session".into()), Some("bench-user".into()));
  for mb in [1usize, 10] {
    let runs = if mb == 1 { 31 } else { 9 };
    let answer = orders_answer(mb * 1024 * 1024);
    let text = serde_json::to_string(&answer).expect("a string");
    let result =
      format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{answer}}}"#);
    let alone = format!(r#"{{"content":[],"structuredContent":{answer}}}"#);
    println!(
      "{mb} MB answer ({} bytes; CallToolResult {} bytes)",
      answer.len(),
      result.len()
    );
    let mut total = 0.0;
    total += measure(
      "inspect (structuredContent + repeating text)",
      runs,
      || match fit::inspect(&result, None).verdict {
        Verdict::Candidate(Answer::Structured(json)) => json.len(),
        _ => panic!("a structured candidate"),
      },
    );
    measure("  of which: inspect without the text", runs, || {
      fit::inspect(&alone, None).envelope.meta.len()
    });
    measure("  of which: check the text as a raw string", runs, || {
      serde_json::from_str::<&serde_json::value::RawValue>(&text)
        .expect("a string")
        .get()
        .len()
    });
    measure("  (before) unescape the text (serde String)", runs, || {
      serde_json::from_str::<String>(&text)
        .expect("a string")
        .len()
    });
    total += measure(
      "fold_answer (measure, preview, shape)",
      runs,
      || match fold_answer(AnswerSource::Json(&answer), &settings).expect("folds") {
        FoldOutcome::Folded(folded) => folded.preview_json.len(),
        FoldOutcome::Whole { .. } => panic!("over the threshold"),
      },
    );
    total += measure("copy the canonical JSON", runs, || {
      black_box(answer.to_string()).len()
    });
    measure("(before) build_index, grammar checked again", runs, || {
      build_index(&answer, IndexSettings::DEFAULT).map_or(0, |index| index.len())
    });
    total += measure("build_index_of_raw_value (what fit runs)", runs, || {
      build_index_of_raw_value(&answer, IndexSettings::DEFAULT).map_or(0, |index| index.len())
    });
    measure("  of which: serde_json validity (IgnoredAny)", runs, || {
      serde_json::from_str::<serde::de::IgnoredAny>(&answer).is_ok() as usize
    });
    let index = build_index(&answer, IndexSettings::DEFAULT).unwrap_or_default();
    let handle = "8c3e0d8e-4f3b-4b8e-9d6a-0a1b2c3d4e5f";
    total += measure("copy for save (as_bytes().to_vec())", runs, || {
      black_box(answer.as_bytes().to_vec()).len()
    });
    total += measure("seal the record", runs, || {
      seal_record(handle, answer.as_bytes(), &owner, None)
        .expect("seals")
        .record
        .len()
    });
    total += measure("seal the index", runs, || {
      seal_record(handle, &index, &owner, None)
        .expect("seals")
        .record
        .len()
    });
    total += measure("build_folded_result", runs, || {
      let facts = FoldFacts {
        handle,
        bytes: answer.len() as u64,
        ttl_seconds: 600,
        references: None,
      };
      fit::build_folded_result(
        &Envelope::default(),
        r#"{"preview":{},"shape":{},"handle":"x"}"#,
        r#"{"type":"object","keys":{}}"#,
        facts,
      )
      .len()
    });
    println!("  {:<44} {total:>9.2} ms  (sum of the steps)", "total");
  }
}
