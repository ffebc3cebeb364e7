//! Seal tests: public vectors for the primitives, then the record format's promises.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value;
use zeroize::Zeroize;

use super::*;

// ─── public vectors ─────────────────────────────────────────────────────────

/// The vendored suites (tests/vectors/, with their licenses): a clone carries every file its tests read.
fn vectors_dir() -> PathBuf {
  PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

fn load_suite(name: &str) -> Value {
  let path = vectors_dir().join("wycheproof").join(name);
  let text = std::fs::read_to_string(&path)
    .unwrap_or_else(|error| panic!("vector suite {} is missing: {error}", path.display()));
  serde_json::from_str(&text).unwrap()
}

fn hex_field(test: &Value, field: &str) -> Vec<u8> {
  hex::decode(test[field].as_str().unwrap()).unwrap()
}

#[test]
fn wycheproof_aes_256_gcm_96_bit_iv() {
  let suite = load_suite("aes_gcm_test.json");
  let (mut valid, mut invalid) = (0, 0);
  for group in suite["testGroups"].as_array().unwrap() {
    if group["keySize"] != 256 || group["ivSize"] != 96 || group["tagSize"] != 128 {
      continue;
    }
    for test in group["tests"].as_array().unwrap() {
      let id = &test["tcId"];
      let key = hex_field(test, "key");
      let iv = hex_field(test, "iv");
      let aad = hex_field(test, "aad");
      let msg = hex_field(test, "msg");
      let ct = hex_field(test, "ct");
      let tag = hex_field(test, "tag");
      let cipher = ChunkCipher::new(&key.try_into().unwrap());
      let nonce: ChunkNonce = iv.try_into().unwrap();
      let tag: Tag = tag.try_into().unwrap();
      let mut buffer = ct.clone();
      let opened = cipher.open(nonce, &aad, &mut buffer, 0, &tag);
      match test["result"].as_str().unwrap() {
        "valid" => {
          assert!(opened.is_ok(), "tcId {id}: a valid vector did not open");
          assert_eq!(buffer, msg, "tcId {id}: wrong plaintext");
          let mut sealed = msg.clone();
          let made = cipher.seal(nonce, &aad, &mut sealed).unwrap();
          assert_eq!(sealed, ct, "tcId {id}: wrong ciphertext");
          assert_eq!(made, tag, "tcId {id}: wrong tag");
          valid += 1;
        }
        "invalid" => {
          assert!(opened.is_err(), "tcId {id}: an invalid vector opened");
          invalid += 1;
        }
        other => panic!("tcId {id}: unexpected result {other}"),
      }
    }
  }
  // Every applicable vector ran: 66 with a 256-bit key and a 96-bit IV in this suite.
  assert_eq!((valid, invalid), (39, 27));
}

#[test]
fn wycheproof_hkdf_sha256() {
  let suite = load_suite("hkdf_sha256_test.json");
  let mut count = 0;
  for group in suite["testGroups"].as_array().unwrap() {
    for test in group["tests"].as_array().unwrap() {
      let id = &test["tcId"];
      let ikm = hex_field(test, "ikm");
      let salt = hex_field(test, "salt");
      let info = hex_field(test, "info");
      let size = test["size"].as_u64().unwrap() as usize;
      let mut okm = vec![0u8; size];
      let made = hkdf_sha256(Some(&salt), &ikm, &info, &mut okm);
      match test["result"].as_str().unwrap() {
        "valid" => {
          assert!(made.is_ok(), "tcId {id}");
          assert_eq!(okm, hex_field(test, "okm"), "tcId {id}");
        }
        "invalid" => assert!(made.is_err(), "tcId {id}: an over-long output was produced"),
        other => panic!("tcId {id}: unexpected result {other}"),
      }
      count += 1;
    }
  }
  assert_eq!(count, suite["numberOfTests"].as_u64().unwrap());
}

#[test]
fn rfc_5869_sha256_cases() {
  struct Case {
    ikm: Vec<u8>,
    salt: Option<Vec<u8>>,
    info: Vec<u8>,
    okm: &'static str,
  }
  let cases = [
    // A.1: basic test case with SHA-256
    Case {
      ikm: vec![0x0b; 22],
      salt: Some((0x00..=0x0c).collect()),
      info: (0xf0..=0xf9).collect(),
      okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
    },
    // A.2: longer inputs and outputs
    Case {
      ikm: (0x00..=0x4f).collect(),
      salt: Some((0x60..=0xaf).collect()),
      info: (0xb0..=0xff).collect(),
      okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09\
            da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87",
    },
    // A.3: zero-length salt and info
    Case {
      ikm: vec![0x0b; 22],
      salt: None,
      info: vec![],
      okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
    },
  ];
  for (index, case) in cases.iter().enumerate() {
    let expected = hex::decode(case.okm).unwrap();
    let mut okm = vec![0u8; expected.len()];
    hkdf_sha256(case.salt.as_deref(), &case.ikm, &case.info, &mut okm).unwrap();
    assert_eq!(okm, expected, "A.{}", index + 1);
    if case.salt.is_none() {
      // An absent salt is a string of 32 zero bytes (RFC 5869 §2.2).
      hkdf_sha256(Some(&[0u8; 32]), &case.ikm, &case.info, &mut okm).unwrap();
      assert_eq!(okm, expected);
    }
  }
}

// ─── derivation ─────────────────────────────────────────────────────────────

fn owner(session: Option<&str>, subject: Option<&str>) -> Owner {
  Owner::new(session.map(str::to_string), subject.map(str::to_string))
}

fn keys(handle: &str, owner: &Owner) -> RecordKeys {
  RecordKeys::derive(handle, owner, None).unwrap()
}

#[test]
fn derivation_follows_the_spec() {
  let handle = "0b6c6a8e-4f8e-4a4b-9d5e-2f0a3c1b7e11";
  let who = owner(Some("sess"), None);
  let secret = ServerSecret::new(&[7u8; 40]).unwrap();
  for salt in [None, Some(&secret)] {
    let derived = RecordKeys::derive(handle, &who, salt).unwrap();
    let mut ikm = vec![1];
    ikm.extend_from_slice(&(handle.len() as u32).to_be_bytes());
    ikm.extend_from_slice(handle.as_bytes());
    ikm.extend_from_slice(&[1, 0, 0, 0, 4]);
    ikm.extend_from_slice(b"sess");
    ikm.push(0);
    let salt_bytes = salt.map(|_| [7u8; 40]);
    let mut record_key = [0u8; 32];
    let mut storage_key = [0u8; 32];
    hkdf_sha256(
      salt_bytes.as_ref().map(|s| &s[..]),
      &ikm,
      b"result-handles/v1 record key",
      &mut record_key,
    )
    .unwrap();
    hkdf_sha256(
      salt_bytes.as_ref().map(|s| &s[..]),
      &ikm,
      b"result-handles/v1 storage key",
      &mut storage_key,
    )
    .unwrap();
    assert_eq!(derived.record_key, record_key);
    assert_eq!(derived.storage_key, storage_key);
    assert_eq!(derived.storage_key_hex(), hex::encode(storage_key));
    assert_ne!(record_key, storage_key);
  }
}

#[test]
fn absent_is_not_empty_and_fields_do_not_slide() {
  let handle = "h";
  let variants = [
    owner(None, None),
    owner(Some(""), None),
    owner(None, Some("")),
    owner(Some(""), Some("")),
    owner(Some("a"), None),
    owner(None, Some("a")),
    owner(Some("ab"), Some("c")),
    owner(Some("a"), Some("bc")),
  ];
  let mut seen = std::collections::HashSet::new();
  for who in &variants {
    assert!(
      seen.insert(keys(handle, who).storage_key_hex()),
      "{who:?} collided"
    );
  }
  // The handle's own boundary: "h" + session "x" is not "hx" + no session.
  assert_ne!(
    keys("h", &owner(Some("x"), None)).storage_key_hex(),
    keys("hx", &owner(None, None)).storage_key_hex()
  );
}

#[test]
fn the_secret_changes_every_key() {
  let who = owner(Some("s"), Some("u"));
  let plain = keys("h", &who);
  let one = RecordKeys::derive("h", &who, Some(&ServerSecret::new(&[1u8; 32]).unwrap())).unwrap();
  let two = RecordKeys::derive("h", &who, Some(&ServerSecret::new(&[2u8; 32]).unwrap())).unwrap();
  assert_ne!(plain.storage_key, one.storage_key);
  assert_ne!(one.storage_key, two.storage_key);
  assert_ne!(plain.record_key, one.record_key);
  let record = seal(&one, b"data").unwrap();
  assert_eq!(open(&two, &record), Err(OpenError::Unauthentic));
  assert_eq!(open(&one, &record).unwrap(), b"data");
}

#[test]
fn short_secrets_are_refused_and_nothing_leaks() {
  let error = ServerSecret::new(b"too short, 31 bytes, not enough").unwrap_err();
  assert_eq!(error.code, ErrorCode::Configuration);
  assert!(!error.full_message().contains("too short"));
  assert!(ServerSecret::new(&[0u8; 32]).is_ok());
  assert!(ServerSecret::resolve(Some("x".repeat(31).as_str())).is_err());
  assert!(ServerSecret::resolve(Some("x".repeat(32).as_str()))
    .unwrap()
    .is_some());
  assert_eq!(
    format!("{:?}", ServerSecret::new(&[9u8; 32]).unwrap()),
    "ServerSecret(..)"
  );
  assert_eq!(
    format!("{:?}", owner(Some("secret-session"), None)),
    "Owner(..)"
  );
}

#[test]
fn keys_zeroize() {
  let mut derived = keys("h", &owner(None, None));
  derived.zeroize();
  assert_eq!(derived.record_key, [0u8; 32]);
  assert_eq!(derived.storage_key, [0u8; 32]);
}

// ─── the record ─────────────────────────────────────────────────────────────

fn sample(len: usize) -> Vec<u8> {
  (0..len).map(|i| (i * 31 % 251) as u8).collect()
}

#[test]
fn round_trips_at_chunk_edges() {
  let k = keys("h", &owner(Some("s"), None));
  for len in [
    0,
    1,
    100,
    CHUNK_SIZE - 1,
    CHUNK_SIZE,
    CHUNK_SIZE + 1,
    3 * CHUNK_SIZE + 5,
    // Opened on two threads.
    PARALLEL_OPEN_BYTES + 3 * CHUNK_SIZE + 7,
  ] {
    let plain = sample(len);
    let record = seal(&k, &plain).unwrap();
    assert_eq!(record.len() as u64, sealed_len(len as u64));
    assert_eq!(&record[..4], b"RHSR");
    assert_eq!(record[4], VERSION_2);
    assert_eq!(open(&k, &record).unwrap(), plain, "len {len}");
    assert_eq!(
      open_in_place(&k, record).unwrap(),
      plain,
      "in place, len {len}"
    );
  }
  // Overhead: 20-byte header + 16 bytes per 16 KiB chunk.
  assert_eq!(sealed_len(0), 36);
  assert_eq!(sealed_len(1_000_000), 1_000_000 + 20 + 16 * 62);
}

#[test]
fn fresh_prefix_per_record() {
  let k = keys("h", &owner(None, None));
  let a = seal(&k, b"same").unwrap();
  let b = seal(&k, b"same").unwrap();
  assert_ne!(a[5..12], b[5..12]);
  assert_ne!(a, b);
}

#[test]
fn any_flipped_byte_fails() {
  let k = keys("h", &owner(Some("s"), Some("u")));
  let record = seal(&k, &sample(100)).unwrap();
  for position in 0..record.len() {
    for mask in [0x01u8, 0x80, 0xff] {
      let mut bad = record.clone();
      bad[position] ^= mask;
      assert!(
        open(&k, &bad).is_err(),
        "flip at {position} with {mask:#x} opened"
      );
    }
  }
  // A multi-chunk record: every header byte, and bytes at and around every chunk boundary and tag.
  let plain = sample(2 * CHUNK_SIZE + 10);
  let record = seal(&k, &plain).unwrap();
  let stride = CHUNK_SIZE + TAG_LEN;
  let mut positions: Vec<usize> = (0..HEADER_LEN).collect();
  for chunk in 0..3 {
    let base = HEADER_LEN + chunk * stride;
    positions.extend([base, base + 1, base + CHUNK_SIZE / 2]);
    let tag_at = (base + CHUNK_SIZE).min(record.len() - TAG_LEN);
    positions.extend(tag_at..tag_at + TAG_LEN);
    if tag_at > 0 {
      positions.push(tag_at - 1);
    }
  }
  positions.retain(|&p| p < record.len());
  assert!(positions.len() > 60);
  for position in positions {
    let mut bad = record.clone();
    bad[position] ^= 0x20;
    assert!(open(&k, &bad).is_err(), "flip at {position} opened");
    assert!(
      open_in_place(&k, bad).is_err(),
      "flip at {position} opened in place"
    );
  }
}

#[test]
fn truncation_and_extension_fail() {
  let k = keys("h", &owner(None, Some("u")));
  let record = seal(&k, &sample(100)).unwrap();
  for len in 0..record.len() {
    assert!(
      open(&k, &record[..len]).is_err(),
      "truncated to {len} opened"
    );
    assert!(
      open_in_place(&k, record[..len].to_vec()).is_err(),
      "truncated to {len} opened in place"
    );
  }
  let mut longer = record.clone();
  longer.push(0);
  assert_eq!(open(&k, &longer), Err(OpenError::Malformed));
  assert_eq!(open_in_place(&k, longer), Err(OpenError::Malformed));

  // Drop the last chunk and rewrite the header's length to match: the header is authenticated, so it fails.
  let plain = sample(2 * CHUNK_SIZE + 10);
  let record = seal(&k, &plain).unwrap();
  let mut cut = record[..HEADER_LEN + 2 * (CHUNK_SIZE + TAG_LEN)].to_vec();
  cut[12..20].copy_from_slice(&((2 * CHUNK_SIZE) as u64).to_be_bytes());
  assert_eq!(open(&k, &cut), Err(OpenError::Unauthentic));
}

#[test]
fn reordered_chunks_fail() {
  let k = keys("h", &owner(Some("s"), None));
  let plain = sample(3 * CHUNK_SIZE);
  let record = seal(&k, &plain).unwrap();
  let stride = CHUNK_SIZE + TAG_LEN;
  let chunk = |i: usize| &record[HEADER_LEN + i * stride..HEADER_LEN + (i + 1) * stride];
  for order in [[1, 0, 2], [0, 2, 1], [2, 1, 0]] {
    let mut swapped = record[..HEADER_LEN].to_vec();
    for i in order {
      swapped.extend_from_slice(chunk(i));
    }
    assert_eq!(open(&k, &swapped), Err(OpenError::Unauthentic), "{order:?}");
  }
  // A chunk copied from another record of the same key (same plaintext) fails too: the prefix differs.
  let other = seal(&k, &plain).unwrap();
  let mut spliced = record.clone();
  spliced[HEADER_LEN..HEADER_LEN + stride].copy_from_slice(&other[HEADER_LEN..HEADER_LEN + stride]);
  assert_eq!(open(&k, &spliced), Err(OpenError::Unauthentic));
}

#[test]
fn a_record_moved_to_another_key_does_not_open() {
  let k = keys("h", &owner(Some("s"), None));
  let record = seal(&k, b"payload").unwrap();
  // Same AES key, another storage key: only the AAD differs, and that alone refuses it.
  let moved = RecordKeys {
    record_key: k.record_key,
    storage_key: keys("other", &owner(None, None)).storage_key,
  };
  assert_eq!(open(&moved, &record), Err(OpenError::Unauthentic));
  // Another owner's keys.
  for who in [
    owner(Some("t"), None),
    owner(None, None),
    owner(Some("s"), Some("")),
  ] {
    assert_eq!(open(&keys("h", &who), &record), Err(OpenError::Unauthentic));
  }
}

#[test]
fn unknown_versions_are_refused() {
  let k = keys("h", &owner(None, None));
  let record = seal(&k, b"x").unwrap();
  for version in [0u8, 3, 0x7f, 0xff] {
    let mut future = record.clone();
    future[4] = version;
    assert_eq!(open(&k, &future), Err(OpenError::UnknownVersion(version)));
    assert_eq!(
      open_range(&k, &future, 0, 1),
      Err(OpenError::UnknownVersion(version))
    );
  }
  let mut foreign = record.clone();
  foreign[0] = b'X';
  assert_eq!(open(&k, &foreign), Err(OpenError::NotARecord));
  assert_eq!(open(&k, b""), Err(OpenError::NotARecord));
}

#[test]
fn ranges_open_only_the_chunks_they_need() {
  let k = keys("h", &owner(Some("s"), Some("u")));
  let plain = sample(3 * CHUNK_SIZE + 1000);
  let record = seal(&k, &plain).unwrap();
  let len = plain.len() as u64;
  let cases = [
    (0, 10),
    (5, CHUNK_SIZE as u64),
    (CHUNK_SIZE as u64 - 3, CHUNK_SIZE as u64 + 3),
    (2 * CHUNK_SIZE as u64, 3 * CHUNK_SIZE as u64 + 1000),
    (len - 1, len + 50),
    (len + 10, len + 20),
    (7, 7),
    (0, u64::MAX),
  ];
  for (start, end) in cases {
    let s = start.min(len) as usize;
    let e = end.clamp(start.min(len), len) as usize;
    assert_eq!(
      open_range(&k, &record, start, end).unwrap(),
      &plain[s..e],
      "{start}..{end}"
    );
  }
  // Corrupt chunk 0: a range inside chunk 2 still opens, one touching chunk 0 does not.
  let mut bad = record.clone();
  bad[HEADER_LEN + 3] ^= 1;
  let two = 2 * CHUNK_SIZE as u64;
  assert_eq!(
    open_range(&k, &bad, two, two + 100).unwrap(),
    &plain[two as usize..two as usize + 100]
  );
  assert_eq!(open_range(&k, &bad, 0, 1), Err(OpenError::Unauthentic));
  assert!(open(&k, &bad).is_err());
  // The span maps to the exact record bytes.
  let header = RecordHeader::parse(&record).unwrap();
  let span = header.span_for(two + 5, two + 6);
  assert_eq!((span.first_chunk, span.chunks), (2, 1));
  assert_eq!(
    span.byte_start,
    (HEADER_LEN + 2 * (CHUNK_SIZE + TAG_LEN)) as u64
  );
  let slice = &record[span.byte_start as usize..span.byte_end as usize];
  assert_eq!(
    open_span(&k, &header, &span, slice.to_vec()).unwrap(),
    &plain[two as usize + 5..two as usize + 6]
  );
  assert_eq!(
    open_span(&k, &header, &span, slice[1..].to_vec()),
    Err(OpenError::Malformed)
  );
  // Across a chunk boundary: both chunks are opened in the buffer they were read into.
  let straddling = header.span_for(two - 3, two + 4);
  assert_eq!((straddling.first_chunk, straddling.chunks), (1, 2));
  let both = record[straddling.byte_start as usize..straddling.byte_end as usize].to_vec();
  assert_eq!(
    open_span(&k, &header, &straddling, both.clone()).unwrap(),
    &plain[two as usize - 3..two as usize + 4]
  );
  let mut tampered = both;
  let second_chunk_byte = CHUNK_SIZE + TAG_LEN + 1;
  tampered[second_chunk_byte] ^= 1;
  assert_eq!(
    open_span(&k, &header, &straddling, tampered),
    Err(OpenError::Unauthentic)
  );
}

#[test]
fn empty_answers_seal_and_authenticate() {
  let k = keys("h", &owner(None, None));
  let record = seal(&k, b"").unwrap();
  assert_eq!(record.len(), HEADER_LEN + TAG_LEN);
  assert_eq!(open(&k, &record).unwrap(), b"");
  assert_eq!(open_range(&k, &record, 0, 10).unwrap(), b"");
  let mut bad = record.clone();
  bad[HEADER_LEN] ^= 1;
  assert_eq!(open_range(&k, &bad, 0, 10), Err(OpenError::Unauthentic));
}

#[test]
fn absurd_header_lengths_are_refused() {
  let k = keys("h", &owner(None, None));
  let mut record = seal(&k, b"abc").unwrap();
  record[12..20].copy_from_slice(&u64::MAX.to_be_bytes());
  assert_eq!(RecordHeader::parse(&record), Err(OpenError::Malformed));
  assert!(open(&k, &record).is_err());
  assert!(open_range(&k, &record, 0, 3).is_err());
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(24))]

  #[test]
  fn any_range_of_any_answer(len in 0usize..200_000, a in 0u64..210_000, b in 0u64..210_000) {
    let k = keys("p", &owner(Some("s"), None));
    let plain = sample(len);
    let record = seal(&k, &plain).unwrap();
    prop_assert_eq!(&open(&k, &record).unwrap(), &plain);
    let (start, end) = (a.min(b), a.max(b));
    let s = start.min(len as u64) as usize;
    let e = end.min(len as u64) as usize;
    prop_assert_eq!(open_range(&k, &record, start, end).unwrap(), plain[s..e].to_vec());
  }
}

