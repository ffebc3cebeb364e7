//! The `result_query` arguments: `handle`, `path`, `offset`, `limit`, `page`, `fields`.

use serde_json::{Map, Value};

use super::json::{write_str, MAX_SAFE_INTEGER};
use super::path::{parse_path, ParsedPath, PathForm};
use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// Items a list answer holds when `limit` is not given.
pub const DEFAULT_LIST_LIMIT: usize = 20;
/// Characters (JS string units) a string answer holds when `limit` is not given.
pub const DEFAULT_STRING_LIMIT: usize = 2000;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 100_000;

/// A `path` argument, read once: its text as given, its form, and what it asks for. Every reader of a query
/// (the path index planner, the kept match pages, the full read) uses this one reading.
#[derive(Debug, Clone)]
pub struct QueryPath {
  text: String,
  form: PathForm,
  parsed: ParsedPath,
}

impl QueryPath {
  /// Reads `text`; RESULT_PATH_NOT_FOUND when it is no path form at all.
  pub fn parse(text: impl Into<String>) -> CoreResult<Self> {
    let text = text.into();
    let (form, parsed) = parse_path(&text)?;
    Ok(Self { text, form, parsed })
  }

  /// The path as given.
  pub fn text(&self) -> &str {
    &self.text
  }

  /// How the path is read.
  pub fn form(&self) -> PathForm {
    self.form
  }

  pub(crate) fn parsed(&self) -> &ParsedPath {
    &self.parsed
  }
}

/// Two readings of the same text are the same reading.
impl PartialEq for QueryPath {
  fn eq(&self, other: &Self) -> bool {
    self.text == other.text
  }
}

impl Eq for QueryPath {}

/// Validated `result_query` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryArgs {
  /// The handle of a kept answer (checked by the store, not here).
  pub handle: String,
  /// The path to read, parsed; `$` when not given.
  pub path: QueryPath,
  /// First item or character to read.
  pub offset: Option<u64>,
  /// Items or characters to read: 1..=100000.
  pub limit: Option<usize>,
  /// Page (from 1) of `limit` items or characters, in place of `offset`.
  pub page: Option<u64>,
  /// Keys to keep of an object, or of each object in a list.
  pub fields: Option<Vec<String>>,
}

impl QueryArgs {
  /// Arguments reading `path` of `handle` from the start; RESULT_PATH_NOT_FOUND when `path` is no path form.
  pub fn new(handle: impl Into<String>, path: &str) -> CoreResult<Self> {
    Ok(Self {
      handle: handle.into(),
      path: QueryPath::parse(path)?,
      offset: None,
      limit: None,
      page: None,
      fields: None,
    })
  }

  /// The arguments as JSON, with the default path filled in and absent ones left out.
  pub fn to_json(&self) -> String {
    let mut out = String::from("{\"handle\":");
    write_str(&mut out, &self.handle);
    out.push_str(",\"path\":");
    write_str(&mut out, self.path.text());
    for (name, value) in [
      ("offset", self.offset),
      ("limit", self.limit.map(|l| l as u64)),
      ("page", self.page),
    ] {
      if let Some(value) = value {
        out.push_str(&format!(",\"{name}\":{value}"));
      }
    }
    if let Some(fields) = &self.fields {
      out.push_str(",\"fields\":[");
      for (i, field) in fields.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_str(&mut out, field);
      }
      out.push(']');
    }
    out.push('}');
    out
  }
}

fn invalid(message: impl Into<String>, remedy: impl Into<String>) -> CoreError {
  CoreError::new(ErrorCode::InvalidInput, message).with_remedy(remedy)
}

/// Validates `result_query` arguments as the tool receives them (a JSON object).
///
/// `null` counts as absent. Unknown keys are ignored, as the TS plugin's schema ignores them. Every problem is an
/// INVALID_INPUT naming the argument and its allowed range; a path that is no path form at all is
/// RESULT_PATH_NOT_FOUND, found here, before any store is read.
pub fn parse_query_args(args: &Value) -> CoreResult<QueryArgs> {
  let Some(object) = args.as_object() else {
    return Err(invalid(
      "The arguments must be an object.",
      "Pass an object such as { \"handle\": \"<handle from the folded answer>\", \"path\": \"$\" }.",
    ));
  };
  let handle = match present(object, "handle") {
    Some(Value::String(handle)) if !handle.is_empty() => handle.clone(),
    _ => {
      return Err(invalid(
        "handle must be a non-empty string.",
        "Pass handle exactly as the folded answer gave it.",
      ))
    }
  };
  let path = match present(object, "path") {
    None => "$",
    Some(Value::String(path)) => path.as_str(),
    Some(_) => {
      return Err(invalid(
        "path must be a string.",
        "Pass path as a string such as \"$\", \"orders.2.note\", \"/orders/2/note\" or \"$.orders[*].id\", or leave it out to read the whole answer.",
      ))
    }
  };
  let offset = whole(object, "offset", 0, MAX_SAFE_INTEGER)?;
  let limit = whole(object, "limit", 1, MAX_LIMIT as u64)?.map(|limit| limit as usize);
  let page = whole(object, "page", 1, MAX_SAFE_INTEGER)?;
  if offset.is_some() && page.is_some() {
    return Err(invalid(
      "page and offset cannot be used together.",
      "Pass either offset (the first item or character to read) or page (from 1, in steps of limit), not both.",
    ));
  }
  let path = QueryPath::parse(path)?;
  let fields = match present(object, "fields") {
    None => None,
    Some(Value::Array(items)) if !items.is_empty() => Some(
      items
        .iter()
        .map(|item| item.as_str().map(str::to_string))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(fields_error)?,
    ),
    Some(_) => return Err(fields_error()),
  };
  Ok(QueryArgs {
    handle,
    path,
    offset,
    limit,
    page,
    fields,
  })
}

