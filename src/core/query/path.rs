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
#[derive(Debug)]
pub(crate) enum ParsedPath {
  /// A path that names at most one node (root, pointer, simple path): walked step by step.
  Steps(Vec<Step>),
  /// A JSONPath query that can select several nodes; `text` is the query as run (with `$` in front).
  /// `descents` is the query's cost exponent k (see [`nesting_depth`]): evaluating it costs up to about
  /// N × D^k node visits on an answer of N nodes nested D deep.
  Query {
    query: JsonPath,
    text: String,
    descents: u32,
  },
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
    descents,
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
    Ok(Ok(query)) => Ok((
      PathForm::Query,
      ParsedPath::Query {
        query,
        text,
        descents,
      },
    )),
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
        '\\' => {
          let c = match self.bump()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '/' => '/',
            '\\' => '\\',
            c if c == quote => c,
            'u' => self.unicode_escape()?,
            _ => return None,
          };
          out.push(c);
        }
        '\u{0}'..='\u{1f}' => return None,
        c => out.push(c),
      }
    }
  }

  /// After `\u`: four hex digits, a surrogate pair written as two escapes, never a lone surrogate.
  fn unicode_escape(&mut self) -> Option<char> {
    let first = self.hex4()?;
    match first {
      0xD800..=0xDBFF => {
        if self.bump()? != '\\' || self.bump()? != 'u' {
          return None;
        }
        let second = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&second) {
          return None;
        }
        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
      }
      0xDC00..=0xDFFF => None,
      _ => char::from_u32(first),
    }
  }

  fn hex4(&mut self) -> Option<u32> {
    let digits = self.text.get(self.pos..self.pos + 4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
      return None;
    }
    self.pos += 4;
    u32::from_str_radix(digits, 16).ok()
  }
}

/// What [`nesting_depth`] measures in a query's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nesting {
  /// Deepest nesting of `[` / `(`.
  pub brackets: usize,
  /// Deepest nesting of filter selectors inside filter selectors.
  pub filters: usize,
  /// The cost exponent k: how many times evaluation may multiply by the answer's depth.
  pub descents: u32,
}

/// An open filter selector while scanning.
struct FilterFrame {
  /// The bracket depth the filter lives at.
  depth: usize,
  /// Descendant segments (`..`) in this filter's own text, nested filters left out.
  own: u32,
  /// The largest exponent of a filter nested in this one.
  nested: u32,
}

/// Scans a query's text outside string literals: the deepest nesting of `[` / `(`, of filter selectors inside
/// filter selectors, and the cost exponent k.
///
/// A filter opens at `?` and closes at the `,` or `]` that ends its selector.
///
/// Cost model: a descendant segment (`..`) visits the whole subtree of every node it starts from. From one node,
/// that is at most N nodes; from a set of nodes that may nest inside each other (what an earlier `..` selects, or
/// every node a filter runs on), it is at most N × D, since each node is in the subtree of at most D others (D =
/// the answer's depth). A filter runs its queries once per candidate node, so each `..` inside a filter multiplies
/// by D, and a filter inside a filter multiplies again. Hence k = (descendant segments of the query itself, less
/// the first, which costs N) + along the deepest chain of nested filters, each filter's own descendant segments.
/// Filter tests side by side add rather than multiply; k takes the largest.
fn nesting_depth(text: &str) -> Nesting {
  let mut depth = 0usize;
  let mut deepest = 0usize;
  let mut filters: Vec<FilterFrame> = Vec::new();
  let mut deepest_filters = 0usize;
  let mut top_own = 0u32;
  let mut top_nested = 0u32;
  let mut after_dot = false;
  let mut quote: Option<char> = None;
  let mut escaped = false;
  // Closes the innermost filter and hands its exponent to the one around it (or to the query itself).
  fn close(filters: &mut Vec<FilterFrame>, top_nested: &mut u32) {
    if let Some(frame) = filters.pop() {
      let total = frame.own.saturating_add(frame.nested);
      let outer = match filters.last_mut() {
        Some(parent) => &mut parent.nested,
        None => top_nested,
      };
      *outer = (*outer).max(total);
    }
  }
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
    if c == '.' {
      if after_dot {
        match filters.last_mut() {
          Some(frame) => frame.own = frame.own.saturating_add(1),
          None => top_own = top_own.saturating_add(1),
        }
        after_dot = false;
      } else {
        after_dot = true;
      }
      continue;
    }
    after_dot = false;
    match c {
      '\'' | '"' => quote = Some(c),
      '[' | '(' => {
        depth += 1;
        deepest = deepest.max(depth);
      }
      ']' | ')' => {
        while filters.last().is_some_and(|frame| frame.depth >= depth) {
          close(&mut filters, &mut top_nested);
        }
        depth = depth.saturating_sub(1);
      }
      ',' if filters.last().is_some_and(|frame| frame.depth == depth) => {
        close(&mut filters, &mut top_nested);
      }
      '?' => {
        filters.push(FilterFrame {
          depth,
          own: 0,
          nested: 0,
        });
        deepest_filters = deepest_filters.max(filters.len());
      }
      _ => {}
    }
  }
  while !filters.is_empty() {
    close(&mut filters, &mut top_nested);
  }
  Nesting {
    brackets: deepest,
    filters: deepest_filters,
    descents: top_own.saturating_sub(1).saturating_add(top_nested),
  }
}