#[test]
fn sealing_in_place_writes_the_same_record() {
  let owner = Owner::new(Some("session".into()), Some("user".into()));
  let keys = RecordKeys::derive("00000000-0000-4000-8000-000000000000", &owner, None).unwrap();
  let prefix = [7u8; NONCE_PREFIX_LEN];
  for len in [
    0,
    1,
    CHUNK_SIZE - 1,
    CHUNK_SIZE,
    CHUNK_SIZE + 1,
    3 * CHUNK_SIZE + 5,
    // An odd and an even count of chunks, the last short or full.
    256 * CHUNK_SIZE,
    64 * CHUNK_SIZE + 1,
    71 * CHUNK_SIZE + 123,
  ] {
    let plaintext: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
    let copied = seal_with_prefix(&keys, &plaintext, prefix).unwrap();
    let in_place = seal_in_place_with_prefix(&keys, plaintext.clone(), prefix).unwrap();
    assert_eq!(in_place, copied, "{len} bytes");
    assert_eq!(open(&keys, &in_place).unwrap(), plaintext, "{len} bytes");
  }
}

#[test]
fn large_records_open_on_two_threads_and_every_chunk_is_checked() {
  let k = keys("h", &owner(Some("s"), None));
  // Past the parallel threshold, with a short last chunk; both halves round-trip.
  let plain = sample(270 * CHUNK_SIZE + 123);
  assert!(plain.len() >= super::PARALLEL_OPEN_BYTES);
  let record = seal(&k, &plain).unwrap();
  assert_eq!(open(&k, &record).unwrap(), plain);
  let stride = CHUNK_SIZE + TAG_LEN;
  // A flipped byte in any chunk, in either half, refuses the whole record; so do swapped chunks across halves.
  for chunk in [0, 134, 135, 136, 270] {
    let mut bad = record.clone();
    bad[HEADER_LEN + chunk * stride + 7] ^= 1;
    assert_eq!(open(&k, &bad), Err(OpenError::Unauthentic), "chunk {chunk}");
  }
  let mut swapped = record.clone();
  let (low, high) = (HEADER_LEN + 2 * stride, HEADER_LEN + 200 * stride);
  let saved = swapped[low..low + stride].to_vec();
  swapped.copy_within(high..high + stride, low);
  swapped[high..high + stride].copy_from_slice(&saved);
  assert_eq!(open(&k, &swapped), Err(OpenError::Unauthentic));
}

