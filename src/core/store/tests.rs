//! HandleStore tests over the memory and SQLite backends (Redis and REST run against real servers in vitest).

use std::collections::HashSet;
use std::sync::Arc;

use super::config::{BackendConfig, MemoryConfig, SqliteConfig, StorageConfig};
use super::memory::MemoryBackend;
use super::*;
use crate::core::seal::{CHUNK_SIZE, TAG_LEN};

fn owner(session: Option<&str>, subject: Option<&str>) -> Owner {
  Owner::new(session.map(str::to_string), subject.map(str::to_string))
}

fn memory_store(max_entries: usize) -> (Arc<MemoryBackend>, HandleStore) {
  let backend = Arc::new(MemoryBackend::new(MemoryConfig {
    max_entries,
    max_bytes: None,
  }));
  let store = HandleStore::with_backend(backend.clone(), "", "rh", 60, None).unwrap();
  (backend, store)
}

/// A small deterministic generator, so a failure names a reproducible case.
struct XorShift(u64);
impl XorShift {
  fn next(&mut self) -> u64 {
    self.0 ^= self.0 << 13;
    self.0 ^= self.0 >> 7;
    self.0 ^= self.0 << 17;
    self.0
  }
  fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
    &items[(self.next() % items.len() as u64) as usize]
  }
}

fn owners() -> Vec<Owner> {
  let sessions: Vec<Option<String>> = [None, Some(String::new())]
    .into_iter()
    .chain((0..6).map(|i| Some(format!("session-{i}-7f3a9c"))))
    .collect();
  let subjects: Vec<Option<String>> = [None, Some(String::new())]
    .into_iter()
    .chain((0..3).map(|i| Some(format!("subject-{i}-b81d4e"))))
    .collect();
  sessions
    .iter()
    .flat_map(|s| {
      subjects
        .iter()
        .map(move |u| Owner::new(s.clone(), u.clone()))
    })
    .collect()
}

#[tokio::test]
async fn handles_are_uuid_v4() {
  let mut seen = HashSet::new();
  for _ in 0..1000 {
    let handle = HandleStore::new_handle();
    let parsed = uuid::Uuid::parse_str(&handle).unwrap();
    assert_eq!(parsed.get_version_num(), 4);
    assert_eq!(handle, parsed.hyphenated().to_string());
    assert!(seen.insert(handle));
  }
}

#[tokio::test]
async fn round_trip_and_absent_reads() {
  let (_, store) = memory_store(0);
  let handle = HandleStore::new_handle();
  let me = owner(Some("s"), Some("u"));
  store
    .save(&handle, b"{\"a\":1}".as_slice(), &me)
    .await
    .unwrap();
  assert_eq!(
    store.read(&handle, &me).await.unwrap().unwrap(),
    b"{\"a\":1}"
  );
  assert_eq!(
    store.read(&HandleStore::new_handle(), &me).await.unwrap(),
    None
  );
  assert_eq!(store.read("", &me).await.unwrap(), None);
  assert_eq!(
    store.read(&handle, &owner(Some("s"), None)).await.unwrap(),
    None
  );
  assert_eq!(
    store.save("", b"x".as_slice(), &me).await.unwrap_err().code,
    ErrorCode::InvalidInput
  );
  assert!(store.delete(&handle, &me).await.unwrap());
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
}

