//! `storage` option: the same shapes as FrontMCP's `StorageConfig`, validated with every problem named.
//!
//! Environment variables are read through a function the caller passes, so `auto` can be tested without touching
//! the process environment.

use serde_json::{Map, Value};
use zeroize::Zeroizing;

use crate::core::error::{CoreError, ErrorCode};

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

// ─── blocks ─────────────────────────────────────────────────────────────────

fn block<'a>(
  object: &'a Map<String, Value>,
  key: &str,
  problems: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
  match object.get(key)? {
    Value::Object(block) => Some(block),
    _ => {
      problems.push(format!("storage.{key} must be an object."));
      None
    }
  }
}

fn unknown_keys(
  block: &Map<String, Value>,
  path: &str,
  known: &[&str],
  problems: &mut Vec<String>,
) {
  for key in block.keys() {
    if !known.contains(&key.as_str()) {
      problems.push(format!("{path}.{key} is not a known option."));
    }
  }
}

fn optional_string(
  block: &Map<String, Value>,
  key: &str,
  path: &str,
  problems: &mut Vec<String>,
) -> Option<String> {
  match block.get(key)? {
    Value::String(text) => Some(text.clone()),
    _ => {
      problems.push(format!("{path} must be a string."));
      None
    }
  }
}

fn optional_bool(
  block: &Map<String, Value>,
  key: &str,
  path: &str,
  problems: &mut Vec<String>,
) -> Option<bool> {
  match block.get(key)? {
    Value::Bool(flag) => Some(*flag),
    _ => {
      problems.push(format!("{path} must be true or false."));
      None
    }
  }
}

/// A whole number in `min..=max` (JSON numbers like `5.0` count as whole).
fn optional_whole(
  block: &Map<String, Value>,
  key: &str,
  path: &str,
  min: u64,
  max: u64,
  problems: &mut Vec<String>,
) -> Option<u64> {
  let value = block.get(key)?;
  let whole = value.as_u64().or_else(|| {
    value
      .as_f64()
      .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 9.007_199_254_740_991e15)
      .map(|f| f as u64)
  });
  match whole {
    Some(n) if (min..=max).contains(&n) => Some(n),
    _ => {
      problems.push(format!(
        "{path} must be a whole number from {min} to {max}."
      ));
      None
    }
  }
}

fn memory_block(block: &Map<String, Value>, problems: &mut Vec<String>) -> MemoryConfig {
  unknown_keys(
    block,
    "storage.memory",
    &[
      "maxEntries",
      "maxBytes",
      "enableSweeper",
      "sweepIntervalSeconds",
    ],
    problems,
  );
  // Accepted for FrontMCP compatibility; expired entries are swept on every operation anyway.
  optional_bool(
    block,
    "enableSweeper",
    "storage.memory.enableSweeper",
    problems,
  );
  optional_whole(
    block,
    "sweepIntervalSeconds",
    "storage.memory.sweepIntervalSeconds",
    1,
    MAX_INTERVAL_SECONDS,
    problems,
  );
  let max_entries = optional_whole(
    block,
    "maxEntries",
    "storage.memory.maxEntries",
    0,
    u32::MAX.into(),
    problems,
  )
  .map_or(DEFAULT_MEMORY_MAX_ENTRIES, |n| n as usize);
  let max_bytes = optional_whole(
    block,
    "maxBytes",
    "storage.memory.maxBytes",
    1,
    u64::MAX >> 11,
    problems,
  );
  MemoryConfig {
    max_entries,
    max_bytes,
  }
}

#[derive(Default)]
struct RedisBlock {
  target: Option<RedisConfig>,
  key_prefix: String,
}

