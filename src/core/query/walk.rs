//! Walking a path that names one node, over a parsed `Value` or lazily over the answer's JSON text.
//!
//! The lazy walk reads the text with `RawValue`: each step scans only the current node's text and keeps
//! borrowed slices, so no tree is built for the parts of the answer the path passes by.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::path::{PathElement, Step};
use super::seek::KeyIs;
use crate::core::error::{CoreError, CoreResult, ErrorCode};

pub(crate) use crate::core::json::Kind;

/// A node the walker can step into.
pub(crate) trait Doc<'a>: Copy + Sized {
  fn kind(self) -> Kind;
  /// The value under `key` when this is an object holding it (the last one when a key repeats).
  fn child_key(self, key: &str) -> CoreResult<Option<Self>>;
  /// The item at `index` (negative counts from the end) with its non-negative index, when this is an array.
  fn child_index(self, index: i64) -> CoreResult<Option<(usize, Self)>>;
  /// Items of an array or keys of an object; 0 otherwise.
  fn len(self) -> CoreResult<usize>;
}

/// Where a walk ended.
pub(crate) enum Walked<D> {
  /// The path names `node`, at `elements`.
  Found { node: D, elements: Vec<PathElement> },
  /// The path names nothing; `parent` (at `elements`) is the deepest node that exists.
  Missing {
    parent: D,
    elements: Vec<PathElement>,
  },
}

/// Follows `steps` from `root`.
pub(crate) fn walk<'a, D: Doc<'a>>(root: D, steps: &[Step]) -> CoreResult<Walked<D>> {
  let mut node = root;
  let mut elements = Vec::with_capacity(steps.len());
  for step in steps {
    let kind = node.kind();
    let next = match (step, kind) {
      (Step::Key(key), Kind::Object) | (Step::Member { key, .. }, Kind::Object) => node
        .child_key(key)?
        .map(|child| (PathElement::Name(key.clone()), child)),
      (Step::Index(index), Kind::Array)
      | (
        Step::Member {
          index: Some(index), ..
        },
        Kind::Array,
      ) => node
        .child_index(*index)?
        .map(|(at, child)| (PathElement::Index(at), child)),
      _ => None,
    };
    match next {
      Some((element, child)) => {
        elements.push(element);
        node = child;
      }
      None => {
        return Ok(Walked::Missing {
          parent: node,
          elements,
        })
      }
    }
  }
  Ok(Walked::Found { node, elements })
}

/// Turns a negative index into a position; `None` when out of range.
fn position(index: i64, len: usize) -> Option<usize> {
  if index >= 0 {
    usize::try_from(index).ok().filter(|&at| at < len)
  } else {
    len.checked_sub(usize::try_from(index.unsigned_abs()).ok()?)
  }
}

impl<'a> Doc<'a> for &'a Value {
  fn kind(self) -> Kind {
    match self {
      Value::Object(_) => Kind::Object,
      Value::Array(_) => Kind::Array,
      Value::String(_) => Kind::String,
      Value::Number(_) => Kind::Number,
      Value::Bool(_) => Kind::Boolean,
      Value::Null => Kind::Null,
    }
  }

  fn child_key(self, key: &str) -> CoreResult<Option<Self>> {
    Ok(self.as_object().and_then(|map| map.get(key)))
  }

  fn child_index(self, index: i64) -> CoreResult<Option<(usize, Self)>> {
    Ok(self.as_array().and_then(|items| {
      let at = position(index, items.len())?;
      items.get(at).map(|item| (at, item))
    }))
  }

  fn len(self) -> CoreResult<usize> {
    Ok(match self {
      Value::Object(map) => map.len(),
      Value::Array(items) => items.len(),
      _ => 0,
    })
  }
}

impl<'a> Doc<'a> for &'a RawValue {
  fn kind(self) -> Kind {
    Kind::of_first_byte(self.get().trim_start().as_bytes().first().copied())
  }

  fn child_key(self, key: &str) -> CoreResult<Option<Self>> {
    let mut reader = serde_json::Deserializer::from_str(self.get());
    let found = reader.deserialize_map(FindKey(key)).map_err(unreadable)?;
    reader.end().map_err(unreadable)?;
    Ok(found)
  }

  fn child_index(self, index: i64) -> CoreResult<Option<(usize, Self)>> {
    let items = raw_items(self)?;
    Ok(position(index, items.len()).map(|at| (at, items[at])))
  }

  fn len(self) -> CoreResult<usize> {
    match self.kind() {
      Kind::Array => Ok(raw_items(self)?.len()),
      Kind::Object => {
        let map: std::collections::HashMap<String, IgnoredValue> =
          serde_json::from_str(self.get()).map_err(unreadable)?;
        Ok(map.len())
      }
      _ => Ok(0),
    }
  }
}

/// Skips a value without keeping it (`IgnoredAny` does not implement `Deserialize` for maps of it).
struct IgnoredValue;

impl<'de> serde::Deserialize<'de> for IgnoredValue {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    deserializer.deserialize_ignored_any(IgnoredAny)?;
    Ok(IgnoredValue)
  }
}

/// The items of an array's text, as borrowed slices.
pub(crate) fn raw_items(node: &RawValue) -> CoreResult<Vec<&RawValue>> {
  serde_json::from_str(node.get()).map_err(unreadable)
}

