//! What one evaluation may spend, sized from the JSON length of the value it reads, up to a ceiling: steps (each
//! expression node evaluated, each item a projection, filter or function goes through, each comparison a sort
//! makes) and bytes (what it builds: lists, objects, strings, the result). Bytes are counted as built and never
//! given back, so they bound what is alive at once too. The ceilings bound time and memory whatever the input's
//! size; docs/benchmarks.md gives what the limits cost.

use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// Steps any evaluation may take, one step more per `INPUT_BYTES_PER_STEP` bytes of its input (an expression
/// reading the input once takes a few steps per value, and a value takes tens of bytes), and at most `MAX_STEPS`
/// (steps that miss the caches, on a large input, are the slowest: docs/benchmarks.md).
pub const BASE_STEPS: u64 = 1_000_000;
pub const INPUT_BYTES_PER_STEP: u64 = 2;
pub const MAX_STEPS: u64 = 6_000_000;

/// Bytes any evaluation may build, bytes more per byte of its input (the result may copy the whole input, which
/// as a tree takes several times its JSON length), and at most `MAX_BYTES`.
pub const BASE_BYTES: u64 = 16 << 20;
pub const BYTES_PER_INPUT_BYTE: u64 = 8;
pub const MAX_BYTES: u64 = 128 << 20;

/// Work and memory left for one evaluation.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
  pub step_limit: u64,
  pub byte_limit: u64,
  pub steps: u64,
  pub bytes: u64,
}

impl Budget {
  /// The budget for an input whose JSON text is `input_bytes` long.
  pub fn for_bytes(input_bytes: usize) -> Self {
    let n = input_bytes as u64;
    Self::new(
      (BASE_STEPS + n / INPUT_BYTES_PER_STEP).min(MAX_STEPS),
      BASE_BYTES
        .saturating_add(BYTES_PER_INPUT_BYTE.saturating_mul(n))
        .min(MAX_BYTES),
    )
  }

  pub fn new(step_limit: u64, byte_limit: u64) -> Self {
    Budget {
      step_limit,
      byte_limit,
      steps: 0,
      bytes: 0,
    }
  }

  pub(super) fn step(&mut self, units: u64) -> CoreResult<()> {
    self.steps = self.steps.saturating_add(units);
    if self.steps > self.step_limit {
      return Err(too_costly(format!(
        "took more than its budget of {} steps (expression nodes evaluated, items gone through, comparisons made)",
        self.step_limit
      )));
    }
    Ok(())
  }

  pub(super) fn build(&mut self, bytes: u64) -> CoreResult<()> {
    self.bytes = self.bytes.saturating_add(bytes);
    if self.bytes > self.byte_limit {
      return Err(too_costly(format!(
        "built more than its budget of {} bytes (lists, objects, strings and the result)",
        self.byte_limit
      )));
    }
    Ok(())
  }
}

fn too_costly(what: String) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!("expression is too costly for this answer: evaluating it {what}, and was stopped."),
  )
  .with_remedy(
    "Ask for less: narrow the input with `path`, filter before projecting or sorting, and do not repeat large \
     parts of the answer in multiselect lists or hashes (`[@, @]`).",
  )
}
