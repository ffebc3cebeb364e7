//! `result_query` over a [`HandleStore`]: a singular path through the path index (the index and one byte range),
//! a JSONPath query through the kept match pages of the same query (one byte range); else the whole answer read,
//! decrypted and queried off the JS thread (keeping a JSONPath query's match spans for the next pages; the path
//! index, read beside it, may certify the answer's grammar so the query checks less).

use std::sync::Arc;

use super::answer::{answer, list_window, window, Items, Target};
use super::args::{QueryArgs, DEFAULT_LIST_LIMIT};
use super::index::{answer_range, certified_arrays, plan};
use super::path::ParsedPath;
use super::walk::Kind;
use super::{handle_not_found, run_query_keeping_spans};
use crate::core::error::{CoreError, CoreResult};
use crate::core::store::{HandleStore, Owner};

/// Fragments larger than this are answered on tokio's blocking pool.
const INLINE_FRAGMENT_BYTES: usize = 64 * 1024;

/// Answers `result_query` for `owner` from `store`: through the path index when it covers the query (reading
/// the index and one byte range), otherwise by reading the whole answer. RESULT_HANDLE_NOT_FOUND when the
/// handle is unknown, expired or another owner's.
pub async fn query_stored(
  store: &HandleStore,
  args: QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
) -> CoreResult<String> {
  // The index covers singular paths only, the kept match pages JSONPath queries only: one store read each way.
  let shortcut = match args.path.parsed() {
    ParsedPath::Steps(_) => answer_indexed(store, &args, owner, threshold_bytes).await?,
    ParsedPath::Query { .. } => answer_kept_page(store, &args, owner, threshold_bytes).await?,
  };
  if let Some(outcome) = shortcut {
    return outcome;
  }
  // Up to here a query reads at most the index and a few chunks, so a host may run this future's first poll on
  // its own thread and answer a page without a hop between threads (see the binding's `FirstPoll::Here`).
  // Reading the whole answer (a copy of the record, at least) starts after this yield, where the runtime polls.
  tokio::task::yield_now().await;
  // A JSONPath query reads the path index beside the answer: it may certify the answer's grammar (see
  // `index::certified_arrays`), which spares the tape checking what the query cannot reach, and names the long
  // arrays whose items the tape may read on two threads.
  let (answer, index) = match args.path.parsed() {
    ParsedPath::Query { .. } => tokio::join!(
      store.read(&args.handle, owner),
      store.read_index(&args.handle, owner)
    ),
    ParsedPath::Steps(_) => (store.read(&args.handle, owner).await, Ok(None)),
  };
  let answer = answer?.ok_or_else(handle_not_found)?;
  // An index that cannot be read only costs the shortcut.
  let certified = index
    .ok()
    .flatten()
    .and_then(|index| certified_arrays(&index, answer.len()));
  // Querying the whole answer is the costly part: one at a time per owner (taken after the read, so a slow store
  // does not make an owner's queries wait on each other's I/O).
  let _turn = store.query_turns().take(owner).await?;
  let (handle, owner, limit) = (
    args.handle.clone(),
    owner.clone(),
    window(&args, DEFAULT_LIST_LIMIT).1,
  );
  let (outcome, spans) = tokio::task::spawn_blocking(move || {
    run_query_keeping_spans(&answer, &args, threshold_bytes, certified.as_deref())
  })
  .await
  .map_err(|_| CoreError::internal("The query failed inside the engine."))?;
  // Worth keeping when there is a next page to read.
  if let (Ok(_), Some((query, spans))) = (&outcome, spans) {
    if spans.len() > limit {
      store
        .match_pages()
        .put(&handle, &owner, &query, Arc::new(spans));
    }
  }
  outcome
}

/// Answers a singular path from the byte range the path index names for it. `None` when there is no index or it
/// does not cover the path and window (or the range is not what it promised).
async fn answer_indexed(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
) -> CoreResult<Option<CoreResult<String>>> {
  let Some(index) = store.read_index(&args.handle, owner).await? else {
    return Ok(None);
  };
  let Some(read) = plan(&index, args) else {
    return Ok(None);
  };
  let fragment = store
    .read_range(&args.handle, owner, read.start, read.end)
    .await?
    .ok_or_else(handle_not_found)?;
  if fragment.len() <= INLINE_FRAGMENT_BYTES {
    return Ok(answer_range(&read, &fragment, args, threshold_bytes));
  }
  let args = args.clone();
  tokio::task::spawn_blocking(move || answer_range(&read, &fragment, &args, threshold_bytes))
    .await
    .map_err(|_| CoreError::internal("The query failed inside the engine."))
}

/// Answers a page of a JSONPath query whose match spans this store kept: reads only the byte range that holds the
/// window's matches. `None` when nothing is kept for the query (or the range is not what was kept).
async fn answer_kept_page(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
) -> CoreResult<Option<CoreResult<String>>> {
  let ParsedPath::Query { text: query, .. } = args.path.parsed() else {
    return Ok(None);
  };
  let Some(spans) = store.match_pages().get(&args.handle, owner, query) else {
    return Ok(None);
  };
  let total = spans.len();
  let window = list_window(args, total);
  let first = window.start;
  let page = &spans[window];
  // Matches need not be in document order (`$[2,0]`): the range runs from the lowest start to the highest end.
  let from = page.iter().map(|&(s, _)| s).min().unwrap_or(0);
  let to = page.iter().map(|&(_, e)| e).max().unwrap_or(0);
  // Every page reads the store, so a handle that expired or was removed reads as missing.
  let fragment = store
    .read_range(&args.handle, owner, u64::from(from), u64::from(to))
    .await?
    .ok_or_else(handle_not_found)?;
  let (page, query) = (page.to_vec(), query.clone());
  let args = args.clone();
  let read = move || {
    let text = std::str::from_utf8(&fragment).ok()?;
    let items: Vec<&str> = page
      .iter()
      .map(|&(s, e)| text.get((s - from) as usize..(e - from) as usize))
      .collect::<Option<_>>()
      .filter(|_| text.len() == (to - from) as usize)?;
    let matches = Items::Texts {
      items,
      base: first,
      total,
    };
    Some(answer(
      &query,
      Target::List(matches),
      Kind::Array,
      &args,
      threshold_bytes,
    ))
  };
  if (to - from) as usize <= INLINE_FRAGMENT_BYTES {
    return Ok(read());
  }
  tokio::task::spawn_blocking(read)
    .await
    .map_err(|_| CoreError::internal("The query failed inside the engine."))
}
