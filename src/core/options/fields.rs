//! One function per option field: each checks a value against the limit table and words its problem once, for
//! every entry point (`check.rs`). Messages quote numbers and option names, never the text of a string.

use serde_json::{Map, Value};

use super::check::Env;
use super::input::{describe, js_number, Given, JsType, OptionsInput};
use super::limits::*;
use super::{HandleReferenceLimits, HandleReferences, PreviewOptions};
use crate::core::seal::ServerSecret;
use crate::core::store::config::{parse_storage_config, StorageConfig};

/// Unknown names are quoted in messages, cut to this many characters.
const MAX_QUOTED_NAME_CHARS: usize = 64;

/// `ttlSeconds`: whole seconds from 1 to [`MAX_TTL_SECONDS`].
pub fn ttl_seconds(given: Option<Given<'_>>) -> Result<u64, String> {
  given
    .ok_or_else(|| "undefined".to_string())
    .and_then(|value| whole_in_range(value, 1, MAX_TTL_SECONDS))
    .map_err(|got| format!("ttlSeconds: must be a positive whole number of seconds, at most {MAX_TTL_SECONDS} (got {got})."))
}

/// `namespace`: a string of 1 to [`MAX_NAMESPACE_BYTES`] UTF-8 bytes.
pub fn namespace(given: Option<Given<'_>>) -> Result<String, String> {
  let got = match given {
    Some(Given::Json(Value::String(s))) if !s.is_empty() && s.len() <= MAX_NAMESPACE_BYTES => {
      return Ok(s.clone())
    }
    Some(Given::Json(Value::String(s))) if !s.is_empty() => format!("{} bytes", s.len()),
    other => describe(other),
  };
  Err(format!(
    "namespace: must be a non-empty string of at most {MAX_NAMESPACE_BYTES} bytes (got {got})."
  ))
}

/// `secret`: absent, or a string of at least [`MIN_SECRET_BYTES`] UTF-8 bytes. The length is reported, never
/// the text.
pub fn secret(given: Option<Given<'_>>) -> Result<Option<String>, String> {
  let got = match given {
    None => return Ok(None),
    Some(Given::Json(Value::String(s))) if s.len() >= MIN_SECRET_BYTES => {
      return Ok(Some(s.clone()))
    }
    Some(Given::Json(Value::String(s))) => format!("{} bytes", s.len()),
    other => describe(other),
  };
  Err(format!(
    "secret: must be a string of at least {MIN_SECRET_BYTES} bytes (got {got})."
  ))
}

/// The secret given, else `RESULT_HANDLES_SECRET` when set (which must be long enough too).
pub(super) fn server_secret(
  secret: Option<&str>,
  env: Env<'_>,
) -> Result<Option<ServerSecret>, String> {
  ServerSecret::resolve_with(secret, env).map_err(|error| error.message)
}

/// `storage`: an object the store accepts, as JSON and as the resolved backend.
pub(super) fn storage_config(
  input: &OptionsInput,
  given: Option<Given<'_>>,
  env: Env<'_>,
) -> Result<(Value, StorageConfig), Vec<String>> {
  let value = match given {
    Some(Given::Json(value @ Value::Object(_))) => {
      for_runtime(input, input.with_js_values_as_null(value, "storage"))
    }
    other => {
      return Err(vec![format!(
        "storage: must be an object such as {{ type: 'memory' }} (got {}).",
        describe(other)
      )])
    }
  };
  // The store owns the storage rules; asking it here names its problems with every other option's.
  let config = parse_storage_config(&value, env)?;
  Ok((value, config))
}

/// `storage` as this runtime opens it: `auto` (or no type) is memory in a browser-like runtime.
pub(super) fn for_runtime(input: &OptionsInput, storage: Value) -> Value {
  let auto = matches!(storage.get("type"), None | Some(Value::Null))
    || storage.get("type").and_then(Value::as_str) == Some("auto");
  if input.auto_is_memory && auto {
    serde_json::json!({ "type": "memory" })
  } else {
    storage
  }
}

pub(super) fn handle_references(given: Given<'_>) -> Option<HandleReferences> {
  match given {
    Given::Js(JsType::Function) => Some(HandleReferences::Predicate),
    Given::Json(Value::Bool(false)) => Some(HandleReferences::Off),
    Given::Json(Value::Bool(true)) => Some(HandleReferences::All),
    Given::Json(Value::Array(names)) => names
      .iter()
      .map(|name| match name {
        Value::String(name) if !name.is_empty() => Some(name.clone()),
        _ => None,
      })
      .collect::<Option<Vec<_>>>()
      .map(HandleReferences::Tools),
    _ => None,
  }
}

