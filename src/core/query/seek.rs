//! One pass over the answer's text to the node a path names.
//!
//! A step-by-step walk over `RawValue`s rescans each node it enters; this pass follows every step while the parser
//! goes over the text once (it must read all of it anyway, to know the text is JSON), skips what the path passes
//! by without building it, and collects a named array as borrowed item slices.

use std::fmt;

use serde::de::{
  DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::path::{PathElement, Step};

/// The node a path named, in the form the answer needs.
pub(crate) enum Terminal<'de> {
  /// An array: its items as slices of the text, parsed only when they are in the window.
  Array(Vec<&'de RawValue>),
  /// A string.
  Text(String),
  /// An object or a scalar.
  Whole(Value),
}

/// The node at `steps` with its located steps; `None` when the path names nothing.
pub(crate) type Sought<'de> = Option<(Terminal<'de>, Vec<PathElement>)>;

/// Reads `text` once, following `steps`.
pub(crate) fn seek<'de>(text: &'de str, steps: &[Step]) -> Result<Sought<'de>, serde_json::Error> {
  let mut reader = serde_json::Deserializer::from_str(text);
  let found = Descend { steps }.deserialize(&mut reader)?;
  reader.end()?;
  // Steps are pushed on the way back up.
  Ok(found.map(|(terminal, mut elements)| {
    elements.reverse();
    (terminal, elements)
  }))
}

/// Follows the remaining steps into whatever value comes next.
struct Descend<'s> {
  steps: &'s [Step],
}

impl<'de> DeserializeSeed<'de> for Descend<'_> {
  type Value = Sought<'de>;

  fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
    match self.steps.split_first() {
      None => deserializer
        .deserialize_any(TerminalVisitor)
        .map(|terminal| Some((terminal, Vec::new()))),
      Some((step, rest)) => deserializer.deserialize_any(StepVisitor { step, rest }),
    }
  }
}

fn located<'de>(found: Sought<'de>, element: PathElement) -> Sought<'de> {
  found.map(|(terminal, mut elements)| {
    elements.push(element);
    (terminal, elements)
  })
}

struct StepVisitor<'s> {
  step: &'s Step,
  rest: &'s [Step],
}

impl<'de> Visitor<'de> for StepVisitor<'_> {
  type Value = Sought<'de>;

  fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
    formatter.write_str("a JSON value")
  }

  fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
    let wanted = match self.step {
      Step::Key(key) | Step::Member { key, .. } => Some(key.as_str()),
      Step::Index(_) => None,
    };
    let mut found = None;
    while let Some(matches) = map.next_key_seed(KeyIs(wanted))? {
      if let (true, Some(key)) = (matches, wanted) {
        // A repeated key: the last one wins, as in JSON.parse.
        let inner = map.next_value_seed(Descend { steps: self.rest })?;
        found = located(inner, PathElement::Name(key.to_string()));
      } else {
        map.next_value::<IgnoredAny>()?;
      }
    }
    Ok(found)
  }

  fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
    let index = match self.step {
      Step::Index(index)
      | Step::Member {
        index: Some(index), ..
      } => Some(*index),
      _ => None,
    };
    match index {
      Some(index) if index >= 0 => {
        let mut at: i64 = 0;
        let mut found = None;
        loop {
          if at == index {
            match seq.next_element_seed(Descend { steps: self.rest })? {
              Some(inner) => found = located(inner, PathElement::Index(at as usize)),
              None => break,
            }
          } else if seq.next_element::<IgnoredAny>()?.is_none() {
            break;
          }
          at += 1;
        }
        Ok(found)
      }
      Some(from_end) => {
        // Counting from the end needs the length first: keep item slices, then read the chosen one.
        let mut items: Vec<&'de RawValue> = Vec::new();
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
          items.push(item);
        }
        let Some(at) = items.len().checked_sub(from_end.unsigned_abs() as usize) else {
          return Ok(None);
        };
        let mut reader = serde_json::Deserializer::from_str(items[at].get());
        let inner = Descend { steps: self.rest }
          .deserialize(&mut reader)
          .map_err(A::Error::custom)?;
        Ok(located(inner, PathElement::Index(at)))
      }
      None => {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
      }
    }
  }

  fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
    Ok(None)
  }

  fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
    Ok(None)
  }

  fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
    Ok(None)
  }

  fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
    Ok(None)
  }

  fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
    Ok(None)
  }

  fn visit_unit<E>(self) -> Result<Self::Value, E> {
    Ok(None)
  }
}

/// Whether an object key is the wanted one, compared without copying it (`None` matches no key).
pub(super) struct KeyIs<'k>(pub(super) Option<&'k str>);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
  type Value = bool;

  fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
    deserializer.deserialize_str(self)
  }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
  type Value = bool;

  fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
    formatter.write_str("an object key")
  }

  fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<bool, E> {
    Ok(self.0 == Some(key))
  }
}

/// Builds the named node.
struct TerminalVisitor;

impl<'de> Visitor<'de> for TerminalVisitor {
  type Value = Terminal<'de>;

  fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
    formatter.write_str("a JSON value")
  }

  fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
    while let Some(item) = seq.next_element::<&'de RawValue>()? {
      items.push(item);
    }
    Ok(Terminal::Array(items))
  }

  fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
    Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Terminal::Whole)
  }

  fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
    Ok(Terminal::Text(text.to_owned()))
  }

  fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
    Ok(Terminal::Text(text))
  }

  fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
    Ok(Terminal::Whole(Value::Bool(b)))
  }

  fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
    Ok(Terminal::Whole(Value::from(n)))
  }

  fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
    Ok(Terminal::Whole(Value::from(n)))
  }

  fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
    Ok(Terminal::Whole(
      serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
    ))
  }

  fn visit_unit<E>(self) -> Result<Self::Value, E> {
    Ok(Terminal::Whole(Value::Null))
  }
}
