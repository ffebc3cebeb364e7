//! What the options look like when they reach the engine: the plain-JSON part, plus a side table naming, by path,
//! each value JSON cannot carry (a function, a symbol, a bigint, a non-finite number, a class instance, a
//! circular reference). The TS layer (`optionsInputJson` in `lib/result-handles.options.ts`) writes both, in
//! one JSON text; `undefined` values are simply absent, as in JS. Paths join keys with `.` (`preview.items`,
//! `storage.redis.client`, `handleReferences.0`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// A value JSON cannot carry, as the TS layer names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum JsType {
  Function,
  Symbol,
  Bigint,
  #[serde(rename = "NaN")]
  NaN,
  #[serde(rename = "Infinity")]
  Infinity,
  #[serde(rename = "-Infinity")]
  NegativeInfinity,
  /// An object whose prototype is not `Object.prototype` or `null`.
  Instance,
  /// An object that contains itself.
  Circular,
}

/// The options as given: their JSON (without the values it cannot carry) and what those values were.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionsInput {
  /// The options' JSON; `null` when no options were given.
  #[serde(default)]
  pub options: Value,
  /// The values JSON could not carry, by path (`""` is the options themselves).
  #[serde(default)]
  pub js_types: HashMap<String, JsType>,
  /// A browser-like runtime: `auto` storage means memory there (the host refuses server-only storages itself).
  #[serde(default)]
  pub auto_is_memory: bool,
}

/// One given value: plain JSON, or a JS value JSON cannot carry.
#[derive(Debug, Clone, Copy)]
pub enum Given<'a> {
  Json(&'a Value),
  Js(JsType),
}

impl OptionsInput {
  /// Reads the TS layer's JSON text.
  pub fn from_json(text: &str) -> Result<Self, String> {
    serde_json::from_str(text).map_err(|_| "options: could not be read as JSON.".to_string())
  }

  /// The value at `path` inside `fields` (the object at `parent`), unless absent.
  pub fn field<'a>(
    &'a self,
    fields: &'a Map<String, Value>,
    parent: &str,
    key: &str,
  ) -> Option<Given<'a>> {
    match fields.get(key) {
      Some(value) => Some(Given::Json(value)),
      None => self
        .js_types
        .get(&join(parent, key))
        .copied()
        .map(Given::Js),
    }
  }

  /// The options themselves.
  pub fn root(&self) -> Option<Given<'_>> {
    match (&self.options, self.js_types.get("")) {
      (_, Some(kind)) => Some(Given::Js(*kind)),
      (Value::Null, None) => None,
      (value, None) => Some(Given::Json(value)),
    }
  }

  /// The keys directly under `parent` that hold a value JSON cannot carry.
  pub fn js_keys_under<'a>(&'a self, parent: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    self.js_types.keys().filter_map(move |path| {
      let rest = if parent.is_empty() {
        Some(path.as_str())
      } else {
        path.strip_prefix(parent)?.strip_prefix('.')
      };
      rest.filter(|key| !key.is_empty() && !key.contains('.'))
    })
  }

  /// Whether a circular reference was found anywhere but under `except` (whose owner names its own problems).
  pub fn circular_outside(&self, except: &str) -> bool {
    self.js_types.iter().any(|(path, kind)| {
      *kind == JsType::Circular && !(path == except || path.starts_with(&format!("{except}.")))
    })
  }

  /// `value` (the object at `path`) with every value JSON could not carry under it put back as `null`, so a
  /// checker that looks at keys (the storage's) sees that something was given there.
  pub fn with_js_values_as_null(&self, value: &Value, path: &str) -> Value {
    let mut value = value.clone();
    for js_path in self.js_types.keys() {
      let Some(rest) = js_path
        .strip_prefix(path)
        .and_then(|rest| rest.strip_prefix('.'))
      else {
        continue;
      };
      put_null(&mut value, rest);
    }
    value
  }
}

fn join(parent: &str, key: &str) -> String {
  if parent.is_empty() {
    key.to_string()
  } else {
    format!("{parent}.{key}")
  }
}

fn put_null(value: &mut Value, path: &str) {
  let (head, rest) = match path.split_once('.') {
    Some((head, rest)) => (head, Some(rest)),
    None => (path, None),
  };
  match (value, rest) {
    (Value::Object(fields), None) => {
      fields.entry(head.to_string()).or_insert(Value::Null);
    }
    (Value::Object(fields), Some(rest)) => {
      if let Some(child) = fields.get_mut(head) {
        put_null(child, rest);
      }
    }
    _ => {}
  }
}

/// What kind of value was given, for messages: never the text of a string.
pub fn describe(given: Option<Given<'_>>) -> String {
  match given {
    None => "undefined".to_string(),
    Some(Given::Js(kind)) => match kind {
      JsType::Function => "a function",
      JsType::Symbol => "a symbol",
      JsType::Bigint => "a bigint",
      JsType::NaN => "NaN",
      JsType::Infinity => "Infinity",
      JsType::NegativeInfinity => "-Infinity",
      JsType::Instance => "a class instance",
      JsType::Circular => "a circular reference",
    }
    .to_string(),
    Some(Given::Json(value)) => match value {
      Value::Null => "null".to_string(),
      Value::Bool(b) => b.to_string(),
      Value::Number(n) => n
        .as_f64()
        .map(js_number)
        .unwrap_or_else(|| "a number".to_string()),
      Value::String(s) if s.is_empty() => "an empty string".to_string(),
      Value::String(_) => "a string".to_string(),
      Value::Array(_) => "an array".to_string(),
      Value::Object(_) => "an object".to_string(),
    },
  }
}

/// A number as JS prints it.
pub fn js_number(f: f64) -> String {
  if f == 0.0 {
    return "0".to_string();
  }
  ryu_js::Buffer::new().format(f).to_string()
}
