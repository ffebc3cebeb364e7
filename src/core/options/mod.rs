//! The plugin options and the store settings: checked once (`check.rs`), against one limit table (`limits.rs`),
//! into one typed value (`CheckedOptions`) that the engine, the store and the hosts all use.
//!
//! Input is the options' JSON plus a side table of the values JSON cannot carry (`input.rs`); the TS layer writes
//! both, in one JSON text.

mod check;
mod fields;
pub mod input;
pub mod limits;

use serde::Serialize;
use serde_json::{Map, Value};

pub use check::{check_plugin_options, check_store_settings, check_wrapper_settings, process_env};
pub use fields::{namespace, problems_message, secret, ttl_seconds};
pub use input::OptionsInput;
pub use limits::*;

use crate::core::seal::ServerSecret;
use crate::core::store::config::StorageConfig;

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

/// For the JS layer: `false`, `true`, the list, or `"predicate"` (JS keeps the function itself).
impl Serialize for HandleReferences {
  fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
    match self {
      HandleReferences::Off => serializer.serialize_bool(false),
      HandleReferences::All => serializer.serialize_bool(true),
      HandleReferences::Tools(names) => names.serialize(serializer),
      HandleReferences::Predicate => serializer.serialize_str("predicate"),
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

/// What a store is opened with: checked, with the environment already read (`auto`, `RESULT_HANDLES_SECRET`).
#[derive(Clone)]
pub struct StoreSettings {
  /// The backend and its settings.
  pub storage: StorageConfig,
  /// Prefix of every key.
  pub namespace: String,
  /// How long every answer is kept.
  pub ttl_seconds: u64,
  /// The secret mixed into every key, when there is one.
  pub secret: Option<ServerSecret>,
}

impl std::fmt::Debug for StoreSettings {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.debug_struct("StoreSettings")
      .field("storage", &self.storage)
      .field("namespace", &self.namespace)
      .field("ttl_seconds", &self.ttl_seconds)
      .finish_non_exhaustive()
  }
}

/// The plugin's options after checking: what the hosts read, and what the store opens with.
#[derive(Debug, Clone)]
pub struct CheckedOptions {
  /// Every option, defaults applied.
  pub resolved: ResolvedOptions,
  /// The store settings those options make.
  pub store: StoreSettings,
}

#[cfg(test)]
mod tests;
