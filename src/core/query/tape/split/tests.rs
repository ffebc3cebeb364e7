//! A tape read on two threads is the tape one pass writes, wherever the cut falls.

use super::*;
use crate::core::query::index::{build_index, certified_arrays, IndexSettings};
use proptest::prelude::*;

/// Every array of `text`, with a checkpoint at every item.
fn arrays_of(text: &str) -> Vec<LongArray> {
  let settings = IndexSettings {
    min_span: 0,
    stride: 1,
    max_checkpoints: 1 << 20,
    max_depth: 6,
  };
  build_index(text, settings)
    .and_then(|index| certified_arrays(&index, text.len()))
    .unwrap_or_default()
}

fn one_pass(text: &str, reach: usize) -> Option<(Vec<Entry>, u64)> {
  let reach = (reach != usize::MAX).then_some(reach);
  Tape::build_with(text, reach, &Names::EVERY, true).map(|tape| (tape.entries, tape.nodes))
}

/// Cut at each known item of each array the reach reads through, then at all of them at once: the same tape as
/// one pass. How many cuts were tried.
fn assert_every_cut_reads_as_one_pass(text: &str) -> usize {
  let mut tried = 0;
  for array in arrays_of(text) {
    let items = array.item_starts.get(1..).unwrap_or_default();
    let each = items.iter().map(std::slice::from_ref);
    for items in each.chain([items]) {
      let Some(cuts) = cuts_at(text.as_bytes(), &array, items) else {
        assert!(items.is_empty(), "no cut at {items:?} in {text}");
        continue;
      };
      for reach in [0, 1, 2, 3, 5, usize::MAX] {
        if array.depth >= reach {
          continue;
        }
        tried += 1;
        let split =
          build_cut(text, reach, &Names::EVERY, &cuts).map(|tape| (tape.entries, tape.nodes));
        assert_eq!(
          split,
          one_pass(text, reach),
          "cut at {items:?}, reach {reach}: {text}"
        );
      }
    }
  }
  tried
}

#[test]
fn cuts_at_every_item_of_nested_and_spaced_arrays() {
  let texts = [
    r#"{"orders":[{"id":1,"tags":["a","b"]},{"id":2,"tags":[]},{"id":3,"tags":["c"]}],"total":3}"#,
    r#"[1, 2 , [3,[4,5]] ,{"a":[6,7]}, "x,y" , null,true,false,-1.5e3]"#,
    "[\n  [\n    1,\n    2\n  ],\n  [],\n  {}\n]",
    r#"{"a":{"b":[[1,2],[3,4],[5,6]]},"c":[{"d":[7,8,9]}]}"#,
  ];
  for text in texts {
    assert!(assert_every_cut_reads_as_one_pass(text) > 0, "{text}");
  }
}

#[test]
fn a_cut_off_an_item_boundary_reads_on_one_thread() {
  let text = r#"{"orders":[{"id":1},{"id":2},{"id":3}]}"#;
  let start = text.find('[').unwrap() as u64;
  let array = LongArray {
    depth: 1,
    start,
    end: text.len() as u64 - 1,
    item_starts: vec![start + 1],
  };
  // Inside an item, not after a comma between items.
  for item in [start + 2, start + 8, start + 9] {
    assert!(
      cuts_at(text.as_bytes(), &array, &[item]).is_none(),
      "{item}"
    );
  }
  // Between two items, but named as the cut of another container (the first item): the read up to the cut does
  // not stop there, and nothing is built.
  let (comma, item) = (start as usize + 9, start as usize + 10);
  assert_eq!(&text[comma..=item], ",{");
  assert!(cuts_at(text.as_bytes(), &array, &[item as u64]).is_some());
  let mistaken = Cuts {
    depth: 1,
    array: start as usize + 1,
    at: vec![(comma, item)],
  };
  assert!(build_cut(text, 3, &Names::EVERY, &mistaken).is_none());
}

#[test]
fn a_long_array_is_cut_and_the_tape_is_the_same() {
  let orders: Vec<String> = (0..12_000)
    .map(|i| format!(r#"{{"id":{i},"status":"open","tags":["a","b","t{i}"]}}"#))
    .collect();
  let text = format!(r#"{{"orders":[{}],"total":12000}}"#, orders.join(","));
  let index = build_index(&text, IndexSettings::DEFAULT).expect("an index");
  let arrays = certified_arrays(&index, text.len()).expect("certified");
  for reach in [2, 3, usize::MAX] {
    let cuts = choose_cuts(text.as_bytes(), reach, &arrays, MIN_SPLIT_BYTES).expect("cuts");
    assert!(cuts.at.len() > 2, "{cuts:?}");
    let split = build_split(
      &text,
      (reach != usize::MAX).then_some(reach),
      &Names::EVERY,
      &arrays,
    )
    .map(|tape| (tape.entries, tape.nodes));
    assert_eq!(split, one_pass(&text, reach), "reach {reach}");
  }
  // Its items are not recorded at reach 1: nothing is cut.
  assert!(choose_cuts(text.as_bytes(), 1, &arrays, MIN_SPLIT_BYTES).is_none());
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(256))]

  #[test]
  fn cuts_read_as_one_pass_on_generated_json(
    doc in crate::core::query::tape::tests::generated::value(),
    pretty in any::<bool>(),
  ) {
    let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
    assert_every_cut_reads_as_one_pass(&text.expect("JSON"));
  }
}
