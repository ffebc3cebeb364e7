//! Evaluating an [`Expr`] over a value, as the JMESPath specification (jmespath.org/specification.html) states
//! each expression, every node and item charged to the [`Budget`]. Recursion follows the expression's tree only,
//! whose depth [`super::compile`] bounds; values are walked by loops.

use std::borrow::Cow;
use std::rc::Rc;

use jmespath::ast::Comparator;

use super::budget::Budget;
use super::compile::Expr;
use super::value::{equal, order, Obj, Val, VALUE_BYTES};
use crate::core::error::CoreResult;

pub(super) struct Eval {
  pub budget: Budget,
}

impl Eval {
  pub(super) fn eval<'a>(&mut self, expr: &'a Expr, current: &Val<'a>) -> CoreResult<Val<'a>> {
    self.budget.step(1)?;
    // Each arm's work is in a method of its own: in a debug build, this frame, which every level of the
    // expression's tree adds to the stack, would otherwise hold every arm's temporaries.
    match expr {
      Expr::Identity => Ok(current.clone()),
      Expr::Field(name) => Ok(current.field(name)),
      Expr::Literal(value) => Ok(Val::of(value)),
      Expr::Ref(inner) => Ok(Val::Ref(inner)),
      Expr::Index(at) => Ok(index(current, *at)),
      Expr::Slice(start, stop, step) => self.slice(current, *start, *stop, *step),
      Expr::Sub(lhs, rhs) => self.sub(lhs, rhs, current),
      Expr::Project(lhs, rhs) => self.project(lhs, rhs, current),
      Expr::Values(node) => self.values(node, current),
      Expr::Flatten(node) => self.flatten(node, current),
      Expr::Condition(test, then) => self.condition(test, then, current),
      Expr::Compare(comparator, lhs, rhs) => self.compare(comparator, lhs, rhs, current),
      Expr::And(lhs, rhs) => self.logic(false, lhs, rhs, current),
      Expr::Or(lhs, rhs) => self.logic(true, lhs, rhs, current),
      Expr::Not(node) => Ok(Val::Bool(!self.eval(node, current)?.truthy())),
      Expr::List(_) | Expr::Hash(_) if current.is_null() => Ok(Val::Null),
      Expr::List(elements) => self.multi_list(elements, current),
      Expr::Hash(pairs) => self.multi_hash(pairs, current),
      Expr::Call(function, args) => self.call(*function, args, current),
    }
  }

