//! The values an evaluation passes around: nodes of the input borrowed as they are (numbers keep the value the
//! input holds), and what the evaluation builds, shared by reference count so that copies cost nothing.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::rc::Rc;

use indexmap::IndexMap;
use serde_json::{Map, Number, Value};

use super::budget::Budget;
use super::compile::Expr;
use crate::core::error::CoreResult;
use crate::core::fold::array_index;
use crate::core::json::write::MAX_SAFE_INTEGER;

pub(super) type Obj<'a> = IndexMap<Cow<'a, str>, Val<'a>>;

/// Bytes counted for each value built (an item of a list, a member of an object, a node of the result), besides
/// the characters of its strings.
pub(super) const VALUE_BYTES: u64 = 32;

#[derive(Clone, Debug)]
pub(super) enum Val<'a> {
  Null,
  Bool(bool),
  Num(f64),
  Str(Rc<str>),
  /// A number, string, array or object of the input or of a literal.
  Node(&'a Value),
  List(Rc<Vec<Val<'a>>>),
  Obj(Rc<Obj<'a>>),
  /// An expression reference (`&price`), which only functions take.
  Ref(&'a Expr),
}

/// The JMESPath type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Type {
  Null,
  Boolean,
  Number,
  String,
  Array,
  Object,
  Expref,
}

impl Type {
  pub(super) fn name(self) -> &'static str {
    match self {
      Type::Null => "null",
      Type::Boolean => "boolean",
      Type::Number => "number",
      Type::String => "string",
      Type::Array => "array",
      Type::Object => "object",
      Type::Expref => "expref",
    }
  }
}

/// An array, whether of the input or built.
#[derive(Clone, Copy)]
pub(super) enum List<'v, 'a> {
  Nodes(&'a [Value]),
  Vals(&'v [Val<'a>]),
}

/// An object, whether of the input or built.
#[derive(Clone, Copy)]
pub(super) enum Entries<'v, 'a> {
  Nodes(&'a Map<String, Value>),
  Vals(&'v Obj<'a>),
}

impl<'a> Val<'a> {
  pub(super) fn of(value: &'a Value) -> Self {
    match value {
      Value::Null => Val::Null,
      Value::Bool(b) => Val::Bool(*b),
      _ => Val::Node(value),
    }
  }

  pub(super) fn list(items: Vec<Val<'a>>) -> Self {
    Val::List(Rc::new(items))
  }

  pub(super) fn kind(&self) -> Type {
    match self {
      Val::Null | Val::Node(Value::Null) => Type::Null,
      Val::Bool(_) | Val::Node(Value::Bool(_)) => Type::Boolean,
      Val::Num(_) | Val::Node(Value::Number(_)) => Type::Number,
      Val::Str(_) | Val::Node(Value::String(_)) => Type::String,
      Val::List(_) | Val::Node(Value::Array(_)) => Type::Array,
      Val::Obj(_) | Val::Node(Value::Object(_)) => Type::Object,
      Val::Ref(_) => Type::Expref,
    }
  }

  pub(super) fn is_null(&self) -> bool {
    self.kind() == Type::Null
  }

  /// JMESPath truthiness: false, null and empty strings, arrays and objects are false.
  pub(super) fn truthy(&self) -> bool {
    match self {
      Val::Null | Val::Node(Value::Null) | Val::Bool(false) | Val::Node(Value::Bool(false)) => {
        false
      }
      Val::Str(text) => !text.is_empty(),
      Val::Node(Value::String(text)) => !text.is_empty(),
      Val::List(items) => !items.is_empty(),
      Val::Node(Value::Array(items)) => !items.is_empty(),
      Val::Obj(members) => !members.is_empty(),
      Val::Node(Value::Object(members)) => !members.is_empty(),
      _ => true,
    }
  }

  pub(super) fn number(&self) -> Option<f64> {
    match self {
      Val::Num(n) => Some(*n),
      Val::Node(Value::Number(n)) => n.as_f64(),
      _ => None,
    }
  }

  pub(super) fn string(&self) -> Option<&str> {
    match self {
      Val::Str(text) => Some(text),
      Val::Node(Value::String(text)) => Some(text),
      _ => None,
    }
  }

  pub(super) fn array(&self) -> Option<List<'_, 'a>> {
    match self {
      Val::List(items) => Some(List::Vals(items)),
      Val::Node(Value::Array(items)) => Some(List::Nodes(items)),
      _ => None,
    }
  }

  pub(super) fn object(&self) -> Option<Entries<'_, 'a>> {
    match self {
      Val::Obj(members) => Some(Entries::Vals(members)),
      Val::Node(Value::Object(members)) => Some(Entries::Nodes(members)),
      _ => None,
    }
  }

  /// The member `name` of an object; null for anything else.
  pub(super) fn field(&self, name: &str) -> Val<'a> {
    self
      .object()
      .and_then(|entries| entries.get(name))
      .unwrap_or(Val::Null)
  }
}

impl<'v, 'a> List<'v, 'a> {
  pub(super) fn len(self) -> usize {
    match self {
      List::Nodes(items) => items.len(),
      List::Vals(items) => items.len(),
    }
  }

  pub(super) fn get(self, at: usize) -> Option<Val<'a>> {
    match self {
      List::Nodes(items) => items.get(at).map(Val::of),
      List::Vals(items) => items.get(at).cloned(),
    }
  }

  pub(super) fn iter(self) -> impl Iterator<Item = Val<'a>> + 'v {
    (0..self.len()).filter_map(move |at| self.get(at))
  }

  /// The items as a vector (a copy of references), after charging the budget for it.
  pub(super) fn to_vec(self, budget: &mut Budget) -> CoreResult<Vec<Val<'a>>> {
    budget.build(VALUE_BYTES * self.len() as u64)?;
    Ok(self.iter().collect())
  }
}

