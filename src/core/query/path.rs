//! Reading the `path` argument: which form it is, and its steps when it names one node.
//!
//! Forms, tried in this order:
//! 1. empty or `$`: the whole answer;
//! 2. starting with `/`: a JSON pointer (RFC 6901);
//! 3. a *simple path*: dot and bracket steps that name one node (this grammar holds every RFC 9535 singular
//!    query, plus dot steps RFC 9535 does not allow: digits (`orders.2`), a missing `$` (`orders.2.note`) and keys
//!    with characters outside its shorthand (`$.content-type`));
//! 4. any other RFC 9535 JSONPath query, parsed by `serde_json_path` (a `$`-less query gets `$` or `$.` in front).
//!
//! Anything else is not a path: RESULT_PATH_NOT_FOUND.

use serde_json_path::JsonPath;

use super::json::MAX_SAFE_INTEGER;
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::json::decode::{escape_at, Escaped};

/// Deepest bracket or parenthesis nesting accepted in a JSONPath query: the parser recurses per level, and a
/// query nested thousands deep would exhaust the thread's stack.
pub(crate) const MAX_QUERY_NESTING: usize = 64;

/// Deepest nesting of filter selectors inside filter selectors: `serde_json_path` 0.7 takes about twice as long to
/// parse each further level (measured: 10 levels 2.5 ms, 13 levels 20 ms, 32 levels did not finish in a minute).
pub(crate) const MAX_FILTER_NESTING: usize = 6;

/// One step of a path that names a single node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
  /// `['name']`: a key of an object; names nothing on anything else.
  Key(String),
  /// `[2]`, `[-1]`: an index of an array (negative counts from the end); names nothing on anything else.
  Index(i64),
  /// A dot step or pointer token: a key on an object, and `index` (when the text is an index) on an array.
  Member { key: String, index: Option<i64> },
}

/// What the `path` argument asks for.
#[derive(Debug, Clone)]
pub(crate) enum ParsedPath {
  /// A path that names at most one node (root, pointer, simple path): walked step by step.
  Steps(Vec<Step>),
  /// A JSONPath query that can select several nodes; `text` is the query as run (with `$` in front).
  Query { query: JsonPath, text: String },
}

/// The form of a path, for callers that want to know how it will be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathForm {
  /// Empty or `$`.
  Root,
  /// An RFC 6901 JSON pointer.
  Pointer,
  /// Dot and bracket steps naming at most one node (every RFC 9535 singular query is one).
  Simple,
  /// An RFC 9535 query that can select several nodes: answers a list of matches.
  Query,
}

/// Reads the `path` argument.
pub(crate) fn parse_path(path: &str) -> CoreResult<(PathForm, ParsedPath)> {
  if path.is_empty() || path == "$" {
    return Ok((PathForm::Root, ParsedPath::Steps(Vec::new())));
  }
  if let Some(pointer) = path.strip_prefix('/') {
    return parse_pointer(pointer).map(|steps| (PathForm::Pointer, ParsedPath::Steps(steps)));
  }
  if let Some(steps) = SimpleParser::new(path).parse() {
    return Ok((PathForm::Simple, ParsedPath::Steps(steps)));
  }
  let text = if path.starts_with('$') {
    path.to_string()
  } else if path.starts_with('.') || path.starts_with('[') {
    format!("${path}")
  } else {
    format!("$.{path}")
  };
  let Nesting {
    brackets: nesting,
    filters,
  } = nesting_depth(&text);
  if nesting > MAX_QUERY_NESTING || filters > MAX_FILTER_NESTING {
    return Err(not_a_path(None).with_remedy(format!(
      "Nest brackets and parentheses at most {MAX_QUERY_NESTING} deep, and filters inside filters at most \
       {MAX_FILTER_NESTING} deep. {PATH_FORMS_HELP}"
    )));
  }
  if let Some(at) = broken_unicode_escape(&text) {
    return Err(not_a_path(Some(at)));
  }
  // serde_json_path 0.7 panics ("we do not use streaming parsers") on some unfinished inputs; the check above
  // catches the known one (found by fuzzing), this catches any other.
  match std::panic::catch_unwind(|| JsonPath::parse(&text)) {
    Ok(Ok(query)) => Ok((PathForm::Query, ParsedPath::Query { query, text })),
    Ok(Err(error)) => Err(not_a_path(Some(error.position()))),
    Err(_) => Err(not_a_path(None)),
  }
}

/// Where a `\u` escape lacks its four hex digits (never valid JSONPath), in characters.
fn broken_unicode_escape(text: &str) -> Option<usize> {
  let chars: Vec<char> = text.chars().collect();
  let mut at = 0;
  while at < chars.len() {
    if chars[at] == '\\' {
      let hex_digits = chars.get(at + 2..at + 6);
      let complete = hex_digits.is_some_and(|digits| digits.iter().all(char::is_ascii_hexdigit));
      if chars.get(at + 1) == Some(&'u') && !complete {
        return Some(at);
      }
      at += 2;
    } else {
      at += 1;
    }
  }
  None
}

