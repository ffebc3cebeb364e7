//! How deep into the answer a JSONPath query can look, so that the tape records only that far (see
//! [`super::tape::Tape::build_reaching`]): values below it are checked but get no entry of their own.
//!
//! The root is depth 0; each child segment goes one level down; a filter's relative queries start at its candidates'
//! depth, absolute ones at the root. A descendant segment (`..`) anywhere reaches every depth.

use serde_json_path_core::spec::functions::{FunctionExpr, FunctionExprArg, Validated};
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::{QuerySegmentKind, Segment};
use serde_json_path_core::spec::selector::filter::{
  BasicExpr, Comparable, LogicalOrExpr, SingularQuery, SingularQueryKind,
};
use serde_json_path_core::spec::selector::Selector;

/// The deepest level whose values the evaluation of `query` (from the root) can look at; `None` for every level.
pub(crate) fn reach(query: &Query) -> Option<usize> {
  query_reach(query, 0, 0)
}

fn query_reach(query: &Query, root: usize, current: usize) -> Option<usize> {
  let mut depth = match query.kind {
    QueryKind::Root => root,
    QueryKind::Current => current,
  };
  let mut deepest = depth;
  for segment in &query.segments {
    if segment.kind == QuerySegmentKind::Descendant {
      return None;
    }
    depth += 1;
    deepest = deepest.max(depth);
    if let Segment::LongHand(selectors) = &segment.segment {
      for selector in selectors {
        if let Selector::Filter(filter) = selector {
          deepest = deepest.max(logical_reach(&filter.0, root, depth)?);
        }
      }
    }
  }
  Some(deepest)
}

fn logical_reach(expr: &LogicalOrExpr, root: usize, current: usize) -> Option<usize> {
  let mut deepest = current;
  for and in &expr.0 {
    for basic in &and.0 {
      let reach = match basic {
        BasicExpr::Paren(inner) | BasicExpr::NotParen(inner) => {
          logical_reach(inner, root, current)?
        }
        BasicExpr::Relation(comparison) => comparable_reach(&comparison.left, root, current)?
          .max(comparable_reach(&comparison.right, root, current)?),
        BasicExpr::Exist(exist) | BasicExpr::NotExist(exist) => {
          query_reach(&exist.0, root, current)?
        }
        BasicExpr::FuncExpr(function) | BasicExpr::NotFuncExpr(function) => {
          function_reach(function, root, current)?
        }
      };
      deepest = deepest.max(reach);
    }
  }
  Some(deepest)
}

fn singular_reach(query: &SingularQuery, root: usize, current: usize) -> usize {
  let from = match query.kind {
    SingularQueryKind::Absolute => root,
    SingularQueryKind::Relative => current,
  };
  from + query.segments.len()
}

fn comparable_reach(comparable: &Comparable, root: usize, current: usize) -> Option<usize> {
  match comparable {
    Comparable::Literal(_) => Some(current),
    Comparable::SingularQuery(query) => Some(singular_reach(query, root, current)),
    Comparable::FunctionExpr(function) => function_reach(function, root, current),
  }
}

fn function_reach(
  function: &FunctionExpr<Validated>,
  root: usize,
  current: usize,
) -> Option<usize> {
  let mut deepest = current;
  for argument in &function.args {
    let reach = match argument {
      FunctionExprArg::Literal(_) => current,
      FunctionExprArg::SingularQuery(query) => singular_reach(query, root, current),
      FunctionExprArg::FilterQuery(query) => query_reach(query, root, current)?,
      FunctionExprArg::LogicalExpr(expr) => logical_reach(expr, root, current)?,
      FunctionExprArg::FunctionExpr(inner) => function_reach(inner, root, current)?,
    };
    deepest = deepest.max(reach);
  }
  Some(deepest)
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::jsonpath_spec::spec_query;
  use serde_json_path::JsonPath;

  fn of(path: &str) -> Option<usize> {
    reach(spec_query(&JsonPath::parse(path).expect("valid")))
  }

  #[test]
  fn counts_levels_through_segments_and_filters() {
    assert_eq!(of("$"), Some(0));
    assert_eq!(of("$.orders[*].sku"), Some(3));
    assert_eq!(of("$.orders[?@.status=='open' && @.amount > 500]"), Some(3));
    assert_eq!(of("$.a[?@.b.c.d == 1]"), Some(5));
    assert_eq!(of("$.a[?$.x.y.z.w == 1]"), Some(4));
    assert_eq!(of("$.a[?length(@.b.c) > 1]"), Some(4));
    assert_eq!(of("$.a[?count(@.b[*].c) > 1]"), Some(5));
    assert_eq!(of("$.a[?@[?@.b]]"), Some(4));
    assert_eq!(of("$.a[?!(@.b || @.c.d)]"), Some(4));
    assert_eq!(of("$..tags[2]"), None);
    assert_eq!(of("$.a[?@..b]"), None);
  }
}
