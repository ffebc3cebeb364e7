//! Timing shared by the engine benches: medians of repeated runs after warm-ups.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The median of `runs` timed calls of `work`, after `warmups` untimed ones. `work` returns a value so the
/// optimizer cannot drop it.
pub fn median_time(runs: usize, warmups: usize, mut work: impl FnMut() -> usize) -> Duration {
  for _ in 0..warmups {
    black_box(work());
  }
  let mut samples: Vec<Duration> = (0..runs.max(1))
    .map(|_| {
      let started = Instant::now();
      black_box(work());
      started.elapsed()
    })
    .collect();
  samples.sort();
  samples[samples.len() / 2]
}
