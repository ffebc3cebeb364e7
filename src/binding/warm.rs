//! A buffer for an answer's copy into Rust whose pages another thread touches first.
//!
//! The copy of a large answer out of V8 (`napi_get_value_string_utf8`) runs on the JS thread, and most of its time
//! is not the copy but the page faults of writing into fresh memory: on the project's machine, UTF-8 into fresh
//! pages took 5.4 ms per 10 MB, into pages already touched 0.8 ms (`Buffer.from` vs `buf.write`, Node 20). The
//! buffer becomes the sealed record, so it cannot be reused: its pages are new every time. So the host reserves it
//! right after `JSON.stringify` (then the answer's length is known), a thread of its own touches
//! its pages while the JS thread compares the text with the answer (on Node 20 that flattens V8's rope: 5 ms per
//! 10 MB), and the copy then writes into warm pages. Not earlier: touched during the stringify, the buffer added a
//! copy of the answer to the peak on Node 24, whose stringify grows one flat buffer. The copy hardly waits for the
//! toucher: taking the buffer stops it after its current step (at most 5 ms, else the copy takes a fresh buffer and
//! the toucher frees this one), and pages it did not reach fault as they would have anyway.
//!
//! Mid-sized answers, handed over before their stringify (too early to warm a buffer of their own), are copied into
//! the engine's [`ScratchBuffer`] instead and moved out on the worker thread.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};

use napi_derive::napi;

use super::text::{latin1_copy, sealable_capacity, JsText, ReadText};

/// Pages are touched this many bytes at a time (16 pages, tens of µs), the buffer locked for one step, checking
/// between steps whether the copy wants it.
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
    // step, the copy gave up waiting and the answer was held twice for a moment (50 MB peaks of 213-227 MB).
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

/// Answers up to this many UTF-16 units are copied into the engine's [`ScratchBuffer`]: the host hands them over
/// before their stringify (see `lib/host/hand-over.ts`), too early to warm a buffer of their own; longer ones get
/// an [`AnswerBuffer`] warmed while the host compares. Below the lower bound a cold copy costs next to nothing.
const SCRATCH_UNITS: std::ops::RangeInclusive<usize> = 64 * 1024..=2 * 1024 * 1024;

/// One buffer the engine keeps for the copy of mid-sized answers, so that the JS thread writes into pages already
/// resident: into fresh pages a 1 MB answer's copy took 0.4-0.8 ms, into warm ones 0.15 ms. The answer is then
/// moved into a buffer of its own on the worker thread (which pays the page faults instead, while the JS thread
/// stringifies) and the scratch buffer is kept for the next answer. One at a time: a copy that finds it in use
/// allocates as before. It holds at most the room of its largest answer (pages written stay resident).
pub(super) struct ScratchBuffer {
  slot: Mutex<Option<Vec<u8>>>,
}

impl Default for ScratchBuffer {
  fn default() -> Self {
    ScratchBuffer {
      slot: Mutex::new(Some(Vec::new())),
    }
  }
}

impl ScratchBuffer {
  /// The buffer for an answer of `units` UTF-16 units, with the lease that gives it back; `None` when the answer
  /// is not mid-sized or another copy holds it.
  pub(super) fn lease(
    scratch: &Arc<ScratchBuffer>,
    units: usize,
  ) -> Option<(Vec<u8>, ScratchLease)> {
    if !SCRATCH_UNITS.contains(&units) {
      return None;
    }
    let buffer = scratch.slot.try_lock().ok()?.take()?;
    let lease = ScratchLease {
      scratch: Arc::clone(scratch),
      back: Vec::new(),
    };
    Some((buffer, lease))
  }
}

/// A leased [`ScratchBuffer`]: when dropped it puts back what [`ScratchLease::move_out`] freed, or an empty buffer
/// when the copy never got there (it failed, or the text came over as UTF-16), so that the engine never loses it.
pub(super) struct ScratchLease {
  scratch: Arc<ScratchBuffer>,
  back: Vec<u8>,
}

impl ScratchLease {
  /// `answer` (copied into the leased buffer) in a buffer of its own with room to seal it in place; the scratch
  /// buffer goes back for the next answer. Run it off the JS thread.
  pub(super) fn move_out(mut self, answer: ReadText) -> JsText {
    match answer {
      ReadText::Js(JsText::Utf8(in_scratch)) => {
        let mut own = String::with_capacity(sealable_capacity(in_scratch.len()));
        own.push_str(&in_scratch);
        self.back = in_scratch.into_bytes();
        JsText::Utf8(own)
      }
      ReadText::Latin1(in_scratch) => {
        let own = latin1_copy(&in_scratch);
        self.back = in_scratch;
        JsText::Utf8(own)
      }
      ReadText::Js(utf16) => utf16,
    }
  }
}

impl Drop for ScratchLease {
  fn drop(&mut self) {
    let mut buffer = std::mem::take(&mut self.back);
    buffer.clear();
    if let Ok(mut slot) = self.scratch.slot.lock() {
      *slot = Some(buffer);
    }
  }
}
