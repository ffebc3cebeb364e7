//! Where the time of a multi-node query goes (ignored tests, run by hand on a release build): the engine's parts on
//! the 10 MB orders answer, a loop for `perf` (`PROFILE_TAPE_LOOPS`, `PROFILE_REACH`, `PROFILE_QUERY`), and
//! `query_stored` end to end on a memory store (`PROFILE_STORED=1 PROFILE_MB=1`, one query with `PROFILE_QUERY`).

use super::*;

/// Where the time of a multi-node query goes on a 10 MB answer. Run:
/// `cargo test --release --target x86_64-unknown-linux-gnu --lib profile_multi -- --ignored --nocapture`.
#[test]
#[ignore]
fn profile_multi() {
  if let Ok(loops) = std::env::var("PROFILE_TAPE_LOOPS") {
    let text = orders_text(10 << 20);
    let reach = env_number("PROFILE_REACH");
    let query = std::env::var("PROFILE_QUERY").ok();
    let args = query.map(|path| QueryArgs::new("h", &path).expect("a valid path"));
    let tape = Tape::build_clean(&text, reach, &[]).expect("a tape");
    for _ in 0..loops.parse::<usize>().unwrap_or(1) {
      match &args {
        Some(args) => {
          let ParsedPath::Query { query, .. } = args.path.parsed() else {
            panic!("a JSONPath query")
          };
          std::hint::black_box(select_on_tape(&tape, query).map(|m| m.len()).ok());
        }
        None => {
          std::hint::black_box(Tape::build_clean(&text, reach, &[]).map(|t| t.nodes()));
        }
      }
    }
    return;
  }
  if let Ok(loops) = std::env::var("PROFILE_RUN_LOOPS") {
    return profile_tape_and_eval(orders_text(10 << 20), loops.parse().unwrap_or(100));
  }
  if std::env::var("PROFILE_STORED").is_ok() {
    return profile_stored(orders_text(10 << 20));
  }
  profile_multi_table(orders_text(10 << 20));
}

/// `query_stored` end to end on a memory store (read, index, decrypt, thread hops, tape, evaluation, answer), on
/// the first `PROFILE_MB` MiB of the orders (a fresh handle per run, as a first query); with the member directories
/// the fold keeps when `PROFILE_DIRECTORIES=1`, else with the path index alone.
fn profile_stored(mut text: String) {
  use crate::core::query::index::{build_index_and_directories, query_stored, IndexSettings};
  use crate::core::store::config::MemoryConfig;
  use crate::core::store::memory::MemoryBackend;
  use crate::core::store::{HandleStore, Owner};
  keep_first_megabytes(&mut text, 10);
  let runtime = tokio::runtime::Builder::new_multi_thread()
    .enable_all()
    .build()
    .unwrap();
  runtime.block_on(async {
    let backend = std::sync::Arc::new(MemoryBackend::new(MemoryConfig {
      max_entries: 1000,
      max_bytes: None,
    }));
    let store = HandleStore::with_backend(backend, "", "rh", 600, None).unwrap();
    let owner = Owner::new(Some("s".into()), None);
    let built = build_index_and_directories(&text, IndexSettings::DEFAULT, false);
    let directories = std::env::var("PROFILE_DIRECTORIES").is_ok_and(|set| set == "1");
    let runs: usize = env_number("PROFILE_RUNS").unwrap_or(9);
    let asked = std::env::var("PROFILE_QUERY").ok();
    let paths = match &asked {
      Some(path) => vec![path.as_str()],
      None => vec![
        "$.orders[?@.status=='open' && @.amount > 500]",
        "$.orders[*].sku",
        "$..tags[2]",
      ],
    };
    for path in paths {
      let mut samples = Vec::new();
      let mut faults = Vec::new();
      let mut switches = Vec::new();
      for _ in 0..runs {
        let handle = HandleStore::new_handle();
        store.save(&handle, text.as_bytes(), &owner).await.unwrap();
        match built.clone() {
          Some(built) if directories => {
            let saved = store.save_index_and_directories(&handle, built, &owner);
            saved.await.unwrap();
          }
          Some(built) => store
            .save_index(&handle, built.index, &owner)
            .await
            .unwrap(),
          None => {}
        }
        let mut args = QueryArgs::new(&handle, path).unwrap();
        args.limit = Some(20);
        let switched = context_switches();
        let (faulted, started) = (minor_faults(), std::time::Instant::now());
        let answer = query_stored(&store, args, &owner, 100_000).await.unwrap();
        samples.push(started.elapsed().as_secs_f64() * 1e3);
        faults.push(minor_faults() - faulted);
        switches.push(context_switches() - switched);
        std::hint::black_box(answer);
      }
      samples.sort_by(f64::total_cmp);
      faults.sort_unstable();
      switches.sort_unstable();
      eprintln!(
        "{} bytes, query_stored {path:<50} {:8.2} ms {:6} minor faults {:4} context switches",
        text.len(),
        samples[runs / 2],
        faults[runs / 2],
        switches[runs / 2]
      );
    }
  });
}

