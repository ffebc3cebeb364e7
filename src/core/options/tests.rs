//! The option checks, through the same entry points the bindings use.

use super::input::JsType;
use super::*;
use serde_json::json;

/// The options as the TS layer sends them, from a value written with stand-ins for what JSON cannot carry
/// (`{"$function": true}`, `{"$jsType": "<typeof>"}`): each stand-in goes to the side table, `undefined` away.
fn input_of(value: &Value) -> OptionsInput {
  let mut input = OptionsInput::default();
  input.options = split(value, "", &mut input.js_types).unwrap_or(Value::Null);
  input
}

fn stand_in(value: &Value) -> Option<Option<JsType>> {
  let Value::Object(fields) = value else {
    return None;
  };
  if fields.get("$function") == Some(&Value::Bool(true)) {
    return Some(Some(JsType::Function));
  }
  let kind = match fields.get("$jsType")?.as_str()? {
    "undefined" => return Some(None),
    "symbol" => JsType::Symbol,
    "bigint" => JsType::Bigint,
    "object" => JsType::Instance,
    "circular" => JsType::Circular,
    _ => match fields.get("value").and_then(Value::as_str) {
      Some("Infinity") => JsType::Infinity,
      Some("-Infinity") => JsType::NegativeInfinity,
      _ => JsType::NaN,
    },
  };
  Some(Some(kind))
}

fn split(
  value: &Value,
  path: &str,
  js_types: &mut std::collections::HashMap<String, JsType>,
) -> Option<Value> {
  if let Some(kind) = stand_in(value) {
    if let Some(kind) = kind {
      js_types.insert(path.to_string(), kind);
    }
    return None;
  }
  let child = |key: &str| {
    if path.is_empty() {
      key.to_string()
    } else {
      format!("{path}.{key}")
    }
  };
  Some(match value {
    Value::Object(fields) => Value::Object(
      fields
        .iter()
        .filter_map(|(key, value)| Some((key.clone(), split(value, &child(key), js_types)?)))
        .collect(),
    ),
    Value::Array(items) => Value::Array(
      items
        .iter()
        .enumerate()
        .map(|(i, item)| split(item, &child(&i.to_string()), js_types).unwrap_or(Value::Null))
        .collect(),
    ),
    other => other.clone(),
  })
}

fn no_env(_: &str) -> Option<String> {
  None
}

fn validate_options(value: &Value) -> Result<ResolvedOptions, Vec<String>> {
  check_plugin_options(&input_of(value), &no_env).map(|checked| checked.resolved)
}

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
  let resolved = validate_options(&json!({"handleReferences": ["upload", "diff"]})).expect("valid");
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
    json!("predicate")
  );
  assert!(!validate_options(&json!({"handleReferences": []}))
    .expect("valid")
    .handle_references
    .is_on());
  for bad in [json!("all"), json!(1), json!([""]), json!([3])] {
    assert!(
      one_problem(json!({ "handleReferences": bad })).starts_with("handleReferences: must be true")
    );
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

fn store_input(value: Value) -> OptionsInput {
  input_of(&value)
}

#[test]
fn store_settings_are_required_and_named_together() {
  let problems = check_store_settings(&store_input(json!({})), &no_env).expect_err("refused");
  assert_eq!(problems.len(), 3, "{problems:?}");
  assert!(problems[0].starts_with("storage is required"));
  assert!(problems[1].starts_with("namespace: must be a non-empty string"));
  assert!(problems[2].starts_with("ttlSeconds: must be a positive whole number"));
  let settings = check_store_settings(
    &store_input(json!({"storage": {"type": "memory"}, "namespace": "n", "ttlSeconds": 60})),
    &no_env,
  )
  .expect("valid");
  assert_eq!(
    (settings.namespace.as_str(), settings.ttl_seconds),
    ("n", 60)
  );
}

#[test]
fn every_entry_point_words_a_field_the_same() {
  let plugin = one_problem(json!({"ttlSeconds": 0}));
  let store = check_store_settings(
    &store_input(json!({"storage": {"type": "memory"}, "namespace": "n", "ttlSeconds": 0})),
    &no_env,
  )
  .expect_err("refused");
  let wrapper =
    check_wrapper_settings(&store_input(json!({"ttlSeconds": 0}))).expect_err("refused");
  assert_eq!(store, vec![plugin.clone()]);
  assert_eq!(wrapper, vec![plugin]);
}

#[test]
fn wrapper_settings_take_the_ttl_bounds_and_the_secret_rule() {
  for good in [1, 600, MAX_TTL_SECONDS] {
    assert_eq!(
      check_wrapper_settings(&store_input(json!({"ttlSeconds": good}))),
      Ok(good)
    );
  }
  for bad in [
    json!(0),
    json!(-1),
    json!(1.5),
    json!(MAX_TTL_SECONDS + 1),
    json!("600"),
    json!(null),
  ] {
    let problems =
      check_wrapper_settings(&store_input(json!({"ttlSeconds": bad}))).expect_err("refused");
    assert!(problems[0].contains("at most 31536000"), "{problems:?}");
  }
  let problems = check_wrapper_settings(&store_input(
    json!({"ttlSeconds": {"$jsType": "number", "value": "NaN"}}),
  ))
  .expect_err("refused");
  assert!(problems[0].ends_with("(got NaN)."), "{problems:?}");
  let short = check_wrapper_settings(&store_input(json!({"ttlSeconds": 60, "secret": "short"})))
    .expect_err("refused");
  assert_eq!(
    short,
    vec!["secret: must be a string of at least 32 bytes (got 5 bytes).".to_string()]
  );
}

#[test]
fn the_secret_from_the_environment_is_read_through_the_check() {
  let short_env = |name: &str| (name == "RESULT_HANDLES_SECRET").then(|| "short".to_string());
  let problems = check_plugin_options(&input_of(&json!({})), &short_env).expect_err("refused");
  assert!(
    problems[0].contains("RESULT_HANDLES_SECRET"),
    "{problems:?}"
  );
}

#[test]
fn a_browser_like_runtime_opens_auto_as_memory() {
  let mut input = input_of(&json!({"storage": {"type": "auto"}}));
  input.auto_is_memory = true;
  let checked = check_plugin_options(&input, &no_env).expect("valid");
  assert_eq!(checked.resolved.storage, json!({"type": "memory"}));
}

#[test]
fn a_client_inside_storage_is_named_by_the_store() {
  let input =
    input_of(&json!({"storage": {"type": "redis", "redis": {"client": {"$jsType": "object"}}}}));
  let problems = check_plugin_options(&input, &no_env).expect_err("refused");
  assert!(
    problems
      .iter()
      .any(|p| p.starts_with("storage.redis.client")),
    "{problems:?}"
  );
}
