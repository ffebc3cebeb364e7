//! Fit: the part of the fold decision that is about the answer itself, and the folded `CallToolResult`.
//!
//! Both hosts hand the engine the tool's `CallToolResult` as JSON text (what `JSON.stringify` prints). [`inspect`]
//! reads only its envelope — `content` blocks, `structuredContent` as a raw slice, `isError`, `_meta` keys — and says
//! either why the answer passes untouched or which part of it is the answer to fold. It never builds a tree of the
//! answer: `structuredContent` stays a borrowed [`RawValue`], which is exactly the text `JSON.stringify` printed for
//! that sub-value.
//!
//! Rules (every one must hold for a fold candidate):
//! - not `isError: true`;
//! - not already folded: `_meta["frontmcp/result-handle"]` absent (several plugin instances can see one call);
//! - not a widget/UI answer: no `_meta` key (of the result, or of the tool definition) equal to `ui` or starting
//!   with `ui/` or `openai/` (MCP Apps `_meta.ui`, FrontMCP `ui/html`, `ui/component`…, OpenAI Apps
//!   `openai/outputTemplate`…);
//! - `content` holds only `text` blocks (an image, audio, resource, resource link or unknown block passes);
//! - with `structuredContent`: at most one text, and that text only repeats it — it equals the structuredContent's
//!   JSON text, or `JSON.stringify(JSON.parse(text))` equals it (whitespace and number spelling aside: `1.0`
//!   equals `1`, as in JS; keys in another order say something else). The answer is then the structuredContent;
//! - without `structuredContent`: exactly one text, which is the answer.
//!
//! After the fold, one more rule: an answer nested deeper than `result_query` reads passes whole
//! ([`too_deep_to_query`]).
//!
//! [`build_folded_result`] writes the folded `CallToolResult`: `structuredContent = {preview, shape, handle}`,
//! `content[0]` = a text with that same JSON, `content[1]` = how to read the rest with `result_query`,
//! `_meta["frontmcp/result-handle"] = {handle, bytes, ttlSeconds}`, the answer's other `_meta` entries and other
//! top-level fields kept as they were.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::core::fold::{canonical_json, FoldedAnswer};
use crate::core::query::MAX_QUERY_DEPTH;

/// `_meta` key of a folded answer: `{ handle, bytes, ttlSeconds }`.
pub const RESULT_HANDLE_META_KEY: &str = "frontmcp/result-handle";
/// Name of the tool that reads a folded answer.
pub const RESULT_QUERY_TOOL_NAME: &str = "result_query";

/// Why an answer passes through untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassReason {
  /// The JSON is not an object with a `content` array of blocks (or a field has the wrong type).
  NotACallToolResult,
  /// `isError: true`.
  IsError,
  /// `_meta["frontmcp/result-handle"]` is present: another instance folded it already.
  AlreadyFolded,
  /// A widget/UI answer (result or tool `_meta` key `ui`, `ui/…` or `openai/…`).
  UiAnswer,
  /// A block other than `text` (image, audio, resource, resource link, unknown).
  NonTextContent,
  /// More than one text block.
  SeveralTexts,
  /// A text next to `structuredContent` that says something else than it.
  TextDiffers,
  /// Neither `structuredContent` nor a text.
  NoAnswer,
  /// Over the threshold, but nested deeper than `result_query` reads ([`MAX_QUERY_DEPTH`]): folded, it could
  /// never be read back, so it goes whole.
  TooDeepToQuery,
}

impl PassReason {
  /// A stable, kebab-case name for logs and tests.
  pub const fn as_str(self) -> &'static str {
    match self {
      PassReason::NotACallToolResult => "not-a-call-tool-result",
      PassReason::IsError => "is-error",
      PassReason::AlreadyFolded => "already-folded",
      PassReason::UiAnswer => "ui-answer",
      PassReason::NonTextContent => "non-text-content",
      PassReason::SeveralTexts => "several-texts",
      PassReason::TextDiffers => "text-differs",
      PassReason::NoAnswer => "no-answer",
      PassReason::TooDeepToQuery => "too-deep-to-query",
    }
  }
}

/// The part of a `CallToolResult` to fold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
  /// `structuredContent`, as the JSON text `JSON.stringify` printed for it.
  Structured(&'a str),
  /// The only text block (a JSON text is folded as the value it holds; any other text as a string).
  Text(Cow<'a, str>),
}

/// What [`inspect`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict<'a> {
  /// Send the answer untouched.
  Pass(PassReason),
  /// A fold candidate (size, caller and policy are decided elsewhere).
  Candidate(Answer<'a>),
}

/// The parts of a `CallToolResult` a folded result keeps: its other top-level fields and other `_meta` entries,
/// each as (key, raw JSON value text), in their original order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Envelope {
  pub other_fields: Vec<(String, String)>,
  pub meta: Vec<(String, String)>,
}

/// The verdict, and the envelope to build a folded result from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection<'a> {
  pub verdict: Verdict<'a>,
  pub envelope: Envelope,
}

/// Reads `result_json` (a `CallToolResult` as `JSON.stringify` printed it) and decides whether it is a fold
/// candidate. `tool_meta_json` is the tool definition's `_meta` (an object, or absent), checked for UI keys too.
pub fn inspect<'a>(result_json: &'a str, tool_meta_json: Option<&str>) -> Inspection<'a> {
  match inspect_inner(result_json, tool_meta_json) {
    Ok(inspection) => inspection,
    Err(()) => Inspection {
      verdict: Verdict::Pass(PassReason::NotACallToolResult),
      envelope: Envelope::default(),
    },
  }
}

fn inspect_inner<'a>(
  result_json: &'a str,
  tool_meta_json: Option<&str>,
) -> Result<Inspection<'a>, ()> {
  let top: Top<'a> = serde_json::from_str(result_json).map_err(|_| ())?;
  let blocks: Option<Vec<LenientBlock<'a>>> = top.content;
  let (outer, structured) = read_outer(top.entries, tool_meta_json)?;
  let blocks = blocks.ok_or(())?;
  let envelope = match outer {
    Ok(envelope) => envelope,
    Err(reason) => return Ok(passing(reason)),
  };
  // Texts stay raw string literals (checked JSON, not yet unescaped): the common answer, a text that is
  // `JSON.stringify(structuredContent)`, is then compared in one pass with no copy.
  let mut texts: Vec<&'a RawValue> = Vec::new();
  for block in blocks {
    let block = block.0?;
    match (block.kind.as_deref(), block.text) {
      (Some("text"), Some(text)) if text.get().starts_with('"') => texts.push(text),
      (Some("text"), _) | (None, _) => return Err(()),
      (Some(_), text) => {
        // Reading a block fails on a `text` that is not a string or does not decode (a lone surrogate escape),
        // before any later block is looked at; texts read so far are checked now.
        if let Some(text) = text {
          if !text.get().starts_with('"') {
            return Err(());
          }
          decode(text)?;
        }
        all_decode(&texts)?;
        return Ok(passing(PassReason::NonTextContent));
      }
    }
  }
  if texts.len() > 1 {
    all_decode(&texts)?;
    return Ok(passing(PassReason::SeveralTexts));
  }

  let answer = match (structured, texts.pop()) {
    (Some(structured), None) => Answer::Structured(structured.get()),
    (Some(structured), Some(text)) => {
      // Fast path: the literal decodes to exactly the structuredContent's text (so it decodes, and equals it).
      if !literal_decodes_to(text.get(), structured.get()) {
        let text = decode(text)?;
        if !repeats(&text, structured.get()) {
          return Ok(passing(PassReason::TextDiffers));
        }
      }
      Answer::Structured(structured.get())
    }
    (None, Some(text)) => Answer::Text(decode(text)?),
    (None, None) => return Ok(passing(PassReason::NoAnswer)),
  };
  Ok(Inspection {
    verdict: Verdict::Candidate(answer),
    envelope,
  })
}

