//! The breaker on its own, driven by instants the tests pick, and under a store over a backend that can be switched
//! down, on tokio's paused clock (time moves only when every task waits; no test sleeps).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use super::*;
use crate::core::store::config::MemoryConfig;
use crate::core::store::memory::MemoryBackend;
use crate::core::store::{BoxFuture, HandleStore, Owner};

fn down() -> CoreError {
  unavailable("Redis could not be reached.")
}

fn at(start: Instant, ms: u64) -> Instant {
  start + Duration::from_millis(ms)
}

#[test]
fn opens_on_the_first_unreachable_failure_only() {
  let breaker = Breaker::default();
  let now = Instant::now();
  let refusal = CoreError::new(
    ErrorCode::StoreWriteFailed,
    "Redis refused to keep the answer.",
  );
  assert!(!breaker.failed(breaker.admit().unwrap(), &refusal, now));
  assert!(!breaker.health(now).down);

  assert!(breaker.failed(breaker.admit().unwrap(), &down(), now));
  let refused = breaker.admit().unwrap_err();
  assert_eq!(refused.code, ErrorCode::StoreUnavailable);
  assert!(refused.remedy.is_some());
  assert_eq!(
    breaker.health(at(now, 250)),
    Health {
      down: true,
      outages: 1,
      down_for: Duration::from_millis(250)
    }
  );
}

#[test]
fn a_failure_from_before_an_outage_ended_opens_nothing() {
  let breaker = Breaker::default();
  let now = Instant::now();
  let early = breaker.admit().unwrap();
  let other = breaker.admit().unwrap();
  assert!(breaker.failed(other, &down(), now));
  // Calls under way when it opened fail too: one outage, not one each.
  assert!(!breaker.failed(early, &down(), now));
  assert!(breaker.recovered(at(now, 100)));
  assert!(!breaker.failed(early, &down(), at(now, 200)));
  assert_eq!(breaker.health(at(now, 300)).outages, 1);
  assert!(!breaker.health(at(now, 300)).down);
}

#[test]
fn counts_outages_and_their_time() {
  let breaker = Breaker::default();
  let start = Instant::now();
  assert!(breaker.failed(breaker.admit().unwrap(), &down(), start));
  assert!(breaker.recovered(at(start, 3_000)));
  assert!(!breaker.recovered(at(start, 3_500)));
  assert!(breaker.failed(breaker.admit().unwrap(), &down(), at(start, 10_000)));
  assert_eq!(
    breaker.health(at(start, 10_400)),
    Health {
      down: true,
      outages: 2,
      down_for: Duration::from_millis(3_400)
    }
  );
  assert!(breaker.recovered(at(start, 11_000)));
  assert_eq!(
    breaker.health(at(start, 60_000)),
    Health {
      down: false,
      outages: 2,
      down_for: Duration::from_millis(4_000)
    }
  );
}

#[test]
fn tells_listeners_once_per_transition() {
  let breaker = Breaker::default();
  let heard = Arc::new(Mutex::new(Vec::new()));
  let sink = Arc::clone(&heard);
  breaker.listen(Arc::new(move |transition: &Transition| {
    sink.lock().unwrap().push(transition.clone())
  }));
  breaker.listen(Arc::new(|_: &Transition| panic!("a broken listener")));
  let start = Instant::now();
  let tickets: Vec<_> = (0..5).map(|_| breaker.admit().unwrap()).collect();
  for ticket in tickets {
    breaker.failed(ticket, &down(), start);
  }
  breaker.recovered(at(start, 1_500));
  breaker.recovered(at(start, 1_600));
  assert_eq!(
    *heard.lock().unwrap(),
    vec![
      Transition::Down {
        cause: "Redis could not be reached.".into()
      },
      Transition::Up {
        lasted: Duration::from_millis(1_500)
      },
    ]
  );
}

#[test]
fn a_shut_breaker_opens_nothing_and_forgets_its_listeners() {
  let breaker = Breaker::default();
  let heard = Arc::new(AtomicU64::new(0));
  let count = Arc::clone(&heard);
  breaker.listen(Arc::new(move |_: &Transition| {
    count.fetch_add(1, Ordering::Relaxed);
  }));
  breaker.shut();
  assert!(!breaker.failed(breaker.admit().unwrap(), &down(), Instant::now()));
  assert!(breaker.admit().is_ok());
  assert_eq!(heard.load(Ordering::Relaxed), 0);
}

#[test]
fn waits_double_from_a_tenth_of_a_second_to_a_second_each_in_its_upper_half() {
  let draws = |random: u64| {
    let mut backoff = Backoff::default();
    (0..8).map(|_| backoff.next(random)).collect::<Vec<_>>()
  };
  let ms = Duration::from_millis;
  assert_eq!(
    draws(0),
    [
      ms(50),
      ms(100),
      ms(200),
      ms(400),
      ms(500),
      ms(500),
      ms(500),
      ms(500)
    ]
  );
  let highest = draws(u64::MAX);
  let ceilings = [100, 200, 400, 800, 1000, 1000, 1000, 1000].map(ms);
  for (wait, ceiling) in highest.iter().zip(ceilings) {
    assert!(
      *wait < ceiling && *wait > ceiling / 2,
      "{wait:?} in ({ceiling:?} / 2, {ceiling:?})"
    );
  }
}

// ─── under a store ──────────────────────────────────────────────────────────

const UP: u8 = 0;
const REFUSING: u8 = 1;
const HANGING: u8 = 2;

/// A memory backend that can be switched to failing at once (a refused connection) or never answering (a frozen
/// server), probes included; it counts probes and the most under way at once.
struct Switch {
  inner: MemoryBackend,
  mode: AtomicU8,
  probes: AtomicU64,
  probing: AtomicU64,
  most_probing: AtomicU64,
}

