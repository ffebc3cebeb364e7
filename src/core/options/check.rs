//! The one validation of every option and store setting. `check_plugin_options` reads the plugin's options,
//! `check_store_settings` the four settings of `createResultHandleStore` / `NativeHandleStore.open`, and
//! `check_wrapper_settings` those of `new ResultHandleStore(storage, ttlSeconds, { secret })`. Each field is
//! checked by one function below, against the limit table (`limits.rs`), with one wording, whichever entry point
//! it came through.
//!
//! Every problem is reported, not only the first; each names the option, what was wrong and the allowed range.
//! Messages quote numbers and option names but never the text of a string value (it could be a secret).

use serde_json::{Map, Value};

use super::input::{describe, js_number, Given, JsType, OptionsInput};
use super::limits::*;
use super::{
  CheckedOptions, HandleReferenceLimits, HandleReferences, PreviewOptions, ResolvedOptions,
  StoreSettings,
};
use crate::core::seal::ServerSecret;
use crate::core::store::config::{parse_storage_config, StorageConfig};

const KNOWN_OPTIONS: [&str; 9] = [
  "thresholdBytes",
  "ttlSeconds",
  "preview",
  "foldPolicy",
  "storage",
  "namespace",
  "secret",
  "handleReferences",
  "handleReferenceLimits",
];
const KNOWN_REFERENCE_LIMIT_KEYS: [&str; 2] = ["maxReferences", "maxBytes"];
const KNOWN_PREVIEW_KEYS: [&str; 2] = ["items", "chars"];
/// Unknown names are quoted in messages, cut to this many characters.
const MAX_QUOTED_NAME_CHARS: usize = 64;

/// Reads the environment (`auto` storage, `RESULT_HANDLES_SECRET`); tests pass their own.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment.
pub fn process_env(name: &str) -> Option<String> {
  std::env::var(name).ok()
}

/// Checks the plugin's options and applies every default; on failure returns every problem found.
pub fn check_plugin_options(
  input: &OptionsInput,
  env: Env<'_>,
) -> Result<CheckedOptions, Vec<String>> {
  let mut resolved = ResolvedOptions::default();
  let options = match input.root() {
    None => return finish(input, resolved, None, env),
    Some(Given::Json(Value::Object(options))) => options,
    Some(Given::Js(JsType::Circular)) => return Err(vec![circular_problem()]),
    other => {
      return Err(vec![format!(
        "options: must be an object (got {}).",
        describe(other)
      )])
    }
  };
  if input.circular_outside("storage") {
    return Err(vec![circular_problem()]);
  }
  let mut problems = Vec::new();
  let js_keys: Vec<&str> = input.js_keys_under("").collect();
  for name in options.keys().map(String::as_str).chain(js_keys) {
    if !KNOWN_OPTIONS.contains(&name) {
      problems.push(format!(
        "{}: unknown option; the options are {}.",
        quote_name(name),
        KNOWN_OPTIONS.join(", ")
      ));
    }
  }
  let field = |name| input.field(options, "", name);

  if let Some(value) = field("thresholdBytes") {
    match whole_in_range(value, MIN_THRESHOLD_BYTES, MAX_THRESHOLD_BYTES) {
      Ok(n) => resolved.threshold_bytes = n,
      Err(got) => problems.push(format!(
        "thresholdBytes: must be a whole number from {MIN_THRESHOLD_BYTES} to {MAX_THRESHOLD_BYTES} (got {got})."
      )),
    }
  }
  if let Some(value) = field("ttlSeconds") {
    record(
      ttl_seconds(Some(value)),
      &mut resolved.ttl_seconds,
      &mut problems,
    );
  }
  if let Some(value) = field("preview") {
    check_preview(input, value, &mut resolved.preview, &mut problems);
  }
  if let Some(value) = field("foldPolicy") {
    if matches!(value, Given::Js(JsType::Function)) {
      resolved.has_fold_policy = true;
    } else {
      problems.push(format!(
        "foldPolicy: must be a function (got {}).",
        describe(Some(value))
      ));
    }
  }
  let mut storage = None;
  if let Some(value) = field("storage") {
    match storage_config(input, Some(value), env) {
      Ok((json, config)) => {
        resolved.storage = json;
        storage = Some(config);
      }
      Err(found) => problems.extend(found),
    }
  }
  if let Some(value) = field("namespace") {
    record(
      namespace(Some(value)),
      &mut resolved.namespace,
      &mut problems,
    );
  }
  if let Some(value) = field("secret") {
    match secret(Some(value)) {
      Ok(secret) => resolved.secret = secret,
      Err(problem) => problems.push(problem),
    }
  }
  if let Some(value) = field("handleReferences") {
    match handle_references(value) {
      Some(setting) => resolved.handle_references = setting,
      None => problems.push(format!(
        "handleReferences: must be true, false, a list of tool names or a function of the tool name (got {}).",
        describe(Some(value))
      )),
    }
  }
  if let Some(value) = field("handleReferenceLimits") {
    check_reference_limits(
      input,
      value,
      &mut resolved.handle_reference_limits,
      &mut problems,
    );
  }

  if problems.is_empty() {
    finish(input, resolved, storage, env)
  } else {
    Err(problems)
  }
}

