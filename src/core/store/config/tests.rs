//! The `storage` option's shapes, each problem it names, and `auto` against a given environment.

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
