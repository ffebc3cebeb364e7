//! The store's circuit breaker: once a call finds the backend unreachable, every call fails at once with
//! `RESULT_STORE_UNAVAILABLE` (answers go whole, reads are refused) instead of waiting out the store's time bound, and
//! one probe at a time checks the backend in the background until it answers; its first success closes the breaker.
//!
//! It opens on the first failure that says the backend could not be reached (a timeout, a lost or refused connection,
//! a locked file): such a failure already cost its caller up to the whole time bound, and waiting for a second one
//! would cost another caller as much, while a false open costs only the wait until the first probe (about 100 ms),
//! which a healthy store answers. A refusal (`RESULT_STORE_WRITE_FAILED`) says the store is up and never opens it.
//! Only a probe closes it: a call that was under way when it opened and succeeds later proves little about a store
//! that is reachable in part (a cluster with a node lost).

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use super::{unavailable, Backend, OPERATION_TIMEOUT};
use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// The first wait before a probe, doubled after each failed probe up to [`PROBE_CAP`]; each wait is drawn between
/// half and all of it, so that servers sharing a store that went down together do not probe it in step.
pub const PROBE_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two probes: how late, at most, calls resume after the store is back.
pub const PROBE_CAP: Duration = Duration::from_secs(1);

/// What a transition tells the host's logger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
  /// The store stopped answering; `cause` is the failure that opened the breaker (coded messages carry no secret).
  Down { cause: String },
  /// The store answers again after being down for `lasted`.
  Up { lasted: Duration },
}

/// What `stats()` shows of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Health {
  /// Calls are refused now.
  pub down: bool,
  /// Outages since the store opened.
  pub outages: u64,
  /// Time spent down, the outage under way included.
  pub down_for: Duration,
}

/// Called on every transition, from the thread that made it.
pub type Listener = Arc<dyn Fn(&Transition) + Send + Sync>;

/// Which state a call was let through in: a failure in an earlier state (before an outage that has ended) opens
/// nothing.
#[derive(Debug, Clone, Copy)]
pub struct Ticket(u64);

#[derive(Default)]
struct Times {
  down_since: Option<Instant>,
  ended_outages: Duration,
}

/// One store's breaker, shared by every caller of the store.
#[derive(Default)]
pub struct Breaker {
  /// Even while closed, odd while open; each transition adds one, so `(epoch + 1) / 2` is the number of outages.
  epoch: AtomicU64,
  /// The store was closed: nothing opens the breaker any more, and probing stops.
  shut: AtomicBool,
  times: Mutex<Times>,
  listeners: Mutex<Vec<Listener>>,
}

fn refused() -> CoreError {
  unavailable("The result store is not answering; calls fail at once until it does.").with_remedy(
    "Check that the storage server is up and reachable; calls resume by themselves within about a second of it coming back.",
  )
}

impl Breaker {
  /// Lets a call through while closed; refuses it at once while open.
  pub fn admit(&self) -> CoreResult<Ticket> {
    let epoch = self.epoch.load(Ordering::Acquire);
    if epoch % 2 == 1 {
      return Err(refused());
    }
    Ok(Ticket(epoch))
  }

  /// Records a call's failure: the breaker opens when it says the store could not be reached and the breaker is
  /// still in the state that let the call through. True when this opened it.
  pub fn failed(&self, ticket: Ticket, error: &CoreError, now: Instant) -> bool {
    if error.code != ErrorCode::StoreUnavailable || self.shut.load(Ordering::Acquire) {
      return false;
    }
    let opened = self
      .epoch
      .compare_exchange(ticket.0, ticket.0 + 1, Ordering::AcqRel, Ordering::Acquire)
      .is_ok();
    if opened {
      self.times().down_since = Some(now);
      self.tell(&Transition::Down {
        cause: error.message.clone(),
      });
    }
    opened
  }

  /// Closes the breaker after a probe succeeded. True when it was open.
  pub fn recovered(&self, now: Instant) -> bool {
    let epoch = self.epoch.load(Ordering::Acquire);
    let closed = epoch % 2 == 1
      && self
        .epoch
        .compare_exchange(epoch, epoch + 1, Ordering::AcqRel, Ordering::Acquire)
        .is_ok();
    if closed {
      let lasted = {
        let mut times = self.times();
        let lasted = times
          .down_since
          .take()
          .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        times.ended_outages += lasted;
        lasted
      };
      self.tell(&Transition::Up { lasted });
    }
    closed
  }