fn fields_error() -> CoreError {
  invalid(
    "fields must be a non-empty array of strings.",
    "Pass fields as the keys to keep, for example [\"id\", \"name\"], or leave it out to keep every key.",
  )
}

fn present<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
  object.get(name).filter(|value| !value.is_null())
}

/// A whole number within `min..=max` (a JS number such as `5.0` counts as whole).
fn whole(object: &Map<String, Value>, name: &str, min: u64, max: u64) -> CoreResult<Option<u64>> {
  let Some(value) = present(object, name) else {
    return Ok(None);
  };
  let number = value.as_u64().or_else(|| {
    value
      .as_f64()
      .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
      .map(|f| f as u64)
  });
  match number {
    Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
    _ => Err(invalid(
      format!("{name} must be a whole number from {min} to {max}."),
      format!(
        "Pass {name} as a whole number from {min} to {max}, or leave it out{}.",
        match name {
          "limit" => " (20 items or 2000 characters)",
          "offset" => " to start at 0",
          _ => " to read the first page",
        }
      ),
    )),
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn error(args: Value) -> CoreError {
    parse_query_args(&args).expect_err("should be refused")
  }

  #[test]
  fn defaults_and_normal_form() {
    let args =
      parse_query_args(&json!({"handle": "h", "extra": true, "offset": null})).expect("valid");
    assert_eq!(Ok(args.clone()), QueryArgs::new("h", "$"));
    assert_eq!(args.to_json(), r#"{"handle":"h","path":"$"}"#);
    let args = parse_query_args(
      &json!({"handle": "h", "path": "a", "page": 2.0, "limit": 5, "fields": ["__proto__"]}),
    )
    .expect("valid");
    assert_eq!(args.page, Some(2));
    assert_eq!(args.limit, Some(5));
    assert_eq!(
      args.to_json(),
      r#"{"handle":"h","path":"a","limit":5,"page":2,"fields":["__proto__"]}"#
    );
  }

  #[test]
  fn every_argument_is_checked_and_named() {
    let cases = [
      (json!([]), "arguments"),
      (json!({}), "handle"),
      (json!({"handle": 1}), "handle"),
      (json!({"handle": ""}), "handle"),
      (json!({"handle": "h", "path": 3}), "path"),
      (
        json!({"handle": "h", "offset": -1}),
        "offset must be a whole number from 0 to 9007199254740991",
      ),
      (json!({"handle": "h", "offset": 1.5}), "offset"),
      (json!({"handle": "h", "offset": "3"}), "offset"),
      (
        json!({"handle": "h", "offset": 9007199254740992u64}),
        "offset",
      ),
      (
        json!({"handle": "h", "limit": 0}),
        "limit must be a whole number from 1 to 100000",
      ),
      (json!({"handle": "h", "limit": 100001}), "limit"),
      (json!({"handle": "h", "limit": 2.5}), "limit"),
      (
        json!({"handle": "h", "page": 0}),
        "page must be a whole number from 1",
      ),
      (json!({"handle": "h", "page": true}), "page"),
      (
        json!({"handle": "h", "page": 1, "offset": 0}),
        "page and offset",
      ),
      (json!({"handle": "h", "fields": []}), "fields"),
      (json!({"handle": "h", "fields": "id"}), "fields"),
      (json!({"handle": "h", "fields": ["id", 2]}), "fields"),
    ];
    for (args, named) in cases {
      let error = error(args.clone());
      assert_eq!(error.code, ErrorCode::InvalidInput, "{args}");
      assert!(error.message.contains(named), "{args}: {}", error.message);
      assert!(error.remedy.is_some(), "{args}");
    }
  }
}
