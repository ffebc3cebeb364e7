//! Handle references in a tool's arguments: `{ "$resultHandle": "<handle>", "path"?: "<path>" }`, anywhere in the
//! arguments, stands for the kept answer (or the node at `path`) it names.
//!
//! The host hands the arguments' JSON text here before the tool's input is validated; each reference is read for the
//! caller exactly as `result_query` reads it (another owner's, expired and unknown handles are all
//! RESULT_HANDLE_NOT_FOUND; a path naming nothing is RESULT_PATH_NOT_FOUND) and the arguments come back as JSON text
//! with each reference replaced by the value's JSON, which JS parses once. Only the exact shape is a reference: an
//! object with a string `$resultHandle`, an optional string `path` and no other key.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::options::{HandleReferenceLimits, HandleReferences};
use crate::core::query::{
  handle_not_found, node_json, parse_query_args, write_str, write_value, QueryPath,
};
use crate::core::store::{HandleStore, Owner};

/// The key that marks a reference.
pub const REFERENCE_KEY: &str = "$resultHandle";

/// A reference found in the arguments, in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
  handle: String,
  path: QueryPath,
}

/// The handle and path of `value` when it has the exact shape of a reference.
fn as_reference(value: &Map<String, Value>) -> Option<(&str, Option<&str>)> {
  let handle = value.get(REFERENCE_KEY)?.as_str()?;
  let path = match value.get("path") {
    None => None,
    Some(Value::String(path)) => Some(path.as_str()),
    Some(_) => return None,
  };
  let keys = 1 + usize::from(path.is_some());
  (value.len() == keys).then_some((handle, path))
}

fn collect(value: &Value, found: &mut Vec<Reference>) -> CoreResult<()> {
  match value {
    Value::Object(map) => match as_reference(map) {
      Some((handle, path)) => {
        // Checked as result_query checks its arguments, with the same messages.
        let mut args = Map::new();
        args.insert("handle".into(), Value::String(handle.to_string()));
        if let Some(path) = path {
          args.insert("path".into(), Value::String(path.to_string()));
        }
        let args = parse_query_args(&Value::Object(args))?;
        found.push(Reference {
          handle: args.handle,
          path: args.path,
        });
        Ok(())
      }
      None => map.values().try_for_each(|item| collect(item, found)),
    },
    Value::Array(items) => items.iter().try_for_each(|item| collect(item, found)),
    _ => Ok(()),
  }
}

fn too_many(count: usize, limits: HandleReferenceLimits) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "These arguments hold {count} handle references; at most {} are resolved in one call (handleReferenceLimits.maxReferences).",
      limits.max_references
    ),
  )
  .with_remedy("Pass fewer references in one call (split the work over several calls).")
}

fn too_large(limits: HandleReferenceLimits) -> CoreError {
  CoreError::new(
    ErrorCode::InvalidInput,
    format!(
      "The values these handle references name come to more than {} bytes of JSON (handleReferenceLimits.maxBytes).",
      limits.max_bytes
    ),
  )
  .with_remedy(
    "Reference smaller parts with path (read the shape with result_query first), or fewer of them per call.",
  )
}

/// Writes `value` as JSON (as `JSON.stringify` would, through the query's writer) with each reference replaced by
/// the next resolved text.
fn write_resolved(value: &Value, resolved: &mut std::vec::IntoIter<String>, out: &mut String) {
  match value {
    Value::Object(map) if as_reference(map).is_some() => {
      out.push_str(&resolved.next().unwrap_or_else(|| "null".to_string()))
    }
    Value::Object(map) => {
      out.push('{');
      for (i, (key, item)) in map.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_str(out, key);
        out.push(':');
        write_resolved(item, resolved, out);
      }
      out.push('}');
    }
    Value::Array(items) => {
      out.push('[');
      for (i, item) in items.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_resolved(item, resolved, out);
      }
      out.push(']');
    }
    scalar => write_value(out, scalar, None),
  }
}

/// The sentence a folded answer's guide adds when handle references are on: how to pass it to another tool.
pub fn guide_sentence(setting: &HandleReferences, handle: &str) -> Option<String> {
  let which = match setting {
    HandleReferences::Off => return None,
    HandleReferences::Tools(names) if names.is_empty() => return None,
    HandleReferences::All => "any tool".to_string(),
    HandleReferences::Tools(names) => format!("the tools {}", names.join(", ")),
    HandleReferences::Predicate => "the tools that accept it".to_string(),
  };
  Some(format!(
    "To pass this answer (or one part of it) to {which} without reading it, put \
     {{\"{REFERENCE_KEY}\": \"{handle}\", \"path\": \"<path, optional>\"}} in the tool's arguments where the value \
     goes: the server puts the value there before the tool runs."
  ))
}

