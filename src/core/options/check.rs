//! The one validation of every option and store setting (the fields themselves are checked in `fields.rs`). `check_plugin_options` reads the plugin's options,
//! `check_store_settings` the four settings of `createResultHandleStore` / `NativeHandleStore.open`, and
//! `check_wrapper_settings` those of `new ResultHandleStore(storage, ttlSeconds, { secret })`. Each field is
//! checked by one function below, against the limit table (`limits.rs`), with one wording, whichever entry point
//! it came through.
//!
//! Every problem is reported, not only the first; each names the option, what was wrong and the allowed range.
//! Messages quote numbers and option names but never the text of a string value (it could be a secret).

use serde_json::{Map, Value};

use super::fields::*;
use super::input::{describe, Given, JsType, OptionsInput};
use super::limits::*;
use super::{CheckedOptions, ResolvedOptions, StoreSettings};
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
  for name in unknown_keys(input, options, "", &KNOWN_OPTIONS) {
    problems.push(format!(
      "{}: unknown option; the options are {}.",
      quote_name(name),
      KNOWN_OPTIONS.join(", ")
    ));
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
    record(secret(Some(value)), &mut resolved.secret, &mut problems);
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
