//! The plugin options, checked once, here.
//!
//! Input is the JSON the TS layer sends: the user's options object serialized with a replacer that turns
//! functions into `{"$function": true}` and other values JSON cannot carry into `{"$jsType": "<typeof>"}`
//! (`undefined`, `symbol`, `bigint`, non-finite numbers, class instances). A key whose value is
//! `{"$jsType": "undefined"}` counts as not given, as in JS. Options that `JSON.stringify` cannot walk (a
//! circular reference) arrive as `{"$jsType": "circular"}`.
//!
//! Every problem is reported, not only the first; each names the option, what was wrong and the allowed range.
//! Messages quote numbers and option names but never the text of a string value (it could be a secret).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::core::store::config::parse_storage_config;

/// Smallest `thresholdBytes`: below this the folded form itself would not fit.
pub const MIN_THRESHOLD_BYTES: u64 = 1024;
/// Largest `thresholdBytes` (2 GiB): no model context comes near it, and it keeps sizes in 32 bits for JS.
pub const MAX_THRESHOLD_BYTES: u64 = 1 << 31;
/// Default `thresholdBytes`.
pub const DEFAULT_THRESHOLD_BYTES: u64 = 16 * 1024;
/// Default `ttlSeconds`.
pub const DEFAULT_TTL_SECONDS: u64 = 600;
/// Largest `ttlSeconds`: one year. A handle is meant for a conversation, not for archiving.
pub const MAX_TTL_SECONDS: u64 = 365 * 24 * 60 * 60;
/// Default `preview.items`.
pub const DEFAULT_PREVIEW_ITEMS: u64 = 5;
/// Largest `preview.items`.
pub const MAX_PREVIEW_ITEMS: u64 = 10_000;
/// Default `preview.chars`.
pub const DEFAULT_PREVIEW_CHARS: u64 = 500;
/// Largest `preview.chars` (UTF-16 units, as JS counts).
pub const MAX_PREVIEW_CHARS: u64 = 1_000_000;
/// Default `namespace`.
pub const DEFAULT_NAMESPACE: &str = "result-handles";
/// Largest `namespace`, in UTF-8 bytes (it prefixes every store key).
pub const MAX_NAMESPACE_BYTES: usize = 256;
/// Smallest `secret`, in UTF-8 bytes (256 bits).
pub const MIN_SECRET_BYTES: usize = 32;
/// Default `handleReferenceLimits.maxReferences`: handle references resolved in one tool call.
pub const DEFAULT_MAX_HANDLE_REFERENCES: u64 = 16;
/// Largest `handleReferenceLimits.maxReferences`.
pub const MAX_HANDLE_REFERENCES: u64 = 1024;
/// Default `handleReferenceLimits.maxBytes`: bytes of JSON all references of one call may resolve to (16 MiB).
pub const DEFAULT_MAX_RESOLVED_BYTES: u64 = 16 * 1024 * 1024;
/// Largest `handleReferenceLimits.maxBytes` (256 MiB: well under V8's longest string, which the arguments become).
pub const MAX_RESOLVED_BYTES: u64 = 256 * 1024 * 1024;

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

/// How much of an answer the preview keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PreviewOptions {
  /// Items kept from every list.
  pub items: u64,
  /// UTF-16 units kept from every string.
  pub chars: u64,
}

/// Which tools take `{ "$resultHandle", "path"? }` references in their arguments (`handleReferences`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HandleReferences {
  /// Off (the default): arguments reach tools as sent.
  #[default]
  Off,
  /// Every tool.
  All,
  /// The tools with these names.
  Tools(Vec<String>),
  /// The tools a JS predicate picks (the function stays in JS).
  Predicate,
}

impl HandleReferences {
  /// Whether any tool may take references.
  pub fn is_on(&self) -> bool {
    match self {
      HandleReferences::Off => false,
      HandleReferences::Tools(names) => !names.is_empty(),
      HandleReferences::All | HandleReferences::Predicate => true,
    }
  }
}

