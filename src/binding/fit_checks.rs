//! Cheap checks a host makes before `prepare`, so that an answer that cannot fold costs no more than a pass.

use std::cell::RefCell;

use napi::{Env, Result};
use napi_derive::napi;

use super::error::run_sync;
use super::text::LazyJsText;
use crate::core::fold::{units_always_under, units_certainly_under};

/// Units a thread keeps room for between checks: a default threshold's texts, without holding on to a huge one.
const KEPT_UNITS: usize = 64 * 1024;

thread_local! {
  /// The units of the text being checked: each check runs on the JS thread, so one buffer per thread is reused.
  static UNITS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

/// Whether a text answer is certainly no larger than `thresholdBytes` (the engine's `thresholdBytes`), from one
/// pass over its UTF-16 units (see `core::fold::units_certainly_under`); `false` means only that `prepare` must
/// decide. `repeatsStructured`: the text is the only text beside structuredContent (then only a text repeating it
/// matters); else the text is the answer. On the JS thread: pass texts of at most a threshold's length. A function
/// rather than an engine method: unwrapping the engine was most of the cost of a call on a short text.
#[napi]
pub fn text_certainly_under(
  env: Env,
  #[napi(ts_arg_type = "string")] text: LazyJsText,
  repeats_structured: bool,
  threshold_bytes: u32,
) -> Result<bool> {
  UNITS.with_borrow_mut(|units| {
    text.read_units(units)?;
    let certain = run_sync(&env, || {
      Ok(certainly_under(
        units,
        repeats_structured,
        threshold_bytes as usize,
      ))
    });
    if units.capacity() > KEPT_UNITS {
      *units = Vec::new();
    }
    certain
  })
}

/// The engine's check, its pass compiled for AVX2 where the CPU has it (`is_x86_feature_detected!` caches).
fn certainly_under(units: &[u16], repeats_structured: bool, threshold: usize) -> bool {
  #[cfg(target_arch = "x86_64")]
  if std::is_x86_feature_detected!("avx2") {
    // SAFETY: AVX2 is all the function requires of the CPU, and it has it.
    return unsafe {
      crate::core::fold::units_certainly_under_avx2(units, repeats_structured, threshold)
    };
  }
  units_certainly_under(units, repeats_structured, threshold)
}

/// The longest text answer, in UTF-16 units, certainly no larger than `thresholdBytes` whatever it holds: a host
/// passes such a text with no call (see `core::fold::units_always_under`).
#[napi]
pub fn text_units_always_under(threshold_bytes: u32) -> u32 {
  units_always_under(threshold_bytes as usize) as u32
}