fn redis_block(block: &Map<String, Value>, problems: &mut Vec<String>) -> RedisBlock {
  unknown_keys(
    block,
    "storage.redis",
    &["url", "config", "cluster", "keyPrefix", "client"],
    problems,
  );
  if block.contains_key("client") {
    problems.push(
      "storage.redis.client (a JS Redis client) cannot cross into the native store: pass redis.url or redis.config, or wrap your storage with new ResultHandleStore(storage, ttlSeconds).".to_string(),
    );
  }
  let key_prefix =
    optional_string(block, "keyPrefix", "storage.redis.keyPrefix", problems).unwrap_or_default();
  let url = optional_string(block, "url", "storage.redis.url", problems).map(Zeroizing::new);
  if let Some(url) = &url {
    if !is_redis_url(url) {
      problems.push("storage.redis.url must be a redis:// or rediss:// URL.".to_string());
    }
  }
  let host = match block.get("config") {
    None => None,
    Some(Value::Object(config)) => {
      let path = "storage.redis.config";
      unknown_keys(
        config,
        path,
        &["host", "port", "password", "db", "tls"],
        problems,
      );
      let host = match config.get("host") {
        Some(Value::String(host)) if !host.is_empty() => Some(host.clone()),
        _ => {
          problems.push(format!("{path}.host must be a non-empty string."));
          None
        }
      };
      let port = optional_whole(
        config,
        "port",
        "storage.redis.config.port",
        1,
        65_535,
        problems,
      )
      .map_or(DEFAULT_REDIS_PORT, |p| p as u16);
      let password = optional_string(
        config,
        "password",
        "storage.redis.config.password",
        problems,
      )
      .map(Zeroizing::new);
      let db = optional_whole(
        config,
        "db",
        "storage.redis.config.db",
        0,
        1 << 20,
        problems,
      )
      .unwrap_or(0) as i64;
      let tls = optional_bool(config, "tls", "storage.redis.config.tls", problems).unwrap_or(false);
      host.map(|host| RedisConfig::Host {
        host,
        port,
        password,
        db,
        tls,
      })
    }
    Some(_) => {
      problems.push(
        "storage.redis.config must be an object { host, port?, password?, db?, tls? }.".to_string(),
      );
      None
    }
  };
  if url.is_some() && block.contains_key("config") {
    problems.push("storage.redis takes url or config, not both.".to_string());
  }
  let cluster = block
    .get("cluster")
    .and_then(|cluster| cluster_block(cluster, problems));
  if block.contains_key("cluster") && (url.is_some() || block.contains_key("config")) {
    problems.push("storage.redis takes one of url, config or cluster.".to_string());
  }
  RedisBlock {
    target: url.map(RedisConfig::Url).or(host).or(cluster),
    key_prefix,
  }
}

fn is_redis_url(url: &str) -> bool {
  ::redis::parse_redis_url(url).is_some()
    && (url.starts_with("redis://") || url.starts_with("rediss://"))
}

/// `cluster: { nodes: [url, …] }`: at least one seed node.
fn cluster_block(value: &Value, problems: &mut Vec<String>) -> Option<RedisConfig> {
  let path = "storage.redis.cluster";
  let Value::Object(cluster) = value else {
    problems.push(format!(
      "{path} must be an object {{ nodes: ['redis://host:port', …] }}."
    ));
    return None;
  };
  unknown_keys(cluster, path, &["nodes"], problems);
  let nodes = match cluster.get("nodes") {
    Some(Value::Array(nodes)) if !nodes.is_empty() => nodes,
    _ => {
      problems.push(format!(
        "{path}.nodes must be a non-empty list of redis:// or rediss:// URLs."
      ));
      return None;
    }
  };
  let nodes: Option<Vec<Zeroizing<String>>> = nodes
    .iter()
    .map(|node| match node {
      Value::String(url) if is_redis_url(url) => Some(Zeroizing::new(url.clone())),
      _ => None,
    })
    .collect();
  if nodes.is_none() {
    problems.push(format!(
      "{path}.nodes must be a non-empty list of redis:// or rediss:// URLs."
    ));
  }
  nodes.map(|nodes| RedisConfig::Cluster { nodes })
}