/// As JS gives it: `false`, `true`, the list, or `{"$function":true}` for a predicate.
impl Serialize for HandleReferences {
  fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
    match self {
      HandleReferences::Off => serializer.serialize_bool(false),
      HandleReferences::All => serializer.serialize_bool(true),
      HandleReferences::Tools(names) => names.serialize(serializer),
      HandleReferences::Predicate => {
        let mut marker = Map::new();
        marker.insert("$function".to_string(), Value::Bool(true));
        marker.serialize(serializer)
      }
    }
  }
}

/// Bounds on what the references of one tool call may resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleReferenceLimits {
  /// References resolved in one call.
  pub max_references: u64,
  /// Bytes of JSON they may resolve to, all together.
  pub max_bytes: u64,
}

impl Default for HandleReferenceLimits {
  fn default() -> Self {
    Self {
      max_references: DEFAULT_MAX_HANDLE_REFERENCES,
      max_bytes: DEFAULT_MAX_RESOLVED_BYTES,
    }
  }
}

/// The options after checking, with every default applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedOptions {
  /// Answers whose JSON is larger than this many bytes are folded.
  pub threshold_bytes: u64,
  /// How long a kept answer lives, in seconds.
  pub ttl_seconds: u64,
  /// How much the preview keeps.
  pub preview: PreviewOptions,
  /// Whether the caller gave a `foldPolicy` function (the function itself stays in JS).
  pub has_fold_policy: bool,
  /// The storage configuration (only `type` is checked here; the store checks the rest).
  pub storage: Value,
  /// Prefix of every store key.
  pub namespace: String,
  /// The secret answers are sealed with, when given.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub secret: Option<String>,
  /// Which tools take handle references in their arguments.
  pub handle_references: HandleReferences,
  /// Bounds on the references of one call.
  pub handle_reference_limits: HandleReferenceLimits,
}

impl Default for ResolvedOptions {
  fn default() -> Self {
    Self {
      threshold_bytes: DEFAULT_THRESHOLD_BYTES,
      ttl_seconds: DEFAULT_TTL_SECONDS,
      preview: PreviewOptions {
        items: DEFAULT_PREVIEW_ITEMS,
        chars: DEFAULT_PREVIEW_CHARS,
      },
      has_fold_policy: false,
      storage: default_storage(),
      namespace: DEFAULT_NAMESPACE.to_string(),
      secret: None,
      handle_references: HandleReferences::Off,
      handle_reference_limits: HandleReferenceLimits::default(),
    }
  }
}

fn default_storage() -> Value {
  let mut storage = Map::new();
  storage.insert("type".to_string(), Value::String("auto".to_string()));
  Value::Object(storage)
}

