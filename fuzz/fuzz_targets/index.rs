//! The path index: any bytes decode to an index or to nothing, without a panic; and over a JSON answer, reading
//! through the index gives, byte for byte, the answer the full read gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use result_handles_native::core::query::index::{answer_range, build_index, plan, IndexSettings};
use result_handles_native::core::query::run_query;
use result_handles_native_fuzz::{args_for, path_and_rest};

const THRESHOLD: usize = 4096;

/// Small enough that a fuzz-sized answer gets nodes, checkpoints and nested children.
const SMALL: IndexSettings = IndexSettings {
  min_span: 8,
  stride: 8,
  max_checkpoints: 6,
  max_depth: 3,
};

fuzz_target!(|data: &[u8]| {
  let Some((path, rest)) = path_and_rest(data) else {
    return;
  };
  let args = args_for(path);
  // Any bytes as an index, and any bytes as the fragment it names.
  if let Some(read) = plan(rest, &args) {
    let len = usize::try_from(read.end.saturating_sub(read.start)).unwrap_or(usize::MAX);
    let _ = answer_range(&read, &rest[..len.min(rest.len())], &args, THRESHOLD);
  }
  // The index of a real answer, read back against the full read.
  let Ok(text) = std::str::from_utf8(rest) else {
    return;
  };
  let Some(index) = build_index(text, SMALL) else {
    return;
  };
  let Some(read) = plan(&index, &args) else {
    return;
  };
  let fragment = usize::try_from(read.start)
    .ok()
    .zip(usize::try_from(read.end).ok())
    .and_then(|(start, end)| rest.get(start..end))
    .expect("the plan names a range inside the answer it indexed");
  if let Some(ranged) = answer_range(&read, fragment, &args, THRESHOLD) {
    let full = run_query(rest, &args, THRESHOLD);
    match (&ranged, &full) {
      (Ok(a), Ok(b)) => assert_eq!(a, b, "index and full read differ for {path:?}"),
      (Err(a), Err(b)) => assert_eq!(a.code, b.code),
      _ => panic!("index and full read disagree for {path:?}: {ranged:?} / {full:?}"),
    }
  }
});
