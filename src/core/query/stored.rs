//! `result_query` over a [`HandleStore`]: a singular path through the path index (the index and one byte range),
//! a JSONPath query through the kept match pages of the same query (one byte range); else the whole answer read,
//! decrypted and queried off the JS thread (keeping a JSONPath query's match spans for the next pages; the path
//! index, read beside it, may certify the answer's grammar so the query checks less).

use std::sync::Arc;

use super::answer::{answer, list_window, window, Items, Target};
use super::args::{QueryArgs, DEFAULT_LIST_LIMIT};
use super::directory::{may_answer_through_directory, run_directory_query, Directory};
use super::index::{
  answer_range, certified_arrays, first_steps, object_without_recorded_members, plan, Fragment,
  Members,
};
use super::path::ParsedPath;
use super::walk::Kind;
use super::{
  child_steps, handle_not_found, run_fragment_query_keeping_spans, run_members_query,
  run_query_here, run_query_keeping_spans, QuerySpans,
};
use crate::core::error::{CoreError, CoreResult};
use crate::core::seal::CHUNK_SIZE;
use crate::core::store::{HandleStore, Owner, UnopenedAnswer};

/// Fragments larger than this are answered on tokio's blocking pool.
const INLINE_FRAGMENT_BYTES: usize = 64 * 1024;

/// A JSONPath query on an answer of at most this many bytes is answered where the call is first polled
/// ([`answer_small_here`]): the store opens the few chunks it reads where it reads them, and the query costs the JS
/// thread about what a hop to another thread and back costs it (measured on Node 24: 0.13–0.36 ms a call at 20 KB
/// against 0.22–0.39, at half the latency; at 64 KB 0.1 ms more than the hop).
pub(super) const SMALL_ANSWER_BYTES: usize = 2 * CHUNK_SIZE;

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
  // A JSONPath query reads the path index beside the answer, once: an answer without one may be small enough to
  // query in this poll; the index may certify the answer's grammar (see `index::certified_arrays`), which spares the
  // tape checking what the query cannot reach, and names the long arrays whose items the tape may read on two
  // threads; and for a query whose first steps name one child each (`$.orders[?…]`) it may name the part of the
  // answer to read instead of the whole.
  let index = match args.path.parsed() {
    ParsedPath::Query { .. } => {
      let index = store.read_index(&args.handle, owner).await;
      if let Some(outcome) = answer_small_here(store, &args, owner, threshold_bytes, &index).await {
        return outcome;
      }
      index
    }
    ParsedPath::Steps(_) => Ok(None),
  };
  // Up to here a query reads at most the index and a few chunks, and runs at most a capped query on an answer of at
  // most two chunks, so a host may run this future's first poll on its own thread and answer a page or a small
  // answer without a hop between threads (see the binding's `FirstPoll::Here`). Reading the whole answer (a copy of
  // the record, at least) starts after this yield, where the runtime polls.
  tokio::task::yield_now().await;
  if let ParsedPath::Query { query, .. } = args.path.parsed() {
    let steps = child_steps(query);
    let led_to = match index.as_ref() {
      Ok(Some(index)) if !steps.is_empty() => first_steps(index, &steps),
      _ => Default::default(),
    };
    // A recorded array the steps all lead to is read on its own, however much of the answer it is: its directory
    // may answer, and the tape reads its text if not (read once for both).
    if let Some(array) = led_to.array {
      let directory = may_answer_through_directory(&args, array.steps);
      if let Some(outcome) =
        answer_from_fragment(store, &args, owner, threshold_bytes, array, directory).await?
      {
        return outcome;
      }
    } else {
      if let Some(members) = led_to.members {
        if let Some(outcome) =
          answer_from_members(store, &args, owner, threshold_bytes, members).await?
        {
          return outcome;
        }
      }
      if let Some(fragment) = led_to.fragment {
        if let Some(outcome) =
          answer_from_fragment(store, &args, owner, threshold_bytes, fragment, false).await?
        {
          return outcome;
        }
      }
    }
  }
  let unopened = store
    .read_unopened(&args.handle, owner)
    .await?
    .ok_or_else(handle_not_found)?;
  // Querying the whole answer is the costly part: one at a time per owner (taken after the read, so a slow store
  // does not make an owner's queries wait on each other's I/O).
  let _turn = store.query_turns().take(owner).await?;
  let limit = window(&args, DEFAULT_LIST_LIMIT).1;
  let handle = args.handle.clone();
  // Opened where it is queried: one hop between threads for both.
  let (outcome, spans) = off_the_workers(move || {
    let Some(answer) = unopened.open() else {
      return (Err(handle_not_found()), None);
    };
    // An index that cannot be read only costs the shortcut.
    let certified = index
      .ok()
      .flatten()
      .and_then(|index| certified_arrays(&index, answer.len()));
    run_query_keeping_spans(&answer, &args, threshold_bytes, certified.as_deref())
  })
  .await?;
  if let Some(spans) = spans {
    keep_match_spans(store, &handle, owner, &outcome, spans, limit);
  }
  outcome
}