fn passing<'a>(reason: PassReason) -> Inspection<'a> {
  Inspection {
    verdict: Verdict::Pass(reason),
    envelope: Envelope::default(),
  }
}

/// The top-level entries other than `content`: the envelope a folded result keeps, or why the answer passes
/// (`isError`, already folded, a UI answer, with `tool_meta_json` checked for UI keys too); and
/// `structuredContent` (absent when `null`). `Err` when `_meta` is not an object we read.
type Outer<'a> = (Result<Envelope, PassReason>, Option<&'a RawValue>);

fn read_outer<'a>(
  entries: Vec<(Cow<'a, str>, &'a RawValue)>,
  tool_meta_json: Option<&str>,
) -> Result<Outer<'a>, ()> {
  let mut structured: Option<&'a RawValue> = None;
  let mut is_error = false;
  let mut meta: Vec<(Cow<'a, str>, &'a RawValue)> = Vec::new();
  let mut other_fields = Vec::new();
  for (key, value) in entries {
    match key.as_ref() {
      "structuredContent" => structured = (value.get() != "null").then_some(value),
      "isError" => is_error = value.get() == "true",
      "_meta" => {
        meta = serde_json::from_str::<Entries<'a>>(value.get())
          .map_err(|_| ())?
          .0
      }
      _ => other_fields.push((key.into_owned(), value.get().to_string())),
    }
  }
  let tool_is_ui = match tool_meta_json {
    Some(text) => serde_json::from_str::<Entries>(text)
      .map(|entries| entries.0.iter().any(|(key, _)| is_ui_key(key)))
      .unwrap_or(false),
    None => false,
  };
  let outer = if is_error {
    Err(PassReason::IsError)
  } else if meta
    .iter()
    .any(|(key, _)| key.as_ref() == RESULT_HANDLE_META_KEY)
  {
    Err(PassReason::AlreadyFolded)
  } else if tool_is_ui || meta.iter().any(|(key, _)| is_ui_key(key)) {
    Err(PassReason::UiAnswer)
  } else {
    Ok(Envelope {
      other_fields,
      meta: meta
        .iter()
        .map(|(key, value)| (key.to_string(), value.get().to_string()))
        .collect(),
    })
  };
  Ok((outer, structured))
}

/// An answer a host took out of its `CallToolResult` itself (the hosts' fast path: the answer crosses once, and
/// the text that repeats structuredContent never crosses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeparateAnswer<'a> {
  /// `JSON.stringify(structuredContent)`, with the only text block when the host did not find it identical
  /// (`None`: no text, or a text the host found `===` to it).
  Structured {
    json: &'a str,
    text: Option<&'a str>,
  },
  /// The only text block, with no structuredContent.
  Text(&'a str),
}

/// [`inspect`] for a `CallToolResult` the host split: `envelope_json` is the result without `content` and
/// `structuredContent` (the host checked that `content` holds nothing but the one text, if any, that `answer`
/// names). The same rules, in the same order, decide.
pub fn inspect_parts<'a>(
  envelope_json: &str,
  answer: SeparateAnswer<'a>,
  tool_meta_json: Option<&str>,
) -> Inspection<'a> {
  let outer = serde_json::from_str::<Top>(envelope_json)
    .map_err(drop)
    .and_then(|top| match top.content {
      None => read_outer(top.entries, tool_meta_json),
      Some(_) => Err(()),
    });
  let envelope = match outer {
    Ok((Ok(envelope), None)) => envelope,
    Ok((Err(reason), None)) => return passing(reason),
    Ok((_, Some(_))) | Err(()) => return passing(PassReason::NotACallToolResult),
  };
  let answer = match answer {
    SeparateAnswer::Structured { json, text: None } => Answer::Structured(json),
    SeparateAnswer::Structured {
      json,
      text: Some(text),
    } => {
      if !repeats(text, json) {
        return passing(PassReason::TextDiffers);
      }
      Answer::Structured(json)
    }
    SeparateAnswer::Text(text) => Answer::Text(Cow::Borrowed(text)),
  };
  Inspection {
    verdict: Verdict::Candidate(answer),
    envelope,
  }
}

/// Whether a folded answer nests deeper than `result_query` reads: it then passes whole
/// ([`PassReason::TooDeepToQuery`]) rather than be kept where no query could read it.
pub fn too_deep_to_query(folded: &FoldedAnswer) -> bool {
  folded.depth > MAX_QUERY_DEPTH
}

/// A `_meta` key that marks a widget/UI answer or tool.
pub fn is_ui_key(key: &str) -> bool {
  key == "ui" || key.starts_with("ui/") || key.starts_with("openai/")
}

/// Whether `text` only repeats `structured_json`: the same text, or a JSON text that `JSON.stringify(JSON.parse())`
/// turns into it. `structured_json` is `JSON.stringify` output, so it is canonical already; the text is made
/// canonical by the fold's one-pass canonicalizer (no tree, no recursion) and the two strings are compared.
/// Whitespace and number spelling (`1.0`, `2e0`) aside, the text must say the same in the same key order.
fn repeats(text: &str, structured_json: &str) -> bool {
  if text == structured_json {
    return true;
  }
  let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
  if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
    return false;
  }
  canonical_json(text).is_some_and(|canonical| canonical == structured_json)
}

/// A text block's string literal, unescaped (borrowed when it has no escapes); `Err` when it does not decode to
/// a string (a lone surrogate escape), which makes the result not a `CallToolResult` we read.
fn decode(literal: &RawValue) -> Result<Cow<'_, str>, ()> {
  serde_json::from_str::<CowStr>(literal.get())
    .map(|text| text.0)
    .map_err(|_| ())
}

fn all_decode(literals: &[&RawValue]) -> Result<(), ()> {
  literals
    .iter()
    .try_for_each(|literal| decode(literal).map(drop))
}

