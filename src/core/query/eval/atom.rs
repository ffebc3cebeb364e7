//! The values a filter compares: [`Atom`] (a scalar read in place, or a container built), the operands of
//! comparisons and function arguments, and RFC 9535's comparison rules as `serde_json_path` applies them.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::{Number, Value};
use serde_json_path_core::spec::selector::filter::Literal;

use super::Node;
use crate::core::error::CoreResult;

/// A value being compared: scalars read in place, containers built.
#[derive(Debug)]
pub(crate) enum Atom<'a> {
  Null,
  Bool(bool),
  Number(Number),
  Str(Cow<'a, str>),
  /// Boxed: a `Value` is several times the size of the other variants, and atoms move through every comparison.
  Tree(Box<Cow<'a, Value>>),
}

impl Atom<'_> {
  pub(super) fn of_value(value: &Value) -> Atom<'_> {
    match value {
      Value::Null => Atom::Null,
      Value::Bool(b) => Atom::Bool(*b),
      Value::Number(n) => Atom::Number(n.clone()),
      Value::String(s) => Atom::Str(Cow::Borrowed(s)),
      other => Atom::Tree(Box::new(Cow::Borrowed(other))),
    }
  }

  pub(super) fn of_literal(literal: &Literal) -> Atom<'_> {
    match literal {
      Literal::Number(n) => Atom::Number(n.clone()),
      Literal::String(s) => Atom::Str(Cow::Borrowed(s)),
      Literal::Bool(b) => Atom::Bool(*b),
      Literal::Null => Atom::Null,
    }
  }

  /// JSON type, telling arrays from objects.
  pub(super) fn type_rank(&self) -> u8 {
    match self {
      Atom::Null => 0,
      Atom::Bool(_) => 1,
      Atom::Number(_) => 2,
      Atom::Str(_) => 3,
      Atom::Tree(tree) if tree.is_array() => 4,
      Atom::Tree(_) => 5,
    }
  }

  pub(super) fn equals(&self, other: &Atom) -> bool {
    match (self, other) {
      (Atom::Number(a), Atom::Number(b)) => number_order(a, b) == Some(Ordering::Equal),
      (Atom::Null, Atom::Null) => true,
      (Atom::Bool(a), Atom::Bool(b)) => a == b,
      (Atom::Str(a), Atom::Str(b)) => a == b,
      (Atom::Tree(a), Atom::Tree(b)) => a == b,
      _ => false,
    }
  }

  pub(super) fn less_than(&self, other: &Atom) -> bool {
    match (self, other) {
      (Atom::Number(a), Atom::Number(b)) => number_order(a, b) == Some(Ordering::Less),
      (Atom::Str(a), Atom::Str(b)) => a < b,
      _ => false,
    }
  }

  /// A value used as a test (`?value(@.a)`): false for null, false, and the integer 0.
  pub(super) fn truthy(&self) -> bool {
    match self {
      Atom::Null => false,
      Atom::Bool(b) => *b,
      Atom::Number(n) => *n != Number::from(0),
      _ => true,
    }
  }
}

/// Numbers compared as `serde_json_path` compares them: as doubles when both are, else as integers.
fn number_order(a: &Number, b: &Number) -> Option<Ordering> {
  if let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) {
    x.partial_cmp(&y)
  } else if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
    Some(x.cmp(&y))
  } else if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
    Some(x.cmp(&y))
  } else {
    None
  }
}

/// How a node compares with a literal, as their atoms would tell ([`super::Node::literal_facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LiteralFacts {
  /// Both of one JSON type.
  pub same_type: bool,
  /// The node against the literal: `Equal` when [`Atom::equals`] holds, `Less` or `Greater` when
  /// [`Atom::less_than`] holds one way or the other, `None` when none does.
  pub order: Option<Ordering>,
}

impl LiteralFacts {
  /// The facts for a node of another type than the literal: never equal, never less.
  pub(crate) const UNLIKE: LiteralFacts = LiteralFacts {
    same_type: false,
    order: None,
  };

  /// The facts for a node of the literal's type compared as `order` says.
  pub(crate) fn alike(order: Option<Ordering>) -> LiteralFacts {
    LiteralFacts {
      same_type: true,
      order,
    }
  }
}

/// A node's number against a literal, as [`number_order`] compares them: as doubles. The node's is given as the
/// double nearest its text (what serde_json reads, as `as_f64`), and must be finite. `None` when the literal has
/// no double (only under serde_json's `arbitrary_precision`): then only the atoms can tell.
pub(crate) fn number_against(node: f64, literal: &Number) -> Option<Ordering> {
  node.partial_cmp(&literal.as_f64()?)
}

/// What a function argument or a comparable evaluates to.
pub(super) enum Operand<'a, N> {
  Nodes(Vec<N>),
  Logical(bool),
  Node(N),
  Value(Atom<'a>),
  Nothing,
}

pub(super) fn nodes_len<N>(operand: &Operand<N>) -> usize {
  match operand {
    Operand::Nodes(nodes) => nodes.len(),
    Operand::Node(_) => 1,
    _ => 0,
  }
}

/// One side of a comparison.
pub(super) enum Side<'a> {
  Value(Atom<'a>),
  Nothing,
  /// A node list or a logical value: equal to nothing, not even itself.
  Other,
}

pub(super) fn comparison_side<'o, 'a: 'o, N: Node<'a>>(
  operand: &'o Operand<'_, N>,
) -> CoreResult<Side<'o>> {
  Ok(match operand {
    Operand::Node(node) => Side::Value(node.atom()?),
    Operand::Value(atom) => Side::Value(borrow_atom(atom)),
    Operand::Nothing => Side::Nothing,
    Operand::Nodes(_) | Operand::Logical(_) => Side::Other,
  })
}

pub(super) fn borrow_atom<'o>(atom: &'o Atom) -> Atom<'o> {
  match atom {
    Atom::Null => Atom::Null,
    Atom::Bool(b) => Atom::Bool(*b),
    Atom::Number(n) => Atom::Number(n.clone()),
    Atom::Str(s) => Atom::Str(Cow::Borrowed(s.as_ref())),
    Atom::Tree(t) => Atom::Tree(Box::new(Cow::Borrowed(t.as_ref().as_ref()))),
  }
}

/// The value a function argument stands for (RFC 9535 ValueType); `None` for nothing.
pub(super) fn operand_atom<'o, 'a: 'o, N: Node<'a>>(
  operand: &'o Operand<'_, N>,
) -> CoreResult<Option<Atom<'o>>> {
  Ok(match operand {
    Operand::Node(node) => Some(node.atom()?),
    Operand::Value(atom) => Some(borrow_atom(atom)),
    Operand::Nodes(nodes) if nodes.len() == 1 => Some(nodes[0].atom()?),
    _ => None,
  })
}
