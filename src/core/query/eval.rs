//! Evaluating an RFC 9535 query that can select several nodes, over any [`Node`]: the tape of the answer's text
//! ([`super::tape`]) or a parsed `Value`.
//!
//! The query comes from `serde_json_path`'s parser as its spec types (`serde_json_path_core::spec`); this module
//! follows the same steps as that crate's evaluator (same order of results, duplicates kept, same comparison and
//! function rules), so answers do not change. What it adds:
//! - a [`Budget`] of work units: every node a segment, selector or filter looks at costs one, every regex test
//!   costs its haystack; when the budget is spent evaluation stops with INVALID_INPUT naming `path` and the budget,
//!   so no query runs for long whatever its shape (descendants inside filters, filters side by side, regexes);
//! - regexes compiled once per query (not once per node), with size limits: a pattern over them refuses the query.

use std::collections::HashMap;

use regex::{Regex, RegexBuilder};
use serde_json_path_core::spec::functions::{FunctionExpr, FunctionExprArg, Validated};
use serde_json_path_core::spec::integer::Integer;
use serde_json_path_core::spec::query::{Query, QueryKind};
use serde_json_path_core::spec::segment::{QuerySegment, QuerySegmentKind, Segment};
use serde_json_path_core::spec::selector::filter::{
  BasicExpr, Comparable, ComparisonExpr, ComparisonOperator, Literal, LogicalOrExpr, SingularQuery,
  SingularQueryKind, SingularQuerySegment,
};
use serde_json_path_core::spec::selector::slice::Slice;
use serde_json_path_core::spec::selector::Selector;

use super::walk::Kind;
use crate::core::error::CoreResult;
use atom::{comparison_side, nodes_len, operand_atom, Operand, Side};
use budget::{
  regex_too_large, too_many_regexes, BASE_BUDGET, BUDGET_PER_NODE, REGEX_DFA_SIZE_LIMIT,
};

mod atom;
mod budget;
mod pieces;
mod value;

pub(crate) use atom::{number_against, Atom, LiteralFacts};
pub(crate) use budget::{Budget, MAX_REGEXES, REGEX_SIZE_LIMIT};
pub(crate) use pieces::calls_no_function;
pub(crate) use value::count_nodes;

/// A node of the answer the evaluator can look into. Objects read as `JSON.parse` reads them: a repeated key keeps
/// its first place and its last value.
pub(crate) trait Node<'a>: Copy + Send + Sync {
  fn kind(self) -> Kind;
  /// Items of an array or values of an object, in order; nothing for a scalar.
  fn children(self, out: &mut Vec<Self>);
  /// The value under `key` of an object.
  fn member(self, key: &str) -> Option<Self>;
  /// The item at `index` of an array.
  fn item(self, index: usize) -> Option<Self>;
  /// Items of an array, values of an object, characters (Unicode scalar values) of a string; 0 otherwise.
  fn length(self) -> usize;
  /// The node as a comparison operand.
  fn atom(self) -> CoreResult<Atom<'a>>;
  /// How the node compares with `literal`, when that can be told from the node as it lies (a string with no
  /// escape, a number, a word, a container): the same facts its [`Node::atom`] would give, without building it.
  /// `None`: build the atom.
  fn literal_facts(self, literal: &Literal) -> Option<LiteralFacts> {
    let _ = literal;
    None
  }
  /// [`Node::preorder`] cut into `pieces` consecutive parts (the first starting with the node), when it holds at
  /// least `min_nodes` nodes and can be cut without walking it; `None` otherwise.
  fn preorder_pieces(
    self,
    min_nodes: usize,
    pieces: usize,
  ) -> Option<Vec<impl Iterator<Item = Self> + Send>> {
    let _ = (min_nodes, pieces);
    None::<Vec<std::iter::Empty<Self>>>
  }
  /// What a descendant segment that selects members by name (`..tags`) visits: [`Node::preorder`], less what is
  /// under a node that can hold no object (nothing there can be selected), each node with the most nodes left out
  /// under it, which the budget is charged for as if they were visited.
  fn preorder_for_names(self) -> impl Iterator<Item = (Self, u64)> {
    self.preorder().map(|node| (node, 0))
  }
  /// The node, then each child's subtree in order (pre-order, what a descendant segment visits).
  fn preorder(self) -> impl Iterator<Item = Self> {
    // A stack instead of recursion: children are pushed last first, so the first child's whole subtree comes
    // off the stack before the second child.
    let mut stack = vec![self];
    std::iter::from_fn(move || {
      let node = stack.pop()?;
      let before = stack.len();
      node.children(&mut stack);
      stack[before..].reverse();
      Some(node)
    })
  }
}

