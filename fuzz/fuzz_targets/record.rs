//! The record decoder: any bytes are refused as a record without a panic, and a sealed record opens to exactly
//! its plaintext, whole and by range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use result_handles_native::core::seal::{
  open, open_range, seal_with_prefix, Owner, RecordHeader, RecordKeys,
};

fuzz_target!(|data: &[u8]| {
  let owner = Owner::new(Some("session".into()), None);
  let keys = RecordKeys::derive("fuzz-handle", &owner, None).expect("keys");
  if let Ok(header) = RecordHeader::parse(data) {
    let _ = header.span_for(data.len() as u64 / 3, data.len() as u64 / 2);
  }
  let _ = open(&keys, data);
  let (start, end) = (data.len() as u64 / 5, data.len() as u64 / 2);
  let _ = open_range(&keys, data, start, end);

  let record = seal_with_prefix(&keys, data, [7; 7]).expect("seal");
  assert_eq!(open(&keys, &record).expect("open"), data);
  let range = open_range(&keys, &record, start, end).expect("open_range");
  assert_eq!(range, &data[start as usize..end as usize]);
});
