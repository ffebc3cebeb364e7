//! Sealed records: how a stored answer is derived, encrypted, laid out and opened.
//!
//! The full specification (byte layout, labels, encodings) is `docs/record-format.md`; a vitest spec decrypts a record
//! with `node:crypto` alone from that file, so any change here is a format change: a new version byte.
//!
//! Derivation (RFC 5869, HKDF-SHA256):
//!
//! ```text
//! ikm         = field(handle) ‖ field(session) ‖ field(subject)
//!               field(absent)  = 0x00
//!               field(present) = 0x01 ‖ u32be(len(utf8)) ‖ utf8
//! PRK         = HKDF-Extract(salt = server secret, or absent, ikm)
//! record key  = HKDF-Expand(PRK, "result-handles/v1 record key", 32)
//! storage key = HKDF-Expand(PRK, "result-handles/v1 storage key", 32)
//! ```
//!
//! Record (STREAM construction over AES-256-GCM, as in Hoang–Reyhanitabar–Rogaway–Vizár 2015 and `age`):
//!
//! ```text
//! header = "RHSR" ‖ 0x02 ‖ nonce prefix (7 random bytes) ‖ u64be(plaintext length)     (20 bytes)
//! chunk i = AES-256-GCM(record key, nonce_i, aad, plaintext[i·16384 .. (i+1)·16384])   (ciphertext ‖ 16-byte tag)
//! nonce_i = nonce prefix ‖ u32be(i) ‖ (0x01 if i is the last chunk else 0x00)          (12 bytes)
//! aad     = header ‖ storage key                                                       (52 bytes)
//! record  = header ‖ chunk 0 ‖ … ‖ chunk n-1,   n = max(1, ceil(len / 16384))
//! ```
//!
//! Version 1 records, written before, are the same with chunks of 65536 bytes; they still open.
//!
//! Every chunk authenticates the header (so the version, the length and the prefix), the storage key it lives under
//! (so a record moved to another key does not open), its own position (reordering fails) and whether it is the last
//! (truncation at a chunk boundary fails). Any chunk can be opened alone: [`open_range`] decrypts only the chunks that
//! cover a byte range.

use crate::core::error::{CoreError, CoreResult, ErrorCode};

mod cipher;
mod keys;
mod layout;
pub use cipher::{ChunkCipher, ChunkNonce, Tag, Unauthentic};
pub use keys::*;
pub use layout::*;

/// The four bytes every record starts with ("Result Handle Sealed Record").
pub const MAGIC: [u8; 4] = *b"RHSR";
/// The first record version: chunks of [`V1_CHUNK_SIZE`] bytes. Still opened, no longer written.
pub const VERSION_1: u8 = 1;
/// The record version this engine writes: chunks of [`CHUNK_SIZE`] bytes.
pub const VERSION_2: u8 = 2;
/// Plaintext bytes per chunk of the records this engine writes (the last chunk may be shorter, or empty for an
/// empty answer). A page or a singular read opens the chunks covering its bytes, a few kilobytes: a 16 KiB chunk
/// opens in about a quarter of a 64 KiB one's time (version 1), and a whole answer opens as fast either way.
pub const CHUNK_SIZE: usize = 16 * 1024;
/// Plaintext bytes per chunk of a version 1 record.
pub const V1_CHUNK_SIZE: usize = 64 * 1024;

/// Plaintext bytes per chunk of a record of `version`; `None` for a version this engine does not know.
pub fn chunk_size_of(version: u8) -> Option<usize> {
  match version {
    VERSION_2 => Some(CHUNK_SIZE),
    VERSION_1 => Some(V1_CHUNK_SIZE),
    _ => None,
  }
}

