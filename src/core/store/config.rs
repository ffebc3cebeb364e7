//! `storage` option: the same shapes as FrontMCP's `StorageConfig`, validated with every problem named.
//!
//! Environment variables are read through a function the caller passes, so `auto` can be tested without touching
//! the process environment.

use serde_json::{Map, Value};
use zeroize::Zeroizing;

use crate::core::error::{CoreError, ErrorCode};

mod blocks;
use blocks::*;

/// Default cap on memory entries (FrontMCP's plugin default).
pub const DEFAULT_MEMORY_MAX_ENTRIES: usize = 1000;
/// Default Redis port.
pub const DEFAULT_REDIS_PORT: u16 = 6379;
/// Default interval between purges of expired SQLite rows.
pub const DEFAULT_SQLITE_PURGE_MS: u64 = 60_000;
/// The longest interval a sweeper or purge setting takes (100 years): a bound on intervals, not on TTLs, which
/// `options::MAX_TTL_SECONDS` caps.
pub const MAX_INTERVAL_SECONDS: u64 = 3_153_600_000;

/// A resolved storage choice (after `auto` and the environment).
#[derive(Clone, PartialEq, Eq)]
pub struct StorageConfig {
  /// The backend and its settings.
  pub backend: BackendConfig,
  /// Prepended to every key (the backend's `keyPrefix`, then the top-level `prefix`), before the namespace.
  pub key_prefix: String,
  /// `fallback: 'memory'`: when the backend cannot be reached at open, use a memory store instead.
  pub fallback_memory: bool,
}

/// The backend a [`StorageConfig`] names.
#[derive(Clone, PartialEq, Eq)]
pub enum BackendConfig {
  Memory(MemoryConfig),
  Redis(RedisConfig),
  Sqlite(SqliteConfig),
  Rest(RestConfig),
}

impl BackendConfig {
  /// The `type` this resolved to, as a user writes it.
  pub fn type_name(&self) -> &'static str {
    match self {
      BackendConfig::Memory(_) => "memory",
      BackendConfig::Redis(_) => "redis",
      BackendConfig::Sqlite(_) => "sqlite",
      BackendConfig::Rest(rest) => match rest.flavor {
        RestFlavor::Upstash => "upstash",
        RestFlavor::VercelKv => "vercel-kv",
      },
    }
  }
}

/// `memory`: caps on entries and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryConfig {
  /// 0 = no limit.
  pub max_entries: usize,
  /// Bytes held (keys + values); `None` = no limit.
  pub max_bytes: Option<u64>,
}

impl Default for MemoryConfig {
  fn default() -> Self {
    Self {
      max_entries: DEFAULT_MEMORY_MAX_ENTRIES,
      max_bytes: None,
    }
  }
}

/// `redis`: where the server is.
#[derive(Clone, PartialEq, Eq)]
pub enum RedisConfig {
  /// `redis://` or `rediss://` URL (may hold a password: never printed).
  Url(Zeroizing<String>),
  /// Host settings.
  Host {
    host: String,
    port: u16,
    password: Option<Zeroizing<String>>,
    db: i64,
    tls: bool,
  },
  /// Redis Cluster: seed nodes as `redis://` / `rediss://` URLs (may hold passwords: never printed).
  Cluster { nodes: Vec<Zeroizing<String>> },
}

/// `sqlite`: the database file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteConfig {
  pub path: String,
  pub wal: bool,
  pub purge_interval_ms: u64,
}

/// Which REST service speaks the Upstash protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestFlavor {
  Upstash,
  VercelKv,
}

/// `upstash` / `vercel-kv`: the REST endpoint and its token.
#[derive(Clone, PartialEq, Eq)]
pub struct RestConfig {
  pub flavor: RestFlavor,
  pub url: String,
  pub token: Zeroizing<String>,
}

// Settings may hold passwords and tokens: never printed.
impl std::fmt::Debug for StorageConfig {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "StorageConfig({})", self.backend.type_name())
  }
}

impl std::fmt::Debug for BackendConfig {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match self {
      BackendConfig::Memory(memory) => write!(f, "{memory:?}"),
      BackendConfig::Sqlite(sqlite) => write!(f, "{sqlite:?}"),
      other => write!(f, "BackendConfig({})", other.type_name()),
    }
  }
}

const TYPES: &str = "'auto', 'memory', 'redis', 'sqlite', 'upstash' or 'vercel-kv'";