/// One evaluation of one query: the root, the budget, and the regexes compiled so far.
pub(crate) struct Evaluation<N> {
  root: N,
  pub budget: Budget,
  /// Compiled `match` / `search` regexes by their full pattern; `None` when the pattern is not a valid regex
  /// (it matches nothing, as RFC 9535 asks).
  regexes: HashMap<String, Option<Regex>>,
  /// Whether a long list of nodes may be shared with a helper thread ([`pieces`]): not inside such a share.
  may_split: bool,
}

impl<'a, N: Node<'a>> Evaluation<N> {
  pub(crate) fn new(root: N, budget: Budget) -> Self {
    Evaluation {
      root,
      budget,
      regexes: HashMap::new(),
      may_split: true,
    }
  }

  /// [`Evaluation::new`] sharing nothing with a helper thread: all of it runs on the caller's thread.
  pub(crate) fn on_this_thread(root: N, budget: Budget) -> Self {
    Evaluation {
      may_split: false,
      ..Self::new(root, budget)
    }
  }

  /// Distinct regexes compiled (or found invalid) so far.
  #[cfg(test)]
  pub(crate) fn compiled_regexes(&self) -> usize {
    self.regexes.len()
  }

  /// The nodes `query` selects, in the order RFC 9535 (and `serde_json_path`) lists them.
  pub(crate) fn select(&mut self, query: &Query) -> CoreResult<Vec<N>> {
    let root = self.root;
    self.query(query, root)
  }

  fn query(&mut self, query: &Query, current: N) -> CoreResult<Vec<N>> {
    let first = match query.kind {
      QueryKind::Root => self.root,
      QueryKind::Current => current,
    };
    self.select_from(vec![first], &query.segments)
  }

  /// `segments` applied in turn from `nodes`, as a query's segments are from its first node.
  pub(crate) fn select_from(
    &mut self,
    mut nodes: Vec<N>,
    segments: &[QuerySegment],
  ) -> CoreResult<Vec<N>> {
    for segment in segments {
      let mut next = Vec::new();
      if self.may_split
        && nodes.len() >= pieces::MIN_CANDIDATES
        && pieces::plain_segment(&segment.segment)
      {
        let pieces = nodes.chunks(nodes.len().div_ceil(pieces::PIECES)).collect();
        self.in_pieces(pieces, &mut next, |eval, nodes, out| {
          nodes
            .iter()
            .try_for_each(|&node| eval.query_segment(segment, node, out))
        })?;
      } else {
        for node in nodes {
          self.query_segment(segment, node, &mut next)?;
        }
      }
      nodes = next;
    }
    Ok(nodes)
  }

  fn query_segment(&mut self, segment: &QuerySegment, node: N, out: &mut Vec<N>) -> CoreResult<()> {
    if segment.kind == QuerySegmentKind::Child {
      return self.segment(&segment.segment, node, out);
    }
    if self.may_split && pieces::plain_segment(&segment.segment) {
      if let Some(pieces) = node.preorder_pieces(pieces::MIN_NODES, pieces::PIECES) {
        let pieces = pieces.into_iter().enumerate().collect();
        return self.in_pieces(pieces, out, |eval, (at, nodes), out| {
          eval.descendants(&segment.segment, nodes, at == 0, out)
        });
      }
    }
    if let Some(names) = member_names(&segment.segment) {
      return self.descendant_members(&names, node.preorder_for_names(), true, out);
    }
    self.descendants(&segment.segment, node.preorder(), true, out)
  }