impl Switch {
  fn store() -> (Arc<Switch>, HandleStore) {
    let backend = Arc::new(Switch {
      inner: MemoryBackend::new(MemoryConfig::default()),
      mode: AtomicU8::new(UP),
      probes: AtomicU64::new(0),
      probing: AtomicU64::new(0),
      most_probing: AtomicU64::new(0),
    });
    let store = HandleStore::with_backend(backend.clone(), "", "rh", 60, None).unwrap();
    (backend, store)
  }

  fn set(&self, mode: u8) {
    self.mode.store(mode, Ordering::SeqCst);
  }

  async fn reach(&self) -> CoreResult<()> {
    match self.mode.load(Ordering::SeqCst) {
      REFUSING => Err(down()),
      HANGING => std::future::pending().await,
      _ => Ok(()),
    }
  }
}

/// Counts a probe while it is under way, also when it is dropped unfinished.
struct Probing<'a>(&'a Switch);

impl Drop for Probing<'_> {
  fn drop(&mut self) {
    self.0.probing.fetch_sub(1, Ordering::SeqCst);
  }
}

impl Backend for Switch {
  fn kind(&self) -> &'static str {
    "switch"
  }
  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    Box::pin(async move {
      self.reach().await?;
      self.inner.get(key).await
    })
  }
  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    Box::pin(async move {
      self.reach().await?;
      self.inner.get_range(key, start, end).await
    })
  }
  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move {
      self.reach().await?;
      self.inner.set(key, value, ttl_seconds).await
    })
  }
  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    Box::pin(async move {
      self.reach().await?;
      self.inner.delete(key).await
    })
  }
  fn probe(&self, _key: String) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move {
      self.probes.fetch_add(1, Ordering::SeqCst);
      let now = self.probing.fetch_add(1, Ordering::SeqCst) + 1;
      self.most_probing.fetch_max(now, Ordering::SeqCst);
      let _counted = Probing(self);
      self.reach().await
    })
  }
  fn close(&self) -> BoxFuture<'_, ()> {
    self.inner.close()
  }
}

fn me() -> Owner {
  Owner::new(Some("session".into()), None)
}

async fn until_up(store: &HandleStore) {
  while store.health().down {
    tokio::time::sleep(Duration::from_millis(5)).await;
  }
}

#[tokio::test(start_paused = true)]
async fn a_frozen_store_costs_the_first_call_only_and_resumes_within_a_second() {
  let (backend, store) = Switch::store();
  let kept = HandleStore::new_handle();
  store
    .save(&kept, b"{\"kept\":1}".as_slice(), &me())
    .await
    .unwrap();

  backend.set(HANGING);
  let started = Instant::now();
  let first = store
    .save(&HandleStore::new_handle(), b"1".as_slice(), &me())
    .await;
  assert_eq!(first.unwrap_err().code, ErrorCode::StoreUnavailable);
  assert_eq!(started.elapsed(), OPERATION_TIMEOUT);

  let started = Instant::now();
  for _ in 0..10 {
    let saved = store
      .save(&HandleStore::new_handle(), b"2".as_slice(), &me())
      .await;
    assert_eq!(saved.unwrap_err().code, ErrorCode::StoreUnavailable);
    let read = store.read(&kept, &me()).await;
    assert_eq!(read.unwrap_err().code, ErrorCode::StoreUnavailable);
  }
  assert_eq!(started.elapsed(), Duration::ZERO);

  tokio::time::sleep(Duration::from_secs(30)).await;
  backend.set(UP);
  let back = Instant::now();
  until_up(&store).await;
  assert!(
    back.elapsed() <= PROBE_CAP,
    "resumed after {:?}",
    back.elapsed()
  );
  assert_eq!(
    store.read(&kept, &me()).await.unwrap().unwrap(),
    b"{\"kept\":1}"
  );
  let health = store.health();
  assert_eq!(health.outages, 1);
  assert!(health.down_for >= Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn probes_one_at_a_time_each_cut_off_when_the_next_is_due() {
  let (backend, store) = Switch::store();
  backend.set(HANGING);
  let _ = store.read(&HandleStore::new_handle(), &me()).await;
  assert!(store.health().down);
  tokio::time::sleep(Duration::from_secs(20)).await;
  assert_eq!(backend.most_probing.load(Ordering::SeqCst), 1);
  // Waits of at most a second: at least one probe a second once they reach the cap.
  let probes = backend.probes.load(Ordering::SeqCst);
  assert!((20..=40).contains(&probes), "{probes} probes in 20 s");

  backend.set(REFUSING);
  tokio::time::sleep(Duration::from_secs(5)).await;
  assert!(store.health().down);
  backend.set(UP);
  until_up(&store).await;
  let settled = backend.probes.load(Ordering::SeqCst);
  tokio::time::sleep(Duration::from_secs(5)).await;
  assert_eq!(
    backend.probes.load(Ordering::SeqCst),
    settled,
    "no probe once closed"
  );
}

#[tokio::test(start_paused = true)]
async fn probing_stops_when_the_store_closes_or_is_dropped() {
  for close in [true, false] {
    let (backend, store) = Switch::store();
    backend.set(REFUSING);
    let _ = store.read(&HandleStore::new_handle(), &me()).await;
    assert!(store.health().down);
    tokio::time::sleep(Duration::from_secs(2)).await;
    if close {
      store.close().await;
    } else {
      drop(store);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = backend.probes.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(backend.probes.load(Ordering::SeqCst), after);
  }
}