/// The tape (certified, as a first query builds it) and the evaluation of `PROFILE_QUERY` on the first
/// `PROFILE_MB` MiB of the orders, `loops` times: the fastest run, with the tape recording what the query can select
/// ([`reach::names`]) and, for comparison, every member within the reach.
fn profile_tape_and_eval(mut text: String, loops: usize) {
  use crate::core::query::index::{build_index, certified_arrays, IndexSettings};
  keep_first_megabytes(&mut text, 1);
  let arrays = build_index(&text, IndexSettings::DEFAULT)
    .and_then(|index| certified_arrays(&index, text.len()))
    .expect("a certified index");
  let path = std::env::var("PROFILE_QUERY")
    .unwrap_or_else(|_| "$.orders[?@.status=='open' && @.amount > 500]".into());
  let args = QueryArgs::new("h", &path).expect("a valid path");
  let ParsedPath::Query { query, .. } = args.path.parsed() else {
    panic!("a JSONPath query")
  };
  let spec = spec_query(query);
  let reach = reach::reach(spec);
  for (label, names) in [
    ("every member", reach::Names::EVERY),
    ("named members", reach::names(spec)),
  ] {
    let (mut tape_best, mut total_best) = (f64::MAX, f64::MAX);
    for _ in 0..loops {
      let started = std::time::Instant::now();
      let tape = Tape::build_clean_naming(&text, reach, &names, &arrays).expect("a tape");
      let built = started.elapsed().as_secs_f64() * 1e3;
      std::hint::black_box(select_on_tape(&tape, query).map(|m| m.len()).ok());
      tape_best = tape_best.min(built);
      total_best = total_best.min(started.elapsed().as_secs_f64() * 1e3);
    }
    eprintln!(
      "{} bytes, {path}, {label:<14}: tape {tape_best:.3} ms, tape + eval {total_best:.3} ms",
      text.len()
    );
  }
}

/// Minor page faults of this process so far (every thread; `/proc/self/stat` field 10): pages touched for the
/// first time. Linux only; 0 elsewhere.
fn minor_faults() -> i64 {
  let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
  // The fields after the command name's closing parenthesis start at field 3.
  stat
    .rsplit_once(')')
    .and_then(|(_, rest)| rest.split_whitespace().nth(10 - 3))
    .and_then(|field| field.parse().ok())
    .unwrap_or(0)
}

/// Context switches of this process's threads so far (voluntary and not, from `/proc/self/task/*/status`): each
/// hand-off between threads costs a few. Linux only; 0 elsewhere (a thread that ended is no longer counted, so a
/// difference is only meaningful across work whose threads outlive it).
fn context_switches() -> i64 {
  let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
    return 0;
  };
  tasks
    .flatten()
    .filter_map(|task| std::fs::read_to_string(task.path().join("status")).ok())
    .map(|status| {
      status
        .lines()
        .filter(|line| line.contains("ctxt_switches:"))
        .filter_map(|line| line.split_whitespace().nth(1)?.parse::<i64>().ok())
        .sum::<i64>()
    })
    .sum()
}

/// About 10 MB of 1 KiB strings, one escape each, in objects of three.
fn long_strings_text() -> String {
  let body = "lorem ipsum dolor sit amet ".repeat(38);
  let mut text = String::from("[");
  for i in 0..3400 {
    if i > 0 {
      text.push(',');
    }
    text.push_str(&format!(
      r#"{{"a":"{i}{body}\n","b":"{body}\"{i}","c":["{body}",{i}]}}"#
    ));
  }
  text.push(']');
  text
}