/// The answer text is not JSON that this engine reads. Through the hosts this does not happen (they keep
/// `JSON.stringify` output and send answers deeper than [`super::MAX_QUERY_DEPTH`] whole), so the text says the
/// query's arguments are not the cause, and does not send the model round in circles.
pub(crate) fn unreadable(error: serde_json::Error) -> CoreError {
  let detail = if error.to_string().contains("recursion limit") {
    format!("it nests deeper than {} levels", super::MAX_QUERY_DEPTH)
  } else {
    "it is not valid JSON".to_string()
  };
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "The kept answer cannot be read by result_query: {detail} (line {}, column {}). This is not caused by the \
       query's arguments.",
      error.line(),
      error.column()
    ),
  )
  .with_remedy(format!(
    "Other paths or pages will not help: work from the preview and shape already shown. (Calling queryAnswer \
     directly: pass JSON.stringify output nested at most {} levels deep.)",
    super::MAX_QUERY_DEPTH
  ))
}

/// Finds one key of an object while skipping every value but its own.
struct FindKey<'k>(&'k str);

impl<'de> Visitor<'de> for FindKey<'_> {
  type Value = Option<&'de RawValue>;

  fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
    formatter.write_str("a JSON object")
  }

  fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
    let mut found = None;
    while let Some(matches) = map.next_key_seed(KeyIs(Some(self.0)))? {
      if matches {
        found = Some(map.next_value::<&'de RawValue>()?);
      } else {
        map.next_value::<IgnoredAny>()?;
      }
    }
    Ok(found)
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::core::query::path::{parse_path, ParsedPath};
  use serde_json::json;

  fn steps(path: &str) -> Vec<Step> {
    match parse_path(path) {
      Ok((_, ParsedPath::Steps(steps))) => steps,
      _ => panic!("not a simple path: {path}"),
    }
  }

  /// Walks both ways and checks they agree; returns the found node's JSON, or `Err(parent path)`.
  fn both(doc: &str, path: &str) -> Result<(String, Value), Vec<PathElement>> {
    let value: Value = serde_json::from_str(doc).expect("valid");
    let raw: &RawValue = serde_json::from_str(doc).expect("valid");
    let steps = steps(path);
    let by_value = walk(&value, &steps).expect("walk");
    let by_raw = walk(raw, &steps).expect("walk");
    match (by_value, by_raw) {
      (
        Walked::Found { node, elements },
        Walked::Found {
          node: raw_node,
          elements: raw_elements,
        },
      ) => {
        assert_eq!(elements, raw_elements);
        let raw_value: Value = serde_json::from_str(raw_node.get()).expect("valid");
        assert_eq!(node, &raw_value);
        Ok((super::super::path::normalized_path(&elements), node.clone()))
      }
      (
        Walked::Missing { parent, elements },
        Walked::Missing {
          parent: raw_parent,
          elements: raw_elements,
        },
      ) => {
        assert_eq!(elements, raw_elements);
        assert_eq!(parent.len().expect("len"), raw_parent.len().expect("len"));
        Err(elements)
      }
      _ => panic!("the two walks disagree on {path}"),
    }
  }

  const DOC: &str = r#"{"orders":[{"note":"a"},{"note":"b"},{"note":"c","2":"key"}],"2":{"2":"two"},"a.b":1,"x y":2,"":3,"dup":1,"dup":2}"#;

  #[test]
  fn digits_index_arrays_and_name_keys() {
    assert_eq!(
      both(DOC, "orders.2.note"),
      Ok(("$['orders'][2]['note']".into(), json!("c")))
    );
    assert_eq!(
      both(DOC, "$.orders[2].note"),
      Ok(("$['orders'][2]['note']".into(), json!("c")))
    );
    assert_eq!(both(DOC, "$.2.2"), Ok(("$['2']['2']".into(), json!("two"))));
    assert_eq!(
      both(DOC, "orders.2.2"),
      Ok(("$['orders'][2]['2']".into(), json!("key")))
    );
    assert_eq!(
      both(DOC, "orders.-1.note"),
      Ok(("$['orders'][2]['note']".into(), json!("c")))
    );
    assert_eq!(
      both(DOC, "$.orders[-3].note"),
      Ok(("$['orders'][0]['note']".into(), json!("a")))
    );
  }

  #[test]
  fn brackets_and_pointers() {
    assert_eq!(both(DOC, "$['a.b']"), Ok(("$['a.b']".into(), json!(1))));
    assert_eq!(both(DOC, "$[\"x y\"]"), Ok(("$['x y']".into(), json!(2))));
    assert_eq!(both(DOC, "/"), Ok(("$['']".into(), json!(3))));
    assert_eq!(
      both(DOC, "/orders/1/note"),
      Ok(("$['orders'][1]['note']".into(), json!("b")))
    );
    assert_eq!(both(DOC, "$.dup"), Ok(("$['dup']".into(), json!(2))));
  }

  #[test]
  fn missing_paths_stop_at_the_deepest_parent() {
    let orders = vec![PathElement::Name("orders".into())];
    assert_eq!(both(DOC, "orders.3.note"), Err(orders.clone()));
    assert_eq!(both(DOC, "orders.-4"), Err(orders.clone()));
    assert_eq!(both(DOC, "$.orders['0']"), Err(orders.clone()));
    assert_eq!(both(DOC, "/orders/-"), Err(orders.clone()));
    assert_eq!(both(DOC, "/orders/01"), Err(orders));
    assert_eq!(both(DOC, "$[0]"), Err(vec![]));
    assert_eq!(
      both(DOC, "orders.0.note.x"),
      Err(vec![
        PathElement::Name("orders".into()),
        PathElement::Index(0),
        PathElement::Name("note".into())
      ])
    );
  }
}