impl<'v, 'a> Entries<'v, 'a> {
  pub(super) fn len(self) -> usize {
    match self {
      Entries::Nodes(members) => members.len(),
      Entries::Vals(members) => members.len(),
    }
  }

  pub(super) fn get(self, key: &str) -> Option<Val<'a>> {
    match self {
      Entries::Nodes(members) => members.get(key).map(Val::of),
      Entries::Vals(members) => members.get(key).cloned(),
    }
  }

  pub(super) fn iter(self) -> Box<dyn Iterator<Item = (Cow<'a, str>, Val<'a>)> + 'v> {
    match self {
      Entries::Nodes(members) => Box::new(
        members
          .iter()
          .map(|(key, value)| (Cow::Borrowed(key.as_str()), Val::of(value))),
      ),
      Entries::Vals(members) => Box::new(
        members
          .iter()
          .map(|(key, value)| (key.clone(), value.clone())),
      ),
    }
  }
}

/// JMESPath equality: same type and same value, numbers by value, objects whatever their order. Each pair of
/// values compared costs a step.
pub(super) fn equal(a: &Val, b: &Val, budget: &mut Budget) -> CoreResult<bool> {
  budget.step(1)?;
  if let (Val::Node(x), Val::Node(y)) = (a, b) {
    if std::ptr::eq(*x, *y) {
      return Ok(true);
    }
  }
  if a.kind() != b.kind() {
    return Ok(false);
  }
  if let (Some(x), Some(y)) = (a.number(), b.number()) {
    return Ok(x == y);
  }
  if let (Some(x), Some(y)) = (a.string(), b.string()) {
    return Ok(x == y);
  }
  if let (Some(x), Some(y)) = (a.array(), b.array()) {
    if x.len() != y.len() {
      return Ok(false);
    }
    for (p, q) in x.iter().zip(y.iter()) {
      if !equal(&p, &q, budget)? {
        return Ok(false);
      }
    }
    return Ok(true);
  }
  if let (Some(x), Some(y)) = (a.object(), b.object()) {
    if x.len() != y.len() {
      return Ok(false);
    }
    for (key, p) in x.iter() {
      match y.get(&key) {
        Some(q) if equal(&p, &q, budget)? => {}
        _ => return Ok(false),
      }
    }
    return Ok(true);
  }
  Ok(a.truthy() == b.truthy())
}

/// The order of two numbers or of two strings (by code point); `None` for any other pair.
pub(super) fn order(a: &Val, b: &Val) -> Option<Ordering> {
  match (a.number(), b.number(), a.string(), b.string()) {
    (Some(x), Some(y), _, _) => x.partial_cmp(&y),
    (_, _, Some(x), Some(y)) => Some(x.cmp(y)),
    _ => None,
  }
}

/// A computed number as JSON: integers within 2^53 as integers, `-0` as `0`, and what JS cannot hold as null.
pub(super) fn number_value(n: f64) -> Value {
  if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER as f64 {
    return Value::from(n as i64);
  }
  Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// The value as JSON, charging the budget for every node copied. Built objects list their array-index keys
/// first, in ascending order, as a JS object does.
pub(super) fn to_value(val: &Val, budget: &mut Budget) -> CoreResult<Value> {
  budget.build(VALUE_BYTES)?;
  Ok(match val {
    Val::Null | Val::Ref(_) => Value::Null,
    Val::Bool(b) => Value::Bool(*b),
    Val::Num(n) => number_value(*n),
    Val::Str(text) => {
      budget.build(text.len() as u64)?;
      Value::String(text.to_string())
    }
    Val::Node(node) => copy(node, budget)?,
    Val::List(items) => Value::Array(
      items
        .iter()
        .map(|item| to_value(item, budget))
        .collect::<CoreResult<_>>()?,
    ),
    Val::Obj(members) => {
      let mut keys: Vec<(Option<u32>, usize)> = (members.keys())
        .map(|key| array_index(key.as_bytes()))
        .zip(0..)
        .collect();
      if keys.iter().any(|(index, _)| index.is_some()) {
        keys.sort_by_key(|&(index, at)| (index.is_none(), index, at));
      }
      let mut map = Map::new();
      for (_, at) in keys {
        if let Some((key, member)) = members.get_index(at) {
          budget.build(key.len() as u64)?;
          map.insert(key.to_string(), to_value(member, budget)?);
        }
      }
      Value::Object(map)
    }
  })
}

/// A node of the input, copied, each node charged.
fn copy(node: &Value, budget: &mut Budget) -> CoreResult<Value> {
  budget.build(VALUE_BYTES)?;
  Ok(match node {
    Value::String(text) => {
      budget.build(text.len() as u64)?;
      node.clone()
    }
    Value::Array(items) => Value::Array(
      items
        .iter()
        .map(|item| copy(item, budget))
        .collect::<CoreResult<_>>()?,
    ),
    Value::Object(members) => {
      let mut map = Map::new();
      for (key, member) in members {
        budget.build(key.len() as u64)?;
        map.insert(key.clone(), copy(member, budget)?);
      }
      Value::Object(map)
    }
    _ => node.clone(),
  })
}