/// How the path forms look; part of every "not a path" remedy.
pub(crate) const PATH_FORMS_HELP: &str = "Use a path present in the shape: a dot path (`orders.2.note`, `$.orders[2].note`), \
  bracket names for keys holding dots or spaces (`$['a.b']`), a JSON pointer (`/orders/2/note`) or an RFC 9535 \
  JSONPath query (`$.orders[?@.total > 10].id`).";

fn not_a_path(position: Option<usize>) -> CoreError {
  let message = match position {
    Some(at) => format!(
      "The path is not a dot path, JSON pointer or JSONPath query (JSONPath parsing stopped at character {at})."
    ),
    None => "The path is not a dot path, JSON pointer or JSONPath query.".to_string(),
  };
  CoreError::new(ErrorCode::PathNotFound, message).with_remedy(PATH_FORMS_HELP)
}

/// RFC 6901: tokens split on `/`; `~1` is `/`, `~0` is `~`; any other `~` is malformed.
fn parse_pointer(pointer: &str) -> CoreResult<Vec<Step>> {
  pointer
    .split('/')
    .map(|token| {
      let mut key = String::with_capacity(token.len());
      let mut chars = token.chars();
      while let Some(c) = chars.next() {
        if c == '~' {
          match chars.next() {
            Some('0') => key.push('~'),
            Some('1') => key.push('/'),
            _ => {
              return Err(
                CoreError::new(
                  ErrorCode::PathNotFound,
                  "The path is not a valid JSON pointer: `~` must be followed by 0 or 1.",
                )
                .with_remedy(format!(
                  "Write `~0` for `~` and `~1` for `/` inside a pointer token. {PATH_FORMS_HELP}"
                )),
              )
            }
          }
        } else {
          key.push(c);
        }
      }
      // RFC 6901 array indexes: `0` or digits without a leading zero; `-` (past the end) names nothing.
      let index = parse_decimal(&key).filter(|_| !key.starts_with('-'));
      Ok(Step::Member { key, index })
    })
    .collect()
}

/// RFC 9535 `int`: `0` or an optional `-` then digits without a leading zero, within ±(2^53 − 1).
fn parse_decimal(text: &str) -> Option<i64> {
  let digits = text.strip_prefix('-').unwrap_or(text);
  let valid = match digits.as_bytes() {
    [] => false,
    [b'0'] => digits.len() == text.len(),
    [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
  };
  if !valid || digits.len() > 16 {
    return None;
  }
  let magnitude: u64 = digits.parse().ok()?;
  if magnitude > MAX_SAFE_INTEGER {
    return None;
  }
  let magnitude = i64::try_from(magnitude).ok()?;
  Some(if text.starts_with('-') {
    -magnitude
  } else {
    magnitude
  })
}

/// RFC 9535 blank space.
fn is_blank(c: char) -> bool {
  matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The simple-path grammar (see the module docs); `None` when the text is not one.
///
/// ```text
/// simple   = [ "$" ] [ dot-name ] *( *blank ( "." dot-name / "[" *blank ( int / quoted ) *blank "]" ) )
/// dot-name = 1*( any char but "." "[" "]" quotes, ASCII blanks and controls ), not "*"
/// ```
/// A leading `dot-name` (no dot before it) is allowed only when there is no `$`. `quoted` and `int` are RFC 9535's
/// name-selector string and index.
struct SimpleParser<'a> {
  text: &'a str,
  pos: usize,
}

impl<'a> SimpleParser<'a> {
  fn new(text: &'a str) -> Self {
    Self { text, pos: 0 }
  }

  fn peek(&self) -> Option<char> {
    self.text[self.pos..].chars().next()
  }

  fn bump(&mut self) -> Option<char> {
    let c = self.peek()?;
    self.pos += c.len_utf8();
    Some(c)
  }

  fn skip_blanks(&mut self) {
    while self.peek().is_some_and(is_blank) {
      self.pos += 1;
    }
  }

  fn parse(mut self) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    if self.peek() == Some('$') {
      self.pos += 1;
    } else if !matches!(self.peek(), Some('.') | Some('[')) {
      steps.push(self.dot_name()?);
    }
    loop {
      let before_blanks = self.pos;
      self.skip_blanks();
      match self.bump() {
        None if self.pos == before_blanks => return Some(steps),
        Some('.') => steps.push(self.dot_name()?),
        Some('[') => {
          self.skip_blanks();
          let step = match self.peek()? {
            quote @ ('\'' | '"') => {
              self.pos += 1;
              Step::Key(self.quoted(quote)?)
            }
            _ => Step::Index(self.index()?),
          };
          self.skip_blanks();
          if self.bump()? != ']' {
            return None;
          }
          steps.push(step);
        }
        // Trailing blanks, or anything else between steps.
        _ => return None,
      }
    }
  }

  fn dot_name(&mut self) -> Option<Step> {
    let start = self.pos;
    while let Some(c) = self.peek() {
      match c {
        '.' | '[' | ' ' | '\t' | '\n' | '\r' => break,
        ']' | '\'' | '"' | '\u{0}'..='\u{1f}' | '\u{7f}' => return None,
        _ => self.pos += c.len_utf8(),
      }
    }
    let name = &self.text[start..self.pos];
    if name.is_empty() || name == "*" {
      return None;
    }
    Some(Step::Member {
      key: name.to_string(),
      index: parse_decimal(name),
    })
  }

  fn index(&mut self) -> Option<i64> {
    let start = self.pos;
    if self.peek() == Some('-') {
      self.pos += 1;
    }
    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
      self.pos += 1;
    }
    parse_decimal(&self.text[start..self.pos])
  }

  /// An RFC 9535 string literal after its opening quote, up to and including the closing one.
  fn quoted(&mut self, quote: char) -> Option<String> {
    let mut out = String::new();
    loop {
      match self.bump()? {
        c if c == quote => return Some(out),
        '\\' => out.push(self.escape(quote)?),
        '\u{0}'..='\u{1f}' => return None,
        c => out.push(c),
      }
    }
  }

  /// After a backslash in a quoted key: the escaped quote, or a JSON escape read by the shared decoder (a
  /// surrogate pair written as two escapes, never a lone surrogate).
  fn escape(&mut self, quote: char) -> Option<char> {
    let backslash = self.pos - 1;
    match self.peek()? {
      c if c == quote => {
        self.pos += 1;
        Some(c)
      }
      // `\"` escapes only the quote it is in: JSON allows it, a single-quoted key does not.
      '"' => None,
      _ => {
        let (Escaped::Char(c), width) = escape_at(self.text.as_bytes(), backslash)? else {
          return None;
        };
        self.pos = backslash + width;
        Some(c)
      }
    }
  }
}