/// Checks the options JSON and applies defaults. On failure returns every problem found.
pub fn validate_options(input: &Value) -> Result<ResolvedOptions, Vec<String>> {
  let mut resolved = ResolvedOptions::default();
  let mut problems = Vec::new();
  let options = match input {
    Value::Null => return Ok(resolved),
    _ if is_undefined(input) => return Ok(resolved),
    Value::Object(options) if !is_marker(input) => options,
    _ if matches!(js_marker(input, "$jsType"), Some(Value::String(t)) if t == "circular") => {
      return Err(vec![
        "options: contain a circular reference; pass plain data (functions and class instances are fine)."
          .to_string(),
      ])
    }
    other => {
      return Err(vec![format!(
        "options: must be an object (got {}).",
        describe(other)
      )])
    }
  };

  for name in options.keys() {
    if !KNOWN_OPTIONS.contains(&name.as_str()) && !is_undefined(&options[name]) {
      problems.push(format!(
        "{}: unknown option; the options are {}.",
        quote_name(name),
        KNOWN_OPTIONS.join(", ")
      ));
    }
  }

  if let Some(value) = given(options, "thresholdBytes") {
    match whole_in_range(value, MIN_THRESHOLD_BYTES, MAX_THRESHOLD_BYTES) {
      Ok(n) => resolved.threshold_bytes = n,
      Err(got) => problems.push(format!(
        "thresholdBytes: must be a whole number from {MIN_THRESHOLD_BYTES} to {MAX_THRESHOLD_BYTES} (got {got})."
      )),
    }
  }

  if let Some(value) = given(options, "ttlSeconds") {
    match whole_in_range(value, 1, MAX_TTL_SECONDS) {
      Ok(n) => resolved.ttl_seconds = n,
      Err(got) => problems.push(format!(
        "ttlSeconds: must be a positive whole number of seconds, at most {MAX_TTL_SECONDS} (got {got})."
      )),
    }
  }

  if let Some(value) = given(options, "preview") {
    check_preview(value, &mut resolved.preview, &mut problems);
  }

  if let Some(value) = given(options, "foldPolicy") {
    if is_function(value) {
      resolved.has_fold_policy = true;
    } else {
      problems.push(format!(
        "foldPolicy: must be a function (got {}).",
        describe(value)
      ));
    }
  }

  if let Some(value) = given(options, "storage") {
    check_storage(value, &mut resolved.storage, &mut problems);
  }

  if let Some(value) = given(options, "namespace") {
    match value {
      Value::String(s) if !s.is_empty() && s.len() <= MAX_NAMESPACE_BYTES => resolved.namespace = s.clone(),
      Value::String(s) if s.is_empty() => problems.push(format!(
        "namespace: must be a non-empty string of at most {MAX_NAMESPACE_BYTES} bytes (got an empty string)."
      )),
      Value::String(s) => problems.push(format!(
        "namespace: must be a non-empty string of at most {MAX_NAMESPACE_BYTES} bytes (got {} bytes).",
        s.len()
      )),
      other => problems.push(format!(
        "namespace: must be a non-empty string of at most {MAX_NAMESPACE_BYTES} bytes (got {}).",
        describe(other)
      )),
    }
  }

  if let Some(value) = given(options, "secret") {
    match value {
      Value::String(s) if s.len() >= MIN_SECRET_BYTES => resolved.secret = Some(s.clone()),
      // The length is reported, never the text.
      Value::String(s) => problems.push(format!(
        "secret: must be a string of at least {MIN_SECRET_BYTES} bytes (got {} bytes).",
        s.len()
      )),
      other => problems.push(format!(
        "secret: must be a string of at least {MIN_SECRET_BYTES} bytes (got {}).",
        describe(other)
      )),
    }
  }

  if let Some(value) = given(options, "handleReferences") {
    match handle_references(value) {
      Some(setting) => resolved.handle_references = setting,
      None => problems.push(format!(
        "handleReferences: must be true, false, a list of tool names or a function of the tool name (got {}).",
        describe(value)
      )),
    }
  }

  if let Some(value) = given(options, "handleReferenceLimits") {
    check_reference_limits(value, &mut resolved.handle_reference_limits, &mut problems);
  }

  if problems.is_empty() {
    Ok(resolved)
  } else {
    Err(problems)
  }
}

fn handle_references(value: &Value) -> Option<HandleReferences> {
  match value {
    Value::Bool(false) => Some(HandleReferences::Off),
    Value::Bool(true) => Some(HandleReferences::All),
    Value::Array(names) => names
      .iter()
      .map(|name| match name {
        Value::String(name) if !name.is_empty() => Some(name.clone()),
        _ => None,
      })
      .collect::<Option<Vec<_>>>()
      .map(HandleReferences::Tools),
    _ if is_function(value) => Some(HandleReferences::Predicate),
    _ => None,
  }
}

fn check_reference_limits(
  value: &Value,
  limits: &mut HandleReferenceLimits,
  problems: &mut Vec<String>,
) {
  let example = format!(
    "{{ maxReferences: {DEFAULT_MAX_HANDLE_REFERENCES}, maxBytes: {DEFAULT_MAX_RESOLVED_BYTES} }}"
  );
  let name = "handleReferenceLimits";
  let Some(fields) = sub_options(value, name, &example, &KNOWN_REFERENCE_LIMIT_KEYS, problems)
  else {
    return;
  };
  if let Some(n) = whole_field(
    fields,
    name,
    "maxReferences",
    MAX_HANDLE_REFERENCES,
    problems,
  ) {
    limits.max_references = n;
  }
  if let Some(n) = whole_field(fields, name, "maxBytes", MAX_RESOLVED_BYTES, problems) {
    limits.max_bytes = n;
  }
}