/// Answers at least this large are decrypted on two threads (half the chunks each). Below it, starting a thread (and
/// waiting for a core on a busy machine) cost first queries more than it saved.
const PARALLEL_OPEN_BYTES: usize = 4 << 20;
/// AES-GCM tag bytes after each chunk's ciphertext.
pub const TAG_LEN: usize = 16;
/// Random bytes at the start of every chunk nonce, fresh for each record.
pub const NONCE_PREFIX_LEN: usize = 7;
/// magic (4) ‖ version (1) ‖ nonce prefix (7) ‖ plaintext length (8).
pub const HEADER_LEN: usize = 4 + 1 + NONCE_PREFIX_LEN + 8;
/// Bytes of the derived AES-256 key and of the storage key.
pub const KEY_LEN: usize = 32;
/// HKDF info for the AES-256-GCM key.
pub const LABEL_RECORD_KEY: &[u8] = b"result-handles/v1 record key";
/// HKDF info for the storage key (the only name the store ever sees, hex-encoded).
pub const LABEL_STORAGE_KEY: &[u8] = b"result-handles/v1 storage key";
/// HKDF info for the AES-256-GCM key of an answer's path index (a second record, see `docs/record-format.md`).
pub const LABEL_INDEX_KEY: &[u8] = b"result-handles/v1 index key";
/// HKDF info for the storage key of an answer's path index.
pub const LABEL_INDEX_STORAGE_KEY: &[u8] = b"result-handles/v1 index storage key";
/// HKDF info for the AES-256-GCM key of a long array's member directory (one record per array), followed by the
/// array's start in the answer as 8 bytes big-endian.
pub const LABEL_DIRECTORY_KEY: &[u8] = b"result-handles/v1 directory key";
/// HKDF info for the storage key of a long array's member directory, followed by the array's start as above.
pub const LABEL_DIRECTORY_STORAGE_KEY: &[u8] = b"result-handles/v1 directory storage key";
/// The least number of bytes a server secret may have (from the limit table).
pub use crate::core::options::MIN_SECRET_BYTES;
/// The environment variable read when no `secret` option is given.
pub const SECRET_ENV: &str = "RESULT_HANDLES_SECRET";

// ─── seal and open ──────────────────────────────────────────────────────────

/// The length of the record that seals `plaintext_len` bytes.
pub fn sealed_len(plaintext_len: u64) -> u64 {
  record_len(plaintext_len, CHUNK_SIZE as u64)
}

/// Seals `plaintext` into a new record under `keys`, with a fresh random nonce prefix from the OS CSPRNG.
pub fn seal(keys: &RecordKeys, plaintext: &[u8]) -> CoreResult<Vec<u8>> {
  seal_with_prefix(keys, plaintext, fresh_prefix()?)
}

/// [`seal`] written over the plaintext's own buffer: chunks move back to make room for the header and their tags
/// and are encrypted where they land, so sealing a large answer needs no second buffer of its size.
pub fn seal_in_place(keys: &RecordKeys, buffer: Vec<u8>) -> CoreResult<Vec<u8>> {
  seal_in_place_with_prefix(keys, buffer, fresh_prefix()?)
}

fn fresh_prefix() -> CoreResult<[u8; NONCE_PREFIX_LEN]> {
  let mut prefix = [0u8; NONCE_PREFIX_LEN];
  getrandom::fill(&mut prefix)
    .map_err(|_| CoreError::internal("The operating system's random source failed."))?;
  Ok(prefix)
}

fn too_large() -> CoreError {
  CoreError::new(ErrorCode::InvalidInput, "The answer is too large to seal.")
    .with_remedy("Return a smaller answer.")
}

/// [`seal`] with a given nonce prefix: for known-answer tests only; a prefix must never repeat under one key.
pub fn seal_with_prefix(
  keys: &RecordKeys,
  plaintext: &[u8],
  prefix: [u8; NONCE_PREFIX_LEN],
) -> CoreResult<Vec<u8>> {
  seal_version(keys, plaintext, prefix, VERSION_2)
}

/// A version 1 record (64 KiB chunks), as the engine wrote it before version 2: for the tests that check such
/// records still open.
#[cfg(test)]
pub(crate) fn seal_version_1(keys: &RecordKeys, plaintext: &[u8]) -> Vec<u8> {
  seal_version(
    keys,
    plaintext,
    fresh_prefix().expect("random bytes"),
    VERSION_1,
  )
  .expect("sealed")
}

fn seal_version(
  keys: &RecordKeys,
  plaintext: &[u8],
  prefix: [u8; NONCE_PREFIX_LEN],
  version: u8,
) -> CoreResult<Vec<u8>> {
  let (sealer, header, total) = ChunkSealer::new(keys, plaintext.len(), prefix, version)?;
  let cipher = keys.cipher();
  let chunk_size = usize::try_from(header.chunk_size).map_err(|_| too_large())?;

  let mut out = Vec::with_capacity(total);
  out.extend_from_slice(&header.bytes);
  // At least one chunk: an empty answer is one empty chunk with its tag.
  let mut pieces = plaintext.chunks(chunk_size);
  for index in 0..sealer.chunks {
    let start = out.len();
    out.extend_from_slice(pieces.next().unwrap_or_default());
    let end = out.len();
    out.resize(end + TAG_LEN, 0);
    sealer.encrypt(&cipher, &mut out, start..end, index)?;
  }
  Ok(out)
}

