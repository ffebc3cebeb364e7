//! The whole node a path names, as JSON text: what a handle reference in a tool's arguments resolves to.
//!
//! Same path forms and the same errors as `result_query`, but no window: the node comes whole, printed as
//! `JSON.stringify` prints it (a list's items are copied from the answer's text as they are).

use serde_json::value::RawValue;

use super::args::QueryPath;
use super::json::{replace_lone_surrogates, write_str, write_value};
use super::path::ParsedPath;
use super::seek::{seek, Terminal};
use super::walk::unreadable;
use super::{nothing_at, select_values};
use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// The node `path` names in the answer's JSON text (UTF-8), as JSON text. A JSONPath query that can select several
/// nodes gives the list of its matches. RESULT_PATH_NOT_FOUND when the path names nothing.
pub fn node_json(answer_json: &[u8], path: &QueryPath) -> CoreResult<String> {
  let parsed = path.parsed();
  let text = std::str::from_utf8(answer_json).map_err(|_| {
    CoreError::new(
      ErrorCode::InvalidInput,
      "The stored answer is not UTF-8 text.",
    )
    .with_remedy("Call the original tool again.")
  })?;
  match node_in(text, parsed) {
    Err(error) if error.code == ErrorCode::InvalidInput => match replace_lone_surrogates(text) {
      Some(repaired) => node_in(&repaired, parsed),
      None => Err(error),
    },
    outcome => outcome,
  }
}

fn node_in(text: &str, parsed: &ParsedPath) -> CoreResult<String> {
  match parsed {
    // The whole answer: its text is already what JSON.stringify printed.
    ParsedPath::Steps(steps) if steps.is_empty() => {
      serde_json::from_str::<&RawValue>(text).map_err(unreadable)?;
      Ok(text.to_string())
    }
    ParsedPath::Steps(steps) => match seek(text, steps).map_err(unreadable)? {
      Some((Terminal::Array(items), _)) => {
        let mut out =
          String::with_capacity(items.iter().map(|item| item.get().len() + 1).sum::<usize>() + 2);
        out.push('[');
        for (i, item) in items.iter().enumerate() {
          if i > 0 {
            out.push(',');
          }
          out.push_str(item.get());
        }
        out.push(']');
        Ok(out)
      }
      Some((Terminal::Text(string), _)) => {
        let mut out = String::with_capacity(string.len() + 2);
        write_str(&mut out, &string);
        Ok(out)
      }
      Some((Terminal::Whole(value), _)) => {
        let mut out = String::new();
        write_value(&mut out, &value, None);
        Ok(out)
      }
      None => nothing_at(text, steps),
    },
    ParsedPath::Query { query, .. } => {
      let mut out = String::from("[");
      for (i, node) in select_values(text, query)?.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_value(&mut out, node, None);
      }
      out.push(']');
      Ok(out)
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  const ANSWER: &str =
    r#"{"orders":[{"id":1,"note":"a"},{"id":2,"note":"\u2028b"}],"n":1e+21,"s":"x\ud83d"}"#;

  fn node_json(answer: &[u8], path: &str) -> CoreResult<String> {
    super::node_json(answer, &QueryPath::parse(path)?)
  }

  #[test]
  fn names_whole_nodes_in_every_path_form() {
    assert_eq!(node_json(ANSWER.as_bytes(), "$").unwrap(), ANSWER);
    assert_eq!(
      node_json(ANSWER.as_bytes(), "orders").unwrap(),
      r#"[{"id":1,"note":"a"},{"id":2,"note":"\u2028b"}]"#
    );
    assert_eq!(node_json(ANSWER.as_bytes(), "/orders/1/id").unwrap(), "2");
    assert_eq!(
      node_json(ANSWER.as_bytes(), "$.orders[0]").unwrap(),
      r#"{"id":1,"note":"a"}"#
    );
    assert_eq!(node_json(ANSWER.as_bytes(), "n").unwrap(), "1e+21");
    assert_eq!(
      node_json(ANSWER.as_bytes(), "$.orders[*].id").unwrap(),
      "[1,2]"
    );
    // A lone surrogate reads as U+FFFD, as result_query reads it.
    assert_eq!(node_json(ANSWER.as_bytes(), "s").unwrap(), "\"x\u{fffd}\"");
  }

  #[test]
  fn a_path_naming_nothing_is_path_not_found() {
    let error = node_json(ANSWER.as_bytes(), "orders.5").unwrap_err();
    assert_eq!(error.code, ErrorCode::PathNotFound);
    assert!(error.remedy.unwrap_or_default().contains("2 items"));
  }
}