/// `REDIS_CLUSTER_NODES` (comma-separated URLs), else `REDIS_URL`, else `REDIS_HOST` (a URL, or a bare host
/// completed with `REDIS_PORT` and `REDIS_PASSWORD`).
fn redis_from_env(env: &dyn Fn(&str) -> Option<String>) -> Option<RedisConfig> {
  if let Some(nodes) = env("REDIS_CLUSTER_NODES") {
    let nodes: Vec<Zeroizing<String>> = nodes
      .split(',')
      .map(str::trim)
      .filter(|node| !node.is_empty())
      .map(|node| Zeroizing::new(node.to_string()))
      .collect();
    if !nodes.is_empty() {
      return Some(RedisConfig::Cluster { nodes });
    }
  }
  if let Some(url) = env("REDIS_URL") {
    return Some(RedisConfig::Url(Zeroizing::new(url)));
  }
  let host = env("REDIS_HOST")?;
  if host.contains("://") {
    return Some(RedisConfig::Url(Zeroizing::new(host)));
  }
  Some(RedisConfig::Host {
    host,
    port: env("REDIS_PORT")
      .and_then(|p| p.parse().ok())
      .unwrap_or(DEFAULT_REDIS_PORT),
    password: env("REDIS_PASSWORD").map(Zeroizing::new),
    db: 0,
    tls: false,
  })
}

fn sqlite_block(block: &Map<String, Value>, problems: &mut Vec<String>) -> Option<SqliteConfig> {
  unknown_keys(
    block,
    "storage.sqlite",
    &["path", "walMode", "ttlCleanupIntervalMs"],
    problems,
  );
  let path = match block.get("path") {
    Some(Value::String(path)) if !path.is_empty() => Some(path.clone()),
    _ => {
      problems.push("storage.sqlite.path must be a non-empty string (a file path).".to_string());
      None
    }
  };
  let wal = optional_bool(block, "walMode", "storage.sqlite.walMode", problems).unwrap_or(true);
  let purge_interval_ms = optional_whole(
    block,
    "ttlCleanupIntervalMs",
    "storage.sqlite.ttlCleanupIntervalMs",
    1,
    MAX_INTERVAL_SECONDS * 1000,
    problems,
  )
  .unwrap_or(DEFAULT_SQLITE_PURGE_MS);
  path.map(|path| SqliteConfig {
    path,
    wal,
    purge_interval_ms,
  })
}

#[derive(Default)]
struct RestBlock {
  url: Option<String>,
  token: Option<String>,
  key_prefix: String,
}

fn rest_block(block: &Map<String, Value>, name: &str, problems: &mut Vec<String>) -> RestBlock {
  let path = format!("storage.{name}");
  unknown_keys(
    block,
    &path,
    &["url", "token", "keyPrefix", "enablePubSub"],
    problems,
  );
  optional_bool(
    block,
    "enablePubSub",
    &format!("{path}.enablePubSub"),
    problems,
  );
  RestBlock {
    url: optional_string(block, "url", &format!("{path}.url"), problems),
    token: optional_string(block, "token", &format!("{path}.token"), problems),
    key_prefix: optional_string(block, "keyPrefix", &format!("{path}.keyPrefix"), problems)
      .unwrap_or_default(),
  }
}

#[cfg(test)]
mod tests {
  use std::collections::HashMap;

  use serde_json::json;

  use super::*;

  fn parse_with(input: Value, vars: &[(&str, &str)]) -> Result<StorageConfig, Vec<String>> {
    let vars: HashMap<String, String> = vars
      .iter()
      .map(|(k, v)| (k.to_string(), v.to_string()))
      .collect();
    parse_storage_config(&input, &move |name| vars.get(name).cloned())
  }

  fn parse(input: Value) -> Result<StorageConfig, Vec<String>> {
    parse_with(input, &[])
  }

  #[test]
  fn memory_defaults_and_caps() {
    let config = parse(json!({ "type": "memory" })).unwrap();
    assert_eq!(
      config.backend,
      BackendConfig::Memory(MemoryConfig::default())
    );
    let config =
      parse(json!({ "type": "memory", "memory": { "maxEntries": 0, "maxBytes": 4096 } })).unwrap();
    assert_eq!(
      config.backend,
      BackendConfig::Memory(MemoryConfig {
        max_entries: 0,
        max_bytes: Some(4096)
      })
    );
  }