  /// `segment` on each of `nodes`, the pre-order of a descendant segment (`from_start`: from the segment's node on,
  /// which costs nothing more; else a later part of it).
  fn descendants(
    &mut self,
    segment: &Segment,
    nodes: impl Iterator<Item = N>,
    from_start: bool,
    out: &mut Vec<N>,
  ) -> CoreResult<()> {
    if let Some(names) = member_names(segment) {
      let nodes = nodes.map(|node| (node, 0));
      return self.descendant_members(&names, nodes, from_start, out);
    }
    // Each node under the segment's node costs one unit (as a child listed), besides what the segment costs on it.
    for (i, next) in nodes.enumerate() {
      if i > 0 || !from_start {
        self.budget.spend(1)?;
      }
      self.segment(segment, next, out)?;
    }
    Ok(())
  }

  /// [`Evaluation::descendants`] for a segment that selects members by name only (`..tags`, `..['a','b']`): only
  /// objects are looked into, and each node costs what it costs through [`Evaluation::segment`], spent a run of
  /// nodes at a time (the same total, so the same outcome; a spent budget stops the walk at most a run later).
  /// Each node comes with the nodes left out under it ([`Node::preorder_for_names`]), charged as if visited.
  fn descendant_members(
    &mut self,
    names: &[&str],
    nodes: impl Iterator<Item = (N, u64)>,
    from_start: bool,
    out: &mut Vec<N>,
  ) -> CoreResult<()> {
    const RUN: u64 = 1024;
    let mut owed = 0;
    for (i, (next, left_out)) in nodes.enumerate() {
      owed += if i > 0 || !from_start {
        NAMED_WALK_PER_NODE
      } else {
        NAMED_WALK_START
      };
      owed += NAMED_WALK_PER_NODE * left_out;
      if next.kind() == Kind::Object {
        for name in names {
          out.extend(next.member(name));
        }
      }
      if owed >= RUN {
        self.budget.spend(owed)?;
        owed = 0;
      }
    }
    self.budget.spend(owed)
  }

  fn segment(&mut self, segment: &Segment, node: N, out: &mut Vec<N>) -> CoreResult<()> {
    self.budget.spend(1)?;
    match segment {
      Segment::LongHand(selectors) => {
        for selector in selectors {
          self.selector(selector, node, out)?;
        }
      }
      Segment::DotName(name) => out.extend(node.member(name)),
      Segment::Wildcard => self.children(node, out)?,
    }
    Ok(())
  }

  fn children(&mut self, node: N, out: &mut Vec<N>) -> CoreResult<()> {
    let before = out.len();
    node.children(out);
    self.budget.spend((out.len() - before) as u64)
  }

  fn selector(&mut self, selector: &Selector, node: N, out: &mut Vec<N>) -> CoreResult<()> {
    match selector {
      Selector::Name(name) => out.extend(node.member(name.as_str())),
      Selector::Wildcard => self.children(node, out)?,
      Selector::Index(index) => {
        if node.kind() == Kind::Array {
          let at = integer(index.0);
          let position = if at < 0 {
            node.length().checked_sub(at.unsigned_abs() as usize)
          } else {
            usize::try_from(at).ok()
          };
          out.extend(position.and_then(|i| node.item(i)));
        }
      }
      Selector::ArraySlice(slice) => {
        if node.kind() == Kind::Array {
          let indexes = slice_indexes(slice, node.length());
          self.budget.spend(indexes.len() as u64)?;
          out.extend(indexes.into_iter().filter_map(|i| node.item(i)));
        }
      }
      Selector::Filter(filter) => {
        let mut candidates = Vec::new();
        self.children(node, &mut candidates)?;
        if self.may_split
          && candidates.len() >= pieces::MIN_CANDIDATES
          && pieces::plain_filter(&filter.0)
        {
          let pieces = candidates
            .chunks(candidates.len().div_ceil(pieces::PIECES))
            .collect();
          return self.in_pieces(pieces, out, |eval, candidates, out| {
            eval.filter(&filter.0, candidates, out)
          });
        }
        self.filter(&filter.0, &candidates, out)?;
      }
    }
    Ok(())
  }

