//! The blocks of a `storage` option (`memory`, `redis`, `cluster`, `sqlite`, `upstash` / `vercelKv`) and the
//! typed readers they share: each block read into its config, every problem named.

use super::*;

pub(super) fn block<'a>(
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

pub(super) fn unknown_keys(
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

pub(super) fn optional_string(
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

pub(super) fn optional_bool(
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
pub(super) fn optional_whole(
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

pub(super) fn memory_block(block: &Map<String, Value>, problems: &mut Vec<String>) -> MemoryConfig {
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
pub(super) struct RedisBlock {
  pub(super) target: Option<RedisConfig>,
  pub(super) key_prefix: String,
}

pub(super) fn redis_block(block: &Map<String, Value>, problems: &mut Vec<String>) -> RedisBlock {
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

pub(super) fn is_redis_url(url: &str) -> bool {
  ::redis::parse_redis_url(url).is_some()
    && (url.starts_with("redis://") || url.starts_with("rediss://"))
}

/// `cluster: { nodes: [url, …] }`: at least one seed node.
pub(super) fn cluster_block(value: &Value, problems: &mut Vec<String>) -> Option<RedisConfig> {
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
pub(super) fn redis_from_env(env: &dyn Fn(&str) -> Option<String>) -> Option<RedisConfig> {
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

pub(super) fn sqlite_block(
  block: &Map<String, Value>,
  problems: &mut Vec<String>,
) -> Option<SqliteConfig> {
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
pub(super) struct RestBlock {
  pub(super) url: Option<String>,
  pub(super) token: Option<String>,
  pub(super) key_prefix: String,
}

pub(super) fn rest_block(
  block: &Map<String, Value>,
  name: &str,
  problems: &mut Vec<String>,
) -> RestBlock {
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