/// The settings of a native store: `storage`, `namespace` and `ttlSeconds` required, `secret` optional.
pub fn check_store_settings(
  input: &OptionsInput,
  env: Env<'_>,
) -> Result<StoreSettings, Vec<String>> {
  let empty = Map::new();
  let fields = match &input.options {
    Value::Object(fields) => fields,
    _ => &empty,
  };
  let field = |name| input.field(fields, "", name);
  let mut problems = Vec::new();
  let storage = match field("storage") {
    None => {
      problems.push("storage is required, for example { type: 'memory' }.".to_string());
      None
    }
    given => storage_config(input, given, env)
      .map_err(|found| problems.extend(found))
      .ok(),
  };
  let namespace = namespace(field("namespace"))
    .map_err(|p| problems.push(p))
    .ok();
  let ttl = ttl_seconds(field("ttlSeconds"))
    .map_err(|p| problems.push(p))
    .ok();
  let secret = secret(field("secret"))
    .map_err(|p| problems.push(p))
    .ok()
    .flatten();
  let server_secret = server_secret(secret.as_deref(), env)
    .map_err(|p| problems.push(p))
    .ok();
  match (storage, namespace, ttl, server_secret) {
    (Some((_, storage)), Some(namespace), Some(ttl_seconds), Some(secret))
      if problems.is_empty() =>
    {
      Ok(StoreSettings {
        storage,
        namespace,
        ttl_seconds,
        secret,
      })
    }
    _ => Err(problems),
  }
}

/// The settings of a store over a JS storage: `ttlSeconds` required, `secret` optional. Returns the TTL.
pub fn check_wrapper_settings(input: &OptionsInput) -> Result<u64, Vec<String>> {
  let empty = Map::new();
  let fields = match &input.options {
    Value::Object(fields) => fields,
    _ => &empty,
  };
  let ttl = ttl_seconds(input.field(fields, "", "ttlSeconds"));
  let secret = secret(input.field(fields, "", "secret"));
  match (ttl, secret) {
    (Ok(ttl), Ok(_)) => Ok(ttl),
    (ttl, secret) => Err(ttl.err().into_iter().chain(secret.err()).collect()),
  }
}

/// The plugin's checked options and the store settings they make (the environment read once, here).
fn finish(
  input: &OptionsInput,
  mut resolved: ResolvedOptions,
  storage: Option<StorageConfig>,
  env: Env<'_>,
) -> Result<CheckedOptions, Vec<String>> {
  let storage = match storage {
    Some(storage) => storage,
    None => {
      resolved.storage = for_runtime(input, resolved.storage);
      parse_storage_config(&resolved.storage, env)?
    }
  };
  let secret = server_secret(resolved.secret.as_deref(), env).map_err(|problem| vec![problem])?;
  let store = StoreSettings {
    storage,
    namespace: resolved.namespace.clone(),
    ttl_seconds: resolved.ttl_seconds,
    secret,
  };
  Ok(CheckedOptions { resolved, store })
}

