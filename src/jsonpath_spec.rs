//! The parsed JSONPath query as `serde_json_path_core`'s spec types, for the engine's evaluator
//! (`core::query::eval`).
//!
//! `serde_json_path` parses RFC 9535 (the maintained parser this package keeps), but `JsonPath` is a newtype over
//! the spec `Query` with a private field and no accessor, and its own evaluator can neither stop part way nor
//! reuse a compiled regex. The engine forbids `unsafe`; this one read lives here, outside it, with the facts that
//! make it sound checked at compile time. Both crates are pinned (`=`) in Cargo.toml. An accessor upstream
//! would make this module unnecessary.

use serde_json_path::JsonPath;
use serde_json_path_core::spec::query::Query;

// A one-field struct of exactly its field's size and alignment holds that field at offset 0. If a new version
// ever wraps something else, these fail to compile instead of misreading memory.
const _: () = assert!(std::mem::size_of::<JsonPath>() == std::mem::size_of::<Query>());
const _: () = assert!(std::mem::align_of::<JsonPath>() == std::mem::align_of::<Query>());

/// The spec `Query` inside a parsed `JsonPath`.
pub(crate) fn spec_query(path: &JsonPath) -> &Query {
  // SAFETY: `JsonPath` is `pub struct JsonPath(Query)` in serde_json_path 0.7.2 (pinned); with equal size and
  // alignment (asserted above) its only field sits at offset 0, so the pointer is a valid `&Query` for as long as
  // the `&JsonPath` is.
  unsafe { &*(path as *const JsonPath).cast::<Query>() }
}
