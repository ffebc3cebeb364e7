//! The fixed costs of one kept-page `result_query` read, in the engine alone: deriving the keys, opening the one
//! or two chunks (16 KiB each) that hold a page, and the whole store read of a page through `query_stored`.
//!
//! Run: `cargo bench --target x86_64-unknown-linux-gnu --bench page_costs`.

use std::sync::{Arc, LazyLock};

use divan::{black_box, Bencher};
use result_handles_native::core::query::index::{build_index, query_stored, IndexSettings};
use result_handles_native::core::query::{parse_query_args, QueryArgs};
use result_handles_native::core::seal::{self, RecordKeys, CHUNK_SIZE};
use result_handles_native::core::store::config::MemoryConfig;
use result_handles_native::core::store::memory::MemoryBackend;
use result_handles_native::core::store::{HandleStore, Owner};

const HANDLE: &str = "0b6c2f0e-6a55-4b8e-9d55-3f1d2a9e7c11";
const FILTER: &str = "$.orders[?@.status=='open' && @.amount > 500]";

fn owner() -> Owner {
  Owner::new(Some("session".into()), None)
}

/// A 10 MB answer of orders.
static ANSWER: LazyLock<String> = LazyLock::new(|| {
  let orders: Vec<String> = (0..100_000)
    .map(|i| {
      let status = ["open", "shipped"][i % 2];
      format!(
        r#"{{"id":{i},"status":"{status}","amount":{},"sku":"SKU-{i}","tags":["a","b","t{}"]}}"#,
        (i * 37) % 1000,
        i % 5
      )
    })
    .collect();
  format!(r#"{{"orders":[{}]}}"#, orders.join(","))
});

static RECORD: LazyLock<Vec<u8>> = LazyLock::new(|| {
  let keys = RecordKeys::derive(HANDLE, &owner(), None).expect("keys");
  seal::seal(&keys, ANSWER.as_bytes()).expect("sealed")
});

struct Kept {
  runtime: tokio::runtime::Runtime,
  store: Arc<HandleStore>,
}

static KEPT: LazyLock<Kept> = LazyLock::new(|| {
  let runtime = tokio::runtime::Builder::new_current_thread()
    .enable_all()
    .build()
    .expect("runtime");
  let backend = Arc::new(MemoryBackend::new(MemoryConfig::default()));
  let store = Arc::new(HandleStore::with_backend(backend, "", "bench", 3600, None).expect("store"));
  runtime.block_on(async {
    store
      .save(HANDLE, ANSWER.as_bytes().to_vec(), &owner())
      .await
      .expect("saved");
    let index = build_index(&ANSWER, IndexSettings::DEFAULT).expect("an index");
    println!("path index: {} bytes", index.len());
    store
      .save_index(HANDLE, index, &owner())
      .await
      .expect("index saved");
    let first = query_stored(&store, page(0), &owner(), 1 << 20).await;
    assert!(first.is_ok(), "the first query answers");
  });
  Kept { runtime, store }
});

fn page(offset: u64) -> QueryArgs {
  let mut args = QueryArgs::new(HANDLE, FILTER).expect("a valid path");
  args.limit = Some(20);
  args.offset = Some(offset);
  args
}

fn main() {
  // Set up (and say the index's size) before the timings print.
  LazyLock::force(&KEPT);
  divan::main();
}

#[divan::bench(sample_count = 500)]
fn derive_keys(bencher: Bencher) {
  let owner = owner();
  bencher.bench(|| RecordKeys::derive(black_box(HANDLE), &owner, None).map(|k| k.storage_key()[0]));
}

/// 200 bytes from the middle of chunk 3: one chunk opened.
#[divan::bench(sample_count = 500)]
fn open_range_one_chunk(bencher: Bencher) {
  let keys = RecordKeys::derive(HANDLE, &owner(), None).expect("keys");
  let start = (3 * CHUNK_SIZE + 100) as u64;
  bencher.bench(|| seal::open_range(&keys, &RECORD, start, start + 200).map(|p| p.len()));
}

/// 200 bytes across the boundary of chunks 3 and 4: two chunks opened.
#[divan::bench(sample_count = 500)]
fn open_range_two_chunks(bencher: Bencher) {
  let keys = RecordKeys::derive(HANDLE, &owner(), None).expect("keys");
  let start = (4 * CHUNK_SIZE - 100) as u64;
  bencher.bench(|| seal::open_range(&keys, &RECORD, start, start + 200).map(|p| p.len()));
}

/// One kept page of the filter through `query_stored` on a memory store (no JS boundary, one thread).
#[divan::bench(sample_count = 500)]
fn kept_page_query(bencher: Bencher) {
  let kept = &*KEPT;
  let mut offset = 0;
  bencher.bench_local(|| {
    offset = (offset + 20) % 8000;
    kept
      .runtime
      .block_on(query_stored(&kept.store, page(offset), &owner(), 1 << 20))
      .map(|a| a.len())
  });
}

/// The last 20 orders through the path index (`$.orders`, offset 99 980), through `query_stored`.
#[divan::bench(sample_count = 500)]
fn singular_read_query(bencher: Bencher) {
  let kept = &*KEPT;
  let mut args = QueryArgs::new(HANDLE, "$.orders").expect("a valid path");
  args.limit = Some(20);
  args.offset = Some(99_980);
  bencher.bench_local(|| {
    kept
      .runtime
      .block_on(query_stored(&kept.store, args.clone(), &owner(), 1 << 20))
      .map(|a| a.len())
  });
}

/// What every call pays before the store: the arguments' JSON read and checked, the JSONPath filter parsed.
#[divan::bench(sample_count = 500)]
fn parse_page_args(bencher: Bencher) {
  let text = format!(r#"{{"handle":"{HANDLE}","path":"{FILTER}","limit":20,"offset":40}}"#);
  bencher.bench(|| {
    let value: serde_json::Value = serde_json::from_str(black_box(&text)).unwrap_or_default();
    parse_query_args(&value).map(|args| args.limit)
  });
}