/// The arguments (JSON text) with every reference replaced by the value it names, read for `owner`; `None` when
/// they hold no reference (the host keeps them as they are).
pub async fn resolve_references(
  store: &HandleStore,
  args_json: &str,
  owner: &Owner,
  limits: HandleReferenceLimits,
) -> CoreResult<Option<String>> {
  let args: Value = serde_json::from_str(args_json).map_err(|_| {
    CoreError::new(ErrorCode::InvalidInput, "The tool arguments are not JSON.")
      .with_remedy("Pass the arguments as JSON text (JSON.stringify output).")
  })?;
  let mut references = Vec::new();
  collect(&args, &mut references)?;
  if references.is_empty() {
    return Ok(None);
  }
  if references.len() as u64 > limits.max_references {
    return Err(too_many(references.len(), limits));
  }
  // Arguments without a reference (most calls) are answered above, in a host's first poll on its own thread (see
  // the binding's `FirstPoll::Here`); reading answers starts after this yield, where the runtime polls.
  tokio::task::yield_now().await;
  // Each answer is read and opened once, however many references name it.
  let mut answers: HashMap<String, Arc<Vec<u8>>> = HashMap::new();
  let mut resolved = Vec::with_capacity(references.len());
  let mut total: u64 = 0;
  for reference in references {
    if !answers.contains_key(&reference.handle) {
      let answer = store
        .read(&reference.handle, owner)
        .await?
        .ok_or_else(handle_not_found)?;
      answers.insert(reference.handle.clone(), Arc::new(answer));
    }
    let answer = Arc::clone(&answers[&reference.handle]);
    let path = reference.path;
    let node = tokio::task::spawn_blocking(move || node_json(&answer, &path))
      .await
      .map_err(|_| {
        CoreError::internal("Resolving a handle reference failed inside the engine.")
      })??;
    total += node.len() as u64;
    if total > limits.max_bytes {
      return Err(too_large(limits));
    }
    resolved.push(node);
  }
  let mut out = String::with_capacity(args_json.len() + total as usize);
  write_resolved(&args, &mut resolved.into_iter(), &mut out);
  Ok(Some(out))
}

#[cfg(test)]
mod tests {
  use serde_json::json;

  use super::*;
  use crate::core::store::config::MemoryConfig;
  use crate::core::store::memory::MemoryBackend;

  fn store() -> HandleStore {
    let backend = Arc::new(MemoryBackend::new(MemoryConfig::default()));
    HandleStore::with_backend(backend, "", "refs", 60, None).unwrap()
  }

  fn owner(session: &str) -> Owner {
    Owner::new(Some(session.to_string()), None)
  }

  const LIMITS: HandleReferenceLimits = HandleReferenceLimits {
    max_references: 4,
    max_bytes: 1000,
  };

  async fn resolve(store: &HandleStore, args: Value, who: &str) -> CoreResult<Option<Value>> {
    let text = resolve_references(store, &args.to_string(), &owner(who), LIMITS).await?;
    Ok(text.map(|text| serde_json::from_str(&text).unwrap()))
  }

  #[tokio::test]
  async fn references_anywhere_are_replaced_by_what_they_name() {
    let store = store();
    let answer = r#"{"orders":[{"id":1},{"id":2}],"total":2}"#;
    store.save("h1", answer, &owner("s")).await.unwrap();
    let args = json!({
      "whole": { "$resultHandle": "h1" },
      "deep": [1, { "rows": { "$resultHandle": "h1", "path": "$.orders" } }],
      "id": { "$resultHandle": "h1", "path": "/orders/1/id" },
      "notOne": { "$resultHandle": "h1", "extra": true },
      "notOneEither": { "$resultHandle": 7 },
    });
    let resolved = resolve(&store, args, "s").await.unwrap().unwrap();
    assert_eq!(
      resolved,
      json!({
        "whole": serde_json::from_str::<Value>(answer).unwrap(),
        "deep": [1, { "rows": [{"id": 1}, {"id": 2}] }],
        "id": 2,
        "notOne": { "$resultHandle": "h1", "extra": true },
        "notOneEither": { "$resultHandle": 7 },
      })
    );
    assert_eq!(resolve(&store, json!({"a": 1}), "s").await.unwrap(), None);
  }

  #[tokio::test]
  async fn foreign_unknown_and_missing_paths_fail_as_result_query_does() {
    let store = store();
    store.save("h1", r#"{"a":[1]}"#, &owner("s")).await.unwrap();
    let foreign = resolve(&store, json!({"x": {"$resultHandle": "h1"}}), "other")
      .await
      .unwrap_err();
    let unknown = resolve(&store, json!({"x": {"$resultHandle": "nope"}}), "s")
      .await
      .unwrap_err();
    assert_eq!(foreign.code, ErrorCode::HandleNotFound);
    assert_eq!(foreign.full_message(), unknown.full_message());
    let path = resolve(
      &store,
      json!({"x": {"$resultHandle": "h1", "path": "a.3"}}),
      "s",
    )
    .await
    .unwrap_err();
    assert_eq!(path.code, ErrorCode::PathNotFound);
    let empty = resolve(&store, json!({"x": {"$resultHandle": ""}}), "s")
      .await
      .unwrap_err();
    assert_eq!(empty.code, ErrorCode::InvalidInput);
  }

  #[tokio::test]
  async fn limits_are_named() {
    let store = store();
    store
      .save("h1", format!("\"{}\"", "x".repeat(600)), &owner("s"))
      .await
      .unwrap();
    let five = json!([{"$resultHandle": "h1"}, {"$resultHandle": "h1"}, {"$resultHandle": "h1"}, {"$resultHandle": "h1"}, {"$resultHandle": "h1"}]);
    let error = resolve(&store, five, "s").await.unwrap_err();
    assert!(
      error
        .message
        .contains("handleReferenceLimits.maxReferences"),
      "{}",
      error.message
    );
    let two = json!([{"$resultHandle": "h1"}, {"$resultHandle": "h1"}]);
    let error = resolve(&store, two, "s").await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
    assert!(
      error.message.contains("handleReferenceLimits.maxBytes"),
      "{}",
      error.message
    );
    assert!(resolve(&store, json!([{"$resultHandle": "h1"}]), "s")
      .await
      .is_ok());
  }
}
