//! `redis`: one multiplexed connection (`redis::aio::ConnectionManager`) that reconnects by itself, or, for Redis
//! Cluster, the crate's cluster connection (`redis_cluster`), behind the same commands.
//! Values are the raw record bytes; `SET key value EX ttl` writes value and TTL atomically; `GETRANGE` reads ranges
//! (a record's header and a range together, in one pipelined round trip).
//! Every command names one key, so each goes to the node serving that key's slot.
//! Every call is bounded: connection and response timeouts in the client, and the store's own deadline above them.

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use ::redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use ::redis::{
  Client, Cmd, ConnectionAddr, ErrorKind, FromRedisValue, IntoConnectionInfo, Pipeline,
  RedisConnectionInfo, RedisError, RedisResult,
};

use super::{closed_error, head_and_range_apart, unavailable, Backend, BoxFuture};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::store::config::RedisConfig;

/// How long one connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the server may take to answer one command.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

/// The Redis backend over one server (`ConnectionManager`) or a cluster (`redis_cluster`).
pub struct RedisBackend<C = ConnectionManager> {
  connection: Mutex<Option<C>>,
}

pub(super) fn not_reached() -> CoreError {
  unavailable("Redis could not be reached.").with_remedy(
    "Check storage.redis (url or config) and that the server is up; calls recover once it is back.",
  )
}

fn client_for(config: &RedisConfig) -> CoreResult<Client> {
  let bad = |_: RedisError| {
    CoreError::new(
      ErrorCode::Configuration,
      "storage.redis does not describe a usable Redis server.",
    )
    .with_remedy(
      "Pass redis.url as redis://host:port/db or rediss://…, or redis.config { host, port }.",
    )
  };
  match config {
    RedisConfig::Url(url) => Client::open(url.as_str()).map_err(bad),
    RedisConfig::Cluster { .. } => Err(
      CoreError::new(
        ErrorCode::Configuration,
        "storage.redis.cluster needs the cluster client.",
      )
      .with_remedy("Open it with redis_cluster::connect."),
    ),
    RedisConfig::Host {
      host,
      port,
      password,
      db,
      tls,
    } => {
      let addr = if *tls {
        ConnectionAddr::TcpTls {
          host: host.clone(),
          port: *port,
          insecure: false,
          tls_params: None,
        }
      } else {
        ConnectionAddr::Tcp(host.clone(), *port)
      };
      let mut settings = RedisConnectionInfo::default().set_db(*db);
      if let Some(password) = password {
        settings = settings.set_password(password.as_str());
      }
      let info = addr
        .into_connection_info()
        .map_err(bad)?
        .set_redis_settings(settings);
      Client::open(info).map_err(bad)
    }
  }
}

impl RedisBackend<ConnectionManager> {
  /// Connects (bounded by [`CONNECT_TIMEOUT`] per attempt); fails with `RESULT_STORE_UNAVAILABLE` when unreachable.
  pub async fn connect(config: &RedisConfig) -> CoreResult<Self> {
    let client = client_for(config)?;
    let settings = ConnectionManagerConfig::new()
      .set_connection_timeout(Some(CONNECT_TIMEOUT))
      .set_response_timeout(Some(RESPONSE_TIMEOUT))
      .set_number_of_retries(2)
      .set_min_delay(Duration::from_millis(50))
      .set_max_delay(Duration::from_millis(500));
    let connect = ConnectionManager::new_with_config(client, settings);
    let manager = tokio::time::timeout(CONNECT_TIMEOUT * 3, connect)
      .await
      .map_err(|_| not_reached())?
      .map_err(|_| not_reached())?;
    Ok(Self::over(manager))
  }
}

impl<C: ConnectionLike + Clone + Send + Sync + 'static> RedisBackend<C> {
  /// A backend over a connection already open.
  pub(super) fn over(connection: C) -> Self {
    Self {
      connection: Mutex::new(Some(connection)),
    }
  }

  fn connection(&self) -> CoreResult<C> {
    let guard = self
      .connection
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    guard.clone().ok_or_else(closed_error)
  }
}

fn reading_failed(_: RedisError) -> CoreError {
  not_reached()
}

/// Whether the server (or cluster) could not be reached, as opposed to answering and refusing: lost or refused
/// connections, timeouts, and a cluster that is moving slots, failing over or has no node for a slot yet.
fn unreachable(error: &RedisError) -> bool {
  error.is_io_error()
    || error.is_timeout()
    || error.is_connection_dropped()
    || error.is_connection_refusal()
    || error.is_cluster_error()
    || error.kind() == ErrorKind::ClusterConnectionNotFound
}

