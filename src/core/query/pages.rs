//! Where the matches of the last JSONPath queries are, per store, handle, owner and query, so that a model paging
//! through the matches of a filter (`nextOffset` until the end) reads one small byte range per page instead of the
//! whole answer every time.
//!
//! Only byte offsets are kept (8 bytes per match), never answer text. Bounded: at most [`MAX_QUERIES`] queries
//! and [`MAX_SPANS`] matches in all, least recently used first out; a query with more matches than that is not
//! kept. A handle that expired or was removed reads as missing on the next page, since every page still reads its
//! range from the store.

use std::sync::Arc;

use crate::core::recent::{RecentlyUsed, Weighed};
use crate::core::seal::Owner;

/// Queries kept per store.
pub(crate) const MAX_QUERIES: usize = 64;
/// Matches kept per store, all queries together (8 bytes each: 16 MiB).
pub(crate) const MAX_SPANS: usize = 2 << 20;

/// Byte spans `[start, end)` of a query's matches in the answer's text, in order.
pub(crate) type Spans = Arc<Vec<(u32, u32)>>;

#[derive(PartialEq, Eq)]
struct Key {
  handle: String,
  owner: Owner,
  query: String,
}

#[derive(Clone)]
struct Kept(Spans);

impl Weighed for Kept {
  fn weight(&self) -> usize {
    self.0.len()
  }
}

/// The kept match spans of one store.
pub struct MatchPages {
  recent: RecentlyUsed<Key, Kept>,
}

impl Default for MatchPages {
  fn default() -> Self {
    Self {
      recent: RecentlyUsed::new(MAX_QUERIES, MAX_SPANS, MAX_SPANS),
    }
  }
}

impl MatchPages {
  /// The spans kept for `query` on `handle` for `owner`, marked most recently used.
  pub(crate) fn get(&self, handle: &str, owner: &Owner, query: &str) -> Option<Spans> {
    let kept = self
      .recent
      .get(|key| key.handle == handle && key.query == query && key.owner == *owner)?;
    Some(kept.0)
  }

  /// Keeps `spans`, dropping the least recently used queries past the bounds.
  pub(crate) fn put(&self, handle: &str, owner: &Owner, query: &str, spans: Spans) {
    let key = Key {
      handle: handle.to_string(),
      owner: owner.clone(),
      query: query.to_string(),
    };
    self.recent.put(key, Kept(spans));
  }

  /// Queries kept now.
  #[cfg(test)]
  pub(crate) fn len(&self) -> usize {
    self.recent.len()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn bounded_by_queries_and_matches_least_recent_out_first() {
    let pages = MatchPages::default();
    let me = Owner::new(Some("s".into()), None);
    let spans = |n: usize| Arc::new(vec![(0u32, 1u32); n]);
    for i in 0..MAX_QUERIES + 6 {
      pages.put(&format!("h{i}"), &me, "$[*]", spans(1));
    }
    assert_eq!(pages.len(), MAX_QUERIES);
    assert!(pages.get("h0", &me, "$[*]").is_none());
    assert!(pages.get("h6", &me, "$[*]").is_some());
    // Read last, so h7 is now the least recently used: a large entry pushes it and others out.
    pages.put("big", &me, "$[*]", spans(MAX_SPANS - 10));
    assert!(pages.get("h7", &me, "$[*]").is_none());
    assert!(pages.get("h6", &me, "$[*]").is_some());
    assert!(pages.get("big", &me, "$[*]").is_some());
    pages.put("huge", &me, "$[*]", spans(MAX_SPANS + 1));
    assert!(pages.get("huge", &me, "$[*]").is_none());
    // Another owner or another query is another entry.
    let other = Owner::new(Some("t".into()), None);
    assert!(pages.get("big", &other, "$[*]").is_none());
    assert!(pages.get("big", &me, "$.*").is_none());
  }
}
