//! A value on the tape as the evaluator sees it ([`TapeNode`], a [`Node`]): kind, children, members by key, items,
//! length, and the value as a comparison operand, decoded only when asked.

use std::borrow::Cow;

use super::keys::decode_key;
use super::{Entry, Tape};
use crate::core::error::{CoreError, CoreResult};
use crate::core::query::eval::{number_against, Atom, LiteralFacts, Node};
use crate::core::query::walk::Kind;
use serde_json_path_core::spec::selector::filter::Literal;
use std::cmp::Ordering;

/// A value on a [`Tape`].
#[derive(Clone, Copy)]
pub(crate) struct TapeNode<'t> {
  pub(super) tape: &'t Tape<'t>,
  pub(super) at: u32,
}

impl<'t> TapeNode<'t> {
  fn entry(self) -> &'t Entry {
    &self.tape.entries[self.at as usize]
  }

  /// Where the value's JSON text starts and ends in the answer's text (bytes), read off the tape alone.
  pub(crate) fn span(self) -> (u32, u32) {
    let entry = self.entry();
    (entry.start, entry.end)
  }

  /// The value's JSON text.
  pub(crate) fn text(self) -> &'t str {
    let entry = self.entry();
    &self.tape.text[entry.start as usize..entry.end as usize]
  }

  fn key_is(self, key: &str) -> bool {
    let entry = self.entry();
    let text = self.tape.text.as_bytes();
    if !entry.key_escaped {
      // Between the key's start and the value's lie the key, its closing quote, the colon and any blanks: a gap
      // shorter than `key` and two tells a shorter key without reading the text, and in compact text (the closing
      // quote just after `key`'s length) the key is read in place, without finding its end.
      let (gap, wanted) = ((entry.start - entry.key_start) as usize, key.len() + 2);
      if gap < wanted {
        return false;
      }
      let at = entry.key_start as usize;
      if gap == wanted && text.get(at + key.len()) == Some(&b'"') {
        return text
          .get(at..at + key.len())
          .is_some_and(|raw| raw.iter().zip(key.as_bytes()).all(|(a, b)| a == b));
      }
    }
    let raw = entry.key(text);
    if entry.key_escaped {
      decode_key(std::str::from_utf8(raw).unwrap_or_default(), true) == key
    } else {
      raw == key.as_bytes()
    }
  }

  /// The entry just past the value's subtree.
  fn subtree_end(self) -> u32 {
    let entry = self.entry();
    if matches!(entry.kind, Kind::Array | Kind::Object) {
      entry.next
    } else {
      self.at + 1
    }
  }

  /// Children in order, each once.
  fn each_child(self) -> impl Iterator<Item = TapeNode<'t>> {
    let end = self.subtree_end();
    let tape = self.tape;
    let mut at = self.at + 1;
    std::iter::from_fn(move || {
      if at >= end {
        return None;
      }
      let node = TapeNode { tape, at };
      at = tape.entries[at as usize].next;
      Some(node)
    })
  }
}

/// A number as serde_json reads it: a short integer directly (the common case in filters), anything else by
/// serde_json (`-0` is a float there).
fn number(text: &str) -> CoreResult<serde_json::Number> {
  let digits = text.strip_prefix('-').unwrap_or(text);
  if digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) && text != "-0" {
    if let Ok(n) = text.parse::<i64>() {
      return Ok(n.into());
    }
  }
  serde_json::from_str(text).map_err(unreadable)
}

fn unreadable(error: serde_json::Error) -> CoreError {
  CoreError::internal(format!("A value the tape checked did not parse: {error}"))
}