/// Runs a query's work on more than a few chunks of the answer (milliseconds of CPU for a whole answer) where it holds
/// up no other task. Inside a task of a multi-thread runtime (as the binding's), on this thread: `block_in_place`
/// first hands the worker's other tasks to another thread, and the work runs without the two wake-ups between threads
/// of a hop to the blocking pool and back (first queries from JS 5-10% faster at 1 MB). Anywhere else (a
/// current-thread runtime, a `block_on`, the JS thread's first poll) on the blocking pool, so that nothing runs on the
/// caller's thread.
async fn off_the_workers<T: Send + 'static>(
  work: impl FnOnce() -> T + Send + 'static,
) -> CoreResult<T> {
  use tokio::runtime::{Handle, RuntimeFlavor};
  let in_worker_task = tokio::task::try_id().is_some()
    && Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread;
  if in_worker_task {
    return Ok(tokio::task::block_in_place(work));
  }
  tokio::task::spawn_blocking(work)
    .await
    .map_err(|_| CoreError::internal("The query failed inside the engine."))
}

/// Answers a JSONPath query on a small answer (at most [`SMALL_ANSWER_BYTES`]; `index`, its path index as read) in
/// this poll, without the two hops between threads that reading a whole answer takes (on a 2-vCPU VM they cost more
/// than the query): the answer is read as a range, so a larger one is never read whole here, and the query runs under
/// a capped budget ([`run_query_here`]), so it stays near a tenth of a millisecond. It does not wait for the owner's
/// turn, which keeps costly queries from taking every core. `None` when the answer is larger or cannot be read here,
/// or the query cannot be answered so: the whole read then answers it, the same way as before.
async fn answer_small_here(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
  index: &CoreResult<Option<Vec<u8>>>,
) -> Option<CoreResult<String>> {
  // A path index (`index`, as read) is kept only beside an answer over 64 KiB: such an answer is not small. A read
  // that failed here (or finds nothing) leaves the whole read to answer, with its own errors.
  if !matches!(index, Ok(None)) {
    return None;
  }
  let Ok(Some(answer)) = store
    .read_range(&args.handle, owner, 0, SMALL_ANSWER_BYTES as u64 + 1)
    .await
  else {
    return None;
  };
  if answer.len() > SMALL_ANSWER_BYTES {
    return None;
  }
  let (outcome, spans) = run_query_here(&answer, args, threshold_bytes)?;
  keep_match_spans(
    store,
    &args.handle,
    owner,
    &outcome,
    spans,
    window(args, DEFAULT_LIST_LIMIT).1,
  );
  Some(outcome)
}

/// Keeps a first query's match spans for its next pages, when it answered and there is a next page to read.
fn keep_match_spans(
  store: &HandleStore,
  handle: &str,
  owner: &Owner,
  outcome: &CoreResult<String>,
  (query, spans): QuerySpans,
  limit: usize,
) {
  if outcome.is_ok() && spans.len() > limit {
    store
      .match_pages()
      .put(handle, owner, &query, Arc::new(spans));
  }
}