  #[test]
  fn every_problem_is_named() {
    let problems = parse(json!({
      "type": "redis",
      "redis": { "url": "http://nope", "config": { "port": 0 }, "client": {} },
      "memory": { "maxEntries": -1, "maxBytes": 1.5, "bogus": true },
      "sqlite": { "path": "" },
      "upstash": { "url": 3 },
      "extra": 1,
      "fallback": "maybe",
    }))
    .unwrap_err();
    let all = problems.join("\n");
    for needle in [
      "storage.redis.url must be a redis://",
      "storage.redis.config.host",
      "storage.redis.config.port",
      "storage.redis.client",
      "not both",
      "storage.memory.maxEntries",
      "storage.memory.maxBytes",
      "storage.memory.bogus",
      "storage.sqlite.path",
      "storage.upstash.url must be a string",
      "storage.extra",
      "storage.fallback",
    ] {
      assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
    }
    let error = configuration_error(problems);
    assert_eq!(error.code.as_str(), "RESULT_HANDLES_CONFIGURATION");
    assert!(error.message.contains("problems"));
  }

  #[test]
  fn bad_types_and_shapes() {
    assert!(parse(json!("memory")).is_err());
    assert!(parse(json!({ "type": "disk" })).unwrap_err()[0].contains("storage.type"));
    assert!(parse(json!({ "type": "cloudflare-kv" })).unwrap_err()[0].contains("ResultHandleStore"));
    assert!(parse(json!({ "type": "sqlite" })).unwrap_err()[0].contains("storage.sqlite.path"));
    assert!(parse(json!({ "type": "redis" })).unwrap_err()[0].contains("REDIS_URL"));
    let problems = parse(json!({ "type": "upstash" })).unwrap_err();
    assert!(problems
      .iter()
      .any(|p| p.contains("UPSTASH_REDIS_REST_URL")));
    assert!(problems
      .iter()
      .any(|p| p.contains("UPSTASH_REDIS_REST_TOKEN")));
    let problems = parse(json!({ "type": "vercel-kv" })).unwrap_err();
    assert!(problems.iter().any(|p| p.contains("KV_REST_API_TOKEN")));
  }

  #[test]
  fn redis_shapes() {
    let config = parse(json!({ "type": "redis", "redis": { "url": "redis://127.0.0.1:6390/2", "keyPrefix": "app:" }, "prefix": "p:" })).unwrap();
    assert!(
      matches!(&config.backend, BackendConfig::Redis(RedisConfig::Url(url)) if url.as_str() == "redis://127.0.0.1:6390/2")
    );
    assert_eq!(config.key_prefix, "app:p:");
    let config = parse(json!({ "type": "redis", "redis": { "config": { "host": "localhost", "password": "pw", "db": 3, "tls": true } } })).unwrap();
    match config.backend {
      BackendConfig::Redis(RedisConfig::Host {
        host,
        port,
        password,
        db,
        tls,
      }) => {
        assert_eq!((host.as_str(), port, db, tls), ("localhost", 6379, 3, true));
        assert_eq!(password.as_deref().map(String::as_str), Some("pw"));
      }
      _ => panic!("expected redis host settings"),
    }
    // A redis block without a target uses the environment.
    let config = parse_with(
      json!({ "type": "redis" }),
      &[("REDIS_HOST", "cache"), ("REDIS_PORT", "7000")],
    )
    .unwrap();
    assert!(
      matches!(config.backend, BackendConfig::Redis(RedisConfig::Host { ref host, port: 7000, .. }) if host == "cache")
    );
    assert_eq!(format!("{config:?}"), "StorageConfig(redis)");
  }