impl<'t> Node<'t> for TapeNode<'t> {
  fn kind(self) -> Kind {
    self.entry().kind
  }

  fn children(self, out: &mut Vec<Self>) {
    out.extend(self.each_child());
  }

  fn member(self, key: &str) -> Option<Self> {
    if self.kind() != Kind::Object {
      return None;
    }
    self.each_child().find(|child| child.key_is(key))
  }

  fn item(self, index: usize) -> Option<Self> {
    if self.kind() != Kind::Array {
      return None;
    }
    self.each_child().nth(index)
  }

  fn length(self) -> usize {
    let entry = self.entry();
    match entry.kind {
      Kind::Array | Kind::Object => entry.count as usize,
      Kind::String => match self.atom() {
        Ok(Atom::Str(text)) => text.chars().count(),
        _ => 0,
      },
      _ => 0,
    }
  }

  fn literal_facts(self, literal: &Literal) -> Option<LiteralFacts> {
    let entry = self.entry();
    literal_facts_of_text(entry.kind, self.text(), entry.escaped, literal)
  }

  /// The entries of the subtree, cut into even runs.
  fn preorder_pieces(
    self,
    min_nodes: usize,
    pieces: usize,
  ) -> Option<Vec<impl Iterator<Item = Self> + Send>> {
    let end = self.subtree_end();
    let nodes = (end - self.at) as usize;
    if nodes < min_nodes || pieces == 0 {
      return None;
    }
    let tape = self.tape;
    let bound = |piece: usize| self.at + (nodes * piece / pieces) as u32;
    Some(
      (0..pieces)
        .map(|piece| (bound(piece)..bound(piece + 1)).map(move |at| TapeNode { tape, at }))
        .collect(),
    )
  }

  /// The tape is in pre-order already: the node's subtree is the entries from it to its `next`.
  fn preorder(self) -> impl Iterator<Item = Self> {
    let tape = self.tape;
    (self.at..self.subtree_end()).map(move |at| TapeNode { tape, at })
  }

  fn atom(self) -> CoreResult<Atom<'t>> {
    let entry = self.entry();
    atom_of_text(entry.kind, self.text(), entry.escaped)
  }
}

/// How a value (`text`, of `kind`; `escaped`: a string holding escapes) compares with `literal`, when that can be
/// told from its text as it lies (see [`Node::literal_facts`]).
pub(crate) fn literal_facts_of_text(
  kind: Kind,
  text: &str,
  escaped: bool,
  literal: &Literal,
) -> Option<LiteralFacts> {
  Some(match (kind, literal) {
    (Kind::String, Literal::String(literal)) if !escaped => {
      let content = &text.as_bytes()[1..text.len() - 1];
      LiteralFacts::alike(Some(content.cmp(literal.as_bytes())))
    }
    (Kind::String, Literal::String(_)) => return None,
    (Kind::Number, Literal::Number(literal)) => {
      let node = text.parse::<f64>().ok().filter(|node| node.is_finite())?;
      LiteralFacts::alike(Some(number_against(node, literal)?))
    }
    (Kind::Boolean, Literal::Bool(literal)) => {
      LiteralFacts::alike(((text == "true") == *literal).then_some(Ordering::Equal))
    }
    (Kind::Null, Literal::Null) => LiteralFacts::alike(Some(Ordering::Equal)),
    _ => LiteralFacts::UNLIKE,
  })
}

/// A value (`text`, of `kind`; `escaped`: a string holding escapes) as a comparison operand: scalars read in place,
/// strings with escapes decoded, containers parsed.
pub(crate) fn atom_of_text(kind: Kind, text: &str, escaped: bool) -> CoreResult<Atom<'_>> {
  Ok(match kind {
    Kind::Null => Atom::Null,
    Kind::Boolean => Atom::Bool(text == "true"),
    Kind::Number => Atom::Number(number(text)?),
    Kind::String if !escaped => Atom::Str(Cow::Borrowed(&text[1..text.len() - 1])),
    Kind::String => Atom::Str(Cow::Owned(serde_json::from_str(text).map_err(unreadable)?)),
    Kind::Array | Kind::Object => Atom::Tree(Box::new(Cow::Owned(
      serde_json::from_str(text).map_err(unreadable)?,
    ))),
  })
}