  /// The `candidates` for which `expr` holds.
  fn filter(&mut self, expr: &LogicalOrExpr, candidates: &[N], out: &mut Vec<N>) -> CoreResult<()> {
    for &candidate in candidates {
      if self.test(expr, candidate)? {
        out.push(candidate);
      }
    }
    Ok(())
  }

  fn test(&mut self, expr: &LogicalOrExpr, current: N) -> CoreResult<bool> {
    self.budget.spend(1)?;
    for and in &expr.0 {
      let mut all = true;
      for basic in &and.0 {
        if !self.basic(basic, current)? {
          all = false;
          break;
        }
      }
      if all {
        return Ok(true);
      }
    }
    Ok(false)
  }

  fn basic(&mut self, expr: &BasicExpr, current: N) -> CoreResult<bool> {
    Ok(match expr {
      BasicExpr::Paren(inner) => self.test(inner, current)?,
      BasicExpr::NotParen(inner) => !self.test(inner, current)?,
      BasicExpr::Relation(comparison) => self.compare(comparison, current)?,
      BasicExpr::Exist(exist) => !self.query(&exist.0, current)?.is_empty(),
      BasicExpr::NotExist(exist) => self.query(&exist.0, current)?.is_empty(),
      BasicExpr::FuncExpr(function) => self.function_test(function, current)?,
      BasicExpr::NotFuncExpr(function) => !self.function_test(function, current)?,
    })
  }

  fn function_test(&mut self, function: &FunctionExpr<Validated>, current: N) -> CoreResult<bool> {
    Ok(match self.function(function, current)? {
      Operand::Nodes(nodes) => !nodes.is_empty(),
      Operand::Value(atom) => atom.truthy(),
      Operand::Logical(b) => b,
      Operand::Node(node) => node.atom()?.truthy(),
      Operand::Nothing => false,
    })
  }

  fn compare(&mut self, comparison: &ComparisonExpr, current: N) -> CoreResult<bool> {
    // The common case, a singular query against a literal (or another singular query), goes straight to the two
    // sides; the same steps in the same order as through operands, without moving operands around.
    let direct = |c: &Comparable| !matches!(c, Comparable::FunctionExpr(_));
    if direct(&comparison.left) && direct(&comparison.right) {
      let left = self.direct_side(&comparison.left, current)?;
      let right = self.direct_side(&comparison.right, current)?;
      if let Some(outcome) = decide_on_literal(comparison.op, &left, &right) {
        return Ok(outcome);
      }
      return Ok(decide(
        comparison.op,
        &direct_value(left)?,
        &direct_value(right)?,
      ));
    }
    let left = self.comparable(&comparison.left, current)?;
    let right = self.comparable(&comparison.right, current)?;
    let (left, right) = (comparison_side(&left)?, comparison_side(&right)?);
    Ok(decide(comparison.op, &left, &right))
  }

  /// A literal, or the node a singular query names (`None`: nothing); never called on a function.
  fn direct_side<'q>(
    &mut self,
    comparable: &'q Comparable,
    current: N,
  ) -> CoreResult<Result<&'q Literal, Option<N>>> {
    Ok(match comparable {
      Comparable::Literal(literal) => Ok(literal),
      Comparable::SingularQuery(query) => Err(match self.singular(query, current)? {
        Operand::Node(node) => Some(node),
        _ => None,
      }),
      Comparable::FunctionExpr(_) => Err(None),
    })
  }
}