/// Largest estimated cost (node visits, N × D^k) a query with descendant segments may have. Measured on a
/// release build (see docs/query.md): about 1 s at this many.
pub(crate) const MAX_QUERY_COST: u64 = 10_000_000;

/// Node count N and depth D (the root alone is depth 1) of a parsed answer, in one walk with an explicit stack.
pub(crate) fn size_and_depth(root: &serde_json::Value) -> (u64, u64) {
  use serde_json::Value;
  let mut nodes = 0u64;
  let mut deepest = 0u64;
  let mut stack: Vec<(&Value, u64)> = vec![(root, 1)];
  while let Some((node, depth)) = stack.pop() {
    nodes += 1;
    deepest = deepest.max(depth);
    match node {
      Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
      Value::Object(map) => stack.extend(map.values().map(|item| (item, depth + 1))),
      _ => {}
    }
  }
  (nodes, deepest)
}

/// N × D^k, saturating.
pub(crate) fn query_cost(nodes: u64, depth: u64, descents: u32) -> u64 {
  (0..descents).fold(nodes, |cost, _| cost.saturating_mul(depth))
}

/// Refuses a query whose estimated cost on `answer` is over [`MAX_QUERY_COST`], before it runs. Queries without
/// a multiplying descendant segment (k = 0) cost about as much as reading the answer and always run.
pub(crate) fn check_query_cost(answer: &serde_json::Value, descents: u32) -> CoreResult<()> {
  if descents == 0 {
    return Ok(());
  }
  let (nodes, depth) = size_and_depth(answer);
  if query_cost(nodes, depth, descents) <= MAX_QUERY_COST {
    return Ok(());
  }
  Err(
    CoreError::new(
      ErrorCode::InvalidInput,
      format!(
        "path is too costly for this answer: its descendant segments (`..`) inside filters (or after a first `..`) \
         would visit about {nodes} nodes × depth {depth} to the power {descents}, over the limit of \
         {MAX_QUERY_COST} node visits."
      ),
    )
    .with_remedy(
      "Use a more specific path: name the list to search (`$.orders[?@.total > 10]`) instead of `$..`, use no `..` \
       inside filters (test a named child such as `@.c` instead of `@..c`), or query a narrower part of the answer \
       and page through it.",
    ),
  )
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
mod tests {
  use super::*;

  fn steps(path: &str) -> Option<Vec<Step>> {
    match parse_path(path) {
      Ok((_, ParsedPath::Steps(steps))) => Some(steps),
      _ => None,
    }
  }

  fn member(key: &str, index: Option<i64>) -> Step {
    Step::Member {
      key: key.to_string(),
      index,
    }
  }

  #[test]
  fn root_forms() {
    assert!(matches!(parse_path(""), Ok((PathForm::Root, _))));
    assert!(matches!(parse_path("$"), Ok((PathForm::Root, _))));
    assert_eq!(steps("$"), Some(vec![]));
    assert!(matches!(parse_path("/"), Ok((PathForm::Pointer, _))));
    assert!(matches!(parse_path("a"), Ok((PathForm::Simple, _))));
  }

  #[test]
  fn dot_paths() {
    let expected = vec![
      member("orders", None),
      member("2", Some(2)),
      member("note", None),
    ];
    assert_eq!(steps("orders.2.note"), Some(expected.clone()));
    assert_eq!(steps("$.orders.2.note"), Some(expected));
    assert_eq!(
      steps("$.orders[2].note"),
      Some(vec![
        member("orders", None),
        Step::Index(2),
        member("note", None)
      ])
    );
    assert_eq!(
      steps("$.orders.-1"),
      Some(vec![member("orders", None), member("-1", Some(-1))])
    );
    assert_eq!(
      steps("a.02"),
      Some(vec![member("a", None), member("02", None)])
    );
    assert_eq!(
      steps("$.content-type"),
      Some(vec![member("content-type", None)])
    );
    assert_eq!(
      steps("[0].a"),
      Some(vec![Step::Index(0), member("a", None)])
    );
    assert_eq!(steps(".a"), Some(vec![member("a", None)]));
  }

  #[test]
  fn bracket_names_and_blanks() {
    assert_eq!(steps("$['a.b']"), Some(vec![Step::Key("a.b".into())]));
    assert_eq!(steps("$[\"x y\"]"), Some(vec![Step::Key("x y".into())]));
    assert_eq!(
      steps("$[ 'a' ] [ -1 ]"),
      Some(vec![Step::Key("a".into()), Step::Index(-1)])
    );
    assert_eq!(
      steps("$['\\u263A\\'\"']"),
      Some(vec![Step::Key("☺'\"".into())])
    );
    assert_eq!(
      steps("$[\"\\uD834\\uDD1E\"]"),
      Some(vec![Step::Key("𝄞".into())])
    );
  }

  #[test]
  fn pointers() {
    assert_eq!(steps("/"), Some(vec![member("", None)]));
    assert_eq!(
      steps("/a~1b/m~0n/0"),
      Some(vec![
        member("a/b", None),
        member("m~n", None),
        member("0", Some(0))
      ])
    );
    assert_eq!(
      steps("/a/-1"),
      Some(vec![member("a", None), member("-1", None)])
    );
    assert_eq!(
      steps("/a/01"),
      Some(vec![member("a", None), member("01", None)])
    );
    let error = parse_path("/a~2").expect_err("bad escape");
    assert_eq!(error.code, ErrorCode::PathNotFound);
    assert!(error.remedy.as_deref().is_some_and(|r| r.contains("~1")));
  }

  #[test]
  fn queries_that_select_several_nodes() {
    for path in [
      "$.*",
      "$..a",
      "$[0,1]",
      "$[1:3]",
      "$[?@.a > 1]",
      "orders[*].id",
      "..a",
      "[*]",
    ] {
      assert!(
        matches!(parse_path(path), Ok((PathForm::Query, _))),
        "{path}"
      );
    }
  }

  #[test]
  fn not_paths() {
    for path in [
      "$ ",
      " $",
      "$. a",
      "$.a b",
      "$[01]",
      "$[-0]",
      "$['a]",
      "$[\"\\uD800\"]",
      "$.a..",
      "$.'a'",
      "$[?]",
    ] {
      let error = parse_path(path).expect_err(path);
      assert_eq!(error.code, ErrorCode::PathNotFound, "{path}");
      assert!(
        error
          .remedy
          .as_deref()
          .is_some_and(|r| r.contains("JSON pointer")),
        "{path}"
      );
    }
  }

  #[test]
  fn deep_nesting_is_refused_before_parsing() {
    let deep = format!("$[?{}@.a{}]", "(".repeat(5000), ")".repeat(5000));
    let error = parse_path(&deep).expect_err("too deep");
    assert_eq!(error.code, ErrorCode::PathNotFound);
    assert!(error
      .remedy
      .as_deref()
      .is_some_and(|r| r.contains("at most 64")));
    let nested = format!("$[?{}@.a{}]", "@[?".repeat(6), "]".repeat(6));
    let error = parse_path(&nested).expect_err("filters too deep");
    assert!(error
      .remedy
      .as_deref()
      .is_some_and(|r| r.contains("filters inside filters at most 6")));
    let nested = format!("$[?{}@.a{}]", "count(@[1, ?".repeat(6), "])>0".repeat(6));
    assert!(parse_path(&nested).is_err());
    // Sibling filters and filters in a selector list do not nest.
    let siblings = format!("$.a{}", "[?@.x > 1, ?@.y]".repeat(10));
    assert!(parse_path(&siblings).is_ok());
    let five = format!("$[?{}@['?,]']{}]", "@[?".repeat(5), "]".repeat(5));
    assert!(parse_path(&five).is_ok());
    let fine = format!("$[?{}@.a == 1{}]", "(".repeat(63), ")".repeat(63));
    let started = std::time::Instant::now();
    assert!(parse_path(&fine).is_ok());
    eprintln!("63 nested parentheses parsed in {:?}", started.elapsed());
  }

  #[test]
  fn cost_exponent_counts_descendants_inside_filters() {
    let k = |text: &str| nesting_depth(text).descents;
    assert_eq!(k("$..a"), 0);
    assert_eq!(k("$.orders[?@.status=='shipped']"), 0);
    assert_eq!(k("$..[?@.id > 3]"), 0);
    assert_eq!(k("$..[?@..c]"), 1);
    assert_eq!(k("$..[?@..[?@..c]]"), 2);
    assert_eq!(k("$..[?@..[?@..[?@..c]]]"), 3);
    assert_eq!(k("$..*..*"), 1);
    assert_eq!(k("$.a[?@..b && count(@..c) > 1]"), 2);
    // Side by side: the largest chain, not the sum.
    assert_eq!(k("$[?@..a, ?@..[?@..b]]"), 2);
    assert_eq!(k("$[?@..a][?@.b]"), 1);
    // Dots in string literals are no descendant segments.
    assert_eq!(k("$[?@['..'] == '..' && @[\"a..b\"]]"), 0);
  }

  #[test]
  fn query_cost_is_nodes_times_depth_to_the_k() {
    let doc = serde_json::json!([{"a": {"b": 1}}, 2]);
    assert_eq!(size_and_depth(&doc), (5, 4));
    assert_eq!(query_cost(5, 4, 0), 5);
    assert_eq!(query_cost(5, 4, 2), 80);
    assert_eq!(query_cost(u64::MAX / 2, 128, 40), u64::MAX);
    let deep = (0..10_000).fold(serde_json::json!(1), |inner, _| {
      serde_json::Value::Array(vec![inner])
    });
    assert_eq!(size_and_depth(&deep), (10_001, 10_001));
    // Deep values drop recursively in serde_json; forget this one instead of overflowing the test's stack.
    std::mem::forget(deep);
  }

  #[test]
  fn normalized_form_escapes() {
    let elements = vec![
      PathElement::Name("a'b\\c\u{1}\u{1f}\n".into()),
      PathElement::Index(3),
    ];
    assert_eq!(
      normalized_path(&elements),
      "$['a\\'b\\\\c\\u0001\\u001f\\n'][3]"
    );
  }
}