fn profile_multi_table(text: String) {
  use std::time::Instant;
  let i = text.matches("\"sku\"").count();
  let keys =
    crate::core::seal::RecordKeys::derive("h", &crate::core::seal::Owner::new(None, None), None)
      .unwrap();
  let sealed = crate::core::seal::seal(&keys, text.as_bytes()).unwrap();
  let time = |label: &str, f: &mut dyn FnMut() -> usize| {
    let mut samples: Vec<f64> = (0..7)
      .map(|_| {
        let t = Instant::now();
        std::hint::black_box(f());
        t.elapsed().as_secs_f64() * 1e3
      })
      .collect();
    samples.sort_by(f64::total_cmp);
    eprintln!("{label:<60} {:8.2} ms", samples[3]);
  };
  eprintln!("{} bytes, {i} orders", text.len());
  time("decrypt (open)", &mut || {
    crate::core::seal::open(&keys, &sealed).unwrap().len()
  });
  // As a memory store reads: a copy of the record, then opened beside it or in place.
  time("record copy + open", &mut || {
    let record = sealed.clone();
    crate::core::seal::open(&keys, &record).unwrap().len()
  });
  time("record copy + open in place", &mut || {
    crate::core::seal::open_in_place(&keys, sealed.clone())
      .unwrap()
      .len()
  });
  time("tape build", &mut || {
    Tape::build(&text).map_or(0, |t| t.nodes() as usize)
  });
  time("serde IgnoredAny", &mut || {
    serde_json::from_str::<serde::de::IgnoredAny>(&text).map_or(0, |_| 1)
  });
  use crate::core::query::index::{build_index, build_index_of_raw_value, IndexSettings};
  time("path index: own scan + serde grammar check", &mut || {
    build_index(&text, IndexSettings::DEFAULT).map_or(0, |i| i.len())
  });
  time("path index: own scan alone", &mut || {
    build_index_of_raw_value(&text, IndexSettings::DEFAULT).map_or(0, |i| i.len())
  });
  time("tape build, reach 3", &mut || {
    Tape::build_reaching(&text, Some(3)).map_or(0, |t| t.nodes() as usize)
  });
  time("fresh 24 MB, touched", &mut || {
    let mut v = vec![0u8; 24 << 20];
    for i in (0..v.len()).step_by(4096) {
      v[i] = 1;
    }
    std::hint::black_box(&v);
    v.len()
  });
  time("copy 10 MB into fresh", &mut || {
    let v = text.as_bytes().to_vec();
    std::hint::black_box(&v);
    v.len()
  });
  time("tape build clean, reach 3", &mut || {
    Tape::build_clean(&text, Some(3), &[]).map_or(0, |t| t.nodes() as usize)
  });
  time("tape build clean, all", &mut || {
    Tape::build_clean(&text, None, &[]).map_or(0, |t| t.nodes() as usize)
  });
  let arrays = build_index(&text, IndexSettings::DEFAULT)
    .and_then(|index| crate::core::query::index::certified_arrays(&index, text.len()))
    .unwrap_or_default();
  time("tape build clean, reach 3, two threads", &mut || {
    Tape::build_clean(&text, Some(3), &arrays).map_or(0, |t| t.nodes() as usize)
  });
  time("tape build clean, all, two threads", &mut || {
    Tape::build_clean(&text, None, &arrays).map_or(0, |t| t.nodes() as usize)
  });
  time("tape build, reach 2", &mut || {
    Tape::build_reaching(&text, Some(2)).map_or(0, |t| t.nodes() as usize)
  });
  time("certified pass alone (build clean, reach 0)", &mut || {
    Tape::build_clean(&text, Some(0), &[]).map_or(0, |t| t.nodes() as usize)
  });
  let long = long_strings_text();
  time("long strings: tape build", &mut || {
    Tape::build(&long).map_or(0, |t| t.nodes() as usize)
  });
  time("long strings: certified pass alone", &mut || {
    Tape::build_clean(&long, Some(0), &[]).map_or(0, |t| t.nodes() as usize)
  });
  for path in [
    "$.orders[?@.status=='open' && @.amount > 500]",
    "$.orders[*].sku",
    "$..tags[2]",
  ] {
    let args = QueryArgs::new("h", path).expect("a valid path");
    let ParsedPath::Query { query, .. } = args.path.parsed() else {
      panic!()
    };
    let tape = tape_for(&text, query).unwrap();
    time(&format!("eval on tape {path}"), &mut || {
      select_on_tape(&tape, query).unwrap().len()
    });
    let mut limited = args.clone();
    limited.limit = Some(20);
    time(&format!("run_query {path}"), &mut || {
      run_query(text.as_bytes(), &limited, BIG).unwrap().len()
    });
  }
}

/// The number an environment variable holds (the profile's knobs), or `None` when it is unset or not one.
fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
  std::env::var(name)
    .ok()
    .and_then(|value| value.parse().ok())
}

/// Cuts the orders to their first `PROFILE_MB` MiB (`default_mb` without it), at an order's end, still one document.
fn keep_first_megabytes(text: &mut String, default_mb: usize) {
  let mb = env_number("PROFILE_MB").unwrap_or(default_mb);
  let cut = text[..(mb << 20).min(text.len())]
    .rfind(",{\"id\"")
    .unwrap_or(text.len() - 2);
  text.truncate(cut);
  text.push_str("]}");
}
