//! From the expression's text to the tree the evaluator walks: the length and nesting checked before the
//! `jmespath` crate's recursive parser sees the text, then the crate's tree turned into [`Expr`] (functions
//! resolved and their arity checked, literals as serde_json values, a slice step of 0 refused).

use jmespath::ast::{Ast, Comparator};
use jmespath::{ErrorReason, JmespathError};
use serde_json::Value;

use super::functions::Function;
use super::{invalid, MAX_EXPRESSION_BYTES, MAX_NESTING};
use crate::core::error::{CoreError, CoreResult};

/// One node of a parsed expression; the shapes are the crate's `Ast`.
#[derive(Debug)]
pub(super) enum Expr {
  Identity,
  Field(String),
  Index(i64),
  Slice(Option<i64>, Option<i64>, i64),
  Literal(Value),
  /// The right side evaluated on the left side's result (`a.b`, `a | b`, `a[0]`).
  Sub(Box<Expr>, Box<Expr>),
  /// The right side evaluated on each item of the left side's array, null results left out.
  Project(Box<Expr>, Box<Expr>),
  /// An object's values as an array (null for anything else).
  Values(Box<Expr>),
  /// An array with its array items spread one level (null for anything else).
  Flatten(Box<Expr>),
  /// The second expression when the first is truthy, else null (a filter's test on one item).
  Condition(Box<Expr>, Box<Expr>),
  Compare(Comparator, Box<Expr>, Box<Expr>),
  And(Box<Expr>, Box<Expr>),
  Or(Box<Expr>, Box<Expr>),
  Not(Box<Expr>),
  List(Vec<Expr>),
  Hash(Vec<(String, Expr)>),
  Call(Function, Vec<Expr>),
  Ref(Box<Expr>),
}

/// Parses `text`, refusing what is too long or nests too deep before any recursion.
pub(super) fn compile(text: &str) -> CoreResult<Expr> {
  if text.len() > MAX_EXPRESSION_BYTES {
    return Err(invalid(
      format!(
        "expression is {} bytes long, over the limit of {MAX_EXPRESSION_BYTES} bytes.",
        text.len()
      ),
      "Write a shorter expression: narrow the input with `path` instead of naming many members.",
    ));
  }
  let depth = nesting(text);
  if depth > MAX_NESTING {
    return Err(invalid(
      format!(
        "expression nests too deep: its brackets, operators and projections reach {depth} levels, over the \
         limit of {MAX_NESTING}."
      ),
      "Write a flatter expression: fewer brackets inside brackets and fewer projections one after another.",
    ));
  }
  // The crate's parser is not known to panic; a panic is still only a refused expression.
  match std::panic::catch_unwind(|| jmespath::parse(text)) {
    Ok(Ok(ast)) => convert(&ast),
    Ok(Err(error)) => Err(syntax(text, &error)),
    Err(_) => Err(syntax_error("the parser failed".into())),
  }
}

/// An upper bound, read without parsing, of how deep the crate's parser recurses on `text` and of how deep the
/// tree it builds nests: each open bracket, plus each operator, dot and projection met since the innermost open
/// bracket opened or last met a comma (the parser's recursion unwinds there; a chain such as `a.b.c` nests the
/// tree one level per dot). A closed bracket counts once where it stands: `[*]`, `[?…]` and `[]` nest what follows.
pub(super) fn nesting(text: &str) -> usize {
  let bytes = text.as_bytes();
  let mut levels = vec![0usize];
  let (mut depth, mut deepest, mut at) = (0usize, 0usize, 0usize);
  while let Some(&byte) = bytes.get(at) {
    at += 1;
    match byte {
      b'\'' | b'"' | b'`' => at = quoted_end(bytes, at, byte),
      b'(' | b'[' | b'{' => {
        levels.push(0);
        depth += 1;
      }
      b')' | b']' | b'}' if levels.len() > 1 => {
        // The bracket's own level becomes one count where it stands.
        depth -= levels.pop().unwrap_or(0);
        *levels.last_mut().unwrap_or(&mut 0) += 1;
      }
      b',' => {
        let here = levels.last_mut().map_or(0, std::mem::take);
        depth -= here;
      }
      b'.' | b'*' | b'!' | b'&' | b'|' | b'<' | b'>' | b'=' => {
        let next = bytes.get(at).copied();
        let pair = match byte {
          b'|' | b'&' => next == Some(byte),
          b'.' | b'*' => false,
          _ => next == Some(b'='),
        };
        at += usize::from(pair);
        *levels.last_mut().unwrap_or(&mut 0) += 1;
        depth += 1;
      }
      _ => {}
    }
    deepest = deepest.max(depth);
  }
  deepest
}

