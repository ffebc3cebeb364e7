//! A buffer for an answer's copy into Rust whose pages another thread touches first.
//!
//! The copy of a large answer out of V8 (`napi_get_value_string_utf8`) runs on the JS thread, and most of its time
//! is not the copy but the page faults of writing into fresh memory: on the project's machine, UTF-8 into fresh
//! pages took 5.4 ms per 10 MB, into pages already touched 0.8 ms (`Buffer.from` vs `buf.write`, Node 20). The
//! buffer becomes the sealed record, so it cannot be reused: its pages are new every time. So the host reserves it
//! as soon as it knows the answer's length (right after `JSON.stringify`), a blocking-pool thread touches its pages
//! while the JS thread is busy elsewhere (comparing the text, flattening V8's string), and the copy then writes into
//! warm pages. The copy never waits for the toucher: taking the buffer stops it after its current step, and pages
//! it did not reach fault as they would have anyway.

use std::mem::MaybeUninit;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use napi_derive::napi;

/// Pages are touched this many bytes at a time, checking between steps whether the copy wants the buffer.
const TOUCH_STEP: usize = 256 * 1024;

/// What the toucher and the copy share: the buffer (locked by the toucher while it touches one step) and the
/// copy's request to stop.
struct Shared {
  buffer: Mutex<Option<Vec<u8>>>,
  taken: AtomicBool,
}

/// An answer's buffer, reserved by `ResultHandlesEngine.reserveAnswer` and handed to `prepareAnswer`.
#[napi]
pub struct AnswerBuffer {
  shared: Arc<Shared>,
}

impl AnswerBuffer {
  /// Allocates room for `capacity` bytes (address space only) and starts touching the first `touch` bytes on the
  /// blocking pool. Where no pool thread can be had, the buffer is handed over cold.
  pub(super) fn reserve(capacity: usize, touch: usize) -> Self {
    let shared = Arc::new(Shared {
      buffer: Mutex::new(Some(Vec::with_capacity(capacity))),
      taken: AtomicBool::new(false),
    });
    let toucher = Arc::clone(&shared);
    // napi's runtime panics when it is gone (the environment is closing): the copy then faults its own pages.
    let _ = std::panic::catch_unwind(AssertUnwindSafe(move || {
      napi::bindgen_prelude::spawn_blocking(move || touch_pages(&toucher, touch))
    }));
    AnswerBuffer { shared }
  }

  /// The buffer, empty, with its pages touched as far as the toucher got; `None` once taken. Stops the toucher
  /// (waiting at most for its current step).
  pub(super) fn take(&self) -> Option<Vec<u8>> {
    self.shared.taken.store(true, Ordering::Release);
    self.shared.buffer.lock().ok()?.take()
  }
}

/// Writes zeros over the first `touch` bytes of the buffer's spare capacity, a step at a time, until done or the
/// buffer is taken.
fn touch_pages(shared: &Shared, touch: usize) {
  let mut done = 0;
  while done < touch && !shared.taken.load(Ordering::Acquire) {
    let Ok(mut slot) = shared.buffer.lock() else {
      return;
    };
    let Some(buffer) = slot.as_mut() else {
      return;
    };
    let spare = buffer.spare_capacity_mut();
    let end = touch.min(done + TOUCH_STEP).min(spare.len());
    if end <= done {
      return;
    }
    spare[done..end].fill(MaybeUninit::new(0));
    done = end;
  }
}
