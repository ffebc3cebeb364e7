//! A buffer for an answer's copy into Rust whose pages another thread touches first.
//!
//! The copy of a large answer out of V8 (`napi_get_value_string_utf8`) runs on the JS thread, and most of its time
//! is not the copy but the page faults of writing into fresh memory. The buffer becomes the sealed record, so it
//! cannot be reused: its pages are new every time. So the host reserves it as soon as the answer's length is known
//! and a step of its own on the JS thread follows (the proof that a long text repeats structuredContent, or the
//! comparison of the two), a thread of its own touches its pages meanwhile, and the copy then writes into warm pages.
//! Not during a whole stringify: on Node 24, whose stringify grows one flat buffer, a buffer touched then added a copy
//! of the answer to the peak. The copy hardly waits for the toucher: taking the buffer stops it after its current
//! step (else, past [`TAKE_WAIT`], the copy takes a fresh buffer and the toucher frees this one), and pages it did
//! not reach fault as they would have anyway.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};

use napi_derive::napi;

/// Pages are touched this many bytes at a time (16 pages), the buffer locked for one step, checking between steps
/// whether the copy wants it.
const TOUCH_STEP: usize = 64 * 1024;

/// The longest the copy waits for the toucher to finish its step. Beyond it (the toucher lost its core mid-step on
/// a busy machine) the copy goes on into a fresh buffer rather than stall the JS thread longer.
const TAKE_WAIT: Duration = Duration::from_millis(5);

/// What the toucher and the copy share: the buffer (locked by the toucher while it touches one step) and the
/// copy's request to stop.
struct Shared {
  buffer: Mutex<Option<Vec<u8>>>,
  taken: AtomicBool,
  /// The copy gave up waiting and went on into a fresh buffer: the toucher frees this one at once, so that the
  /// answer is not held twice until the JS object is collected.
  abandoned: AtomicBool,
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
    let mut buffer = Vec::new();
    // An impossible size (the host passes a string's length, but any number crosses) reserves nothing.
    let touch = if buffer.try_reserve_exact(capacity).is_ok() {
      touch
    } else {
      0
    };
    let shared = Arc::new(Shared {
      buffer: Mutex::new(Some(buffer)),
      taken: AtomicBool::new(false),
      abandoned: AtomicBool::new(false),
    });
    let toucher = Arc::clone(&shared);
    // Its own thread, at normal priority: at a lower one, on a busy machine, it lost its core in the middle of a
    // step, the copy gave up waiting and the answer was held twice for a moment.
    let spawned = std::thread::Builder::new()
      .name("result-handles-touch".into())
      .spawn(move || touch_pages(&toucher, touch));
    drop(spawned); // no thread: the copy faults its own pages
    AnswerBuffer { shared }
  }

  /// The buffer, empty, with its pages touched as far as the toucher got; `None` once taken, or when the toucher
  /// holds it longer than [`TAKE_WAIT`]. Stops the toucher.
  pub(super) fn take(&self) -> Option<Vec<u8>> {
    self.shared.taken.store(true, Ordering::Release);
    let deadline = Instant::now() + TAKE_WAIT;
    loop {
      match self.shared.buffer.try_lock() {
        Ok(mut slot) => return slot.take(),
        Err(TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::yield_now(),
        Err(_) => {
          // Said before the last try: a toucher still holding the buffer sees it when its step ends.
          self.shared.abandoned.store(true, Ordering::Release);
          return self.shared.buffer.try_lock().ok()?.take();
        }
      }
    }
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
      break;
    }
    spare[done..end].fill(MaybeUninit::new(0));
    done = end;
    if shared.abandoned.load(Ordering::Acquire) {
      *slot = None;
      return;
    }
  }
  // The copy may have given up during the last step.
  if shared.abandoned.load(Ordering::Acquire) {
    if let Ok(mut slot) = shared.buffer.lock() {
      *slot = None;
    }
  }
}