fn writing_failed(error: RedisError) -> CoreError {
  if unreachable(&error) {
    not_reached()
  } else {
    // The server answered and refused (out of memory, read-only replica, …).
    CoreError::new(ErrorCode::StoreWriteFailed, "Redis refused to keep the answer.")
      .with_remedy("Check the server's memory limit and that it accepts writes; the answer is sent whole meanwhile.")
  }
}

fn connection_lost(error: &RedisError) -> bool {
  error.is_io_error() || error.is_connection_dropped() || error.is_connection_refusal()
}

/// What [`RedisBackend::query`] sends: one command, or a pipeline of them (one round trip).
trait Request: Sync {
  fn send<T: FromRedisValue>(
    &self,
    connection: &mut (impl ConnectionLike + Send),
  ) -> impl Future<Output = RedisResult<T>> + Send;
}

impl Request for Cmd {
  fn send<T: FromRedisValue>(
    &self,
    connection: &mut (impl ConnectionLike + Send),
  ) -> impl Future<Output = RedisResult<T>> + Send {
    self.query_async(connection)
  }
}

impl Request for Pipeline {
  fn send<T: FromRedisValue>(
    &self,
    connection: &mut (impl ConnectionLike + Send),
  ) -> impl Future<Output = RedisResult<T>> + Send {
    self.query_async(connection)
  }
}

/// `GETRANGE key start end-1`; `None` for an empty range (GETRANGE's end is inclusive).
fn getrange(key: &str, start: u64, end: u64) -> Option<Cmd> {
  let mut command = ::redis::cmd("GETRANGE");
  command.arg(key).arg(start).arg(end.checked_sub(1)?);
  (end > start).then_some(command)
}

impl<C: ConnectionLike + Clone + Send + Sync + 'static> RedisBackend<C> {
  /// Runs one command; when the connection was lost, runs it once more on the manager's fresh connection (every
  /// command here is idempotent), so the first call after the server comes back succeeds.
  async fn query<T: FromRedisValue>(
    &self,
    command: impl Request,
    failed: fn(RedisError) -> CoreError,
  ) -> CoreResult<T> {
    let mut connection = self.connection()?;
    match command.send::<T>(&mut connection).await {
      Err(error) if connection_lost(&error) => {
        let mut connection = self.connection()?;
        command.send::<T>(&mut connection).await.map_err(failed)
      }
      other => other.map_err(failed),
    }
  }
}

impl<C: ConnectionLike + Clone + Send + Sync + 'static> Backend for RedisBackend<C> {
  fn kind(&self) -> &'static str {
    "redis"
  }

  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    Box::pin(async move {
      let mut command = ::redis::cmd("GET");
      command.arg(&key);
      self.query(command, reading_failed).await
    })
  }

  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    Box::pin(async move {
      // A missing key reads as "".
      match getrange(&key, start, end) {
        Some(command) => self.query(command, reading_failed).await,
        None => Ok(Vec::new()),
      }
    })
  }

  fn get_head_and_range(
    &self,
    key: String,
    head: u64,
    start: u64,
    end: u64,
  ) -> BoxFuture<'_, CoreResult<(Vec<u8>, Vec<u8>)>> {
    Box::pin(async move {
      let (Some(head), Some(range)) = (getrange(&key, 0, head), getrange(&key, start, end)) else {
        return head_and_range_apart(self, key, head, start, end).await;
      };
      let mut pipeline = ::redis::pipe();
      pipeline.add_command(head).add_command(range);
      self.query(pipeline, reading_failed).await
    })
  }

  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move {
      let mut command = ::redis::cmd("SET");
      command.arg(&key).arg(value).arg("EX").arg(ttl_seconds);
      self.query(command, writing_failed).await
    })
  }

  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    Box::pin(async move {
      let mut command = ::redis::cmd("DEL");
      command.arg(&key);
      self
        .query::<i64>(command, writing_failed)
        .await
        .map(|n| n > 0)
    })
  }

  fn probe(&self, key: String) -> BoxFuture<'_, CoreResult<()>> {
    // On a cluster PING goes to every master in the client's slot map, which may have dropped a lost one, while a
    // keyed read fails on every node as long as some slot has no master (CLUSTERDOWN): both must answer.
    Box::pin(async move {
      self
        .query::<()>(::redis::cmd("PING"), reading_failed)
        .await?;
      let mut exists = ::redis::cmd("EXISTS");
      exists.arg(&key);
      self.query::<()>(exists, reading_failed).await
    })
  }

  fn close(&self) -> BoxFuture<'_, ()> {
    Box::pin(async move {
      // Dropping the last clone closes the connections and stops their background tasks.
      let taken = self
        .connection
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
      drop(taken);
    })
  }
}
