//! `sqlite`: one table in a local file (`rusqlite`, bundled SQLite), WAL by default, `secure_delete` on so purged
//! rows leave no bytes behind. Expired rows are never returned (every read filters on `expires_at`) and are purged
//! at open and on writes once per purge interval. Range reads use SQLite's incremental blob I/O.
//! Every call runs on tokio's blocking pool.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

use super::{closed_error, unavailable, Backend, BoxFuture};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::store::config::SqliteConfig;

/// The table every namespace shares (keys carry the namespace).
pub const TABLE: &str = "result_handle_records";
/// How long a call waits for another connection's lock on the file.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

struct Inner {
  connection: Mutex<Option<Connection>>,
  purge_interval: Duration,
  last_purge: Mutex<Instant>,
}

/// The SQLite backend.
pub struct SqliteBackend {
  inner: Arc<Inner>,
}

fn now_ms() -> i64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn read_failed(_: rusqlite::Error) -> CoreError {
  unavailable("The SQLite store could not be read.").with_remedy(
    "Check that storage.sqlite.path is a readable SQLite file and not locked by another program.",
  )
}

fn write_failed(error: rusqlite::Error) -> CoreError {
  if locked(&error) {
    return unavailable("The SQLite store is locked by another connection.").with_remedy(
      "Check which program holds storage.sqlite.path; calls resume by themselves once it lets go.",
    );
  }
  CoreError::new(ErrorCode::StoreWriteFailed, "The SQLite store could not keep the answer.")
    .with_remedy("Check that storage.sqlite.path is writable and the disk has room; the answer is sent whole meanwhile.")
}

/// Another connection holds the file's lock past the busy timeout: the store cannot be reached, not refusing.
fn locked(error: &rusqlite::Error) -> bool {
  matches!(
    error.sqlite_error_code(),
    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
  )
}

impl Inner {
  fn connection(&self) -> CoreResult<MutexGuard<'_, Option<Connection>>> {
    let guard = self
      .connection
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    if guard.is_none() {
      return Err(closed_error());
    }
    Ok(guard)
  }

  fn purge(connection: &Connection) -> rusqlite::Result<usize> {
    connection.execute(
      &format!("DELETE FROM {TABLE} WHERE expires_at <= ?1"),
      params![now_ms()],
    )
  }

  fn purge_if_due(&self, connection: &Connection) {
    let mut last = self
      .last_purge
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    if last.elapsed() >= self.purge_interval {
      // A failed purge is retried next time; reads never see expired rows either way.
      if Self::purge(connection).is_ok() {
        *last = Instant::now();
      }
    }
  }
}

macro_rules! with_connection {
  ($guard:ident) => {
    match $guard.as_ref() {
      Some(connection) => connection,
      None => return Err(closed_error()),
    }
  };
}

impl SqliteBackend {
  /// Opens (creating when missing) the database file and its table; purges expired rows.
  pub async fn open(config: &SqliteConfig) -> CoreResult<Self> {
    let config = config.clone();
    let open = move || -> CoreResult<Self> {
      let cannot_open = |_: rusqlite::Error| {
        unavailable("The SQLite store could not be opened.").with_remedy(
          "Check that storage.sqlite.path names a writable file in an existing directory, not open in another process (with walMode one process owns the file; use walMode: false to share it).",
        )
      };
      let connection = Connection::open(&config.path).map_err(cannot_open)?;
      connection.busy_timeout(BUSY_TIMEOUT).map_err(cannot_open)?;
      // No memory-mapped file anywhere: a mapped page that can no longer be written (disk full, file truncated
      // or made immutable) raises SIGBUS, which kills the whole server instead of failing one call.
      connection
        .query_row("PRAGMA mmap_size = 0", [], |_| Ok(()))
        .map_err(cannot_open)?;
      if config.wal {
        // Exclusive locking before WAL keeps the wal-index in this process's heap instead of a mapped `-shm`
        // file (SQLite never creates one). The price: one process owns the file while the store is open.
        connection
          .query_row("PRAGMA locking_mode = EXCLUSIVE", [], |_| Ok(()))
          .map_err(cannot_open)?;
        connection
          .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
          .map_err(cannot_open)?;
        connection
          .pragma_update(None, "synchronous", "NORMAL")
          .map_err(cannot_open)?;
      }
      connection
        .pragma_update(None, "secure_delete", "ON")
        .map_err(cannot_open)?;
      connection
        .execute_batch(&format!(
          "CREATE TABLE IF NOT EXISTS {TABLE} (
             key TEXT PRIMARY KEY NOT NULL,
             value BLOB NOT NULL,
             expires_at INTEGER NOT NULL
           );
           CREATE INDEX IF NOT EXISTS {TABLE}_expiry ON {TABLE} (expires_at);"
        ))
        .map_err(cannot_open)?;
      Inner::purge(&connection).map_err(cannot_open)?;
      Ok(Self {
        inner: Arc::new(Inner {
          connection: Mutex::new(Some(connection)),
          purge_interval: Duration::from_millis(config.purge_interval_ms),
          last_purge: Mutex::new(Instant::now()),
        }),
      })
    };
    blocking(open).await
  }

  fn run<T: Send + 'static>(
    &self,
    work: impl FnOnce(&Inner) -> CoreResult<T> + Send + 'static,
  ) -> BoxFuture<'_, CoreResult<T>> {
    let inner = Arc::clone(&self.inner);
    Box::pin(blocking(move || work(&inner)))
  }

  /// Deletes expired rows now (also done on writes once per purge interval).
  pub async fn purge_now(&self) -> CoreResult<usize> {
    self
      .run(|inner| {
        let guard = inner.connection()?;
        let connection = with_connection!(guard);
        Inner::purge(connection).map_err(write_failed)
      })
      .await
  }
}