  #[test]
  fn redis_cluster_shapes() {
    let nodes = json!(["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]);
    let config = parse(
      json!({ "type": "redis", "redis": { "cluster": { "nodes": nodes }, "keyPrefix": "k:" } }),
    )
    .unwrap();
    match &config.backend {
      BackendConfig::Redis(RedisConfig::Cluster { nodes }) => {
        assert_eq!(
          nodes.iter().map(|n| n.as_str()).collect::<Vec<_>>(),
          ["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]
        );
      }
      _ => panic!("expected a cluster"),
    }
    assert_eq!(config.key_prefix, "k:");
    let problems =
      parse(json!({ "type": "redis", "redis": { "cluster": { "nodes": [] } } })).unwrap_err();
    assert!(
      problems[0].contains("storage.redis.cluster.nodes"),
      "{problems:?}"
    );
    let problems = parse(
      json!({ "type": "redis", "redis": { "cluster": { "nodes": ["http://x"], "extra": 1 } } }),
    )
    .unwrap_err();
    assert!(
      problems
        .iter()
        .any(|p| p.contains("storage.redis.cluster.extra")),
      "{problems:?}"
    );
    assert!(
      problems
        .iter()
        .any(|p| p.contains("storage.redis.cluster.nodes")),
      "{problems:?}"
    );
    let problems = parse(json!({ "type": "redis", "redis": { "url": "redis://h", "cluster": { "nodes": ["redis://h"] } } })).unwrap_err();
    assert!(
      problems
        .iter()
        .any(|p| p.contains("one of url, config or cluster")),
      "{problems:?}"
    );
    // REDIS_CLUSTER_NODES: comma-separated, picked by auto before REDIS_URL, and by a redis block without a target.
    let vars = [
      (
        "REDIS_CLUSTER_NODES",
        " redis://127.0.0.1:7000, redis://127.0.0.1:7001 ,",
      ),
      ("REDIS_URL", "redis://127.0.0.1:1"),
    ];
    for input in [json!({}), json!({ "type": "redis" })] {
      match parse_with(input, &vars).unwrap().backend {
        BackendConfig::Redis(RedisConfig::Cluster { nodes }) => assert_eq!(nodes.len(), 2),
        _ => panic!("expected a cluster from REDIS_CLUSTER_NODES"),
      }
    }
  }

  #[test]
  fn auto_follows_the_frontmcp_order() {
    let all = [
      ("UPSTASH_REDIS_REST_URL", "http://127.0.0.1:1/u"),
      ("UPSTASH_REDIS_REST_TOKEN", "tu"),
      ("KV_REST_API_URL", "http://127.0.0.1:1/v"),
      ("KV_REST_API_TOKEN", "tv"),
      ("REDIS_URL", "redis://127.0.0.1:1"),
    ];
    let pick = |vars: &[(&str, &str)]| parse_with(json!({}), vars).unwrap().backend.type_name();
    assert_eq!(pick(&all), "upstash");
    assert_eq!(pick(&all[1..]), "vercel-kv");
    assert_eq!(pick(&all[2..]), "vercel-kv");
    assert_eq!(pick(&all[3..]), "redis");
    assert_eq!(pick(&[("REDIS_HOST", "h")]), "redis");
    assert_eq!(pick(&[("REDIS_URL", "")]), "memory");
    assert_eq!(pick(&[]), "memory");
    assert_eq!(parse(Value::Null).unwrap().backend.type_name(), "memory");
    // Upstash picked by auto takes the block's keyPrefix and the env's url/token.
    let config = parse_with(json!({ "upstash": { "keyPrefix": "k:" } }), &all).unwrap();
    assert_eq!(config.key_prefix, "k:");
    match config.backend {
      BackendConfig::Rest(rest) => {
        assert_eq!(rest.flavor, RestFlavor::Upstash);
        assert_eq!(rest.url, "http://127.0.0.1:1/u");
        assert_eq!(rest.token.as_str(), "tu");
      }
      _ => panic!("expected upstash"),
    }
  }

  #[test]
  fn sqlite_and_fallback() {
    let config = parse(json!({ "type": "sqlite", "sqlite": { "path": "/tmp/x.db", "walMode": false }, "fallback": "memory" })).unwrap();
    assert_eq!(
      config.backend,
      BackendConfig::Sqlite(SqliteConfig {
        path: "/tmp/x.db".into(),
        wal: false,
        purge_interval_ms: DEFAULT_SQLITE_PURGE_MS
      })
    );
    assert!(config.fallback_memory);
  }
}