/// What a descendant segment that selects by name charges for the node it starts from, and for each node under it
/// (as a child listed, and as looked into).
const NAMED_WALK_START: u64 = 1;
const NAMED_WALK_PER_NODE: u64 = 2;

/// What a descendant segment that selects by name charges for walking a subtree of `nodes` nodes from its root, as
/// [`Evaluation::descendant_members`] charges it.
pub(crate) fn named_walk_cost(nodes: u64) -> u64 {
  NAMED_WALK_START + NAMED_WALK_PER_NODE * nodes.saturating_sub(1)
}

/// How many steps that each name one child may follow a named walk from the root and never spend the budget,
/// whatever the answer: over `n` values the walk costs `NAMED_WALK_START + NAMED_WALK_PER_NODE × (n − 1)`, each step
/// at most `n` (one unit for each value it applies to, at most one for each value the walk selected), and the budget
/// is `BASE_BUDGET + BUDGET_PER_NODE × n`. Such a query need not count the answer's values.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the keys route only (x86_64)
pub(crate) const CHILD_STEPS_WITHIN_ANY_BUDGET: usize =
  (BUDGET_PER_NODE - NAMED_WALK_PER_NODE) as usize;

// The bound above also needs the walk's start to cost no more than `BASE_BUDGET + NAMED_WALK_PER_NODE`.
const _: () = assert!(NAMED_WALK_START <= BASE_BUDGET + NAMED_WALK_PER_NODE);

/// The names a segment selects when it selects members by name only (`.a`, `['a','b']`), else `None`.
pub(crate) fn member_names(segment: &Segment) -> Option<Vec<&str>> {
  match segment {
    Segment::DotName(name) => Some(vec![name.as_str()]),
    Segment::LongHand(selectors) => selectors
      .iter()
      .map(|selector| match selector {
        Selector::Name(name) => Some(name.as_str()),
        _ => None,
      })
      .collect(),
    Segment::Wildcard => None,
  }
}

/// A side [`Evaluation::direct_side`] found, as compared.
fn direct_value<'x, 'a: 'x, N: Node<'a>>(
  side: Result<&'x Literal, Option<N>>,
) -> CoreResult<Side<'x>> {
  Ok(match side {
    Ok(literal) => Side::Value(Atom::of_literal(literal)),
    Err(Some(node)) => Side::Value(node.atom()?),
    Err(None) => Side::Nothing,
  })
}

/// RFC 9535's comparison of two sides, as `serde_json_path` applies it.
fn decide(op: ComparisonOperator, left: &Side, right: &Side) -> bool {
  let equal = || match (left, right) {
    (Side::Value(a), Side::Value(b)) => a.equals(b),
    (Side::Nothing, Side::Nothing) => true,
    _ => false,
  };
  let same_type =
    || matches!((left, right), (Side::Value(a), Side::Value(b)) if a.type_rank() == b.type_rank());
  let less = || matches!((left, right), (Side::Value(a), Side::Value(b)) if a.less_than(b));
  decide_by(op, same_type, equal, less)
}

/// [`decide`] from what is known of the two sides: whether they are of one JSON type, equal, and the left one
/// less than the right one (asked only when needed).
fn decide_by(
  op: ComparisonOperator,
  same_type: impl Fn() -> bool,
  equal: impl Fn() -> bool,
  less: impl Fn() -> bool,
) -> bool {
  match op {
    ComparisonOperator::EqualTo => equal(),
    ComparisonOperator::NotEqualTo => !equal(),
    ComparisonOperator::LessThan => same_type() && less(),
    ComparisonOperator::GreaterThan => same_type() && !less() && !equal(),
    ComparisonOperator::LessThanEqualTo => same_type() && (less() || equal()),
    ComparisonOperator::GreaterThanEqualTo => same_type() && !less(),
  }
}