pub(super) fn check_reference_limits(
  input: &OptionsInput,
  given: Given<'_>,
  limits: &mut HandleReferenceLimits,
  problems: &mut Vec<String>,
) {
  let fields = [
    (
      "maxReferences",
      MAX_HANDLE_REFERENCES,
      &mut limits.max_references,
    ),
    ("maxBytes", MAX_RESOLVED_BYTES, &mut limits.max_bytes),
  ];
  check_whole_fields(input, given, "handleReferenceLimits", fields, problems);
}

pub(super) fn check_preview(
  input: &OptionsInput,
  given: Given<'_>,
  preview: &mut PreviewOptions,
  problems: &mut Vec<String>,
) {
  let fields = [
    ("items", MAX_PREVIEW_ITEMS, &mut preview.items),
    ("chars", MAX_PREVIEW_CHARS, &mut preview.chars),
  ];
  check_whole_fields(input, given, "preview", fields, problems);
}

/// An object option of whole-number fields, each `(key, max, slot)` from 1 to `max`; a slot holds its default
/// until a valid value replaces it (the defaults make the example in the message).
fn check_whole_fields(
  input: &OptionsInput,
  given: Given<'_>,
  name: &str,
  fields: [(&str, u64, &mut u64); 2],
  problems: &mut Vec<String>,
) {
  let known = fields.each_ref().map(|(key, _, _)| *key);
  let example = fields
    .iter()
    .map(|(key, _, slot)| format!("{key}: {slot}"))
    .collect::<Vec<_>>()
    .join(", ");
  let example = format!("{{ {example} }}");
  let Some(given_fields) = sub_options(input, given, name, &example, &known, problems) else {
    return;
  };
  for (key, max, slot) in fields {
    if let Some(n) = whole_field(input, given_fields, name, key, max, problems) {
      *slot = n;
    }
  }
}

/// The fields of an object option (`preview`, `handleReferenceLimits`), naming what is not one and unknown keys.
pub(super) fn sub_options<'a>(
  input: &'a OptionsInput,
  given: Given<'a>,
  name: &'a str,
  example: &str,
  known: &[&str],
  problems: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
  let Given::Json(Value::Object(fields)) = given else {
    problems.push(format!(
      "{name}: must be an object like {example} (got {}).",
      describe(Some(given))
    ));
    return None;
  };
  for key in unknown_keys(input, fields, name, known) {
    problems.push(format!(
      "{name}.{}: unknown option; {name} takes {}.",
      quote_name(key),
      known.join(" and ")
    ));
  }
  Some(fields)
}

/// The keys of the object at `parent` (given as JSON or as a value JSON cannot carry) that are not `known`.
pub(super) fn unknown_keys<'a>(
  input: &'a OptionsInput,
  fields: &'a Map<String, Value>,
  parent: &'a str,
  known: &'a [&str],
) -> impl Iterator<Item = &'a str> + 'a {
  let json_keys = fields.keys().map(String::as_str);
  json_keys
    .chain(input.js_keys_under(parent))
    .filter(move |key| !known.contains(key))
}

/// `{name}.{key}`, a whole number from 1 to `max`, when given.
pub(super) fn whole_field(
  input: &OptionsInput,
  fields: &Map<String, Value>,
  name: &str,
  key: &str,
  max: u64,
  problems: &mut Vec<String>,
) -> Option<u64> {
  match whole_in_range(input.field(fields, name, key)?, 1, max) {
    Ok(n) => Some(n),
    Err(got) => {
      problems.push(format!(
        "{name}.{key}: must be a whole number from 1 to {max} (got {got})."
      ));
      None
    }
  }
}

/// A whole number in `min..=max`, or a description of what was given.
pub(super) fn whole_in_range(given: Given<'_>, min: u64, max: u64) -> Result<u64, String> {
  let Given::Json(Value::Number(number)) = given else {
    return Err(describe(Some(given)));
  };
  if let Some(n) = number.as_u64() {
    return if (min..=max).contains(&n) {
      Ok(n)
    } else {
      Err(n.to_string())
    };
  }
  let Some(f) = number.as_f64() else {
    return Err("a number".to_string());
  };
  if f.fract() != 0.0 {
    return Err(format!("{}, not a whole number", js_number(f)));
  }
  if f >= min as f64 && f <= max as f64 {
    // In range and whole (`max` is far below 2^53), so the conversion is exact.
    return Ok(f as u64);
  }
  Err(js_number(f))
}

/// One message naming every problem, as `ResultHandlesConfigurationError` shows it.
pub fn problems_message(problems: &[String]) -> String {
  let count = problems.len();
  let noun = if count == 1 { "problem" } else { "problems" };
  format!(
    "Invalid result-handles options ({count} {noun}): {}",
    problems.join(" ")
  )
}

pub(super) fn quote_name(name: &str) -> String {
  let mut shown: String = name
    .chars()
    .filter(|c| !c.is_control())
    .take(MAX_QUOTED_NAME_CHARS)
    .collect();
  if name.chars().count() > MAX_QUOTED_NAME_CHARS {
    shown.push('…');
  }
  format!("'{shown}'")
}