/// Reads `storage` (a JSON value; `null` means `{ type: 'auto' }`) and resolves it against the environment.
/// Returns every problem found, each naming the option.
pub fn parse_storage_config(
  input: &Value,
  env: &dyn Fn(&str) -> Option<String>,
) -> Result<StorageConfig, Vec<String>> {
  let empty = Map::new();
  let object = match input {
    Value::Null => &empty,
    Value::Object(object) => object,
    _ => {
      return Err(vec![
        "storage must be an object such as { type: 'memory' }.".to_string(),
      ])
    }
  };
  let mut problems = Vec::new();
  let env = |name: &str| env(name).filter(|value| !value.is_empty());

  for key in object.keys() {
    if !matches!(
      key.as_str(),
      "type" | "memory" | "redis" | "sqlite" | "upstash" | "vercelKv" | "prefix" | "fallback"
    ) {
      let hint = match key.as_str() {
        "cloudflareKv" => " Cloudflare KV needs a Workers binding the native store cannot use: wrap your storage with new ResultHandleStore(storage, ttlSeconds).",
        _ => "",
      };
      problems.push(format!(
        "storage.{key} is not a known storage option.{hint}"
      ));
    }
  }

  let kind = match object.get("type") {
    None => "auto",
    Some(Value::String(kind)) => match kind.as_str() {
      "auto" | "memory" | "redis" | "sqlite" | "upstash" | "vercel-kv" => kind.as_str(),
      "cloudflare-kv" => {
        problems.push("storage.type 'cloudflare-kv' needs a Workers binding the native store cannot use: wrap your storage with new ResultHandleStore(storage, ttlSeconds).".to_string());
        "auto"
      }
      _ => {
        problems.push(format!("storage.type must be {TYPES}."));
        "auto"
      }
    },
    Some(_) => {
      problems.push(format!("storage.type must be {TYPES}."));
      "auto"
    }
  };

  let prefix =
    optional_string(object, "prefix", "storage.prefix", &mut problems).unwrap_or_default();
  let fallback_memory = match object.get("fallback") {
    None => false,
    Some(Value::String(value)) if value == "error" => false,
    Some(Value::String(value)) if value == "memory" => true,
    Some(_) => {
      problems.push("storage.fallback must be 'error' or 'memory'.".to_string());
      false
    }
  };

  // Every block given is checked, whichever type is picked, so a typo never waits for the day it is used.
  let memory =
    block(object, "memory", &mut problems).map(|block| memory_block(block, &mut problems));
  let redis = block(object, "redis", &mut problems).map(|block| redis_block(block, &mut problems));
  let sqlite =
    block(object, "sqlite", &mut problems).map(|block| sqlite_block(block, &mut problems));
  let upstash = block(object, "upstash", &mut problems)
    .map(|block| rest_block(block, "upstash", &mut problems));
  let vercel = block(object, "vercelKv", &mut problems)
    .map(|block| rest_block(block, "vercelKv", &mut problems));

  let upstash_env = env("UPSTASH_REDIS_REST_URL").zip(env("UPSTASH_REDIS_REST_TOKEN"));
  let vercel_env = env("KV_REST_API_URL").zip(env("KV_REST_API_TOKEN"));
  let redis_env = env("REDIS_CLUSTER_NODES").is_some()
    || env("REDIS_URL").is_some()
    || env("REDIS_HOST").is_some();
  let kind = match kind {
    "auto" if upstash_env.is_some() => "upstash",
    "auto" if vercel_env.is_some() => "vercel-kv",
    "auto" if redis_env => "redis",
    "auto" => "memory",
    other => other,
  };

  let mut key_prefix = String::new();
  let backend = match kind {
    "memory" => BackendConfig::Memory(memory.unwrap_or_default()),
    "redis" => {
      let block = redis.unwrap_or_default();
      key_prefix = block.key_prefix.clone();
      match block.target.or_else(|| redis_from_env(&env)) {
        Some(target) => BackendConfig::Redis(target),
        None => {
          problems.push(
            "storage.redis needs url, config { host } or cluster { nodes } (or set REDIS_CLUSTER_NODES, REDIS_URL or REDIS_HOST)."
              .to_string(),
          );
          BackendConfig::Memory(MemoryConfig::default())
        }
      }
    }
    "sqlite" => match sqlite.flatten() {
      Some(config) => BackendConfig::Sqlite(config),
      None => {
        if object.get("sqlite").is_none() {
          problems.push("storage.sqlite.path is required for type 'sqlite'.".to_string());
        }
        BackendConfig::Memory(MemoryConfig::default())
      }
    },
    _ => {
      let (flavor, block, option, url_env, token_env) = if kind == "upstash" {
        (
          RestFlavor::Upstash,
          upstash,
          "upstash",
          "UPSTASH_REDIS_REST_URL",
          "UPSTASH_REDIS_REST_TOKEN",
        )
      } else {
        (
          RestFlavor::VercelKv,
          vercel,
          "vercelKv",
          "KV_REST_API_URL",
          "KV_REST_API_TOKEN",
        )
      };
      let block = block.unwrap_or_default();
      key_prefix = block.key_prefix.clone();
      let url = block.url.or_else(|| env(url_env));
      let token = block
        .token
        .map(Zeroizing::new)
        .or_else(|| env(token_env).map(Zeroizing::new));
      if url.is_none() {
        problems.push(format!(
          "storage.{option}.url is required (or set {url_env})."
        ));
      }
      if token.is_none() {
        problems.push(format!(
          "storage.{option}.token is required (or set {token_env})."
        ));
      }
      match (url, token) {
        (Some(url), Some(token)) => {
          if !(url.starts_with("https://") || url.starts_with("http://")) {
            problems.push(format!("storage.{option}.url must be an http(s) URL."));
          }
          BackendConfig::Rest(RestConfig { flavor, url, token })
        }
        _ => BackendConfig::Memory(MemoryConfig::default()),
      }
    }
  };

  if problems.is_empty() {
    key_prefix.push_str(&prefix);
    Ok(StorageConfig {
      backend,
      key_prefix,
      fallback_memory,
    })
  } else {
    Err(problems)
  }
}

/// One `RESULT_HANDLES_CONFIGURATION` error whose message lists every problem.
pub fn configuration_error(problems: Vec<String>) -> CoreError {
  let count = problems.len();
  let noun = if count == 1 { "problem" } else { "problems" };
  CoreError::new(
    ErrorCode::Configuration,
    format!(
      "Invalid result-handles store settings ({count} {noun}): {}",
      problems.join(" ")
    ),
  )
  .with_remedy("Fix the storage option as described; see docs/storage.md for every shape.")
}

#[cfg(test)]
mod tests;
