//! What one query may spend: the work-unit budget (nodes visited, characters searched by regexes) and the regex
//! limits, with the errors that name them.

use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// Work units one query may spend on top of [`BUDGET_PER_NODE`] per node of the answer: well under a second of
/// CPU on a release build (measured: see the README's "Query cost"), whatever the answer.
pub(crate) const BASE_BUDGET: u64 = 12_000_000;

/// Work units allowed per node of the answer, so that a query that reads the answer a few times over (`$..*`,
/// a filter on every node) always runs, however large the answer.
pub(crate) const BUDGET_PER_NODE: u64 = 8;

/// Largest compiled regex (`match` / `search`) a query may use, and the lazy DFA's cache per regex.
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 20;
pub(super) const REGEX_DFA_SIZE_LIMIT: usize = 2 << 20;

/// Distinct regex patterns one query may compile (patterns read from the answer are each compiled once).
pub(crate) const MAX_REGEXES: usize = 256;

/// Work left for one query, and what it has spent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
  pub limit: u64,
  pub spent: u64,
}

impl Budget {
  /// The budget for an answer of `nodes` nodes (values at any depth, the root included).
  pub(crate) fn for_nodes(nodes: u64) -> Self {
    Budget {
      limit: BASE_BUDGET.saturating_add(BUDGET_PER_NODE.saturating_mul(nodes)),
      spent: 0,
    }
  }

  /// This budget, with at most `cap` units to spend.
  pub(crate) fn capped(self, cap: u64) -> Self {
    Budget {
      limit: self.limit.min(cap),
      ..self
    }
  }

  pub(super) fn spend(&mut self, units: u64) -> CoreResult<()> {
    self.spent = self.spent.saturating_add(units);
    if self.spent > self.limit {
      return Err(too_costly(self.limit));
    }
    Ok(())
  }
}

fn too_costly(limit: u64) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "path is too costly for this answer: evaluating it took more than its budget of {limit} steps (nodes \
       visited, plus characters searched by regexes), and was stopped."
    ),
  )
  .with_remedy(
    "Use a more specific path: name the list to search (`$.orders[?@.total > 10]`) instead of `$..`, use no `..` \
     inside filters (test a named child such as `@.c` instead of `@..c`), use fewer filters side by side and \
     simpler regexes, or query a narrower part of the answer and page through it.",
  )
}

pub(super) fn regex_too_large(pattern_len: usize) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "path holds a regex (match or search, {pattern_len} characters) that compiles to more than the \
       {REGEX_SIZE_LIMIT}-byte limit."
    ),
  )
  .with_remedy("Use a shorter regex without large counted repetitions (`a{1000}`) or long alternations.")
}

pub(super) fn too_many_regexes() -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!("path compares against more than {MAX_REGEXES} different regexes."),
  )
  .with_remedy("Use regex literals in match and search, not patterns read from the answer.")
}