/// Where a quoted name, raw string or JSON literal opened before `at` ends: after its closing `quote` (a backslash
/// escapes the next character, as the crate's lexer reads them), or at the end of the text.
fn quoted_end(bytes: &[u8], mut at: usize, quote: u8) -> usize {
  while let Some(&byte) = bytes.get(at) {
    at += 1;
    if byte == b'\\' {
      at += 1;
    } else if byte == quote {
      break;
    }
  }
  at
}

fn syntax(text: &str, error: &JmespathError) -> CoreError {
  let reason = match &error.reason {
    ErrorReason::Parse(reason) => reason.as_str(),
    ErrorReason::Runtime(_) => "",
  };
  // The crate's reasons name the token found and may quote the expression; only the kind of error is kept.
  let reason = reason.split(" -- found").next().unwrap_or_default();
  let reason = if reason.contains("literal JSON") {
    "a literal in backticks is not valid JSON"
  } else if reason.contains("quoted identifier") {
    "a quoted name is not a valid JSON string"
  } else {
    reason.split(':').next().unwrap_or_default()
  };
  let at = text
    .char_indices()
    .take_while(|&(at, _)| at < error.offset)
    .count();
  syntax_error(format!(
    "{} at character {at}",
    reason.trim().trim_end_matches('.')
  ))
}

fn syntax_error(detail: String) -> CoreError {
  invalid(
    format!("expression is not valid JMESPath ({detail})."),
    "Write a JMESPath expression (jmespath.org), e.g. `length(orders[?status == 'open'])` or \
     `max_by(orders, &amount).id`: raw strings in single quotes, JSON literals in backticks, names that are not \
     plain identifiers in double quotes.",
  )
}

/// The crate's tree as an [`Expr`]. Each shape's work is in a helper, so that this frame, which every level of
/// the tree adds to the stack, stays small in a debug build.
fn convert(ast: &Ast) -> CoreResult<Expr> {
  match ast {
    Ast::Subexpr { lhs, rhs, .. } => two(lhs, rhs, Expr::Sub),
    Ast::Projection { lhs, rhs, .. } => two(lhs, rhs, Expr::Project),
    Ast::Condition {
      predicate, then, ..
    } => two(predicate, then, Expr::Condition),
    Ast::Comparison {
      comparator,
      lhs,
      rhs,
      ..
    } => two(lhs, rhs, |l, r| Expr::Compare(comparator.clone(), l, r)),
    Ast::And { lhs, rhs, .. } => two(lhs, rhs, Expr::And),
    Ast::Or { lhs, rhs, .. } => two(lhs, rhs, Expr::Or),
    Ast::ObjectValues { node, .. } => one(node, Expr::Values),
    Ast::Flatten { node, .. } => one(node, Expr::Flatten),
    Ast::Not { node, .. } => one(node, Expr::Not),
    Ast::Expref { ast, .. } => one(ast, Expr::Ref),
    Ast::MultiList { elements, .. } => elements
      .iter()
      .map(convert)
      .collect::<CoreResult<_>>()
      .map(Expr::List),
    Ast::MultiHash { elements, .. } => elements
      .iter()
      .map(|pair| Ok((pair.key.clone(), convert(&pair.value)?)))
      .collect::<CoreResult<_>>()
      .map(Expr::Hash),
    Ast::Function { name, args, .. } => {
      let function = Function::resolve(name, args.len())?;
      args
        .iter()
        .map(convert)
        .collect::<CoreResult<_>>()
        .map(|args| Expr::Call(function, args))
    }
    leaf => convert_leaf(leaf),
  }
}

fn one(node: &Ast, make: impl FnOnce(Box<Expr>) -> Expr) -> CoreResult<Expr> {
  Ok(make(Box::new(convert(node)?)))
}

fn two(lhs: &Ast, rhs: &Ast, make: impl FnOnce(Box<Expr>, Box<Expr>) -> Expr) -> CoreResult<Expr> {
  Ok(make(Box::new(convert(lhs)?), Box::new(convert(rhs)?)))
}

fn convert_leaf(ast: &Ast) -> CoreResult<Expr> {
  Ok(match ast {
    Ast::Field { name, .. } => Expr::Field(name.clone()),
    Ast::Index { idx, .. } => Expr::Index(i64::from(*idx)),
    Ast::Slice { step: 0, .. } => {
      return Err(invalid(
        "expression slices with a step of 0.".into(),
        "Use a slice step other than 0, e.g. `[::2]` or `[::-1]`.",
      ))
    }
    Ast::Slice {
      start, stop, step, ..
    } => Expr::Slice(start.map(i64::from), stop.map(i64::from), i64::from(*step)),
    Ast::Literal { value, .. } => Expr::Literal(serde_json::to_value(&**value).unwrap_or_default()),
    _ => Expr::Identity,
  })
}