/// [`seal_in_place`] with a given nonce prefix (known-answer tests only). Chunks are handled from the last: chunk
/// `i` moves from `i * CHUNK_SIZE` to `HEADER_LEN + i * (CHUNK_SIZE + TAG_LEN)`, never below where it was, and its
/// record ends where chunk `i + 1`'s begins, so nothing still to be read is overwritten.
pub fn seal_in_place_with_prefix(
  keys: &RecordKeys,
  mut buffer: Vec<u8>,
  prefix: [u8; NONCE_PREFIX_LEN],
) -> CoreResult<Vec<u8>> {
  let plaintext_len = buffer.len();
  let (sealer, header, total) = ChunkSealer::new(keys, plaintext_len, prefix, VERSION_2)?;
  buffer.resize(total, 0);
  sealer.move_and_encrypt(&mut buffer, plaintext_len)?;
  buffer[..HEADER_LEN].copy_from_slice(&header.bytes);
  Ok(buffer)
}

/// Where chunk `index` of a record starts.
fn record_offset(index: usize) -> usize {
  HEADER_LEN + index * (CHUNK_SIZE + TAG_LEN)
}

/// Moves chunk `index` of the plaintext to its place in the record; returns that place.
fn move_chunk(buffer: &mut [u8], index: usize, plaintext_len: usize) -> std::ops::Range<usize> {
  let start = index * CHUNK_SIZE;
  let end = (start + CHUNK_SIZE).min(plaintext_len);
  let at = record_offset(index);
  buffer.copy_within(start..end, at);
  at..at + (end - start)
}

/// What sealing each chunk of one record needs.
struct ChunkSealer<'a> {
  keys: &'a RecordKeys,
  aad: [u8; HEADER_LEN + KEY_LEN],
  prefix: [u8; NONCE_PREFIX_LEN],
  chunks: usize,
}

impl<'a> ChunkSealer<'a> {
  /// The sealer of a record of `version` holding `plaintext_len` bytes under `keys`, the record's header, and the
  /// record's length.
  fn new(
    keys: &'a RecordKeys,
    plaintext_len: usize,
    prefix: [u8; NONCE_PREFIX_LEN],
    version: u8,
  ) -> CoreResult<(Self, RecordHeader, usize)> {
    let header = u64::try_from(plaintext_len)
      .ok()
      .and_then(|len| RecordHeader::new(version, prefix, len).ok())
      .ok_or_else(too_large)?;
    let chunks = usize::try_from(header.chunk_count()).map_err(|_| too_large())?;
    let total = usize::try_from(header.record_len()).map_err(|_| too_large())?;
    let sealer = ChunkSealer {
      keys,
      aad: aad(&header.bytes, keys),
      prefix,
      chunks,
    };
    Ok((sealer, header, total))
  }

  /// Encrypts chunk `index` where it lies (`piece`) and writes its tag right after it.
  fn encrypt(
    &self,
    cipher: &ChunkCipher,
    buffer: &mut [u8],
    piece: std::ops::Range<usize>,
    index: usize,
  ) -> CoreResult<()> {
    let counter = u32::try_from(index).map_err(|_| too_large())?;
    let end = piece.end;
    let tag = cipher
      .seal(
        nonce(&self.prefix, counter, index + 1 == self.chunks),
        &self.aad,
        &mut buffer[piece],
      )
      .ok_or_else(too_large)?;
    buffer[end..end + TAG_LEN].copy_from_slice(&tag);
    Ok(())
  }

  /// Moves every chunk (from the last) to its place in `buffer`, each encrypted where it lands.
  fn move_and_encrypt(&self, buffer: &mut [u8], plaintext_len: usize) -> CoreResult<()> {
    let cipher = self.keys.cipher();
    for index in (0..self.chunks).rev() {
      let piece = move_chunk(buffer, index, plaintext_len);
      self.encrypt(&cipher, buffer, piece, index)?;
    }
    Ok(())
  }
}

