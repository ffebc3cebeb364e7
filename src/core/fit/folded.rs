//! Writes the folded `CallToolResult`: the preview, shape and handle as structuredContent and as its text, the
//! guide text, the `_meta` that marks it folded, and the answer's other fields kept as they were.

use super::guide::guide_text;
use super::{Envelope, RESULT_HANDLE_META_KEY};
use crate::core::json::write::push_quoted;

/// The numbers a folded result reports in `_meta["frontmcp/result-handle"]` and its guide text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldFacts<'a> {
  /// The handle (a UUID).
  pub handle: &'a str,
  /// Byte length of the answer's JSON.
  pub bytes: u64,
  /// How long the store keeps it.
  pub ttl_seconds: u64,
  /// How to pass the answer to another tool, when handle references are on (`core::references::guide_sentence`).
  pub references: Option<&'a str>,
}

/// Builds the folded `CallToolResult` JSON. `folded_json` is `{"preview":…,"shape":…,"handle":…}` as the fold
/// engine serialized it; `shape_json` is its `shape` (used to pick a useful example path).
pub fn build_folded_result(
  envelope: &Envelope,
  folded_json: &str,
  shape_json: &str,
  facts: FoldFacts,
) -> String {
  let mut out = String::with_capacity(folded_json.len() * 2 + 512);
  out.push_str(r#"{"content":[{"type":"text","text":"#);
  push_quoted(folded_json, &mut out);
  out.push_str(r#"},{"type":"text","text":"#);
  push_quoted(&guide_text(shape_json, facts), &mut out);
  out.push_str(r#"}],"structuredContent":"#);
  out.push_str(folded_json);
  for (key, value) in &envelope.other_fields {
    out.push(',');
    push_quoted(key, &mut out);
    out.push(':');
    out.push_str(value);
  }
  out.push_str(r#","_meta":{"#);
  for (key, value) in &envelope.meta {
    push_quoted(key, &mut out);
    out.push(':');
    out.push_str(value);
    out.push(',');
  }
  push_quoted(RESULT_HANDLE_META_KEY, &mut out);
  out.push_str(r#":{"handle":"#);
  push_quoted(facts.handle, &mut out);
  out.push_str(&format!(
    r#","bytes":{},"ttlSeconds":{}}}}}}}"#,
    facts.bytes, facts.ttl_seconds
  ));
  out
}