/// Whether the JSON string literal `literal` (quotes included, its grammar already checked) decodes to exactly
/// `expected`. One pass, no allocation: runs without escapes are compared as bytes, each escape as the UTF-8 of the
/// character it stands for. A lone surrogate escape decodes to no character, so it answers `false` (the caller's
/// slow path then decides, as before).
fn literal_decodes_to(literal: &str, expected: &str) -> bool {
  let Some(inner) = literal
    .strip_prefix('"')
    .and_then(|rest| rest.strip_suffix('"'))
  else {
    return false;
  };
  let (inner, expected) = (inner.as_bytes(), expected.as_bytes());
  let (mut i, mut j) = (0usize, 0usize);
  loop {
    // Eight bytes at a time while they match and hold no backslash.
    while let (Some(a), Some(e)) = (inner.get(i..i + 8), expected.get(j..j + 8)) {
      let a = u64::from_le_bytes(a.try_into().unwrap_or_default());
      let e = u64::from_le_bytes(e.try_into().unwrap_or_default());
      if a != e || has_backslash(a) {
        break;
      }
      i += 8;
      j += 8;
    }
    let Some(&byte) = inner.get(i) else {
      return j == expected.len();
    };
    if byte != b'\\' {
      if expected.get(j) != Some(&byte) {
        return false;
      }
      i += 1;
      j += 1;
      continue;
    }
    let short = match inner.get(i + 1) {
      Some(b'"') => Some(b'"'),
      Some(b'\\') => Some(b'\\'),
      Some(b'/') => Some(b'/'),
      Some(b'b') => Some(0x08),
      Some(b'f') => Some(0x0C),
      Some(b'n') => Some(b'\n'),
      Some(b'r') => Some(b'\r'),
      Some(b't') => Some(b'\t'),
      _ => None,
    };
    if let Some(decoded) = short {
      if expected.get(j) != Some(&decoded) {
        return false;
      }
      i += 2;
      j += 1;
      continue;
    }
    let (c, width) = match inner.get(i + 1) {
      Some(b'u') => {
        let Some(unit) = hex4(inner, i + 2) else {
          return false;
        };
        let low = (inner.get(i + 6..i + 8) == Some(b"\\u"))
          .then(|| hex4(inner, i + 8))
          .flatten()
          .filter(|low| (0xDC00..=0xDFFF).contains(low));
        let (code, width) = match ((0xD800..=0xDBFF).contains(&unit), low) {
          (true, Some(low)) => (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 12),
          _ => (unit, 6),
        };
        match char::from_u32(code) {
          Some(c) => (c, width),
          None => return false,
        }
      }
      _ => return false,
    };
    let mut buf = [0u8; 4];
    let encoded = c.encode_utf8(&mut buf).as_bytes();
    if expected.get(j..j + encoded.len()) != Some(encoded) {
      return false;
    }
    j += encoded.len();
    i += width;
  }
}

/// Whether any of the eight bytes is a backslash (the classic "has zero byte" test on `word ^ 0x5C…`).
fn has_backslash(word: u64) -> bool {
  let x = word ^ 0x5C5C_5C5C_5C5C_5C5C;
  (x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080) != 0
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
  let digits = bytes.get(at..at + 4)?;
  digits
    .iter()
    .try_fold(0u32, |acc, &d| Some(acc * 16 + char::from(d).to_digit(16)?))
}

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
  out.push_str(&json_string(folded_json));
  out.push_str(r#"},{"type":"text","text":"#);
  out.push_str(&json_string(&guide_text(shape_json, facts)));
  out.push_str(r#"}],"structuredContent":"#);
  out.push_str(folded_json);
  for (key, value) in &envelope.other_fields {
    out.push(',');
    out.push_str(&json_string(key));
    out.push(':');
    out.push_str(value);
  }
  out.push_str(r#","_meta":{"#);
  for (key, value) in &envelope.meta {
    out.push_str(&json_string(key));
    out.push(':');
    out.push_str(value);
    out.push(',');
  }
  out.push_str(&json_string(RESULT_HANDLE_META_KEY));
  out.push_str(r#":{"handle":"#);
  out.push_str(&json_string(facts.handle));
  out.push_str(&format!(
    r#","bytes":{},"ttlSeconds":{}}}}}}}"#,
    facts.bytes, facts.ttl_seconds
  ));
  out
}

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
fn example_call(shape_json: &str, handle: &str) -> String {
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
  Value::Object(args).to_string()
}

/// `$.key` when the key is a JSONPath member-name shorthand, else `$['key']` (RFC 9535 §2.5.1.1 escapes).
fn member_path(key: &str) -> String {
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

fn json_string(text: &str) -> String {
  // Serializing a &str cannot fail.
  serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

// ─── borrowed readers ──────────────────────────────────────────────────────────────────────────────────────────────

/// An object's entries in order, values left as raw JSON slices. Refuses duplicate keys (JS would keep the last,
/// and we would rather pass such an answer untouched than guess).
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct EntriesVisitor;
    impl<'de> Visitor<'de> for EntriesVisitor {
      type Value = Entries<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
          if entries.iter().any(|(seen, _)| *seen == key.0) {
            return Err(de::Error::custom("duplicate key"));
          }
          let value: &'de RawValue = map.next_value()?;
          entries.push((key.0, value));
        }
        Ok(Entries(entries))
      }
    }
    deserializer.deserialize_map(EntriesVisitor)
  }
}

/// A string that borrows when it has no escapes.
struct CowStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    Cow::<'de, str>::deserialize(deserializer).map(CowStr)
  }
}

/// A content block: its `type`, and its `text` left as a raw JSON value (not yet unescaped).
struct Block<'a> {
  kind: Option<Cow<'a, str>>,
  text: Option<&'a RawValue>,
}

/// A content block read in the same pass as the whole result, so a long text is not scanned again. Any JSON value
/// reads; one that is not a block as `#[derive(Deserialize)]` would read `{ type?: string | null, text?: any }`
/// (an object with no repeated `type`/`text`, or an array of at most those two in that order; other keys ignored)
/// is `Err`, which [`inspect`] meets in block order, as it would parsing each block on its own.
struct LenientBlock<'a>(Result<Block<'a>, ()>);

impl<'a> LenientBlock<'a> {
  fn of(kind: Option<&'a RawValue>, text: Option<&'a RawValue>) -> Self {
    let kind = match kind {
      Some(raw) => serde_json::from_str::<Option<CowStr<'a>>>(raw.get())
        .map(|kind| kind.map(|kind| kind.0))
        .map_err(drop),
      None => Ok(None),
    };
    let text = text.filter(|raw| raw.get() != "null");
    LenientBlock(kind.map(|kind| Block { kind, text }))
  }
}