async fn blocking<T: Send + 'static>(
  work: impl FnOnce() -> CoreResult<T> + Send + 'static,
) -> CoreResult<T> {
  tokio::task::spawn_blocking(work).await.unwrap_or_else(|_| {
    Err(CoreError::internal(
      "A SQLite call failed inside the engine.",
    ))
  })
}

impl Backend for SqliteBackend {
  fn kind(&self) -> &'static str {
    "sqlite"
  }

  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    self.run(move |inner| {
      let guard = inner.connection()?;
      let connection = with_connection!(guard);
      connection
        .query_row(
          &format!("SELECT value FROM {TABLE} WHERE key = ?1 AND expires_at > ?2"),
          params![key, now_ms()],
          |row| row.get::<_, Vec<u8>>(0),
        )
        .optional()
        .map_err(read_failed)
    })
  }

  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    self.run(move |inner| {
      let guard = inner.connection()?;
      let [range] = read_ranges(with_connection!(guard), &key, [(start, end)])?;
      Ok(range)
    })
  }

  fn get_head_and_range(
    &self,
    key: String,
    head: u64,
    start: u64,
    end: u64,
  ) -> BoxFuture<'_, CoreResult<(Vec<u8>, Vec<u8>)>> {
    self.run(move |inner| {
      let guard = inner.connection()?;
      let [head, range] = read_ranges(with_connection!(guard), &key, [(0, head), (start, end)])?;
      Ok((head, range))
    })
  }

  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    self.run(move |inner| {
      let guard = inner.connection()?;
      let connection = with_connection!(guard);
      let ttl_ms = i64::try_from(ttl_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
      connection
        .execute(
          &format!(
            "INSERT INTO {TABLE} (key, value, expires_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at"
          ),
          params![key, value, now_ms().saturating_add(ttl_ms)],
        )
        .map_err(write_failed)?;
      inner.purge_if_due(connection);
      Ok(())
    })
  }

  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    self.run(move |inner| {
      let guard = inner.connection()?;
      let connection = with_connection!(guard);
      connection
        .execute(&format!("DELETE FROM {TABLE} WHERE key = ?1"), params![key])
        .map(|n| n > 0)
        .map_err(write_failed)
    })
  }

  fn probe(&self, _key: String) -> BoxFuture<'_, CoreResult<()>> {
    self.run(|inner| {
      // Waits for nothing, so that probes never pile up on the blocking pool: not behind a call still waiting out
      // the busy timeout (the connection's lock), nor for the file's write lock, which it takes and lets go of.
      let guard = match inner.connection.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return Err(unavailable("The SQLite store is busy.")),
      };
      let connection = with_connection!(guard);
      connection
        .busy_timeout(Duration::ZERO)
        .map_err(read_failed)?;
      let taken = connection.execute_batch("BEGIN IMMEDIATE; ROLLBACK;");
      connection.busy_timeout(BUSY_TIMEOUT).map_err(read_failed)?;
      taken.map_err(read_failed)
    })
  }

  fn close(&self) -> BoxFuture<'_, ()> {
    let inner = Arc::clone(&self.inner);
    Box::pin(async move {
      let _ = blocking(move || {
        let taken = inner
          .connection
          .lock()
          .unwrap_or_else(|poisoned| poisoned.into_inner())
          .take();
        // Closing checkpoints the WAL into the main file.
        if let Some(connection) = taken {
          let _ = connection.close();
        }
        Ok(())
      })
      .await;
    })
  }
}

/// Bytes `[start, end)` of each range of one live value (clamped), through one blob handle; all empty when missing.
fn read_ranges<const N: usize>(
  connection: &Connection,
  key: &str,
  ranges: [(u64, u64); N],
) -> CoreResult<[Vec<u8>; N]> {
  let row = connection
    .query_row(
      &format!("SELECT rowid, length(value) FROM {TABLE} WHERE key = ?1 AND expires_at > ?2"),
      params![key, now_ms()],
      |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
    )
    .optional()
    .map_err(read_failed)?;
  let Some((rowid, len)) = row else {
    return Ok(ranges.map(|_| Vec::new()));
  };
  let len = u64::try_from(len).unwrap_or(0);
  let blob = connection
    .blob_open("main", TABLE, "value", rowid, true)
    .map_err(read_failed)?;
  let too_large = || unavailable("A range read is too large.");
  let read = |(start, end): (u64, u64)| -> CoreResult<Vec<u8>> {
    let from = start.min(len);
    let to = end.clamp(from, len);
    let mut buffer = vec![0u8; usize::try_from(to - from).map_err(|_| too_large())?];
    if !buffer.is_empty() {
      let offset = usize::try_from(from).map_err(|_| too_large())?;
      blob
        .read_at_exact(&mut buffer, offset)
        .map_err(read_failed)?;
    }
    Ok(buffer)
  };
  let mut out = ranges.map(|_| Vec::new());
  for (slot, range) in out.iter_mut().zip(ranges) {
    *slot = read(range)?;
  }
  Ok(out)
}