/// The fields of an object option (`preview`, `handleReferenceLimits`), naming what is not one and unknown keys.
fn sub_options<'a>(
  value: &'a Value,
  name: &str,
  example: &str,
  known: &[&str],
  problems: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
  let fields = match value {
    Value::Object(fields) if !is_marker(value) => fields,
    other => {
      problems.push(format!(
        "{name}: must be an object like {example} (got {}).",
        describe(other)
      ));
      return None;
    }
  };
  for key in fields.keys() {
    if !known.contains(&key.as_str()) && !is_undefined(&fields[key]) {
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
  fields: &Map<String, Value>,
  name: &str,
  key: &str,
  max: u64,
  problems: &mut Vec<String>,
) -> Option<u64> {
  match whole_in_range(given(fields, key)?, 1, max) {
    Ok(n) => Some(n),
    Err(got) => {
      problems.push(format!(
        "{name}.{key}: must be a whole number from 1 to {max} (got {got})."
      ));
      None
    }
  }
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

fn check_preview(value: &Value, preview: &mut PreviewOptions, problems: &mut Vec<String>) {
  let example = format!("{{ items: {DEFAULT_PREVIEW_ITEMS}, chars: {DEFAULT_PREVIEW_CHARS} }}");
  let Some(fields) = sub_options(value, "preview", &example, &KNOWN_PREVIEW_KEYS, problems) else {
    return;
  };
  if let Some(n) = whole_field(fields, "preview", "items", MAX_PREVIEW_ITEMS, problems) {
    preview.items = n;
  }
  if let Some(n) = whole_field(fields, "preview", "chars", MAX_PREVIEW_CHARS, problems) {
    preview.chars = n;
  }
}

fn check_storage(value: &Value, storage: &mut Value, problems: &mut Vec<String>) {
  if is_marker(value) || !value.is_object() {
    problems.push(format!(
      "storage: must be an object such as {{ type: 'memory' }} (got {}).",
      describe(value)
    ));
    return;
  }
  // The store owns the storage rules; asking it here names its problems with every other option's.
  match parse_storage_config(value, &|name| std::env::var(name).ok()) {
    Ok(_) => *storage = value.clone(),
    Err(found) => problems.extend(found),
  }
}

/// The value of `name`, unless absent or `undefined`.
fn given<'a>(fields: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
  fields.get(name).filter(|value| !is_undefined(value))
}

/// A whole number in `min..=max`, or a description of what was given.
fn whole_in_range(value: &Value, min: u64, max: u64) -> Result<u64, String> {
  let Value::Number(number) = value else {
    return Err(describe(value));
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

fn js_number(f: f64) -> String {
  if f == 0.0 {
    return "0".to_string();
  }
  ryu_js::Buffer::new().format(f).to_string()
}

fn js_marker<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
  match value {
    Value::Object(fields) => fields.get(key),
    _ => None,
  }
}

/// A stand-in the TS replacer wrote for a value JSON cannot carry.
fn is_marker(value: &Value) -> bool {
  js_marker(value, "$jsType").is_some() || js_marker(value, "$function").is_some()
}

fn is_undefined(value: &Value) -> bool {
  matches!(js_marker(value, "$jsType"), Some(Value::String(t)) if t == "undefined")
}

fn is_function(value: &Value) -> bool {
  matches!(js_marker(value, "$function"), Some(Value::Bool(true)))
}

/// What kind of value was given, for messages: never the text of a string.
fn describe(value: &Value) -> String {
  if is_function(value) {
    return "a function".to_string();
  }
  if let Some(Value::String(kind)) = js_marker(value, "$jsType") {
    return match kind.as_str() {
      "undefined" => "undefined".to_string(),
      "number" => match js_marker(value, "value") {
        Some(Value::String(text)) if ["NaN", "Infinity", "-Infinity"].contains(&text.as_str()) => {
          text.clone()
        }
        _ => "a non-finite number".to_string(),
      },
      "symbol" => "a symbol".to_string(),
      "bigint" => "a bigint".to_string(),
      "object" => "a class instance".to_string(),
      _ => "a value JSON cannot carry".to_string(),
    };
  }
  match value {
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
  }
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

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn problems(input: Value) -> Vec<String> {
    validate_options(&input).expect_err("expected problems")
  }

  fn one_problem(input: Value) -> String {
    let all = problems(input);
    assert_eq!(all.len(), 1, "{all:?}");
    all.into_iter().next().unwrap_or_default()
  }

  #[test]
  fn empty_and_absent_options_give_the_defaults() {
    for input in [json!({}), Value::Null, json!({"$jsType": "undefined"})] {
      let resolved = validate_options(&input).expect("valid");
      assert_eq!(resolved, ResolvedOptions::default());
    }
    let defaults = serde_json::to_value(ResolvedOptions::default()).expect("serializes");
    assert_eq!(
      defaults,
      json!({
        "thresholdBytes": 16384, "ttlSeconds": 600, "preview": {"items": 5, "chars": 500},
        "hasFoldPolicy": false, "storage": {"type": "auto"}, "namespace": "result-handles",
        "handleReferences": false,
        "handleReferenceLimits": {"maxReferences": 16, "maxBytes": 16_777_216}
      })
    );
  }

  #[test]
  fn every_option_is_accepted_at_its_bounds() {
    let secret = "s".repeat(32);
    let resolved = validate_options(&json!({
      "thresholdBytes": 1024, "ttlSeconds": 1, "preview": {"items": 1, "chars": 1},
      "foldPolicy": {"$function": true}, "storage": {"type": "redis", "redis": {"url": "redis://127.0.0.1:6379"}},
      "namespace": "n", "secret": secret
    }))
    .expect("valid");
    assert_eq!(resolved.threshold_bytes, 1024);
    assert_eq!(resolved.ttl_seconds, 1);
    assert_eq!(resolved.preview, PreviewOptions { items: 1, chars: 1 });
    assert!(resolved.has_fold_policy);
    assert_eq!(resolved.storage["redis"]["url"], "redis://127.0.0.1:6379");
    assert_eq!(resolved.namespace, "n");
    assert_eq!(resolved.secret.as_deref(), Some(secret.as_str()));

    let upper = validate_options(&json!({
      "thresholdBytes": 2147483648u64, "ttlSeconds": 31536000, "preview": {"items": 10000, "chars": 1000000},
      "namespace": "x".repeat(256)
    }))
    .expect("valid");
    assert_eq!(upper.threshold_bytes, 1 << 31);
  }

  #[test]
  fn whole_numbers_written_as_floats_are_accepted() {
    let resolved = validate_options(&json!({"thresholdBytes": 2048.0})).expect("valid");
    assert_eq!(resolved.threshold_bytes, 2048);
  }

  #[test]
  fn preview_keys_may_be_omitted() {
    let only_items = validate_options(&json!({"preview": {"items": 2}})).expect("valid");
    assert_eq!(
      only_items.preview,
      PreviewOptions {
        items: 2,
        chars: 500
      }
    );
    let only_chars = validate_options(&json!({"preview": {"chars": 9}})).expect("valid");
    assert_eq!(only_chars.preview, PreviewOptions { items: 5, chars: 9 });
  }

  #[test]
  fn threshold_rules() {
    for (value, got) in [
      (json!(1023), "got 1023"),
      (json!(0), "got 0"),
      (json!(-5), "got -5"),
      (json!(2147483649u64), "got 2147483649"),
      (json!(2048.5), "2048.5, not a whole number"),
      (json!("4096"), "got a string"),
      (json!(null), "got null"),
      (json!({"$jsType": "number", "value": "NaN"}), "got NaN"),
      (json!({"$jsType": "bigint"}), "got a bigint"),
    ] {
      let message = one_problem(json!({ "thresholdBytes": value }));
      assert!(
        message.starts_with("thresholdBytes: must be a whole number from 1024 to 2147483648"),
        "{message}"
      );
      assert!(message.contains(got), "{message} lacks {got}");
    }
  }

  #[test]
  fn ttl_rules() {
    for value in [
      json!(0),
      json!(-1),
      json!(1.5),
      json!(31536001),
      json!(true),
    ] {
      let message = one_problem(json!({ "ttlSeconds": value }));
      assert!(
        message.starts_with("ttlSeconds: must be a positive whole number"),
        "{message}"
      );
      assert!(message.contains("at most 31536000"), "{message}");
    }
  }

  #[test]
  fn preview_rules() {
    assert!(one_problem(json!({"preview": 5})).starts_with("preview: must be an object"));
    assert!(one_problem(json!({"preview": null})).contains("got null"));
    let message = one_problem(json!({"preview": {"items": 0}}));
    assert!(
      message.starts_with("preview.items: must be a whole number from 1 to 10000 (got 0)"),
      "{message}"
    );
    let message = one_problem(json!({"preview": {"chars": 1000001}}));
    assert!(
      message.starts_with("preview.chars: must be a whole number from 1 to 1000000"),
      "{message}"
    );
    let message = one_problem(json!({"preview": {"rows": 3}}));
    assert!(
      message.starts_with("preview.'rows': unknown option"),
      "{message}"
    );
  }

  #[test]
  fn fold_policy_must_be_a_function() {
    let message = one_problem(json!({"foldPolicy": "always"}));
    assert_eq!(message, "foldPolicy: must be a function (got a string).");
    let message = one_problem(json!({"foldPolicy": true}));
    assert!(message.contains("got true"), "{message}");
  }

  #[test]
  fn storage_rules() {
    let rest = json!({"url": "http://127.0.0.1:1", "token": "t"});
    for storage in [
      json!({"type": "memory"}),
      json!({"type": "auto"}),
      json!({"type": "redis", "redis": {"url": "redis://127.0.0.1:6379"}}),
      json!({"type": "sqlite", "sqlite": {"path": "/tmp/x.db"}}),
      json!({"type": "upstash", "upstash": rest}),
      json!({"type": "vercel-kv", "vercelKv": rest}),
    ] {
      let resolved = validate_options(&json!({ "storage": storage })).expect("valid");
      assert_eq!(resolved.storage, storage);
    }
    assert!(one_problem(json!({"storage": "redis"})).starts_with("storage: must be an object"));
    assert_eq!(
      validate_options(&json!({"storage": {}}))
        .expect("valid")
        .storage,
      json!({})
    );
    let message = one_problem(json!({"storage": {"type": "mongo"}}));
    assert!(
      message.starts_with("storage.type must be 'auto', 'memory', 'redis'"),
      "{message}"
    );
    assert!(!message.contains("mongo"), "the given string is not echoed");
    assert!(one_problem(json!({"storage": {"type": 3}})).starts_with("storage.type must be"));
    let found = problems(json!({"storage": {"type": "redis", "redis": {"port": "x"}}}));
    assert!(
      found.iter().all(|p| p.starts_with("storage.redis")),
      "the store's own rules are named too: {found:?}"
    );
  }

  #[test]
  fn namespace_rules() {
    assert!(one_problem(json!({"namespace": ""})).contains("got an empty string"));
    assert!(one_problem(json!({"namespace": 7})).contains("got 7"));
    assert!(one_problem(json!({"namespace": "x".repeat(257)})).contains("got 257 bytes"));
  }

  #[test]
  fn secret_rules_never_echo_the_secret() {
    let message = one_problem(json!({"secret": "hunter2-too-short"}));
    assert_eq!(
      message,
      "secret: must be a string of at least 32 bytes (got 17 bytes)."
    );
    assert!(one_problem(json!({"secret": 12})).contains("got 12"));
    // 11 three-byte characters: 33 bytes, so long enough though only 11 characters.
    assert!(validate_options(&json!({"secret": "€".repeat(11)})).is_ok());
  }

  #[test]
  fn unknown_options_are_refused_and_named() {
    let message = one_problem(json!({"treshold": 2048}));
    assert!(
      message.starts_with("'treshold': unknown option; the options are thresholdBytes"),
      "{message}"
    );
    let long = "k".repeat(100);
    let message = one_problem(json!({ long: 1 }));
    assert!(
      message.contains(&format!("'{}…'", "k".repeat(64))),
      "{message}"
    );
    // An unknown key set to undefined is as good as absent.
    assert!(validate_options(&json!({"extra": {"$jsType": "undefined"}})).is_ok());
  }

  #[test]
  fn undefined_values_mean_not_given() {
    let resolved = validate_options(&json!({
      "thresholdBytes": {"$jsType": "undefined"}, "preview": {"items": {"$jsType": "undefined"}}
    }))
    .expect("valid");
    assert_eq!(resolved, ResolvedOptions::default());
  }

  #[test]
  fn several_problems_are_all_named() {
    let all = problems(json!({
      "thresholdBytes": 10, "ttlSeconds": -1, "preview": {"items": 0, "chars": "many"},
      "foldPolicy": 1, "storage": {"type": "disk"}, "namespace": "", "secret": "short", "bogus": true
    }));
    let names = [
      "'bogus'",
      "thresholdBytes:",
      "ttlSeconds:",
      "preview.items:",
      "preview.chars:",
      "foldPolicy:",
      "storage.type",
      "namespace:",
      "secret:",
    ];
    assert_eq!(all.len(), names.len(), "{all:?}");
    for (problem, name) in all.iter().zip(names) {
      assert!(problem.starts_with(name), "{problem} should name {name}");
    }
    let message = problems_message(&all);
    assert!(message.starts_with("Invalid result-handles options (9 problems): "));
    for problem in &all {
      assert!(message.contains(problem.as_str()));
    }
  }

  #[test]
  fn options_must_be_an_object() {
    assert_eq!(
      one_problem(json!([1])),
      "options: must be an object (got an array)."
    );
    assert_eq!(
      one_problem(json!({"$jsType": "object"})),
      "options: must be an object (got a class instance)."
    );
    assert!(one_problem(json!({"preview": {"$function": true}})).contains("got a function"));
    assert!(one_problem(json!({"$jsType": "circular"})).contains("circular reference"));
  }

  #[test]
  fn handle_reference_rules() {
    let resolved =
      validate_options(&json!({"handleReferences": ["upload", "diff"]})).expect("valid");
    assert_eq!(
      resolved.handle_references,
      HandleReferences::Tools(vec!["upload".into(), "diff".into()])
    );
    assert!(resolved.handle_references.is_on());
    let resolved =
      validate_options(&json!({"handleReferences": {"$function": true}})).expect("valid");
    assert_eq!(resolved.handle_references, HandleReferences::Predicate);
    assert_eq!(
      serde_json::to_value(&resolved.handle_references).expect("serializes"),
      json!({"$function": true})
    );
    assert!(!validate_options(&json!({"handleReferences": []}))
      .expect("valid")
      .handle_references
      .is_on());
    for bad in [json!("all"), json!(1), json!([""]), json!([3])] {
      assert!(one_problem(json!({ "handleReferences": bad }))
        .starts_with("handleReferences: must be true"));
    }
    let resolved = validate_options(
      &json!({"handleReferenceLimits": {"maxReferences": 1024, "maxBytes": MAX_RESOLVED_BYTES}}),
    )
    .expect("valid");
    assert_eq!(resolved.handle_reference_limits.max_references, 1024);
    assert_eq!(
      resolved.handle_reference_limits.max_bytes,
      MAX_RESOLVED_BYTES
    );
    let all =
      problems(json!({"handleReferenceLimits": {"maxReferences": 0, "maxBytes": 1.5, "other": 1}}));
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all[0].contains("'other'"));
    assert!(all
      .iter()
      .any(|p| p.contains("maxReferences: must be a whole number from 1 to 1024 (got 0)")));
    assert!(all
      .iter()
      .any(|p| p.contains("maxBytes: must be a whole number")));
    assert!(one_problem(json!({"handleReferenceLimits": 5}))
      .starts_with("handleReferenceLimits: must be an object"));
  }
}
