//! A parsed answer (`serde_json::Value`) as a [`Node`]: what the evaluator runs on when the tape cannot read the
//! text (see `tape`), and its node count for the budget.

use serde_json::Value;

use super::{Atom, Node};
use crate::core::error::CoreResult;
use crate::core::query::walk::Kind;

/// Values in `root` at any depth, itself included (an explicit stack: answers may nest deep).
pub(crate) fn count_nodes(root: &Value) -> u64 {
  let mut nodes = 0u64;
  let mut stack = vec![root];
  while let Some(node) = stack.pop() {
    nodes += 1;
    match node {
      Value::Array(items) => stack.extend(items.iter()),
      Value::Object(map) => stack.extend(map.values()),
      _ => {}
    }
  }
  nodes
}

impl<'v> Node<'v> for &'v Value {
  fn kind(self) -> Kind {
    crate::core::query::walk::Doc::kind(self)
  }

  fn children(self, out: &mut Vec<Self>) {
    match self {
      Value::Array(items) => out.extend(items.iter()),
      Value::Object(map) => out.extend(map.values()),
      _ => {}
    }
  }

  fn member(self, key: &str) -> Option<Self> {
    self.as_object().and_then(|map| map.get(key))
  }

  fn item(self, index: usize) -> Option<Self> {
    self.as_array().and_then(|items| items.get(index))
  }

  fn length(self) -> usize {
    match self {
      Value::Array(items) => items.len(),
      Value::Object(map) => map.len(),
      Value::String(text) => text.chars().count(),
      _ => 0,
    }
  }

  fn atom(self) -> CoreResult<Atom<'v>> {
    Ok(Atom::of_value(self))
  }
}
