//! The guide text of a folded result: what happened, and one example `result_query` call picked from the shape.

use serde_json::Value;

use super::{FoldFacts, RESULT_QUERY_TOOL_NAME};
use crate::core::json::write::write_value;

/// The second text of a folded result: what happened, and one example call of `result_query`.
pub fn guide_text(shape_json: &str, facts: FoldFacts) -> String {
  let example = example_call(shape_json, facts.handle);
  let mut text = format!(
    "This answer is {bytes} bytes, too large to show whole: above are a preview and its shape. The full answer is \
     kept for {ttl} seconds under handle {handle}. Read any part of it with the `{tool}` tool: pass the handle and a \
     path from the shape (dot path like orders.2.id, JSON pointer like /orders/2/id, or JSONPath like $.orders[2].id); \
     page through lists and long strings with offset and limit (or page), and keep only some keys with fields. \
     Example: {tool} {example}",
    bytes = facts.bytes,
    ttl = facts.ttl_seconds,
    handle = facts.handle,
    tool = RESULT_QUERY_TOOL_NAME,
  );
  if let Some(references) = facts.references {
    text.push(' ');
    text.push_str(references);
  }
  text
}

/// Example `result_query` arguments: the first list under the root object, else the first key, else the root.
pub(super) fn example_call(shape_json: &str, handle: &str) -> String {
  let shape: Value = serde_json::from_str(shape_json).unwrap_or(Value::Null);
  let type_of = |value: &Value| {
    value
      .get("type")
      .and_then(Value::as_str)
      .map(str::to_string)
  };
  let mut args = serde_json::Map::new();
  args.insert("handle".into(), Value::String(handle.to_string()));
  match type_of(&shape).as_deref() {
    Some("object") => {
      let keys = shape.get("keys").and_then(Value::as_object);
      let pick = keys.and_then(|keys| {
        keys
          .iter()
          .find(|(_, sub)| type_of(sub).as_deref() == Some("array"))
          .map(|(key, _)| (key.clone(), true))
          .or_else(|| keys.keys().next().map(|key| (key.clone(), false)))
      });
      match pick {
        Some((key, is_list)) => {
          args.insert("path".into(), Value::String(member_path(&key)));
          if is_list {
            args.insert("limit".into(), Value::from(20));
          }
        }
        None => {
          args.insert("path".into(), Value::String("$".into()));
        }
      }
    }
    Some("array") => {
      args.insert("path".into(), Value::String("$".into()));
      args.insert("limit".into(), Value::from(20));
    }
    Some("string") => {
      args.insert("path".into(), Value::String("$".into()));
      args.insert("offset".into(), Value::from(0));
      args.insert("limit".into(), Value::from(2000));
    }
    _ => {
      args.insert("path".into(), Value::String("$".into()));
    }
  }
  let mut out = String::new();
  write_value(&mut out, &Value::Object(args), None);
  out
}

/// `$.key` when the key is a JSONPath member-name shorthand, else `$['key']` (RFC 9535 §2.5.1.1 escapes).
pub(super) fn member_path(key: &str) -> String {
  let mut chars = key.chars();
  let shorthand = chars
    .next()
    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii())
    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii());
  if shorthand {
    return format!("$.{key}");
  }
  let mut out = String::from("$['");
  for c in key.chars() {
    match c {
      '\'' => out.push_str("\\'"),
      '\\' => out.push_str("\\\\"),
      c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
      c => out.push(c),
    }
  }
  out.push_str("']");
  out
}