/// Opens a whole record: every chunk authenticated, the length exact.
pub fn open(keys: &RecordKeys, record: &[u8]) -> Result<Vec<u8>, OpenError> {
  open_in_place(keys, record.to_vec())
}

/// [`open`] over the record's own buffer: each chunk's ciphertext moves down over the header and the tags before
/// it as it is decrypted, so opening a large answer needs no second buffer of its size (a second buffer is fresh
/// memory, and a copy of the answer).
pub fn open_in_place(keys: &RecordKeys, record: Vec<u8>) -> Result<Vec<u8>, OpenError> {
  let header = RecordHeader::parse(&record)?;
  if record.len() as u64 != header.record_len() {
    return Err(OpenError::Malformed);
  }
  let chunks = sealed_chunks(&header, 0, &record[HEADER_LEN..])?;
  decrypt_where_read(keys, &header, record, HEADER_LEN, &chunks)
}

/// Decrypts the ciphertexts of `chunks` (which lie in `buffer` from `offset` on) end to end at its start. Chunk
/// `i` lands at `i` chunk sizes, at or below where it lies and past every chunk already decrypted, and is written
/// there as it is read: the answer is not copied beside its decryption. Past [`PARALLEL_OPEN_BYTES`] the second
/// half is decrypted on a second thread, end to end where it lies (its first chunk would land over the first half's
/// last ciphertexts, still being read), and then moved down.
fn decrypt_where_read(
  keys: &RecordKeys,
  header: &RecordHeader,
  mut buffer: Vec<u8>,
  offset: usize,
  chunks: &[SealedChunk],
) -> Result<Vec<u8>, OpenError> {
  let plain_len = chunks.iter().map(|chunk| chunk.ciphertext.len()).sum();
  let opener = ChunkOpener::new(keys, header);
  if plain_len < PARALLEL_OPEN_BYTES {
    let first_at = offset + chunks.first().map_or(0, |chunk| chunk.ciphertext.start);
    opener.decrypt_down(&mut buffer, first_at, chunks)?;
  } else {
    let (first, second) = chunks.split_at(chunks.len() / 2);
    let split = offset + second[0].ciphertext.start;
    let first_len = first
      .iter()
      .map(|chunk| chunk.ciphertext.len())
      .sum::<usize>();
    let (low, high) = buffer.split_at_mut(split);
    on_two_threads(
      || opener.decrypt_down(low, offset + first[0].ciphertext.start, first),
      high,
      |high| opener.decrypt_down(high, 0, second),
      || OpenError::Unauthentic,
    )?;
    buffer.copy_within(split..split + (plain_len - first_len), first_len);
  }
  buffer.truncate(plain_len);
  Ok(buffer)
}

/// Opens plaintext bytes `[start, end)` (clamped to the answer) from a whole record, decrypting only the chunks
/// that cover them.
pub fn open_range(
  keys: &RecordKeys,
  record: &[u8],
  start: u64,
  end: u64,
) -> Result<Vec<u8>, OpenError> {
  let header = RecordHeader::parse(record)?;
  let span = header.span_for(start, end);
  let bytes = usize::try_from(span.byte_start)
    .ok()
    .zip(usize::try_from(span.byte_end).ok())
    .and_then(|(from, to)| record.get(from..to))
    .ok_or(OpenError::Malformed)?;
  open_span(keys, &header, &span, bytes.to_vec())
}

/// Opens the chunks a [`ChunkSpan`] names, given exactly the record bytes `span.byte_start..span.byte_end`, and
/// returns the plaintext range the span was built for. This is how stores that read byte ranges open a slice: the
/// chunks are decrypted in the buffer they were read into, so a page costs no second copy of its chunks.
pub fn open_span(
  keys: &RecordKeys,
  header: &RecordHeader,
  span: &ChunkSpan,
  bytes: Vec<u8>,
) -> Result<Vec<u8>, OpenError> {
  if bytes.len() as u64 != span.byte_end - span.byte_start {
    return Err(OpenError::Malformed);
  }
  let chunks = sealed_chunks(header, span.first_chunk, &bytes)?;
  let mut plain = decrypt_where_read(keys, header, bytes, 0, &chunks)?;
  let skip = usize::try_from(span.skip).map_err(|_| OpenError::Malformed)?;
  let take = usize::try_from(span.take).map_err(|_| OpenError::Malformed)?;
  if plain.len() < skip.saturating_add(take) {
    return Err(OpenError::Malformed);
  }
  // In place: a long range (a query's fragment) is moved down once, not copied to fresh memory.
  plain.truncate(skip + take);
  plain.drain(..skip);
  Ok(plain)
}