impl<'de> Deserialize<'de> for LenientBlock<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct BlockVisitor;
    impl<'de> Visitor<'de> for BlockVisitor {
      type Value = LenientBlock<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut kind, mut text, mut unreadable) = (None, None, false);
        // Keys are taken raw: one that does not decode (a lone surrogate escape) makes this block unreadable,
        // not the whole result.
        while let Some(key) = map.next_key::<&'de RawValue>()? {
          let key = serde_json::from_str::<CowStr>(key.get()).map(|key| key.0);
          let slot = match key.as_deref() {
            Ok("type") => &mut kind,
            Ok("text") => &mut text,
            other => {
              unreadable |= other.is_err();
              map.next_value::<de::IgnoredAny>()?;
              continue;
            }
          };
          let value: &'de RawValue = map.next_value()?;
          unreadable |= slot.replace(value).is_some();
        }
        if unreadable {
          return Ok(LenientBlock(Err(())));
        }
        Ok(LenientBlock::of(kind, text))
      }
      fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let kind: Option<&'de RawValue> = seq.next_element()?;
        let text: Option<&'de RawValue> = match kind {
          Some(_) => seq.next_element()?,
          None => None,
        };
        let mut extra = false;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
          extra = true;
        }
        if extra {
          return Ok(LenientBlock(Err(())));
        }
        Ok(LenientBlock::of(kind, text))
      }
      fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
    }
    deserializer.deserialize_any(BlockVisitor)
  }
}