/// The commonest filter, a node against a literal (`@.amount > 500`, `'open' == @.status`), decided from the node
/// as it lies ([`Node::literal_facts`]) when it can be; `None` for any other pair of sides, or when only the node's
/// atom can tell.
fn decide_on_literal<'a, N: Node<'a>>(
  op: ComparisonOperator,
  left: &Result<&Literal, Option<N>>,
  right: &Result<&Literal, Option<N>>,
) -> Option<bool> {
  match (left, right) {
    (Err(Some(node)), Ok(literal)) => Some(node.literal_facts(literal)?.decide(op, true)),
    (Ok(literal), Err(Some(node))) => Some(node.literal_facts(literal)?.decide(op, false)),
    _ => None,
  }
}

impl LiteralFacts {
  /// [`decide`] for the node these facts are of against the literal (`node_on_left`: `node op literal`).
  fn decide(self, op: ComparisonOperator, node_on_left: bool) -> bool {
    let less = if node_on_left {
      std::cmp::Ordering::Less
    } else {
      std::cmp::Ordering::Greater
    };
    decide_by(
      op,
      || self.same_type,
      || self.order == Some(std::cmp::Ordering::Equal),
      || self.order == Some(less),
    )
  }
}

impl<'a, N: Node<'a>> Evaluation<N> {
  fn comparable<'q>(
    &mut self,
    comparable: &'q Comparable,
    current: N,
  ) -> CoreResult<Operand<'q, N>> {
    Ok(match comparable {
      Comparable::Literal(literal) => Operand::Value(Atom::of_literal(literal)),
      Comparable::SingularQuery(query) => self.singular(query, current)?,
      Comparable::FunctionExpr(function) => self.function(function, current)?,
    })
  }

  fn singular<'q>(&mut self, query: &SingularQuery, current: N) -> CoreResult<Operand<'q, N>> {
    let mut node = match query.kind {
      SingularQueryKind::Absolute => self.root,
      SingularQueryKind::Relative => current,
    };
    self.budget.spend(query.segments.len() as u64)?;
    for segment in &query.segments {
      let next = match segment {
        SingularQuerySegment::Name(name) => node.member(name.as_str()),
        // A negative index names nothing here, as in `serde_json_path`.
        SingularQuerySegment::Index(index) => usize::try_from(index.0)
          .ok()
          .filter(|_| node.kind() == Kind::Array)
          .and_then(|i| node.item(i)),
      };
      match next {
        Some(child) => node = child,
        None => return Ok(Operand::Nothing),
      }
    }
    Ok(Operand::Node(node))
  }

  fn argument<'q>(
    &mut self,
    argument: &'q FunctionExprArg,
    current: N,
  ) -> CoreResult<Operand<'q, N>> {
    Ok(match argument {
      FunctionExprArg::Literal(literal) => Operand::Value(Atom::of_literal(literal)),
      FunctionExprArg::SingularQuery(query) => self.singular(query, current)?,
      FunctionExprArg::FilterQuery(query) => Operand::Nodes(self.query(query, current)?),
      FunctionExprArg::LogicalExpr(expr) => Operand::Logical(self.test(expr, current)?),
      FunctionExprArg::FunctionExpr(function) => self.function(function, current)?,
    })
  }

  /// The five RFC 9535 functions (the only ones the parser accepts).
  fn function<'q>(
    &mut self,
    function: &'q FunctionExpr<Validated>,
    current: N,
  ) -> CoreResult<Operand<'q, N>> {
    self.budget.spend(1)?;
    let mut args = Vec::with_capacity(function.args.len());
    for argument in &function.args {
      args.push(self.argument(argument, current)?);
    }
    let mut args = args.into_iter();
    let mut next = || args.next().unwrap_or(Operand::Nothing);
    Ok(match function.name.as_str() {
      "length" => match next() {
        Operand::Node(node) if matches!(node.kind(), Kind::String | Kind::Array | Kind::Object) => {
          Operand::Value(Atom::Number(node.length().into()))
        }
        Operand::Value(Atom::Str(text)) => {
          Operand::Value(Atom::Number(text.chars().count().into()))
        }
        _ => Operand::Nothing,
      },
      "count" => Operand::Value(Atom::Number(nodes_len(&next()).into())),
      "value" => match next() {
        Operand::Nodes(nodes) if nodes.len() == 1 => Operand::Node(nodes[0]),
        Operand::Node(node) => Operand::Node(node),
        _ => Operand::Nothing,
      },
      "match" | "search" => {
        let whole = function.name == "match";
        let (text, pattern) = (next(), next());
        Operand::Logical(self.regex_test(&text, &pattern, whole)?)
      }
      _ => Operand::Nothing,
    })
  }

  fn regex_test(
    &mut self,
    text: &Operand<N>,
    pattern: &Operand<N>,
    whole: bool,
  ) -> CoreResult<bool> {
    let (Some(Atom::Str(text)), Some(Atom::Str(pattern))) =
      (operand_atom(text)?, operand_atom(pattern)?)
    else {
      return Ok(false);
    };
    // I-Regexp as `serde_json_path` runs it: CRLF mode, anchored for `match`.
    let full = if whole {
      format!("(?R)^({pattern})$")
    } else {
      format!("(?R)({pattern})")
    };
    if !self.regexes.contains_key(&full) {
      if self.regexes.len() >= MAX_REGEXES {
        return Err(too_many_regexes());
      }
      self.budget.spend(full.len() as u64)?;
      let compiled = match RegexBuilder::new(&full)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .build()
      {
        Ok(regex) => Some(regex),
        Err(regex::Error::CompiledTooBig(_)) => {
          return Err(regex_too_large(pattern.chars().count()))
        }
        Err(_) => None,
      };
      self.regexes.insert(full.clone(), compiled);
    }
    let Some(Some(regex)) = self.regexes.get(&full) else {
      return Ok(false);
    };
    // The regex crate matches in time linear in the haystack and the compiled program; both are bounded, so the
    // haystack (and the pattern, for the program) is what a test costs.
    let cost = (text.len() as u64 + 1).saturating_mul(1 + full.len() as u64 / 64);
    let matched = regex.is_match(&text);
    self.budget.spend(cost)?;
    Ok(matched)
  }
}

