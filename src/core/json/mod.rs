//! The engine's one JSON layer: JSON text as `JSON.parse` reads it and as `JSON.stringify` writes it.
//!
//! - [`scan`]: one pull scanner with byte offsets and no recursion (the fold, the canonicalizer and the fit's
//!   text comparison read through it), and the one number grammar ([`scan::number_end`]), which the query's tape
//!   and its certified pass read numbers with too;
//! - [`decode`]: the one decoder of string escapes (`\n`, `\uXXXX`, surrogate pairs, lone surrogates) and the
//!   UTF-16 counts JS uses for lengths; every reader that checks an escape (the scanner, the tape, the path index,
//!   the fit's comparison, [`verbatim`]) checks it through [`decode::escape_at`];
//! - [`write`]: the one writer of strings and numbers exactly as `JSON.stringify` prints them;
//! - [`verbatim`]: whether a text already reads as that writer prints it (a kept page then copies it).
//!
//! serde_json stays where a tree or a typed value is wanted (query results, options); it refuses lone surrogate
//! escapes, which `JSON.stringify` writes, so whatever must take them reads through here.

pub(crate) mod decode;
pub(crate) mod scan;
pub(crate) mod verbatim;
pub(crate) mod words;
pub(crate) mod write;

/// The type of a JSON value. `name` is the word the shape and the messages use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
  Object,
  Array,
  String,
  Number,
  Boolean,
  Null,
}

impl Kind {
  /// The kind of the value whose JSON text starts with `first` (no blank before it; JSON text known to be valid).
  pub(crate) fn of_first_byte(first: Option<u8>) -> Kind {
    match first {
      Some(b'{') => Kind::Object,
      Some(b'[') => Kind::Array,
      Some(b'"') => Kind::String,
      Some(b't' | b'f') => Kind::Boolean,
      Some(b'n') => Kind::Null,
      _ => Kind::Number,
    }
  }

  pub(crate) fn name(self) -> &'static str {
    match self {
      Kind::Object => "object",
      Kind::Array => "array",
      Kind::String => "string",
      Kind::Number => "number",
      Kind::Boolean => "boolean",
      Kind::Null => "null",
    }
  }
}

#[cfg(test)]
mod tests;