#[tokio::test]
async fn isolation_over_thousands_of_handles_and_dozens_of_owners() {
  let (backend, store) = memory_store(0);
  let owners = owners();
  assert_eq!(owners.len(), 40);
  let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
  let mut saved = Vec::new();
  for i in 0..2000 {
    let handle = HandleStore::new_handle();
    let who = rng.pick(&owners).clone();
    let body = format!("{{\"answer\":{i},\"marker\":\"plaintext-marker-{i:05}\"}}");
    store.save(&handle, body.as_bytes(), &who).await.unwrap();
    saved.push((handle, who, body));
  }
  // Every storage key over every (handle, owner) pair is distinct.
  let mut keys = HashSet::new();
  for (handle, _, _) in &saved {
    for who in &owners {
      assert!(keys.insert(store.storage_key(handle, who).unwrap()));
    }
  }
  assert_eq!(keys.len(), 2000 * 40);
  // The owner reads it; others read nothing, by the same path as a missing handle.
  for (handle, who, body) in &saved {
    assert_eq!(
      store.read(handle, who).await.unwrap().as_deref(),
      Some(body.as_bytes())
    );
    for _ in 0..3 {
      let other = rng.pick(&owners);
      if other != who {
        assert_eq!(
          store.read(handle, other).await.unwrap(),
          None,
          "read across owners"
        );
      }
    }
  }
  // Raw inspection: the store holds only namespace:hex keys and sealed bytes.
  let snapshot = backend.snapshot();
  assert_eq!(snapshot.len(), 2000);
  let needles: Vec<Vec<u8>> = saved
    .iter()
    .take(200)
    .map(|(handle, _, _)| handle.as_bytes().to_vec())
    .chain(
      owners
        .iter()
        .filter_map(|o| o.session.clone())
        .filter(|s| !s.is_empty())
        .map(String::into_bytes),
    )
    .chain(
      owners
        .iter()
        .filter_map(|o| o.subject.clone())
        .filter(|s| !s.is_empty())
        .map(String::into_bytes),
    )
    .chain([b"plaintext-marker".to_vec(), b"answer".to_vec()])
    .collect();
  for (key, value) in &snapshot {
    let hex = key.strip_prefix("rh:").expect("namespace prefix");
    assert_eq!(hex.len(), 64);
    assert!(hex
      .bytes()
      .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(&value[..4], b"RHSR");
    for needle in &needles {
      assert!(!contains(value, needle), "a stored value holds user data");
      assert!(
        !contains(key.as_bytes(), needle),
        "a stored key holds user data"
      );
    }
  }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
  haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn the_secret_separates_stores() {
  let backend = Arc::new(MemoryBackend::new(MemoryConfig::default()));
  let secret = ServerSecret::new(&[42u8; 32]).unwrap();
  let with = HandleStore::with_backend(backend.clone(), "", "rh", 60, Some(secret)).unwrap();
  let without = HandleStore::with_backend(backend.clone(), "", "rh", 60, None).unwrap();
  let handle = HandleStore::new_handle();
  let me = owner(Some("s"), None);
  with
    .save(&handle, b"secret-bound".as_slice(), &me)
    .await
    .unwrap();
  assert_eq!(without.read(&handle, &me).await.unwrap(), None);
  assert_eq!(
    with.read(&handle, &me).await.unwrap().unwrap(),
    b"secret-bound"
  );
  // Someone holding the store and the handle, but not the secret, cannot even find the key.
  let (key, _) = backend.snapshot().pop().unwrap();
  assert_ne!(key, without.storage_key(&handle, &me).unwrap());
}

#[tokio::test]
async fn tampered_and_moved_records_read_as_none() {
  let (backend, store) = memory_store(0);
  let me = owner(Some("s"), Some("u"));
  let handle = HandleStore::new_handle();
  let body = vec![7u8; 3 * CHUNK_SIZE];
  store.save(&handle, body.clone(), &me).await.unwrap();
  let key = store.storage_key(&handle, &me).unwrap();
  let record = backend.get(key.clone()).await.unwrap().unwrap();

  // Flipped byte.
  let mut bad = record.clone();
  bad[HEADER_LEN + 100] ^= 1;
  backend.set(key.clone(), bad, 60).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
  assert_eq!(store.read_range(&handle, &me, 0, 10).await.unwrap(), None);
  // Truncated.
  backend
    .set(key.clone(), record[..record.len() - 1].to_vec(), 60)
    .await
    .unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
  assert_eq!(
    store.read_range(&handle, &me, 0, u64::MAX).await.unwrap(),
    None
  );
  // Chunks reordered.
  let stride = CHUNK_SIZE + TAG_LEN;
  let mut swapped = record[..HEADER_LEN].to_vec();
  swapped.extend_from_slice(&record[HEADER_LEN + stride..HEADER_LEN + 2 * stride]);
  swapped.extend_from_slice(&record[HEADER_LEN..HEADER_LEN + stride]);
  swapped.extend_from_slice(&record[HEADER_LEN + 2 * stride..]);
  backend.set(key.clone(), swapped, 60).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
  // Moved to another handle's key.
  backend.set(key.clone(), record.clone(), 60).await.unwrap();
  let other = HandleStore::new_handle();
  backend
    .set(store.storage_key(&other, &me).unwrap(), record.clone(), 60)
    .await
    .unwrap();
  assert_eq!(store.read(&other, &me).await.unwrap(), None);
  // Unknown version.
  let mut future = record.clone();
  future[4] = 3;
  backend.set(key.clone(), future, 60).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
  // Restored: reads again.
  backend.set(key, record, 60).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap().unwrap(), body);
}

#[tokio::test]
async fn range_reads_match_whole_reads() {
  let (_, store) = memory_store(0);
  let me = owner(None, Some("u"));
  let handle = HandleStore::new_handle();
  let body: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
  store.save(&handle, body.clone(), &me).await.unwrap();
  for (start, end) in [
    (0u64, 5u64),
    (65_530, 65_545),
    (199_990, 300_000),
    (150_000, 150_000),
    (500_000, 600_000),
  ] {
    let s = (start as usize).min(body.len());
    let e = (end as usize).clamp(s, body.len());
    assert_eq!(
      store
        .read_range(&handle, &me, start, end)
        .await
        .unwrap()
        .unwrap(),
      &body[s..e]
    );
  }
  assert_eq!(
    store
      .read_range(&handle, &owner(None, None), 0, 5)
      .await
      .unwrap(),
    None
  );
  assert_eq!(
    store
      .read_range(&HandleStore::new_handle(), &me, 0, 5)
      .await
      .unwrap(),
    None
  );
}

#[tokio::test]
async fn version_1_records_read_whole_and_by_range() {
  let (backend, store) = memory_store(0);
  let me = owner(Some("s"), None);
  let handle = HandleStore::new_handle();
  let body: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
  let (keys, key) = store.keys(&handle, &me).unwrap();
  let record = crate::core::seal::seal_version_1(&keys, &body);
  backend.set(key, record, 60).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap().unwrap(), body);
  // A range read guesses the chunks of the version written now; a version 1 record's are read again.
  for (start, end) in [
    (0u64, 5u64),
    (20_000, 20_010),
    (65_530, 65_545),
    (199_990, 300_000),
  ] {
    let s = (start as usize).min(body.len());
    let e = (end as usize).clamp(s, body.len());
    let read = store.read_range(&handle, &me, start, end).await.unwrap();
    assert_eq!(read.unwrap(), &body[s..e], "range {start}..{end}");
  }
}