/// The top level of a `CallToolResult`: `content` read as its list of raw blocks, every other entry as in
/// [`Entries`] (duplicate keys refused the same way).
struct Top<'a> {
  content: Option<Vec<LenientBlock<'a>>>,
  entries: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'de> Deserialize<'de> for Top<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct TopVisitor;
    impl<'de> Visitor<'de> for TopVisitor {
      type Value = Top<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Top {
          content: None,
          entries: Vec::new(),
        };
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
          let seen = if key.0 == "content" {
            top.content.is_some()
          } else {
            top.entries.iter().any(|(seen, _)| *seen == key.0)
          };
          if seen {
            return Err(de::Error::custom("duplicate key"));
          }
          if key.0 == "content" {
            top.content = Some(map.next_value()?);
          } else {
            top.entries.push((key.0, map.next_value()?));
          }
        }
        Ok(top)
      }
    }
    deserializer.deserialize_map(TopVisitor)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn verdict(json: &str) -> Verdict<'_> {
    inspect(json, None).verdict
  }

  fn passes(json: &str, reason: PassReason) {
    assert_eq!(verdict(json), Verdict::Pass(reason), "{json}");
  }

  /// The split form of `result_json` (as the hosts' fast path sends it): the result without `content` and
  /// `structuredContent`, and its answer.
  fn split_verdict(result_json: &str) -> Option<Verdict<'static>> {
    let value: Value = serde_json::from_str(result_json).ok()?;
    let mut envelope = value.as_object()?.clone();
    let content = envelope.remove("content")?;
    let structured = envelope
      .remove("structuredContent")
      .filter(|v| !v.is_null());
    let blocks = content.as_array()?;
    let text = match blocks.as_slice() {
      [] => None,
      [block] if block["type"] == "text" => Some(block["text"].as_str()?.to_string()),
      _ => return None,
    };
    let envelope_json = Value::Object(envelope).to_string();
    let structured_json = structured.map(|v| v.to_string());
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let answer = match (structured_json, text) {
      (Some(json), text) => SeparateAnswer::Structured {
        json: leak(json.clone()),
        text: text.filter(|text| *text != json).map(leak),
      },
      (None, Some(text)) => SeparateAnswer::Text(leak(text)),
      (None, None) => return None,
    };
    Some(inspect_parts(&envelope_json, answer, None).verdict)
  }

  #[test]
  fn the_split_form_decides_as_the_whole_result_does() {
    let cases = [
      r#"{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}"#,
      r#"{"content":[{"type":"text","text":"{ \"a\": [1, 2.0] }"}],"structuredContent":{"a":[1,2]}}"#,
      r#"{"content":[{"type":"text","text":"{\"b\":1,\"a\":[1,2]}"}],"structuredContent":{"a":[1,2],"b":1}}"#,
      r#"{"content":[{"type":"text","text":"Found 2"}],"structuredContent":{"a":[1,2]}}"#,
      r#"{"content":[],"structuredContent":{"a":1}}"#,
      r#"{"content":[{"type":"text","text":"plain"}]}"#,
      r#"{"content":[{"type":"text","text":"{\"a\":1}"}],"isError":true}"#,
      r#"{"content":[{"type":"text","text":"x"}],"_meta":{"ui/html":"<p>"}}"#,
      r#"{"content":[{"type":"text","text":"x"}],"_meta":{"frontmcp/result-handle":{}}}"#,
    ];
    for case in cases {
      let whole = verdict(case);
      let split = split_verdict(case).expect("splits");
      let same = match (&whole, &split) {
        (Verdict::Pass(a), Verdict::Pass(b)) => a == b,
        (Verdict::Candidate(Answer::Structured(a)), Verdict::Candidate(Answer::Structured(b))) => {
          a == b
        }
        (Verdict::Candidate(Answer::Text(a)), Verdict::Candidate(Answer::Text(b))) => a == b,
        _ => false,
      };
      assert!(same, "{case}: {whole:?} vs {split:?}");
    }
    // An envelope that still holds content or structuredContent is not the split form.
    let both = inspect_parts(r#"{"content":[]}"#, SeparateAnswer::Text("x"), None);
    assert_eq!(both.verdict, Verdict::Pass(PassReason::NotACallToolResult));
  }

  #[test]
  fn a_single_text_is_the_answer() {
    let json = r#"{"content":[{"type":"text","text":"{\"a\":1}"}]}"#;
    assert_eq!(
      verdict(json),
      Verdict::Candidate(Answer::Text(Cow::Borrowed("{\"a\":1}")))
    );
    let plain = r#"{"content":[{"type":"text","text":"hello"}]}"#;
    assert_eq!(
      verdict(plain),
      Verdict::Candidate(Answer::Text(Cow::Borrowed("hello")))
    );
  }

  #[test]
  fn structured_content_alone_is_the_answer_as_its_raw_slice() {
    let json = r#"{"content":[],"structuredContent":{"b":[1,2.5,"é"],"a":null}}"#;
    assert_eq!(
      verdict(json),
      Verdict::Candidate(Answer::Structured(r#"{"b":[1,2.5,"é"],"a":null}"#))
    );
  }

  #[test]
  fn a_text_that_repeats_structured_content_is_accepted() {
    // The same text.
    let same =
      r#"{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}"#;
    assert_eq!(
      verdict(same),
      Verdict::Candidate(Answer::Structured(r#"{"a":[1,2]}"#))
    );
    // Pretty-printed, numbers spelled differently: the same JSON once canonical.
    let pretty = r#"{"content":[{"type":"text","text":"{\n  \"a\": [1, 2e0],\n  \"b\": 1.0\n}"}],"structuredContent":{"a":[1,2],"b":1}}"#;
    assert_eq!(
      verdict(pretty),
      Verdict::Candidate(Answer::Structured(r#"{"a":[1,2],"b":1}"#))
    );
    // Index-like keys come first in JS, in the text's canonical form as in structuredContent.
    let indexed = r#"{"content":[{"type":"text","text":"{\"b\": 1, \"2\": 0}"}],"structuredContent":{"2":0,"b":1}}"#;
    assert!(matches!(verdict(indexed), Verdict::Candidate(_)));
  }

  #[test]
  fn a_text_with_keys_in_another_order_says_something_else() {
    passes(
      r#"{"content":[{"type":"text","text":"{\"b\":1,\"a\":[1,2]}"}],"structuredContent":{"a":[1,2],"b":1}}"#,
      PassReason::TextDiffers,
    );
  }

  #[test]
  fn deep_texts_are_compared_without_recursion() {
    let depth = 10_000;
    let compact = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let spaced = format!("{} 1.0 {}", "[ ".repeat(depth), " ]".repeat(depth));
    let text = serde_json::to_string(&spaced).expect("a string");
    let same =
      format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{compact}}}"#);
    assert!(matches!(
      verdict(&same),
      Verdict::Candidate(Answer::Structured(_))
    ));
    let other = format!("{}2{}", "[".repeat(depth), "]".repeat(depth));
    let differs =
      format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{other}}}"#);
    passes(&differs, PassReason::TextDiffers);
  }

  #[test]
  fn a_text_that_says_something_else_passes() {
    passes(
      r#"{"content":[{"type":"text","text":"Found 2 orders"}],"structuredContent":{"a":[1,2]}}"#,
      PassReason::TextDiffers,
    );
    passes(
      r#"{"content":[{"type":"text","text":"{\"a\":[1,3]}"}],"structuredContent":{"a":[1,2]}}"#,
      PassReason::TextDiffers,
    );
    passes(
      r#"{"content":[{"type":"text","text":"{\"a\":[1,2],\"b\":0}"}],"structuredContent":{"a":[1,2]}}"#,
      PassReason::TextDiffers,
    );
  }

  #[test]
  fn other_blocks_several_texts_errors_and_empty_answers_pass() {
    passes(
      r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"text","text":"x"},{"type":"audio","data":"AA","mimeType":"audio/wav"}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"resource","resource":{"uri":"a://b","text":"x"}}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"resource_link","uri":"a://b","name":"b"}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}"#,
      PassReason::SeveralTexts,
    );
    passes(
      r#"{"content":[{"type":"text","text":"boom"}],"isError":true}"#,
      PassReason::IsError,
    );
    passes(r#"{"content":[]}"#, PassReason::NoAnswer);
    passes(
      r#"{"content":[],"structuredContent":null}"#,
      PassReason::NoAnswer,
    );
  }

  #[test]
  fn is_error_false_does_not_pass() {
    let json = r#"{"content":[{"type":"text","text":"x"}],"isError":false}"#;
    assert!(matches!(verdict(json), Verdict::Candidate(_)));
  }

  #[test]
  fn malformed_results_pass() {
    for json in [
      "",
      "[]",
      "{}",
      r#"{"content":{}}"#,
      r#"{"content":[{"text":"no type"}]}"#,
      r#"{"content":[{"type":"text"}]}"#,
      r#"{"content":[{"type":"text","text":7}]}"#,
      r#"{"content":[],"_meta":[]}"#,
      r#"{"content":[],"content":[]}"#,
      r#"{"content":[{"type":"text","text":"x"}]"#,
    ] {
      passes(json, PassReason::NotACallToolResult);
    }
  }

  #[test]
  fn ui_answers_and_ui_tools_pass() {
    for key in ["ui", "ui/html", "ui/component", "openai/outputTemplate"] {
      let json = format!(r#"{{"content":[{{"type":"text","text":"x"}}],"_meta":{{"{key}":"v"}}}}"#);
      passes(&json, PassReason::UiAnswer);
    }
    let plain = r#"{"content":[{"type":"text","text":"x"}],"_meta":{"uix":1,"openaiX":2}}"#;
    assert!(matches!(verdict(plain), Verdict::Candidate(_)));
    let tool_meta = r#"{"ui":{"resourceUri":"ui://widget"}}"#;
    let json = r#"{"content":[{"type":"text","text":"x"}]}"#;
    assert_eq!(
      inspect(json, Some(tool_meta)).verdict,
      Verdict::Pass(PassReason::UiAnswer)
    );
    assert!(matches!(
      inspect(json, Some(r#"{"x":1}"#)).verdict,
      Verdict::Candidate(_)
    ));
  }

  #[test]
  fn an_already_folded_answer_is_never_folded_again() {
    let json = r#"{"content":[{"type":"text","text":"{}"}],"structuredContent":{},"_meta":{"frontmcp/result-handle":{"handle":"h","bytes":1,"ttlSeconds":1}}}"#;
    passes(json, PassReason::AlreadyFolded);
  }

  #[test]
  fn the_envelope_keeps_other_meta_and_fields_in_order() {
    let json = r#"{"content":[{"type":"text","text":"x"}],"task":{"id":"t"},"_meta":{"z":1,"a\"b":{"c":[1]}}}"#;
    let inspection = inspect(json, None);
    assert_eq!(
      inspection.envelope,
      Envelope {
        other_fields: vec![("task".into(), r#"{"id":"t"}"#.into())],
        meta: vec![
          ("z".into(), "1".into()),
          ("a\"b".into(), r#"{"c":[1]}"#.into())
        ],
      }
    );
  }

  #[test]
  fn the_folded_result_has_the_documented_form() {
    let json =
      r#"{"content":[{"type":"text","text":"x"}],"task":{"id":"t"},"_meta":{"trace":"abc"}}"#;
    let inspection = inspect(json, None);
    let folded = r#"{"preview":{"orders":[{"id":0}]},"shape":{"type":"object","keys":{"total":{"type":"number"},"orders":{"type":"array","length":500,"items":{"type":"object","keys":{}}}}},"handle":"0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70"}"#;
    let shape = r#"{"type":"object","keys":{"total":{"type":"number"},"orders":{"type":"array","length":500,"items":{"type":"object","keys":{}}}}}"#;
    let facts = FoldFacts {
      handle: "0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70",
      bytes: 20_000,
      ttl_seconds: 600,
      references: None,
    };
    let built = build_folded_result(&inspection.envelope, folded, shape, facts);
    let value: Value = serde_json::from_str(&built).expect("valid JSON");
    assert_eq!(
      value["structuredContent"],
      serde_json::from_str::<Value>(folded).unwrap()
    );
    assert_eq!(
      value["content"][0],
      serde_json::json!({"type": "text", "text": folded})
    );
    let guide = value["content"][1]["text"].as_str().unwrap();
    assert!(guide.contains("result_query"));
    assert!(guide.contains(facts.handle));
    assert!(guide.contains(
      r#"{"handle":"0b6c3f0e-8a7e-4f55-9f0e-2b3c4d5e6f70","path":"$.orders","limit":20}"#
    ));
    assert_eq!(value["content"].as_array().unwrap().len(), 2);
    assert_eq!(value["task"], serde_json::json!({"id": "t"}));
    assert_eq!(
      value["_meta"],
      serde_json::json!({"trace": "abc", "frontmcp/result-handle": {"handle": facts.handle, "bytes": 20000, "ttlSeconds": 600}})
    );
    // Key order: the kept _meta entries first, then ours.
    let meta_keys: Vec<&String> = value["_meta"].as_object().unwrap().keys().collect();
    assert_eq!(meta_keys, ["trace", RESULT_HANDLE_META_KEY]);
    // Once folded, the result passes untouched.
    assert_eq!(
      inspect(&built, None).verdict,
      Verdict::Pass(PassReason::AlreadyFolded)
    );
  }

  #[test]
  fn example_calls_follow_the_shape() {
    let h = "h";
    assert_eq!(
      example_call(r#"{"type":"object","keys":{"n":{"type":"number"}}}"#, h),
      r#"{"handle":"h","path":"$.n"}"#
    );
    assert_eq!(
      example_call(r#"{"type":"object","keys":{"a.b c":{"type":"array"}}}"#, h),
      r#"{"handle":"h","path":"$['a.b c']","limit":20}"#
    );
    assert_eq!(
      example_call(r#"{"type":"object","keys":{"it's":{"type":"null"}}}"#, h),
      r#"{"handle":"h","path":"$['it\\'s']"}"#
    );
    assert_eq!(
      example_call(r#"{"type":"array","length":9}"#, h),
      r#"{"handle":"h","path":"$","limit":20}"#
    );
    assert_eq!(
      example_call(r#"{"type":"string","length":9}"#, h),
      r#"{"handle":"h","path":"$","offset":0,"limit":2000}"#
    );
    assert_eq!(example_call("not json", h), r#"{"handle":"h","path":"$"}"#);
    assert_eq!(
      example_call(r#"{"type":"object","keys":{}}"#, h),
      r#"{"handle":"h","path":"$"}"#
    );
  }

  #[test]
  fn deep_answers_are_read_without_recursion() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let json = format!(r#"{{"content":[],"structuredContent":{{"d":{deep}}}}}"#);
    assert!(matches!(
      verdict(&json),
      Verdict::Candidate(Answer::Structured(_))
    ));
  }

  #[test]
  fn answers_too_deep_to_query_pass_whole_and_others_fold_and_read_back() {
    use crate::core::fold::{fold_answer, AnswerSource, FoldOutcome, FoldSettings};
    use crate::core::query::{run_query, QueryArgs};
    let settings = FoldSettings {
      threshold_bytes: 1024,
      preview_items: 5,
      preview_chars: 500,
    };
    let padding = "x".repeat(2000);
    for (depth, passes) in [(300, true), (100, false)] {
      let nested = format!(
        r#"{}{{"leaf":"{padding}"}}{}"#,
        r#"{"a":"#.repeat(depth - 1),
        "}".repeat(depth - 1)
      );
      let result = format!(r#"{{"content":[],"structuredContent":{nested}}}"#);
      let Verdict::Candidate(Answer::Structured(json)) = verdict(&result) else {
        panic!("a candidate at depth {depth}");
      };
      let FoldOutcome::Folded(folded) =
        fold_answer(AnswerSource::Json(json), &settings).expect("folds")
      else {
        panic!("over the threshold at depth {depth}");
      };
      assert_eq!(folded.depth, depth);
      assert_eq!(too_deep_to_query(&folded), passes, "depth {depth}");
      if !passes {
        // Kept as it is, it reads back at its deepest point.
        let path = format!("{}leaf", "a.".repeat(depth - 1));
        let mut args = QueryArgs::new("h", &path).expect("a valid path");
        args.limit = Some(3);
        let answer = run_query(json.as_bytes(), &args, 1024).expect("reads");
        assert!(answer.contains(r#""value":"xxx""#), "{answer}");
      }
    }
    assert_eq!(PassReason::TooDeepToQuery.as_str(), "too-deep-to-query");
  }

  #[test]
  fn member_paths_escape_what_shorthand_cannot_say() {
    assert_eq!(member_path("orders"), "$.orders");
    assert_eq!(member_path("_x9"), "$._x9");
    assert_eq!(member_path("é"), "$.é");
    assert_eq!(member_path("9a"), "$['9a']");
    assert_eq!(member_path(""), "$['']");
    assert_eq!(member_path("a\\b"), "$['a\\\\b']");
    assert_eq!(member_path("a\nb"), "$['a\\u000ab']");
  }

  /// The slow decision the fast comparison stands in for: decode the literal, compare the strings.
  fn decodes_to(literal: &str, expected: &str) -> bool {
    serde_json::from_str::<String>(literal).is_ok_and(|text| text == expected)
  }

  #[test]
  fn the_fast_comparison_agrees_with_decoding() {
    let cases: &[(&str, &str)] = &[
      (r#""{\"a\":1}""#, r#"{"a":1}"#),
      (r#""{\"a\":1}""#, r#"{"a":2}"#),
      (r#""{\"a\":1}""#, r#"{"a":1} "#),
      (r#""{\"a\":1} ""#, r#"{"a":1}"#),
      (r#""\u0041\u00e9\u00E9""#, "Aéé"),
      (r#""\/\b\f\n\r\t\\\"""#, "/\u{8}\u{c}\n\r\t\\\""),
      (r#""\ud83d\ude00""#, "😀"),
      (r#""\uD83D\uDE00""#, "😀"),
      (r#""😀""#, "😀"),
      (r#""\ud83d""#, "\u{fffd}"),
      (r#""\ude00""#, "\u{fffd}"),
      (r#""\ud83d\u0041""#, "\u{fffd}A"),
      (r#""\ud83dA""#, "\u{fffd}A"),
      (r#""""#, ""),
      (r#""""#, "x"),
      (r#""x""#, ""),
      (r#""\u00""#, "x"),
      (r#""ab"#, "ab"),
      ("7", "7"),
    ];
    for (literal, expected) in cases {
      assert_eq!(
        literal_decodes_to(literal, expected),
        decodes_to(literal, expected),
        "{literal} vs {expected}"
      );
    }
  }

  /// How one character is written in a string literal.
  fn spell(c: char, way: u8, out: &mut String) {
    let unit_escapes = |out: &mut String, upper: bool| {
      let mut units = [0u16; 2];
      for unit in c.encode_utf16(&mut units) {
        if upper {
          out.push_str(&format!("\\u{unit:04X}"));
        } else {
          out.push_str(&format!("\\u{unit:04x}"));
        }
      }
    };
    match (c, way % 4) {
      ('"', 0 | 1) => out.push_str("\\\""),
      ('\\', 0 | 1) => out.push_str("\\\\"),
      ('\n', 0 | 1) => out.push_str("\\n"),
      ('/', 1) => out.push_str("\\/"),
      (c, 0 | 1) if (c as u32) < 0x20 => unit_escapes(out, false),
      (c, 0 | 1) => out.push(c),
      (_, 2) => unit_escapes(out, false),
      _ => unit_escapes(out, true),
    }
  }

  proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any spelling of any string (raw, short escapes, `\u` in either case, surrogate pairs, lone surrogates)
    /// against the same string, a changed one, and a prefix: the fast comparison says what decoding says.
    #[test]
    fn any_spelling_compares_as_decoded(
      chars in proptest::collection::vec(
        proptest::prop_oneof![
          proptest::char::range('\u{0}', '\u{7f}'),
          proptest::sample::select(vec!['"', '\\', '/', '\n', 'é', '€', '😀', '\u{2028}']),
          proptest::char::any(),
        ],
        0..24,
      ),
      ways in proptest::collection::vec(0u8..4, 24),
      lone in proptest::option::of((0usize..24, 0xD800u32..0xE000)),
      change in 0usize..3,
    ) {
      let text: String = chars.iter().collect();
      let mut literal = String::from("\"");
      for (at, c) in chars.iter().enumerate() {
        if let Some((where_, unit)) = lone {
          if where_ == at {
            literal.push_str(&format!("\\u{unit:04x}"));
          }
        }
        spell(*c, ways[at], &mut literal);
      }
      literal.push('"');
      let expected = match change {
        0 => text.clone(),
        1 => format!("{text}x"),
        _ => text.chars().take(chars.len() / 2).collect(),
      };
      proptest::prop_assert_eq!(
        literal_decodes_to(&literal, &expected),
        decodes_to(&literal, &expected),
        "{} vs {}", literal, expected
      );
    }
  }

  #[test]
  fn texts_spelled_differently_decide_as_before() {
    let result = |text: &str, structured: &str| {
      format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{structured}}}"#)
    };
    let structured = r#"{"a":"é😀","b":[1,2.5]}"#;
    // The same JSON text, its characters escaped in other ways: the fast path.
    for text in [
      r#""{\"a\":\"é😀\",\"b\":[1,2.5]}""#,
      r#""{\"a\":\"\u00e9\ud83d\ude00\",\"b\":[1,2.5]}""#,
      r#""\u007B\"a\":\"\u00E9\uD83D\uDE00\",\"b\":[1,2.5]\u007d""#,
    ] {
      assert_eq!(
        verdict(&result(text, structured)),
        Verdict::Candidate(Answer::Structured(structured)),
        "{text}"
      );
    }
    // The same value written otherwise (JSON escapes inside, spaces, number spelling): the slow path agrees.
    for text in [
      r#""{\"a\":\"\\u00e9\\ud83d\\ude00\",\"b\":[1,2.5]}""#,
      r#""{ \"a\": \"é😀\", \"b\": [1.0, 25e-1] }""#,
    ] {
      assert_eq!(
        verdict(&result(text, structured)),
        Verdict::Candidate(Answer::Structured(structured)),
        "{text}"
      );
    }
    // Keys in another order, another value, a lone surrogate inside the JSON: says something else.
    for text in [
      r#""{\"b\":[1,2.5],\"a\":\"é😀\"}""#,
      r#""{\"a\":\"é😀\",\"b\":[1,2.6]}""#,
      r#""{\"a\":\"é\\ud83d\",\"b\":[1,2.5]}""#,
    ] {
      passes(&result(text, structured), PassReason::TextDiffers);
    }
    // A text that does not decode (a lone surrogate escape) or is not a string: not a CallToolResult we read,
    // also when a later block would pass it for another reason.
    for json in [
      result(r#""{\"a\":\"é\ud83d\",\"b\":[1,2.5]}""#, structured),
      result(r#""\ude00""#, structured),
      r#"{"content":[{"type":"text","text":"\ud800"}]}"#.to_string(),
      r#"{"content":[{"type":"text","text":"\ud800"},{"type":"image"}]}"#.to_string(),
      r#"{"content":[{"type":"text","text":"\ud800"},{"type":"text","text":"x"}]}"#.to_string(),
      r#"{"content":[{"type":"image","text":7}]}"#.to_string(),
      r#"{"content":[{"type":"image","text":"\udc00"}]}"#.to_string(),
    ] {
      passes(&json, PassReason::NotACallToolResult);
    }
    passes(
      r#"{"content":[{"type":"text","text":"x"},{"type":"image"},{"type":"text","text":"\ud800"}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"image","text":null}]}"#,
      PassReason::NonTextContent,
    );
    // An unreadable block is met in block order, after the result-level rules.
    passes(
      r#"{"content":[{"type":"text","text":"x","\ud800":1}],"isError":true}"#,
      PassReason::IsError,
    );
    passes(
      r#"{"content":[{"type":"image"},{"type":"text","\udc00":1}]}"#,
      PassReason::NonTextContent,
    );
    passes(
      r#"{"content":[{"type":"text","text":"x","\ud800":1},{"type":"image"}]}"#,
      PassReason::NotACallToolResult,
    );
    assert_eq!(
      verdict(r#"{"content":[{"type":"text","text":"a\u00e9"}]}"#),
      Verdict::Candidate(Answer::Text(Cow::Owned("aé".into())))
    );
  }

  /// How the engine read a block before it read blocks in the same pass as the result: derived, each block parsed
  /// on its own from its raw text.
  #[derive(Deserialize)]
  struct ReferenceBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
  }

  type Reading = Result<(Option<String>, Option<String>), ()>;

  fn reference_reading(block: &str) -> Reading {
    serde_json::from_str::<ReferenceBlock>(block)
      .map(|b| (b.kind.map(Cow::into_owned), b.text.map(Cow::into_owned)))
      .map_err(drop)
  }

  /// The lenient block, with its text checked as `inspect` checks it (a string that decodes).
  fn lenient_reading(block: &str) -> Reading {
    let lenient: LenientBlock = serde_json::from_str(block).map_err(drop)?;
    let block = lenient.0?;
    let text = match block.text {
      Some(raw) if !raw.get().starts_with('"') => return Err(()),
      Some(raw) => Some(decode(raw)?.into_owned()),
      None => None,
    };
    Ok((block.kind.map(Cow::into_owned), text))
  }

  #[test]
  fn blocks_read_in_one_pass_read_as_each_block_parsed_alone() {
    for block in [
      r#"{"type":"text","text":"x"}"#,
      r#"{"text":"x","type":"text","extra":[1,{"a":2}],"extra":3}"#,
      r#"{"type":"t\u0065xt","t\u0065xt":"a\u00e9"}"#,
      r#"{"type":"image","data":"AAAA","mimeType":"image/png"}"#,
      r#"{"type":"image","text":7}"#,
      r#"{"type":"image","text":null}"#,
      r#"{"type":null,"text":"x"}"#,
      r#"{"type":5,"text":"x"}"#,
      r#"{"type":"text","text":"x","text":"y"}"#,
      r#"{"type":"text","type":"text","text":"x"}"#,
      r#"{"type":"text","text":"\ud800"}"#,
      r#"{"type":"\ud800","text":"x"}"#,
      r#"{"type":"text","text":["x"]}"#,
      r#"{"type":"text","text":{"a":"\ud800"}}"#,
      r#"{"type":"text","text":"x","\ud800":1}"#,
      r#"{"\ud800":1,"type":"image"}"#,
      r#"{"type":"image","other":{"\ud800":1}}"#,
      r#"{}"#,
      r#"[]"#,
      r#"["text"]"#,
      r#"["text","x"]"#,
      r#"["image"]"#,
      r#"["image",7]"#,
      r#"[null,"x"]"#,
      r#"["text","x",1]"#,
      r#"["text","\ud800"]"#,
      r#""text""#,
      r#"7"#,
      r#"-1.5"#,
      r#"true"#,
      r#"null"#,
    ] {
      assert_eq!(lenient_reading(block), reference_reading(block), "{block}");
    }
  }

  /// `inspect` as it was before blocks were read in the result's pass and texts compared raw: the reference the
  /// current one must agree with on every result.
  fn reference_inspect(result_json: &str) -> Inspection<'_> {
    let inner = || -> Result<Inspection<'_>, ()> {
      let top: Entries = serde_json::from_str(result_json).map_err(drop)?;
      let (mut content, mut structured, mut is_error) = (None, None, false);
      let mut meta: Vec<(Cow<str>, &RawValue)> = Vec::new();
      let mut other_fields = Vec::new();
      for (key, value) in top.0 {
        match key.as_ref() {
          "content" => content = Some(value),
          "structuredContent" => structured = (value.get() != "null").then_some(value),
          "isError" => is_error = value.get() == "true",
          "_meta" => {
            meta = serde_json::from_str::<Entries>(value.get())
              .map_err(drop)?
              .0
          }
          _ => other_fields.push((key.into_owned(), value.get().to_string())),
        }
      }
      let blocks: Vec<&RawValue> = serde_json::from_str(content.ok_or(())?.get()).map_err(drop)?;
      let envelope = Envelope {
        other_fields,
        meta: meta
          .iter()
          .filter(|(key, _)| key.as_ref() != RESULT_HANDLE_META_KEY)
          .map(|(key, value)| (key.to_string(), value.get().to_string()))
          .collect(),
      };
      let pass = |reason| {
        Ok(Inspection {
          verdict: Verdict::Pass(reason),
          envelope: Envelope::default(),
        })
      };
      if is_error {
        return pass(PassReason::IsError);
      }
      if meta
        .iter()
        .any(|(key, _)| key.as_ref() == RESULT_HANDLE_META_KEY)
      {
        return pass(PassReason::AlreadyFolded);
      }
      if meta.iter().any(|(key, _)| is_ui_key(key)) {
        return pass(PassReason::UiAnswer);
      }
      let mut texts = Vec::new();
      for raw in blocks {
        let block: ReferenceBlock = serde_json::from_str(raw.get()).map_err(drop)?;
        match (block.kind.as_deref(), block.text) {
          (Some("text"), Some(text)) => texts.push(text),
          (Some("text"), None) | (None, _) => return Err(()),
          (Some(_), _) => return pass(PassReason::NonTextContent),
        }
      }
      if texts.len() > 1 {
        return pass(PassReason::SeveralTexts);
      }
      let answer = match (structured, texts.pop()) {
        (Some(structured), None) => Answer::Structured(structured.get()),
        (Some(structured), Some(text)) => {
          if !repeats(&text, structured.get()) {
            return pass(PassReason::TextDiffers);
          }
          Answer::Structured(structured.get())
        }
        (None, Some(text)) => Answer::Text(text),
        (None, None) => return pass(PassReason::NoAnswer),
      };
      Ok(Inspection {
        verdict: Verdict::Candidate(answer),
        envelope,
      })
    };
    inner().unwrap_or(Inspection {
      verdict: Verdict::Pass(PassReason::NotACallToolResult),
      envelope: Envelope::default(),
    })
  }

  /// Pieces results are made of: answers, texts that repeat them in several spellings or do not, blocks of
  /// every kind, readable or not.
  const STRUCTURED: &[&str] = &[
    r#"{"a":"é😀","b":[1,2.5]}"#,
    r#"[{"x":"q\"uote\\d"},null]"#,
    r#"{"s":"\ud83d"}"#,
    "null",
  ];
  const TEXTS: &[&str] = &[
    r#""{\"a\":\"é😀\",\"b\":[1,2.5]}""#,
    r#""{\"a\":\"\u00e9\ud83d\ude00\",\"b\":[1,2.5]}""#,
    r#""{ \"a\" : \"\\u00e9😀\", \"b\": [1.0, 25e-1] }""#,
    r#""{\"b\":[1,2.5],\"a\":\"é😀\"}""#,
    r#""[{\"x\":\"q\\\"uote\\\\d\"},null]""#,
    r#""[{\"x\":\"q\\u0022uote\\\\d\"},null]""#,
    r#""{\"s\":\"\\ud83d\"}""#,
    r#""{\"s\":\"\ud83d\"}""#,
    r#""\ud800""#,
    r#""plain words""#,
    r#""""#,
    "7",
    "null",
    r#"["x"]"#,
  ];
  const OTHER_BLOCKS: &[&str] = &[
    r#"{"type":"image","data":"AA","mimeType":"image/png"}"#,
    r#"{"type":"image","text":7}"#,
    r#"{"type":"resource","text":"\udc00"}"#,
    r#"{"text":"x"}"#,
    r#"{"type":"text","type":"text","text":"x"}"#,
    r#"{"type":"text","text":"x","\ud800":1}"#,
    r#"["text","x"]"#,
    r#"["image"]"#,
    r#"["text","x",1]"#,
    "5",
    "null",
  ];
  const EXTRAS: &[&str] = &[
    "",
    r#","isError":true"#,
    r#","isError":false"#,
    r#","_meta":{"trace":1}"#,
    r#","_meta":{"ui":1}"#,
    r#","_meta":{"frontmcp/result-handle":{}}"#,
    r#","_meta":{"\ud800":1}"#,
    r#","other":[1,{"k":"\ud800"}]"#,
  ];

  proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Any result built from the pieces above is decided, and its envelope kept, exactly as before.
    #[test]
    fn inspect_decides_as_the_reference(
      blocks in proptest::collection::vec((proptest::bool::ANY, 0usize..64), 0..4),
      structured in proptest::option::of(0usize..STRUCTURED.len()),
      extras in proptest::collection::vec(0usize..EXTRAS.len(), 0..3),
      structured_first in proptest::bool::ANY,
    ) {
      let blocks: Vec<String> = blocks
        .iter()
        .map(|&(is_text, pick)| {
          if is_text {
            format!(r#"{{"type":"text","text":{}}}"#, TEXTS[pick % TEXTS.len()])
          } else {
            OTHER_BLOCKS[pick % OTHER_BLOCKS.len()].to_string()
          }
        })
        .collect();
      let content = format!(r#""content":[{}]"#, blocks.join(","));
      let structured = structured.map(|at| format!(r#""structuredContent":{}"#, STRUCTURED[at]));
      let mut json = String::from("{");
      match (&structured, structured_first) {
        (Some(structured), true) => json.push_str(&format!("{structured},{content}")),
        (Some(structured), false) => json.push_str(&format!("{content},{structured}")),
        (None, _) => json.push_str(&content),
      }
      for at in extras {
        json.push_str(EXTRAS[at]);
      }
      json.push('}');
      proptest::prop_assert_eq!(inspect(&json, None), reference_inspect(&json), "{}", json);
    }
  }
}
