//! How deep into the answer a JSONPath query can look, so that the tape records only that far (see
//! [`super::tape::Tape::build_reaching`]): values below it are checked but get no entry of their own.
//!
//! The root is depth 0; each child segment goes one level down; a filter's relative queries start at its candidates'
//! depth, absolute ones at the root. A descendant segment (`..`) anywhere reaches every depth.

use serde_json_path_core::spec::functions::{FunctionExpr, FunctionExprArg, Validated};
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::{QuerySegment, QuerySegmentKind, Segment};
use serde_json_path_core::spec::selector::filter::{
  BasicExpr, Comparable, LogicalOrExpr, SingularQuery, SingularQueryKind, SingularQuerySegment,
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

/// A query a filter holds: a whole one (an existence test, a function's node list) or a singular one (a side of a
/// comparison, a function's value).
enum Held<'q> {
  Query(&'q Query),
  Singular(&'q SingularQuery),
}

/// Whether `test` holds for any query the filters of `segments` hold (not looking inside those: `test` does if it
/// needs to).
fn any_held(segments: &[QuerySegment], test: &dyn Fn(Held) -> bool) -> bool {
  segments.iter().any(|segment| match &segment.segment {
    Segment::LongHand(selectors) => selectors.iter().any(|selector| match selector {
      Selector::Filter(filter) => logical_any_held(&filter.0, test),
      _ => false,
    }),
    Segment::DotName(_) | Segment::Wildcard => false,
  })
}

fn logical_any_held(expr: &LogicalOrExpr, test: &dyn Fn(Held) -> bool) -> bool {
  let comparable = |side: &Comparable| match side {
    Comparable::Literal(_) => false,
    Comparable::SingularQuery(query) => test(Held::Singular(query)),
    Comparable::FunctionExpr(function) => function_any_held(function, test),
  };
  expr
    .0
    .iter()
    .flat_map(|and| &and.0)
    .any(|basic| match basic {
      BasicExpr::Paren(inner) | BasicExpr::NotParen(inner) => logical_any_held(inner, test),
      BasicExpr::Relation(comparison) => {
        comparable(&comparison.left) || comparable(&comparison.right)
      }
      BasicExpr::Exist(exist) | BasicExpr::NotExist(exist) => test(Held::Query(&exist.0)),
      BasicExpr::FuncExpr(function) | BasicExpr::NotFuncExpr(function) => {
        function_any_held(function, test)
      }
    })
}

fn function_any_held(function: &FunctionExpr<Validated>, test: &dyn Fn(Held) -> bool) -> bool {
  function.args.iter().any(|argument| match argument {
    FunctionExprArg::Literal(_) => false,
    FunctionExprArg::SingularQuery(query) => test(Held::Singular(query)),
    FunctionExprArg::FilterQuery(query) => test(Held::Query(query)),
    FunctionExprArg::LogicalExpr(expr) => logical_any_held(expr, test),
    FunctionExprArg::FunctionExpr(inner) => function_any_held(inner, test),
  })
}

/// Whether a filter anywhere in `segments` holds an absolute query (`$…`), which reads from the answer's root
/// whatever node the segments are applied to.
pub(crate) fn refers_to_root(segments: &[QuerySegment]) -> bool {
  any_held(segments, &|held| match held {
    Held::Query(query) => query.kind == QueryKind::Root || refers_to_root(&query.segments),
    Held::Singular(query) => query.kind == SingularQueryKind::Absolute,
  })
}

/// Whether every descendant segment of `query`, its filters' queries included, selects members by name only
/// (`..tags`, `..['a','b']`): what such a segment visits can be cut short wherever no object can be.
pub(crate) fn descends_by_name_only(query: &Query) -> bool {
  let by_name = |segment: &Segment| match segment {
    Segment::DotName(_) => true,
    Segment::LongHand(selectors) => selectors
      .iter()
      .all(|selector| matches!(selector, Selector::Name(_))),
    Segment::Wildcard => false,
  };
  query
    .segments
    .iter()
    .all(|segment| segment.kind == QuerySegmentKind::Child || by_name(&segment.segment))
    && !any_held(&query.segments, &|held| match held {
      Held::Query(query) => !descends_by_name_only(query),
      Held::Singular(_) => false,
    })
}

/// The member names a query can select at each level (the root is level 0), so that the tape records, at a level
/// where the query only ever selects members by name, just the members so named: the others are counted, not
/// recorded, and (in a certified text) passed over. A level where anything selects a child some other way (a
/// wildcard, an index, a slice, a filter's candidates) takes every child; so does every level of a query with a
/// descendant segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names(Vec<Level>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Level {
  /// Nothing selects a child at this level (taken as [`Level::Every`], to be safe).
  Untouched,
  /// Members with these names only.
  Named(Vec<String>),
  Every,
}

impl Names {
  /// Every child at every level.
  pub(crate) const EVERY: Names = Names(Vec::new());

  /// Whether a value at `level` may be selected: `key`, the member's key between its quotes (escapes still in it,
  /// `escaped`), `None` for an array item.
  #[inline(always)]
  pub(crate) fn may_select(&self, level: usize, key: Option<&[u8]>, escaped: bool) -> bool {
    match self.0.get(level) {
      Some(Level::Named(names)) => {
        key.is_some_and(|key| escaped || names.iter().any(|name| name.as_bytes() == key))
      }
      _ => true,
    }
  }

  fn add(&mut self, level: usize, name: Option<&str>) {
    if self.0.len() <= level {
      self.0.resize(level + 1, Level::Untouched);
    }
    let slot = &mut self.0[level];
    match (&mut *slot, name) {
      (Level::Every, _) => {}
      (_, None) => *slot = Level::Every,
      (Level::Untouched, Some(name)) => *slot = Level::Named(vec![name.to_owned()]),
      (Level::Named(names), Some(name)) => {
        if !names.iter().any(|known| known == name) {
          names.push(name.to_owned());
        }
      }
    }
  }

  fn query(&mut self, query: &Query, root: usize, current: usize) -> Option<()> {
    let mut depth = match query.kind {
      QueryKind::Root => root,
      QueryKind::Current => current,
    };
    for segment in &query.segments {
      if segment.kind == QuerySegmentKind::Descendant {
        return None;
      }
      depth += 1;
      match &segment.segment {
        Segment::DotName(name) => self.add(depth, Some(name)),
        Segment::Wildcard => self.add(depth, None),
        Segment::LongHand(selectors) => {
          for selector in selectors {
            match selector {
              Selector::Name(name) => self.add(depth, Some(name.as_str())),
              Selector::Filter(filter) => {
                self.add(depth, None);
                self.logical(&filter.0, root, depth)?;
              }
              _ => self.add(depth, None),
            }
          }
        }
      }
    }
    Some(())
  }

  fn logical(&mut self, expr: &LogicalOrExpr, root: usize, current: usize) -> Option<()> {
    for and in &expr.0 {
      for basic in &and.0 {
        match basic {
          BasicExpr::Paren(inner) | BasicExpr::NotParen(inner) => {
            self.logical(inner, root, current)?
          }
          BasicExpr::Relation(comparison) => {
            self.comparable(&comparison.left, root, current)?;
            self.comparable(&comparison.right, root, current)?;
          }
          BasicExpr::Exist(exist) | BasicExpr::NotExist(exist) => {
            self.query(&exist.0, root, current)?
          }
          BasicExpr::FuncExpr(function) | BasicExpr::NotFuncExpr(function) => {
            self.function(function, root, current)?
          }
        }
      }
    }
    Some(())
  }

  fn singular(&mut self, query: &SingularQuery, root: usize, current: usize) {
    let from = match query.kind {
      SingularQueryKind::Absolute => root,
      SingularQueryKind::Relative => current,
    };
    for (at, segment) in query.segments.iter().enumerate() {
      let name = match segment {
        SingularQuerySegment::Name(name) => Some(name.as_str()),
        SingularQuerySegment::Index(_) => None,
      };
      self.add(from + at + 1, name);
    }
  }

  fn comparable(&mut self, comparable: &Comparable, root: usize, current: usize) -> Option<()> {
    match comparable {
      Comparable::Literal(_) => Some(()),
      Comparable::SingularQuery(query) => {
        self.singular(query, root, current);
        Some(())
      }
      Comparable::FunctionExpr(function) => self.function(function, root, current),
    }
  }

  fn function(
    &mut self,
    function: &FunctionExpr<Validated>,
    root: usize,
    current: usize,
  ) -> Option<()> {
    for argument in &function.args {
      match argument {
        FunctionExprArg::Literal(_) => {}
        FunctionExprArg::SingularQuery(query) => self.singular(query, root, current),
        FunctionExprArg::FilterQuery(query) => self.query(query, root, current)?,
        FunctionExprArg::LogicalExpr(expr) => self.logical(expr, root, current)?,
        FunctionExprArg::FunctionExpr(inner) => self.function(inner, root, current)?,
      }
    }
    Some(())
  }
}

/// The member names `query` (from the root) can select at each level ([`Names`]).
pub(crate) fn names(query: &Query) -> Names {
  let mut names = Names::EVERY;
  match names.query(query, 0, 0) {
    Some(()) => names,
    None => Names::EVERY,
  }
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

  fn refers(path: &str) -> bool {
    refers_to_root(&spec_query(&JsonPath::parse(path).expect("valid")).segments)
  }

  #[test]
  fn finds_absolute_queries_in_filters_at_any_depth() {
    for path in [
      "$.a[?@.b == $.c]",
      "$.a[?$.c]",
      "$.a[?!(@.b || $.c.d)]",
      "$.a[?length($.b) > 1]",
      "$.a[?count($[*]) > 1]",
      "$.a[?@[?$.x]]",
      "$.a[?match(@.b, $.pattern)]",
      "$.a..b[?@.c > $.d]",
      "$.a[?value(@[?$.x]) == 1]",
    ] {
      assert!(refers(path), "{path}");
    }
    for path in [
      "$",
      "$.a.b",
      "$.orders[?@.status=='open' && @.amount > 500]",
      "$..tags[2]",
      "$.a[?@[?@.x]]",
      "$.a[?length(@.b) > 1]",
      "$.a[?@.b == '$.c']",
    ] {
      assert!(!refers(path), "{path}");
    }
  }

  fn by_name_only(path: &str) -> bool {
    descends_by_name_only(spec_query(&JsonPath::parse(path).expect("valid")))
  }

  #[test]
  fn finds_descendant_segments_that_select_otherwise_than_by_name_at_any_depth() {
    for path in [
      "$.a.b[*][0]",
      "$..tags[2]",
      "$..['a','b'][?@.c]",
      "$.a[?@..b]",
      "$.a[?count(@..b) > 1 && length(@.c) > 1]",
      "$.a[?@[?@..b]]",
    ] {
      assert!(by_name_only(path), "{path}");
    }
    for path in [
      "$..*",
      "$..[0]",
      "$..['a',0]",
      "$..[?@.a]",
      "$.a[?@..*]",
      "$.a[?count(@..[1]) > 1]",
      "$.a[?!(@.b || @[?@..*])]",
      "$.a[?value(@..*) == 1]",
    ] {
      assert!(!by_name_only(path), "{path}");
    }
  }

  fn selects(path: &str, level: usize, key: Option<&str>) -> bool {
    let names = names(spec_query(&JsonPath::parse(path).expect("valid")));
    names.may_select(level, key.map(str::as_bytes), false)
  }

  #[test]
  fn names_only_the_members_a_level_selects_by_name() {
    let filter = "$.orders[?@.status=='open' && @.amount > 500]";
    assert!(selects(filter, 1, Some("orders")));
    assert!(!selects(filter, 1, Some("other")));
    assert!(selects(filter, 2, Some("any")) && selects(filter, 2, None));
    assert!(selects(filter, 3, Some("status")) && selects(filter, 3, Some("amount")));
    assert!(!selects(filter, 3, Some("customer")));
    assert!(!selects(filter, 3, None), "no item is selected by a name");
    assert!(!selects("$.a.b", 2, Some("c")));
    assert!(
      selects("$.a.b", 5, Some("c")),
      "levels past the query take everything"
    );
    assert!(selects("$['a','b'].c", 1, Some("b")));
    let absolute = "$.a[?$.x.y == 1]";
    assert!(selects(absolute, 1, Some("x")) && !selects(absolute, 1, Some("z")));
    assert!(
      selects(absolute, 2, Some("z")),
      "the filter's candidates: every child of a"
    );
    assert!(selects("$.a[?length(@.b[0]) > 1]", 4, None));
    assert!(selects("$.a[?count(@.*) > 1]", 3, Some("z")));
    assert!(selects("$.a[?@[?@.b]]", 4, Some("b")) && !selects("$.a[?@[?@.b]]", 4, Some("c")));
    assert!(selects("$.a[0].b", 2, None) && !selects("$.a[0].b", 3, Some("c")));
    assert!(
      selects("$..a.b", 2, Some("c")),
      "a descendant segment takes every member"
    );
    let names = names(spec_query(&JsonPath::parse("$.a").expect("valid")));
    assert!(
      names.may_select(1, Some(b"\\u0061"), true),
      "an escaped key may spell the name"
    );
  }
}
