//! A JSONPath query on a small answer, answered in the call's first poll (`stored::answer_small_here`): the same
//! answer as the whole read gives, and a larger answer, a costly query or a function left to the whole read.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use super::*;
use crate::core::query::index::query_stored;
use crate::core::query::stored::SMALL_ANSWER_BYTES;
use crate::core::store::config::MemoryConfig;
use crate::core::store::memory::MemoryBackend;

const THRESHOLD: usize = 100_000;

/// A memory store holding `text` (and its path index, as a fold keeps one beside an answer over 64 KiB).
async fn kept(text: &str) -> (HandleStore, Owner, String) {
  let backend = std::sync::Arc::new(MemoryBackend::new(MemoryConfig {
    max_entries: 100,
    max_bytes: None,
  }));
  let store = HandleStore::with_backend(backend, "", "rh", 600, None).expect("a store");
  let owner = Owner::new(Some("s".into()), None);
  let handle = save(&store, text, &owner).await;
  (store, owner, handle)
}

/// Whether `future` is done in its first poll, and its outcome.
async fn first_poll<F: Future>(future: F) -> (bool, F::Output) {
  let mut future = Box::pin(future);
  match future
    .as_mut()
    .poll(&mut Context::from_waker(Waker::noop()))
  {
    Poll::Ready(outcome) => (true, outcome),
    Poll::Pending => (false, future.await),
  }
}

/// `path` on `text` kept in a store: whether the first poll answered it, and the answer, held against the one the
/// whole read gives.
async fn query_kept(text: &str, path: &str) -> (bool, CoreResult<String>) {
  let (store, owner, handle) = kept(text).await;
  let mut args = QueryArgs::new(&handle, path).expect("valid");
  args.limit = Some(20);
  let (at_once, outcome) = first_poll(query_stored(&store, args.clone(), &owner, THRESHOLD)).await;
  let whole = run_query(text.as_bytes(), &args, THRESHOLD);
  assert_eq!(
    outcome.as_ref().map_err(ToString::to_string),
    whole.as_ref().map_err(ToString::to_string),
    "{path}"
  );
  (at_once, outcome)
}

#[tokio::test]
async fn small_answers_are_queried_in_the_first_poll_as_the_whole_read_queries_them() {
  // Two 16 KiB chunks at most, so no path index.
  for bytes in [10_000, 30_000] {
    let text = orders_text(bytes);
    for path in [
      "$.orders[?@.status=='open' && @.amount > 500]",
      "$.orders[*].id",
      "$..tags[2]",
      "$.orders[?@.customer.name == 'Customer 3']",
      "$.nothing[*]",
    ] {
      let (at_once, outcome) = query_kept(&text, path).await;
      assert!(
        at_once,
        "{path} on {bytes} bytes was answered in the first poll"
      );
      assert!(outcome.is_ok(), "{path}");
    }
  }
}

#[tokio::test]
async fn the_next_page_of_a_query_answered_at_once_reads_its_kept_matches() {
  let text = orders_text(20_000);
  let (store, owner, handle) = kept(&text).await;
  let path = "$.orders[?@.status=='open']";
  let mut args = QueryArgs::new(&handle, path).expect("valid");
  args.limit = Some(5);
  let (at_once, _) = first_poll(query_stored(&store, args.clone(), &owner, THRESHOLD)).await;
  assert!(at_once);
  assert!(
    store.match_pages().get(&handle, &owner, path).is_some(),
    "its match spans were kept for the next pages"
  );
  args.offset = Some(5);
  let next = query_stored(&store, args.clone(), &owner, THRESHOLD).await;
  assert_eq!(
    next.map_err(|e| e.to_string()),
    run_query(text.as_bytes(), &args, THRESHOLD).map_err(|e| e.to_string())
  );
}

#[tokio::test]
async fn larger_answers_costly_queries_and_functions_go_to_the_whole_read() {
  // Past the bound without a path index, and far past it with one; and an answer whose first bytes are a whole
  // JSON value, blanks after it: never queried from a part.
  let padded = orders_text(30_000) + &" ".repeat(5_000);
  for text in [
    orders_text(SMALL_ANSWER_BYTES + 2_000),
    orders_text(200_000),
    padded,
  ] {
    let (at_once, _) = query_kept(&text, "$.orders[*].id").await;
    assert!(
      !at_once,
      "{} bytes are read whole off this poll",
      text.len()
    );
  }
  let small = orders_text(20_000);
  let (at_once, _) = query_kept(&small, "$.orders[?match(@.status, 'op.*')]").await;
  assert!(
    !at_once,
    "a function (a regex) is not run in the first poll"
  );
  // Over the capped budget, well under the whole one: the whole read answers it.
  let costly = "$.orders[?$..*]";
  let args = QueryArgs::new("h", costly).expect("valid");
  let (whole, _) = run_query_keeping_spans(small.as_bytes(), &args, THRESHOLD, None);
  assert!(whole.is_ok(), "within the whole budget");
  assert!(
    run_query_here(small.as_bytes(), &args, THRESHOLD).is_none(),
    "the capped budget is spent"
  );
  let (at_once, outcome) = query_kept(&small, costly).await;
  assert!(!at_once && outcome.is_ok(), "answered by the whole read");
  // A singular path on an answer without an index still reads it whole.
  let (at_once, _) = query_kept(&small, "$.orders[3].id").await;
  assert!(!at_once);
}

/// An answer whose record was altered in the store is not found on the whole read, which opens the record on the
/// thread that queries it, as it is not found on every other read.
#[tokio::test(flavor = "multi_thread")]
async fn an_altered_record_is_not_found_on_the_whole_read() {
  use crate::core::store::Backend;
  let backend = std::sync::Arc::new(MemoryBackend::new(MemoryConfig {
    max_entries: 100,
    max_bytes: None,
  }));
  let store = HandleStore::with_backend(backend.clone(), "", "rh", 600, None).expect("a store");
  let owner = Owner::new(Some("s".into()), None);
  let text = orders_text(300 << 10);
  let handle = save(&store, &text, &owner).await;
  let args = QueryArgs::new(&handle, "$..tags[2]").expect("valid");
  assert!(query_stored(&store, args.clone(), &owner, THRESHOLD)
    .await
    .is_ok());
  let key = store.storage_key(&handle, &owner).expect("a key");
  let mut record = backend.get(key.clone()).await.expect("read").expect("kept");
  let middle = record.len() / 2;
  record[middle] ^= 1;
  backend.set(key, record, 60).await.expect("written");
  let fresh = QueryArgs::new(&handle, "$..tags[1]").expect("valid");
  let error = query_stored(&store, fresh, &owner, THRESHOLD)
    .await
    .expect_err("not found");
  assert_eq!(error.code.as_str(), "RESULT_HANDLE_NOT_FOUND");
}