#[tokio::test]
async fn a_range_inside_the_answer_costs_one_round_trip() {
  let (backend, store) = super::counting::Counting::store();
  let me = owner(None, Some("u"));
  let handle = HandleStore::new_handle();
  let body: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
  store.save(&handle, body.clone(), &me).await.unwrap();
  let len = body.len() as u64;
  // (start, end, round trips): the header and the chunks together, unless the range starts past the answer's
  // last chunk or is empty (the header must name the chunk first).
  for (start, end, trips) in [
    (0, 5, 1),
    (65_530, 65_545, 1),
    (131_072, 131_072 + 65_536, 1),
    (len - 5, len + 100_000, 1),
    (len + 70_000, len + 80_000, 2),
    (100, 100, 2),
  ] {
    backend.take_calls();
    let s = (start as usize).min(body.len());
    let e = (end as usize).clamp(s, body.len());
    let read = store.read_range(&handle, &me, start, end).await.unwrap();
    assert_eq!(read.as_deref(), Some(&body[s..e]), "{start}..{end}");
    assert_eq!(backend.take_calls(), trips, "{start}..{end}");
  }
  assert_eq!(
    store
      .read_range(&handle, &owner(None, None), 0, 5)
      .await
      .unwrap(),
    None
  );
}

#[tokio::test]
async fn closed_stores_fail_with_a_code() {
  let (_, store) = memory_store(0);
  let handle = HandleStore::new_handle();
  store
    .save(&handle, b"x".as_slice(), &Owner::default())
    .await
    .unwrap();
  store.close().await;
  // Closing drops everything held; later calls fail with a code.
  let error = store.read(&handle, &Owner::default()).await.unwrap_err();
  assert_eq!(error.code, ErrorCode::StoreUnavailable);

  let dir = temp_dir("closed");
  let config = sqlite_config(&dir);
  let store = HandleStore::open(&settings(&config, 60)).await.unwrap();
  store.close().await;
  let error = store
    .save(&handle, b"x".as_slice(), &Owner::default())
    .await
    .unwrap_err();
  assert_eq!(error.code, ErrorCode::StoreUnavailable);
  let _ = std::fs::remove_dir_all(dir);
}

// ─── SQLite ─────────────────────────────────────────────────────────────────

fn temp_dir(name: &str) -> std::path::PathBuf {
  let dir = std::env::temp_dir().join(format!("rh-store-{name}-{}", HandleStore::new_handle()));
  std::fs::create_dir_all(&dir).unwrap();
  dir
}

fn sqlite_config(dir: &std::path::Path) -> StorageConfig {
  StorageConfig {
    backend: BackendConfig::Sqlite(SqliteConfig {
      path: dir.join("handles.db").to_string_lossy().into_owned(),
      wal: true,
      purge_interval_ms: 1,
    }),
    key_prefix: String::new(),
    fallback_memory: false,
  }
}

