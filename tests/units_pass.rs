//! The AVX2 build of the fit's pass over a text's units (`units_certainly_under_avx2`) decides exactly as the
//! portable one, on texts built to put every kind of unit at every place in a 64-unit block and across blocks.

#![cfg(target_arch = "x86_64")]

use result_handles_native::core::fold::{units_certainly_under, units_certainly_under_avx2};

/// Units that change the decision: a digit before `e`/`E` (an exponent), non-ASCII of each UTF-8 width, a
/// surrogate pair and lone halves, control characters (two-byte and six-byte escapes), quotes and backslashes.
const SPECIAL: &[&[u16]] = &[
  &[0x31, 0x65],
  &[0x39, 0x45],
  &[0xE9],
  &[0x20AC],
  &[0xD83D, 0xDE00],
  &[0xD800],
  &[0xDC00],
  &[0x01],
  &[0x0A],
  &[0x1F],
  &[0x22],
  &[0x5C],
];

fn decisions(units: &[u16]) -> Vec<bool> {
  let len = units.len();
  let mut out = Vec::new();
  for threshold in [len, len + 2, len * 2 + 2, len * 3, len * 6 + 2] {
    for repeats in [false, true] {
      out.push(units_certainly_under(units, repeats, threshold));
    }
  }
  out
}

fn avx2_decisions(units: &[u16]) -> Vec<bool> {
  let len = units.len();
  let mut out = Vec::new();
  for threshold in [len, len + 2, len * 2 + 2, len * 3, len * 6 + 2] {
    for repeats in [false, true] {
      // SAFETY: the caller checked that the CPU has AVX2.
      out.push(unsafe { units_certainly_under_avx2(units, repeats, threshold) });
    }
  }
  out
}

#[test]
fn the_avx2_pass_decides_as_the_portable_pass() {
  if !std::is_x86_feature_detected!("avx2") {
    eprintln!("no AVX2 on this CPU: nothing to compare");
    return;
  }
  let base: Vec<u16> = r#"{"orders":[{"id":1,"sku":"SKU-1","price":9.99}],"note":"plain ascii"}"#
    .encode_utf16()
    .cycle()
    .take(200)
    .collect();
  let mut compared = 0;
  let mut certain = 0;
  for special in SPECIAL {
    for at in 0..base.len() {
      let mut units = base.clone();
      units.splice(at..at, special.iter().copied());
      let expected = decisions(&units);
      assert_eq!(avx2_decisions(&units), expected, "{special:?} at {at}");
      certain += expected.iter().filter(|&&yes| yes).count();
      compared += 1;
    }
  }
  for len in 0..140 {
    let units = &base[..len.min(base.len())];
    assert_eq!(avx2_decisions(units), decisions(units), "prefix of {len}");
  }
  assert!(compared > 2000);
  assert!(certain > compared); // the decisions are not all "unsure"
}