/// Answers a JSONPath query from the small members of a large object its first steps lead into, as the index names
/// them (`index::first_steps`): reads and decrypts only the object's parts between its large members. `None` when
/// the whole answer must decide (see `run_members_query`).
async fn answer_from_members(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
  members: Members,
) -> CoreResult<Option<CoreResult<String>>> {
  let bytes = read_parts(store, args, owner, &members.parts).await?;
  Ok(
    object_without_recorded_members(&members.parts, &bytes)
      .and_then(|object| run_members_query(&object, members.steps, args, threshold_bytes)),
  )
}

/// The answer's bytes in `ranges`, one after the other, read at once: on a multiplexed connection (Redis) their
/// commands share a round trip. RESULT_HANDLE_NOT_FOUND when the answer is gone.
async fn read_parts(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  ranges: &[(u64, u64)],
) -> CoreResult<Vec<u8>> {
  let parts = ranges
    .iter()
    .map(|&(start, end)| store.read_range(&args.handle, owner, start, end));
  let mut bytes = Vec::new();
  for part in futures_util::future::try_join_all(parts).await? {
    bytes.extend_from_slice(&part.ok_or_else(handle_not_found)?);
  }
  Ok(bytes)
}

/// Answers a JSONPath query from the fragment of the answer its first steps lead to, as the index names it
/// (`index::first_steps`): reads and decrypts only that byte range, and, when `directory` (the fragment is an array
/// the steps all lead to, and the query may be answered through its member directory), the directory beside it
/// (`query::directory`), which then answers in place of the tape. `None` when the range is not the container it
/// promised, or the whole answer must decide (see `run_fragment_query_keeping_spans`).
async fn answer_from_fragment(
  store: &HandleStore,
  args: &QueryArgs,
  owner: &Owner,
  threshold_bytes: usize,
  fragment: Fragment,
  directory: bool,
) -> CoreResult<Option<CoreResult<String>>> {
  let text = store.read_range_unopened(&args.handle, owner, fragment.start, fragment.end);
  let (text, directory) = if directory {
    let directory = store.read_directory_unopened(&args.handle, owner, fragment.start);
    // A directory that cannot be read only costs the shortcut.
    let (text, directory) = tokio::join!(text, directory);
    (text, directory.ok().flatten())
  } else {
    (text.await, None)
  };
  let text = text?.ok_or_else(handle_not_found)?;
  let _turn = store.query_turns().take(owner).await?;
  let limit = window(args, DEFAULT_LIST_LIMIT).1;
  let owned_args = args.clone();
  // Opened where they are queried: one hop between threads for the reads' decryption and the query.
  let ran = off_the_workers(move || {
    let text = text.open().ok_or_else(handle_not_found)?;
    if !is_whole(&text, &fragment) {
      return Ok(None);
    }
    let through_directory = directory
      .and_then(UnopenedAnswer::open)
      .and_then(Directory::decode)
      .filter(|directory| directory.start == fragment.start)
      .and_then(|directory| {
        run_directory_query(
          &text,
          &directory,
          fragment.steps,
          &owned_args,
          threshold_bytes,
        )
      });
    Ok(through_directory.or_else(|| {
      run_fragment_query_keeping_spans(
        &text,
        fragment.start,
        fragment.steps,
        &owned_args,
        threshold_bytes,
        &fragment.arrays,
      )
    }))
  })
  .await??;
  let Some((outcome, spans)) = ran else {
    return Ok(None);
  };
  keep_match_spans(store, &args.handle, owner, &outcome, spans, limit);
  Ok(Some(outcome))
}

/// Whether `text` is all of `fragment`: as long as the index says, and opening and closing as its container.
fn is_whole(text: &[u8], fragment: &Fragment) -> bool {
  let (open, close) = if fragment.object {
    (b'{', b'}')
  } else {
    (b'[', b']')
  };
  u64::try_from(text.len()).is_ok_and(|len| len == fragment.end - fragment.start)
    && text.first() == Some(&open)
    && text.last() == Some(&close)
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
  let fragment = read_parts(store, args, owner, &read.ranges()).await?;
  if fragment.len() <= INLINE_FRAGMENT_BYTES {
    return Ok(answer_range(&read, &fragment, args, threshold_bytes));
  }
  let args = args.clone();
  off_the_workers(move || answer_range(&read, &fragment, &args, threshold_bytes)).await
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
  off_the_workers(read).await
}