#[tokio::test]
async fn sqlite_round_trip_ranges_expiry_and_raw_bytes() {
  let dir = temp_dir("sqlite");
  let config = sqlite_config(&dir);
  let store = HandleStore::open(&settings(&config, 1)).await.unwrap();
  assert_eq!(store.backend_kind(), "sqlite");
  let me = owner(Some("sqlite-session-5e1f"), Some("sqlite-subject-9ab2"));
  let handle = HandleStore::new_handle();
  let body: Vec<u8> = b"sqlite-plaintext-marker "
    .iter()
    .copied()
    .cycle()
    .take(150_000)
    .collect();
  store.save(&handle, body.clone(), &me).await.unwrap();
  assert_eq!(store.read(&handle, &me).await.unwrap().unwrap(), body);
  assert_eq!(
    store
      .read_range(&handle, &me, 70_000, 70_024)
      .await
      .unwrap()
      .unwrap(),
    &body[70_000..70_024]
  );
  assert_eq!(
    store
      .read(&handle, &owner(Some("sqlite-session-5e1f"), None))
      .await
      .unwrap(),
    None
  );

  // Reopening the file finds the record (same namespace, same owner). With WAL the open store owns the file, so
  // it is closed first.
  store.close().await;
  let again = HandleStore::open(&settings(&config, 1)).await.unwrap();
  assert_eq!(again.read(&handle, &me).await.unwrap().unwrap(), body);
  again.close().await;

  // The file holds no handle, session, subject or plaintext, and no memory-mapped wal-index was ever made.
  assert!(!dir.join("handles.db-shm").exists());
  let mut raw = Vec::new();
  for entry in std::fs::read_dir(&dir).unwrap() {
    raw.extend(std::fs::read(entry.unwrap().path()).unwrap());
  }
  assert!(raw.len() > 150_000);
  for needle in [
    handle.as_bytes(),
    b"sqlite-session-5e1f",
    b"sqlite-subject-9ab2",
    b"sqlite-plaintext-marker",
  ] {
    assert!(!contains(&raw, needle));
  }

  // Expiry: not returned once past the TTL, and purged from the file.
  let store = HandleStore::open(&settings(&config, 1)).await.unwrap();
  tokio::time::sleep(Duration::from_millis(1100)).await;
  assert_eq!(store.read(&handle, &me).await.unwrap(), None);
  assert_eq!(store.read_range(&handle, &me, 0, 10).await.unwrap(), None);
  let other = HandleStore::new_handle();
  store.save(&other, b"fresh".as_slice(), &me).await.unwrap();
  store.close().await;
  let connection = rusqlite::Connection::open(dir.join("handles.db")).unwrap();
  let rows: i64 = connection
    .query_row(
      &format!("SELECT count(*) FROM {}", sqlite::TABLE),
      [],
      |row| row.get(0),
    )
    .unwrap();
  assert_eq!(rows, 1, "the expired row was purged");
  drop(connection);
  let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn unreachable_backends_fail_fast_or_fall_back() {
  use super::config::RedisConfig;
  use zeroize::Zeroizing;
  // Port 1 on loopback: nothing listens there.
  let config = StorageConfig {
    backend: BackendConfig::Redis(RedisConfig::Url(Zeroizing::new(
      "redis://127.0.0.1:1".into(),
    ))),
    key_prefix: String::new(),
    fallback_memory: false,
  };
  let started = std::time::Instant::now();
  let error = HandleStore::open(&settings(&config, 60))
    .await
    .err()
    .unwrap();
  assert_eq!(error.code, ErrorCode::StoreUnavailable);
  assert!(started.elapsed() < OPERATION_TIMEOUT);
  let fallback = StorageConfig {
    fallback_memory: true,
    ..config
  };
  let store = HandleStore::open(&settings(&fallback, 60)).await.unwrap();
  assert_eq!(store.backend_kind(), "memory");
}

#[tokio::test]
async fn record_functions_for_js_storages() {
  let me = owner(Some("s"), None);
  let handle = HandleStore::new_handle();
  let sealed = seal_record(&handle, b"{\"x\":1}", &me, None).unwrap();
  assert_eq!(
    sealed.storage_key,
    storage_key_for(&handle, &me, None).unwrap()
  );
  assert_eq!(
    open_record(&handle, &sealed.record, &me, None)
      .unwrap()
      .unwrap(),
    b"{\"x\":1}"
  );
  assert_eq!(
    open_record(&handle, &sealed.record, &owner(None, None), None).unwrap(),
    None
  );
  assert_eq!(open_record(&handle, b"garbage", &me, None).unwrap(), None);
  // The native store writes the same record format under the same key (plus its namespace).
  let (backend, store) = memory_store(0);
  backend
    .set(format!("rh:{}", sealed.storage_key), sealed.record, 60)
    .await
    .unwrap();
  assert_eq!(
    store.read(&handle, &me).await.unwrap().unwrap(),
    b"{\"x\":1}"
  );
}

/// Store settings over `storage` (namespace `rh`, no secret), as `options` makes them.
fn settings(storage: &StorageConfig, ttl_seconds: u64) -> crate::core::options::StoreSettings {
  crate::core::options::StoreSettings {
    storage: storage.clone(),
    namespace: "rh".to_string(),
    ttl_seconds,
    secret: None,
  }
}