/// What [`nesting_depth`] measures in a query's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nesting {
  /// Deepest nesting of `[` / `(`.
  pub brackets: usize,
  /// Deepest nesting of filter selectors inside filter selectors.
  pub filters: usize,
}

/// Scans a query's text outside string literals: the deepest nesting of `[` / `(` and of filter selectors inside
/// filter selectors. A filter opens at `?` and closes at the `,` or `]` that ends its selector (its bracket depth
/// is kept on a stack).
fn nesting_depth(text: &str) -> Nesting {
  let mut depth = 0usize;
  let mut deepest = 0usize;
  let mut filters: Vec<usize> = Vec::new();
  let mut deepest_filters = 0usize;
  let mut quote: Option<char> = None;
  let mut escaped = false;
  for c in text.chars() {
    if let Some(q) = quote {
      if escaped {
        escaped = false;
      } else if c == '\\' {
        escaped = true;
      } else if c == q {
        quote = None;
      }
      continue;
    }
    match c {
      '\'' | '"' => quote = Some(c),
      '[' | '(' => {
        depth += 1;
        deepest = deepest.max(depth);
      }
      ']' | ')' => {
        while filters.last().is_some_and(|&at| at >= depth) {
          filters.pop();
        }
        depth = depth.saturating_sub(1);
      }
      ',' if filters.last() == Some(&depth) => {
        filters.pop();
      }
      '?' => {
        filters.push(depth);
        deepest_filters = deepest_filters.max(filters.len());
      }
      _ => {}
    }
  }
  Nesting {
    brackets: deepest,
    filters: deepest_filters,
  }
}

/// RFC 9535 normalized path (section 2.7) for a list of located steps.
pub(crate) fn normalized_path(elements: &[PathElement]) -> String {
  let mut out = String::from("$");
  for element in elements {
    push_element(&mut out, element);
  }
  out
}

/// A step of a normalized path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathElement {
  Name(String),
  Index(usize),
}

/// Appends `['name']` or `[index]` in normalized form.
pub(crate) fn push_element(out: &mut String, element: &PathElement) {
  match element {
    PathElement::Index(index) => {
      out.push('[');
      out.push_str(&index.to_string());
      out.push(']');
    }
    PathElement::Name(name) => {
      out.push_str("['");
      for c in name.chars() {
        match c {
          '\u{8}' => out.push_str("\\b"),
          '\u{c}' => out.push_str("\\f"),
          '\n' => out.push_str("\\n"),
          '\r' => out.push_str("\\r"),
          '\t' => out.push_str("\\t"),
          '\'' => out.push_str("\\'"),
          '\\' => out.push_str("\\\\"),
          '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
          _ => out.push(c),
        }
      }
      out.push_str("']");
    }
  }
}

#[cfg(test)]
mod tests;
