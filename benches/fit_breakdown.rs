//! Where a fit's time goes, in the engine alone (no JS boundary), for the hosts bench's answer shape:
//! `structuredContent` plus one text that repeats it (`text: JSON.stringify(data)`), 1 MB and 10 MB.
//!
//! The steps a fit runs now, one after the other, are the benches without a `before_` or `part_` prefix (the
//! engine builds the index of a large answer while it folds): their medians add up to a fit's time. `before_`
//! rows are what a fit ran before the fit work, kept for comparison; `part_` rows are parts of the step above.
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench fit_breakdown` (divan prints the fastest, slowest,
//! median and mean of each, per size in MB).

use std::sync::LazyLock;

use divan::{black_box, Bencher};
use result_handles_native::core::fit::{self, Answer, Envelope, FoldFacts, Verdict};
use result_handles_native::core::fold::{fold_answer, AnswerSource, FoldOutcome, FoldSettings};
use result_handles_native::core::query::index::{
  build_index, build_index_of_raw_value, IndexSettings,
};
use result_handles_native::core::seal::{seal_in_place, Owner, RecordKeys};
use result_handles_native::core::store::seal_record;

const SIZES_MB: [usize; 2] = [1, 10];
const HANDLE: &str = "8c3e0d8e-4f3b-4b8e-9d6a-0a1b2c3d4e5f";
const SETTINGS: FoldSettings = FoldSettings {
  threshold_bytes: 16_384,
  preview_items: 5,
  preview_chars: 500,
};

/// One answer size: the answer, its text twin, the CallToolResult with and without the text, and its index.
struct Fixture {
  answer: String,
  text: String,
  result: String,
  alone: String,
  index: Vec<u8>,
}

static FIXTURES: LazyLock<Vec<Fixture>> = LazyLock::new(|| {
  SIZES_MB
    .iter()
    .map(|mb| {
      let answer = orders_answer(mb * 1024 * 1024);
      let text = serde_json::to_string(&answer).expect("a string");
      let result =
        format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{answer}}}"#);
      let alone = format!(r#"{{"content":[],"structuredContent":{answer}}}"#);
      let index = build_index(&answer, IndexSettings::DEFAULT).unwrap_or_default();
      Fixture {
        answer,
        text,
        result,
        alone,
        index,
      }
    })
    .collect()
});

fn fixture(mb: usize) -> &'static Fixture {
  let at = SIZES_MB.iter().position(|size| *size == mb).unwrap_or(0);
  &FIXTURES[at]
}

fn owner() -> Owner {
  Owner::new(Some("bench-session".into()), Some("bench-user".into()))
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
  divan::main();
}

/// Inspect the CallToolResult: structuredContent plus the repeating text.
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn inspect(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| match fit::inspect(&f.result, None).verdict {
    Verdict::Candidate(Answer::Structured(json)) => json.len(),
    _ => panic!("a structured candidate"),
  });
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn part_inspect_without_the_text(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| fit::inspect(&f.alone, None).envelope.meta.len());
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn part_check_the_text_as_a_raw_string(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| {
    serde_json::from_str::<&serde_json::value::RawValue>(&f.text)
      .expect("a string")
      .get()
      .len()
  });
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn before_unescape_the_text(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| {
    serde_json::from_str::<String>(&f.text)
      .expect("a string")
      .len()
  });
}

/// Measure, preview, shape.
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn fold(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(
    || match fold_answer(AnswerSource::Json(&f.answer), &SETTINGS).expect("folds") {
      FoldOutcome::Folded(folded) => folded.preview_json.len(),
      FoldOutcome::Whole { .. } => panic!("over the threshold"),
    },
  );
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn copy_the_canonical_json(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| black_box(f.answer.to_string()).len());
}

/// The index builder checking the grammar again.
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn before_build_index(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| build_index(&f.answer, IndexSettings::DEFAULT).map_or(0, |index| index.len()));
}

/// What a fit runs.
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn build_index_of_a_raw_value(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| {
    build_index_of_raw_value(&f.answer, IndexSettings::DEFAULT).map_or(0, |index| index.len())
  });
}

/// serde_json's validity check (`IgnoredAny`), for scale.
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn part_serde_json_validity(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| serde_json::from_str::<serde::de::IgnoredAny>(&f.answer).is_ok() as usize);
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn copy_for_save(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| black_box(f.answer.as_bytes().to_vec()).len());
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn seal_the_record(bencher: Bencher, mb: usize) {
  let (f, owner) = (fixture(mb), owner());
  bencher.bench(|| {
    seal_record(HANDLE, f.answer.as_bytes(), &owner, None)
      .expect("seals")
      .record
      .len()
  });
}

/// The seal a fold takes: over the answer's own buffer (past 4 MiB, half the chunks on a second thread).
#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn seal_the_record_in_place(bencher: Bencher, mb: usize) {
  let (f, owner) = (fixture(mb), owner());
  let keys = RecordKeys::derive(HANDLE, &owner, None).expect("derives");
  bencher
    .with_inputs(|| f.answer.as_bytes().to_vec())
    .bench_values(|answer| seal_in_place(&keys, answer).expect("seals").len());
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn seal_the_index(bencher: Bencher, mb: usize) {
  let (f, owner) = (fixture(mb), owner());
  bencher.bench(|| {
    seal_record(HANDLE, &f.index, &owner, None)
      .expect("seals")
      .record
      .len()
  });
}

#[divan::bench(args = SIZES_MB, sample_count = 9)]
fn build_folded_result(bencher: Bencher, mb: usize) {
  let f = fixture(mb);
  bencher.bench(|| {
    let facts = FoldFacts {
      handle: HANDLE,
      bytes: f.answer.len() as u64,
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
}