  /// The state, outages and time down as of `now`.
  pub fn health(&self, now: Instant) -> Health {
    let epoch = self.epoch.load(Ordering::Acquire);
    let times = self.times();
    let current = times
      .down_since
      .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
    Health {
      down: epoch % 2 == 1,
      outages: epoch.div_ceil(2),
      down_for: times.ended_outages + current,
    }
  }

  /// Calls `listener` on every transition from now on.
  pub fn listen(&self, listener: Listener) {
    self
      .listeners
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .push(listener);
  }

  /// The store closed: no more transitions, probes or listeners.
  pub fn shut(&self) {
    self.shut.store(true, Ordering::Release);
    self
      .listeners
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .clear();
  }

  fn is_shut(&self) -> bool {
    self.shut.load(Ordering::Acquire)
  }

  fn times(&self) -> std::sync::MutexGuard<'_, Times> {
    self
      .times
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
  }

  fn tell(&self, transition: &Transition) {
    let listeners = self
      .listeners
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .clone();
    for listener in listeners {
      // A listener that panics must not take the store's caller or its probe down with it.
      let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(transition)));
    }
  }
}

/// The waits between probes: exponential from [`PROBE_FIRST`] to [`PROBE_CAP`], each drawn in its upper half.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
  ceiling: Duration,
}

impl Default for Backoff {
  fn default() -> Self {
    Self {
      ceiling: PROBE_FIRST,
    }
  }
}

impl Backoff {
  /// The next wait, with `random` (any 64 bits) choosing where in its range it falls.
  pub fn next(&mut self, random: u64) -> Duration {
    let ceiling = self.ceiling;
    self.ceiling = (ceiling * 2).min(PROBE_CAP);
    let half = ceiling / 2;
    let spread = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX).max(1);
    half + Duration::from_nanos(random % spread)
  }
}

/// Runs `work` (one backend call) under the breaker and the store's time bound; a failure may open the breaker,
/// which then starts probing `backend` (reading a key under `key_prefix`, where the store's own keys live).
pub(super) async fn guarded<T>(
  breaker: &Arc<Breaker>,
  backend: &Arc<dyn Backend>,
  key_prefix: &str,
  work: impl Future<Output = CoreResult<T>>,
) -> CoreResult<T> {
  let ticket = breaker.admit()?;
  let outcome = super::bounded(work).await;
  if let Err(error) = &outcome {
    // Every failing call runs on a runtime (its time bound needs one).
    let runtime = tokio::runtime::Handle::try_current();
    if let (true, Ok(runtime)) = (breaker.failed(ticket, error, Instant::now()), runtime) {
      let (breaker, backend) = (Arc::downgrade(breaker), Arc::downgrade(backend));
      runtime.spawn(probe_until_back(
        breaker,
        backend,
        format!("{key_prefix}probe"),
      ));
    }
  }
  outcome
}

/// Probes the backend, one probe at a time, each bounded by the wait before the next, until one succeeds (then the
/// breaker closes), the store closes, or the store is dropped.
async fn probe_until_back(breaker: Weak<Breaker>, backend: Weak<dyn Backend>, key: String) {
  let mut backoff = Backoff::default();
  tokio::time::sleep(backoff.next(random())).await;
  loop {
    let slot = backoff.next(random()).min(OPERATION_TIMEOUT);
    let started = Instant::now();
    let (Some(probing), Some(store)) = (breaker.upgrade(), backend.upgrade()) else {
      return;
    };
    if probing.is_shut() {
      return;
    }
    let answered = tokio::time::timeout(slot, store.probe(key.clone())).await;
    drop(store);
    if matches!(answered, Ok(Ok(()))) {
      probing.recovered(Instant::now());
      return;
    }
    drop(probing);
    tokio::time::sleep_until(started + slot).await;
  }
}

fn random() -> u64 {
  // Jitter only: a clock's low bits serve when the OS generator cannot.
  getrandom::u64().unwrap_or_else(|_| {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |since| u64::from(since.subsec_nanos()))
  })
}

#[cfg(test)]
mod tests;