  fn sub<'a>(&mut self, lhs: &'a Expr, rhs: &'a Expr, current: &Val<'a>) -> CoreResult<Val<'a>> {
    let left = self.eval(lhs, current)?;
    self.eval(rhs, &left)
  }

  fn values<'a>(&mut self, node: &'a Expr, current: &Val<'a>) -> CoreResult<Val<'a>> {
    let subject = self.eval(node, current)?;
    let Some(entries) = subject.object() else {
      return Ok(Val::Null);
    };
    self.budget.step(entries.len() as u64)?;
    self.built(entries.len())?;
    Ok(Val::list(entries.iter().map(|(_, value)| value).collect()))
  }

  fn condition<'a>(
    &mut self,
    test: &'a Expr,
    then: &'a Expr,
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    match self.eval(test, current)?.truthy() {
      true => self.eval(then, current),
      false => Ok(Val::Null),
    }
  }

  /// `a || b` (`or`) and `a && b`: the left side when it decides, else the right side.
  fn logic<'a>(
    &mut self,
    or: bool,
    lhs: &'a Expr,
    rhs: &'a Expr,
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    let left = self.eval(lhs, current)?;
    match left.truthy() == or {
      true => Ok(left),
      false => self.eval(rhs, current),
    }
  }

  fn multi_list<'a>(&mut self, elements: &'a [Expr], current: &Val<'a>) -> CoreResult<Val<'a>> {
    self.built(elements.len())?;
    let items = elements
      .iter()
      .map(|element| self.eval(element, current))
      .collect::<CoreResult<_>>()?;
    Ok(Val::List(Rc::new(items)))
  }

  fn multi_hash<'a>(
    &mut self,
    pairs: &'a [(String, Expr)],
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    self.built(pairs.len())?;
    let mut members = Obj::with_capacity(pairs.len());
    for (key, value) in pairs {
      members.insert(Cow::Borrowed(key.as_str()), self.eval(value, current)?);
    }
    Ok(Val::Obj(Rc::new(members)))
  }

  /// Charges the budget for `count` values built.
  pub(super) fn built(&mut self, count: usize) -> CoreResult<()> {
    self.budget.build(VALUE_BYTES * count as u64)
  }

  fn project<'a>(
    &mut self,
    lhs: &'a Expr,
    rhs: &'a Expr,
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    let left = self.eval(lhs, current)?;
    let Some(items) = left.array() else {
      return Ok(Val::Null);
    };
    let mut out = Vec::new();
    for item in items.iter() {
      let value = self.eval(rhs, &item)?;
      if !value.is_null() {
        self.built(1)?;
        out.push(value);
      }
    }
    Ok(Val::list(out))
  }

  fn flatten<'a>(&mut self, node: &'a Expr, current: &Val<'a>) -> CoreResult<Val<'a>> {
    let subject = self.eval(node, current)?;
    let Some(items) = subject.array() else {
      return Ok(Val::Null);
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items.iter() {
      match item.array() {
        Some(inner) => {
          self.budget.step(inner.len() as u64)?;
          self.built(inner.len())?;
          out.extend(inner.iter());
        }
        None => {
          self.built(1)?;
          out.push(item);
        }
      }
    }
    Ok(Val::list(out))
  }

  fn compare<'a>(
    &mut self,
    comparator: &Comparator,
    lhs: &'a Expr,
    rhs: &'a Expr,
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    let left = &self.eval(lhs, current)?;
    let right = &self.eval(rhs, current)?;
    let ordered = |test: fn(std::cmp::Ordering) -> bool| match (left.number(), right.number()) {
      (Some(_), Some(_)) => order(left, right).map_or(Val::Null, |o| Val::Bool(test(o))),
      _ => Val::Null,
    };
    Ok(match comparator {
      Comparator::Equal => Val::Bool(equal(left, right, &mut self.budget)?),
      Comparator::NotEqual => Val::Bool(!equal(left, right, &mut self.budget)?),
      Comparator::LessThan => ordered(|o| o.is_lt()),
      Comparator::LessThanEqual => ordered(|o| o.is_le()),
      Comparator::GreaterThan => ordered(|o| o.is_gt()),
      Comparator::GreaterThanEqual => ordered(|o| o.is_ge()),
    })
  }

  /// `start:stop:step` of an array, with Python's rules for missing and negative ends (the spec's slices).
  fn slice<'a>(
    &mut self,
    current: &Val<'a>,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
  ) -> CoreResult<Val<'a>> {
    let Some(items) = current.array() else {
      return Ok(Val::Null);
    };
    let len = items.len() as i64;
    let end = |at: Option<i64>, default: i64| match at {
      None => default,
      Some(at) if at < 0 => (at + len).max(if step < 0 { -1 } else { 0 }),
      Some(at) => at.min(if step < 0 { len - 1 } else { len }),
    };
    let mut out = Vec::new();
    if step > 0 {
      let (mut at, stop) = (end(start, 0), end(stop, len));
      while at < stop {
        out.extend(items.get(at as usize));
        at += step;
      }
    } else {
      let (mut at, stop) = (end(start, len - 1), end(stop, -1));
      while at > stop {
        out.extend(items.get(at as usize));
        at += step;
      }
    }
    self.budget.step(out.len() as u64)?;
    self.built(out.len())?;
    Ok(Val::list(out))
  }
}

/// The item at `at` of an array (negative: from the end); null for anything else.
fn index<'a>(current: &Val<'a>, at: i64) -> Val<'a> {
  current
    .array()
    .and_then(|items| position(at, items.len()).and_then(|at| items.get(at)))
    .unwrap_or(Val::Null)
}

/// The index `at` names in an array of `len` items (negative: from the end).
pub(super) fn position(at: i64, len: usize) -> Option<usize> {
  if at < 0 {
    len.checked_sub(usize::try_from(at.unsigned_abs()).ok()?)
  } else {
    usize::try_from(at).ok()
  }
}
