//! Sharing a long list of nodes with a helper thread: the nodes a segment applies to, the candidates of a filter
//! over many children, or the pre-order of a descendant segment over a large subtree, are cut into [`PIECES`] parts, which this thread and a
//! helper (an evaluation of its own, with the budget as it stands) claim one at a time; the matches are put
//! together in the parts' order, the order one thread gives them. What the helper spent is then charged to the budget, so a
//! query is refused exactly when one thread would refuse it: every step spends, the same steps run, and only the
//! total is compared with the limit.
//!
//! Only segments and filters with no function (so no regex, whose compiled patterns one evaluation counts) are
//! shared, and only at the outermost level (a helper shares nothing).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json_path_core::spec::query::Query;
use serde_json_path_core::spec::segment::Segment;
use serde_json_path_core::spec::selector::filter::{BasicExpr, Comparable, LogicalOrExpr};
use serde_json_path_core::spec::selector::Selector;

use super::{Evaluation, Node};
use crate::core::error::{CoreError, CoreResult};

/// A descendant segment shares a subtree of at least this many nodes (about 2 ms of work, against tens of
/// microseconds to start a thread: below that, a busy second core costs more than a free one saves). Tests share
/// smaller ones.
pub(super) const MIN_NODES: usize = if cfg!(test) { 64 * 1024 } else { 256 * 1024 };

/// A segment shares at least this many nodes, a filter this many candidates: through a member directory about 0.3 ms
/// of work (82 ns a candidate in the process), which a helper on time about halves and a late one costs its start.
/// From 4 K rather than 24 K, first queries on 1 MB of orders (7,500) measured faster in the process.
pub(super) const MIN_CANDIDATES: usize = if cfg!(test) { 2 * 1024 } else { 4 * 1024 };

/// Parts a shared list is cut into: small enough that a helper starting late (on a busy machine) still evens out.
pub(super) const PIECES: usize = 8;

/// A segment whose selectors call no function, at any depth.
pub(super) fn plain_segment(segment: &Segment) -> bool {
  match segment {
    Segment::LongHand(selectors) => selectors.iter().all(|selector| match selector {
      Selector::Filter(filter) => plain_filter(&filter.0),
      _ => true,
    }),
    Segment::DotName(_) | Segment::Wildcard => true,
  }
}

/// Whether `query` calls no function at any depth (so compiles no regex).
pub(crate) fn calls_no_function(query: &Query) -> bool {
  query
    .segments
    .iter()
    .all(|segment| plain_segment(&segment.segment))
}

/// A filter expression that calls no function, at any depth.
pub(super) fn plain_filter(expr: &LogicalOrExpr) -> bool {
  let plain_side = |side: &Comparable| !matches!(side, Comparable::FunctionExpr(_));
  expr
    .0
    .iter()
    .flat_map(|and| &and.0)
    .all(|basic| match basic {
      BasicExpr::Paren(inner) | BasicExpr::NotParen(inner) => plain_filter(inner),
      BasicExpr::Relation(comparison) => {
        plain_side(&comparison.left) && plain_side(&comparison.right)
      }
      BasicExpr::Exist(exist) | BasicExpr::NotExist(exist) => calls_no_function(&exist.0),
      BasicExpr::FuncExpr(_) | BasicExpr::NotFuncExpr(_) => false,
    })
}

impl<'a, N: Node<'a>> Evaluation<N> {
  /// `work` on each of `pieces` (in order, a list cut into consecutive parts), claimed one at a time by this thread
  /// and a helper (this thread takes them all when the helper starts late or no thread is to be had); their nodes
  /// appended in the pieces' order, and the helper's spending charged.
  pub(super) fn in_pieces<I: Send>(
    &mut self,
    pieces: Vec<I>,
    out: &mut Vec<N>,
    work: impl Fn(&mut Self, I, &mut Vec<N>) -> CoreResult<()> + Sync,
  ) -> CoreResult<()> {
    let before = self.budget.spent;
    let mut helper = Evaluation {
      root: self.root,
      budget: self.budget,
      regexes: HashMap::new(),
      may_split: false,
    };
    let count = pieces.len();
    let pieces: Vec<Mutex<Option<I>>> = pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    // Pieces claimed in turn; each one's nodes apart, to be put in order after.
    let claim = |eval: &mut Self| -> CoreResult<Vec<(usize, Vec<N>)>> {
      let mut done = Vec::new();
      loop {
        let at = next.fetch_add(1, Ordering::Relaxed);
        let Some(piece) = pieces.get(at).and_then(|p| p.lock().ok()?.take()) else {
          return Ok(done);
        };
        let mut found = Vec::new();
        work(eval, piece, &mut found)?;
        done.push((at, found));
      }
    };
    self.may_split = false;
    let (mine, theirs) = std::thread::scope(|scope| {
      let worker = std::thread::Builder::new().spawn_scoped(scope, || claim(&mut helper));
      let mine = claim(self);
      let theirs = match worker {
        Ok(worker) => worker
          .join()
          .unwrap_or_else(|_| Err(CoreError::internal("The query failed inside the engine."))),
        Err(_) => Ok(Vec::new()),
      };
      (mine, theirs)
    });
    self.may_split = true;
    let mut done = mine?;
    done.extend(theirs?);
    if done.len() != count {
      return Err(CoreError::internal("The query failed inside the engine."));
    }
    done.sort_unstable_by_key(|&(at, _)| at);
    for (_, found) in done {
      out.extend(found);
    }
    self.budget.spend(helper.budget.spent - before)
  }
}

#[cfg(test)]
mod tests;
