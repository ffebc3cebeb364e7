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
//!
//! Files: `inspect.rs` (the decision), `readers.rs` (the serde visitors it reads the result with), `folded.rs`
//! (the folded result), `guide.rs` (its guide text); the tests keep the readers the fast paths replaced.

mod folded;
mod guide;
mod inspect;
mod readers;

use std::borrow::Cow;

use crate::core::fold::FoldedAnswer;
use crate::core::query::MAX_QUERY_DEPTH;

pub use folded::{build_folded_result, FoldFacts};
pub use guide::guide_text;
pub use inspect::{inspect, inspect_parts};

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

/// An answer a host took out of its `CallToolResult` itself (the hosts' fast path: the answer crosses once, and
/// the text that repeats structuredContent never crosses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeparateAnswer<'a> {
  /// `JSON.stringify(structuredContent)`, with the only text block when the host did not find it identical
  /// (`None`: no text, or a text the host found to repeat it).
  Structured {
    json: &'a str,
    text: Option<&'a str>,
  },
  /// `JSON.stringify(structuredContent)` beside a text the host already found to say something else (a text
  /// holding a lone surrogate, compared by the binding): the answer passes with [`PassReason::TextDiffers`].
  StructuredBesideOtherText(&'a str),
  /// The only text block, with no structuredContent.
  Text(&'a str),
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

#[cfg(test)]
mod tests;
