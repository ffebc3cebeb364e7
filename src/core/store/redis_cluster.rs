//! `redis` with `cluster: { nodes }`: the redis crate's async cluster client (`cluster-async`).
//!
//! The nodes given are seeds: the client reads the slot map from them and discovers the rest. It follows `MOVED` and
//! `ASK` redirects (a slot migration), refreshes the slot map when a node is lost, and retries with backoff, so a
//! command issued while a master fails over lands on the promoted replica once it takes over.
//!
//! Keys need no hash tag: every command names one key (a record, or its path index, which hashes to another slot),
//! and key names stay `{prefix}{namespace}:{64 hex}`, free of any identifier.

use std::time::Duration;

use ::redis::cluster::ClusterClientBuilder;
use ::redis::cluster_async::ClusterConnection;
use zeroize::Zeroizing;

use super::redis::{not_reached, RedisBackend, CONNECT_TIMEOUT, RESPONSE_TIMEOUT};
use crate::core::error::{CoreError, CoreResult, ErrorCode};

/// How long one command may take in all, redirects and retries included: under the store's own deadline
/// (`OPERATION_TIMEOUT`), and long enough for a replica to take over a failed master.
pub const OVERALL_RESPONSE_TIMEOUT: Duration = Duration::from_secs(8);
/// Retries of one command (redirects, a lost node, `TRYAGAIN`, `CLUSTERDOWN`), with backoff between them.
const RETRIES: u32 = 24;
const MIN_RETRY_WAIT_MS: u64 = 50;
const MAX_RETRY_WAIT_MS: u64 = 1000;

/// Connects to the cluster through its seed nodes (bounded in time); `RESULT_STORE_UNAVAILABLE` when none answers.
pub async fn connect(nodes: &[Zeroizing<String>]) -> CoreResult<RedisBackend<ClusterConnection>> {
  let client = ClusterClientBuilder::new(nodes.iter().map(|node| node.as_str()))
    .connection_timeout(CONNECT_TIMEOUT)
    .response_timeout(RESPONSE_TIMEOUT)
    .overall_response_timeout(Some(OVERALL_RESPONSE_TIMEOUT))
    .retries(RETRIES)
    .min_retry_wait(MIN_RETRY_WAIT_MS)
    .max_retry_wait(MAX_RETRY_WAIT_MS)
    .build()
    .map_err(|_| {
      CoreError::new(
        ErrorCode::Configuration,
        "storage.redis.cluster.nodes does not describe a usable Redis Cluster.",
      )
      .with_remedy("List seed nodes as redis://host:port (or rediss://), all with the same credentials and no database number.")
    })?;
  let connection = tokio::time::timeout(CONNECT_TIMEOUT * 3, client.get_async_connection())
    .await
    .map_err(|_| not_reached())?
    .map_err(|_| not_reached())?;
  Ok(RedisBackend::over(connection))
}