#[test]
fn version_1_records_still_open() {
  let k = keys("h", &owner(Some("s"), None));
  for len in [
    0,
    100,
    V1_CHUNK_SIZE,
    3 * V1_CHUNK_SIZE + 5,
    // Opened on two threads.
    PARALLEL_OPEN_BYTES + V1_CHUNK_SIZE + 7,
  ] {
    let plain = sample(len);
    let record = seal_version_1(&k, &plain);
    assert_eq!(record[4], VERSION_1);
    let chunks = len.div_ceil(V1_CHUNK_SIZE).max(1);
    assert_eq!(record.len(), HEADER_LEN + len + TAG_LEN * chunks);
    assert_eq!(open(&k, &record).unwrap(), plain, "len {len}");
    for (start, end) in [
      (0, 10),
      (V1_CHUNK_SIZE - 3, V1_CHUNK_SIZE + 3),
      (len / 2, len),
    ] {
      let (from, to) = (start.min(len), end.clamp(start.min(len), len));
      assert_eq!(
        open_range(&k, &record, start as u64, end as u64).unwrap(),
        &plain[from..to],
        "len {len}, range {start}..{end}"
      );
    }
    let mut bad = record.clone();
    let last_tag_byte = bad.len() - 1;
    bad[last_tag_byte] ^= 1;
    assert_eq!(open(&k, &bad), Err(OpenError::Unauthentic));
    assert_eq!(
      open_in_place(&k, record).unwrap(),
      plain,
      "in place, len {len}"
    );
  }
}