/// One sealed chunk of a record: where its ciphertext lies, and what opening it needs.
struct SealedChunk {
  counter: u32,
  last: bool,
  tag: Tag,
  /// Within the bytes the chunks were read from.
  ciphertext: std::ops::Range<usize>,
}

/// The chunks `bytes` holds, the first being chunk `first_chunk`: each exactly as long as the header says.
fn sealed_chunks(
  header: &RecordHeader,
  first_chunk: u64,
  bytes: &[u8],
) -> Result<Vec<SealedChunk>, OpenError> {
  let chunk_total = header.chunk_count();
  let mut chunks = Vec::new();
  let mut at = 0usize;
  let mut index = first_chunk;
  loop {
    if index >= chunk_total {
      return Err(OpenError::Malformed);
    }
    let last = index == chunk_total - 1;
    let plain_len = if last {
      header.plaintext_len - index * header.chunk_size
    } else {
      header.chunk_size
    };
    let plain_len = usize::try_from(plain_len).map_err(|_| OpenError::Malformed)?;
    if bytes.len() - at < plain_len + TAG_LEN {
      return Err(OpenError::Malformed);
    }
    let tag_at = at + plain_len;
    let tag: Tag = bytes[tag_at..tag_at + TAG_LEN]
      .try_into()
      .map_err(|_| OpenError::Malformed)?;
    let counter = u32::try_from(index).map_err(|_| OpenError::Malformed)?;
    chunks.push(SealedChunk {
      counter,
      last,
      tag,
      ciphertext: at..tag_at,
    });
    at = tag_at + TAG_LEN;
    index += 1;
    if at == bytes.len() {
      break;
    }
  }
  Ok(chunks)
}

/// What opening each chunk of one record needs.
struct ChunkOpener<'a> {
  keys: &'a RecordKeys,
  header: &'a RecordHeader,
  aad: [u8; HEADER_LEN + KEY_LEN],
}

impl<'a> ChunkOpener<'a> {
  fn new(keys: &'a RecordKeys, header: &'a RecordHeader) -> Self {
    let aad = aad(&header.bytes, keys);
    ChunkOpener { keys, header, aad }
  }

  /// Decrypts `chunks` end to end at the start of `buffer`, each written as it is read. The first lies
  /// `first_at` bytes into `buffer`, and the others as far from it as their ranges say.
  fn decrypt_down(
    &self,
    buffer: &mut [u8],
    first_at: usize,
    chunks: &[SealedChunk],
  ) -> Result<(), OpenError> {
    let cipher = self.keys.cipher();
    let first = chunks.first().map_or(0, |chunk| chunk.ciphertext.start);
    let mut landing = 0;
    for chunk in chunks {
      let at = first_at + (chunk.ciphertext.start - first);
      let end = at + chunk.ciphertext.len();
      cipher
        .open(
          nonce(&self.header.nonce_prefix, chunk.counter, chunk.last),
          &self.aad,
          &mut buffer[landing..end],
          at - landing,
          &chunk.tag,
        )
        .map_err(|Unauthentic| OpenError::Unauthentic)?;
      landing += chunk.ciphertext.len();
    }
    Ok(())
  }
}

/// Runs `here` on this thread while `work(there)` runs on a second one, and gives the first error (`here`'s, then
/// the helper's; a helper that panicked gives `panicked()`). When no thread can be had, `work(there)` runs here
/// afterwards. The halves of an open each go one way.
fn on_two_threads<T: Send + ?Sized, E: Send>(
  here: impl FnOnce() -> Result<(), E>,
  there: &mut T,
  work: impl Fn(&mut T) -> Result<(), E> + Sync,
  panicked: impl FnOnce() -> E,
) -> Result<(), E> {
  let helped = std::thread::scope(|scope| {
    let helper = std::thread::Builder::new().spawn_scoped(scope, || work(&mut *there));
    let here = here();
    match helper {
      Ok(helper) => Some(here.and(helper.join().unwrap_or_else(|_| Err(panicked())))),
      Err(_) => here.err().map(Err),
    }
  });
  match helped {
    Some(outcome) => outcome,
    // No thread to be had: the second half here too.
    None => work(there),
  }
}

#[cfg(test)]
mod tests;