/// The spec's integers are within ±(2^53 − 1).
pub(crate) fn integer(value: Integer) -> i64 {
  if value >= 0 {
    usize::try_from(value).map_or(i64::MAX, |v| v as i64)
  } else {
    usize::try_from(value.abs()).map_or(i64::MIN, |v| -(v as i64))
  }
}

/// The indexes RFC 9535's slice `start:end:step` selects from an array of `len` items, in order.
fn slice_indexes(slice: &Slice, len: usize) -> Vec<usize> {
  let len = len as i64;
  let step = slice.step.map_or(1, integer);
  let normalize = |i: i64| if i >= 0 { i } else { len + i };
  let mut out = Vec::new();
  if step > 0 {
    let start = normalize(slice.start.map_or(0, integer)).max(0).min(len);
    let end = normalize(slice.end.map_or(len, integer)).max(0).min(len);
    let mut i = start;
    while i < end {
      out.push(i as usize);
      i += step;
    }
  } else if step < 0 {
    let start = normalize(slice.start.map_or(len - 1, integer)).max(-1);
    let end = normalize(slice.end.map_or(-len - 1, integer)).max(-1);
    let lower = end.min(len - 1);
    let mut i = start.min(len - 1);
    while lower < i {
      if i >= 0 {
        out.push(i as usize);
      }
      i += step;
    }
  }
  out
}
