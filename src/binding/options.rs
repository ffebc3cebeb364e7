//! Options for JS: the one check (`core::options`) made callable, its result kept as a native value
//! (`NativeSettings`) that the store and the engine open with, and the limit table exported.

use napi::bindgen_prelude::Either;
use napi_derive::napi;

use crate::core::options::{
  self, check_plugin_options, check_store_settings, check_wrapper_settings, problems_message,
  process_env, CheckedOptions, OptionsInput, StoreSettings,
};
use crate::core::store::config::configuration_error;

/// Why options or store settings were refused: every problem, one sentence each, and one message naming them.
#[napi(object)]
pub struct ConfigurationProblems {
  pub problems: Vec<String>,
  pub message: String,
  pub remedy: Option<String>,
}

/// Checked settings, held natively: `NativeHandleStore.openChecked` and `ResultHandlesEngine.create` take them as
/// they are, so nothing is checked twice.
#[napi]
pub struct NativeSettings {
  /// The plugin's options, when these came from `checkOptions`.
  pub(crate) options: Option<CheckedOptions>,
  pub(crate) store: StoreSettings,
}

#[napi]
impl NativeSettings {
  /// The plugin's options with every default applied, as JSON text (`null` for store settings). A
  /// `handleReferences` predicate shows as `"predicate"`; the secret is left out.
  #[napi(getter)]
  pub fn resolved_json(&self) -> Option<String> {
    let mut resolved = self.options.as_ref()?.resolved.clone();
    resolved.secret = None;
    serde_json::to_string(&resolved).ok()
  }
}

fn read_input(input_json: &str) -> Result<OptionsInput, Vec<String>> {
  OptionsInput::from_json(input_json).map_err(|problem| vec![problem])
}

/// Checks the plugin's options once. `inputJson` is what `optionsInputJson` (lib/result-handles.options.ts)
/// writes: `{ options, jsTypes, autoIsMemory }`.
#[napi]
pub fn check_options(input_json: String) -> Either<NativeSettings, ConfigurationProblems> {
  match read_input(&input_json).and_then(|input| check_plugin_options(&input, &process_env)) {
    Ok(checked) => Either::A(NativeSettings {
      store: checked.store.clone(),
      options: Some(checked),
    }),
    Err(problems) => Either::B(ConfigurationProblems {
      message: problems_message(&problems),
      problems,
      remedy: None,
    }),
  }
}

/// The problems of store settings, as `RESULT_HANDLES_CONFIGURATION` names them.
pub(crate) fn store_problems(problems: Vec<String>) -> ConfigurationProblems {
  let error = configuration_error(problems.clone());
  ConfigurationProblems {
    problems,
    message: error.message,
    remedy: error.remedy,
  }
}

/// Checks the settings of `createResultHandleStore` (`{ storage, namespace, ttlSeconds, secret? }`), written as
/// for `checkOptions`.
#[napi]
pub fn check_store_options(input_json: String) -> Either<NativeSettings, ConfigurationProblems> {
  match read_input(&input_json).and_then(|input| check_store_settings(&input, &process_env)) {
    Ok(store) => Either::A(NativeSettings {
      options: None,
      store,
    }),
    Err(problems) => Either::B(store_problems(problems)),
  }
}

/// Checks the settings of `new ResultHandleStore(storage, ttlSeconds, { secret })` (`{ ttlSeconds, secret? }`);
/// `null` when they are fine.
#[napi]
pub fn check_wrapper_options(input_json: String) -> Option<ConfigurationProblems> {
  read_input(&input_json)
    .and_then(|input| check_wrapper_settings(&input))
    .err()
    .map(store_problems)
}

// ─── constants (each one written once, in the engine) ───────────────────────

/// Smallest `thresholdBytes` accepted: below it the folded form itself would not fit.
#[napi]
pub const MIN_THRESHOLD_BYTES: u32 = options::MIN_THRESHOLD_BYTES as u32;

/// How many answers the in-memory store keeps before it evicts the oldest.
#[napi]
pub const DEFAULT_MEMORY_MAX_ENTRIES: u32 =
  crate::core::store::config::DEFAULT_MEMORY_MAX_ENTRIES as u32;

/// The `_meta` key a folded tool result carries `{ handle, bytes, ttlSeconds }` under.
#[napi]
pub const RESULT_HANDLE_META_KEY: &str = crate::core::fit::RESULT_HANDLE_META_KEY;

/// The name of the tool a model calls to read parts of a folded answer.
#[napi]
pub const RESULT_QUERY_TOOL_NAME: &str = crate::core::fit::RESULT_QUERY_TOOL_NAME;

/// `result_query`: largest `limit` accepted.
#[napi]
pub const RESULT_QUERY_MAX_LIMIT: u32 = crate::core::query::MAX_LIMIT as u32;

/// `result_query`: items read from a list when `limit` is not given.
#[napi]
pub const RESULT_QUERY_DEFAULT_LIST_LIMIT: u32 = crate::core::query::DEFAULT_LIST_LIMIT as u32;

/// `result_query`: characters read from a string when `limit` is not given.
#[napi]
pub const RESULT_QUERY_DEFAULT_STRING_LIMIT: u32 = crate::core::query::DEFAULT_STRING_LIMIT as u32;