fn record<T>(checked: Result<T, String>, slot: &mut T, problems: &mut Vec<String>) {
  match checked {
    Ok(value) => *slot = value,
    Err(problem) => problems.push(problem),
  }
}

fn circular_problem() -> String {
  "options: contain a circular reference; pass plain data (functions and class instances are fine)."
    .to_string()
}

// ─── one function per field ─────────────────────────────────────────────────

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
fn server_secret(secret: Option<&str>, env: Env<'_>) -> Result<Option<ServerSecret>, String> {
  ServerSecret::resolve_with(secret, env).map_err(|error| error.message)
}

/// `storage`: an object the store accepts, as JSON and as the resolved backend.
fn storage_config(
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
fn for_runtime(input: &OptionsInput, storage: Value) -> Value {
  let auto = matches!(storage.get("type"), None | Some(Value::Null))
    || storage.get("type").and_then(Value::as_str) == Some("auto");
  if input.auto_is_memory && auto {
    serde_json::json!({ "type": "memory" })
  } else {
    storage
  }
}

fn handle_references(given: Given<'_>) -> Option<HandleReferences> {
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

fn check_reference_limits(
  input: &OptionsInput,
  given: Given<'_>,
  limits: &mut HandleReferenceLimits,
  problems: &mut Vec<String>,
) {
  let example = format!(
    "{{ maxReferences: {DEFAULT_MAX_HANDLE_REFERENCES}, maxBytes: {DEFAULT_MAX_RESOLVED_BYTES} }}"
  );
  let name = "handleReferenceLimits";
  let Some(fields) = sub_options(
    input,
    given,
    name,
    &example,
    &KNOWN_REFERENCE_LIMIT_KEYS,
    problems,
  ) else {
    return;
  };
  if let Some(n) = whole_field(
    input,
    fields,
    name,
    "maxReferences",
    MAX_HANDLE_REFERENCES,
    problems,
  ) {
    limits.max_references = n;
  }
  if let Some(n) = whole_field(
    input,
    fields,
    name,
    "maxBytes",
    MAX_RESOLVED_BYTES,
    problems,
  ) {
    limits.max_bytes = n;
  }
}

fn check_preview(
  input: &OptionsInput,
  given: Given<'_>,
  preview: &mut PreviewOptions,
  problems: &mut Vec<String>,
) {
  let example = format!("{{ items: {DEFAULT_PREVIEW_ITEMS}, chars: {DEFAULT_PREVIEW_CHARS} }}");
  let Some(fields) = sub_options(
    input,
    given,
    "preview",
    &example,
    &KNOWN_PREVIEW_KEYS,
    problems,
  ) else {
    return;
  };
  if let Some(n) = whole_field(
    input,
    fields,
    "preview",
    "items",
    MAX_PREVIEW_ITEMS,
    problems,
  ) {
    preview.items = n;
  }
  if let Some(n) = whole_field(
    input,
    fields,
    "preview",
    "chars",
    MAX_PREVIEW_CHARS,
    problems,
  ) {
    preview.chars = n;
  }
}

/// The fields of an object option (`preview`, `handleReferenceLimits`), naming what is not one and unknown keys.
fn sub_options<'a>(
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
  let js_keys: Vec<&str> = input.js_keys_under(name).collect();
  for key in fields.keys().map(String::as_str).chain(js_keys) {
    if !known.contains(&key) {
      problems.push(format!(
        "{name}.{}: unknown option; {name} takes {}.",
        quote_name(key),
        known.join(" and ")
      ));
    }
  }
  Some(fields)
}

/// `{name}.{key}`, a whole number from 1 to `max`, when given.
fn whole_field(
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
fn whole_in_range(given: Given<'_>, min: u64, max: u64) -> Result<u64, String> {
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

fn quote_name(name: &str) -> String {
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
