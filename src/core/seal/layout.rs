//! The record's layout: its header, its chunks, each chunk's nonce and associated data, and why a record did not
//! open (see the record in `seal.rs`'s header).

use super::*;

/// Why a record did not open. The store maps every variant to "not found"; the variants exist for tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenError {
  /// Too short for a header, or the magic is wrong.
  NotARecord,
  /// A version this engine does not know: refused, never guessed.
  UnknownVersion(u8),
  /// The length does not match the header (truncated or extended), or a range is out of bounds.
  Malformed,
  /// A chunk failed authentication: wrong key, moved, reordered, truncated or altered.
  Unauthentic,
}

/// A parsed record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
  pub(super) bytes: [u8; HEADER_LEN],
  pub(super) nonce_prefix: [u8; NONCE_PREFIX_LEN],
  pub(super) plaintext_len: u64,
  /// Plaintext bytes per chunk, which the version sets.
  pub(super) chunk_size: u64,
}

impl RecordHeader {
  /// The header of a record of `version` holding `plaintext_len` bytes: what a sealer writes, and what a reader
  /// checks its fields against.
  pub(super) fn new(
    version: u8,
    nonce_prefix: [u8; NONCE_PREFIX_LEN],
    plaintext_len: u64,
  ) -> Result<Self, OpenError> {
    let chunk_size = chunk_size_of(version).ok_or(OpenError::UnknownVersion(version))? as u64;
    // The chunk index is 32 bits: a longer claim cannot be a record of ours.
    if chunk_count(plaintext_len, chunk_size) > u64::from(u32::MAX) + 1 {
      return Err(OpenError::Malformed);
    }
    let mut bytes = [0u8; HEADER_LEN];
    bytes[..4].copy_from_slice(&MAGIC);
    bytes[4] = version;
    bytes[5..5 + NONCE_PREFIX_LEN].copy_from_slice(&nonce_prefix);
    bytes[5 + NONCE_PREFIX_LEN..].copy_from_slice(&plaintext_len.to_be_bytes());
    Ok(Self {
      bytes,
      nonce_prefix,
      plaintext_len,
      chunk_size,
    })
  }

  /// Parses the first [`HEADER_LEN`] bytes of a record.
  pub fn parse(record: &[u8]) -> Result<Self, OpenError> {
    let bytes: [u8; HEADER_LEN] = record
      .get(..HEADER_LEN)
      .and_then(|head| head.try_into().ok())
      .ok_or(OpenError::NotARecord)?;
    if bytes[..4] != MAGIC {
      return Err(OpenError::NotARecord);
    }
    let mut nonce_prefix = [0u8; NONCE_PREFIX_LEN];
    nonce_prefix.copy_from_slice(&bytes[5..5 + NONCE_PREFIX_LEN]);
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[5 + NONCE_PREFIX_LEN..]);
    Self::new(bytes[4], nonce_prefix, u64::from_be_bytes(len))
  }

  /// The plaintext length the header claims (authenticated only once a chunk opens).
  pub fn plaintext_len(&self) -> u64 {
    self.plaintext_len
  }

  /// Number of chunks in the record.
  pub fn chunk_count(&self) -> u64 {
    chunk_count(self.plaintext_len, self.chunk_size)
  }

  /// The record's total length in bytes.
  pub fn record_len(&self) -> u64 {
    record_len(self.plaintext_len, self.chunk_size)
  }

  /// The byte span of the record that holds the chunks covering plaintext `[start, end)`, clamped to the plaintext.
  /// An empty range still covers one chunk, so that reading it authenticates the header.
  pub fn span_for(&self, start: u64, end: u64) -> ChunkSpan {
    let len = self.plaintext_len;
    let start = start.min(len);
    let end = end.clamp(start, len);
    let chunk = self.chunk_size;
    let last_chunk = self.chunk_count() - 1;
    let first = (start / chunk).min(last_chunk);
    let last = if end > start {
      (end - 1) / chunk
    } else {
      first
    };
    let stride = chunk + TAG_LEN as u64;
    let byte_start = HEADER_LEN as u64 + first * stride;
    let byte_end = if last == last_chunk {
      self.record_len()
    } else {
      HEADER_LEN as u64 + (last + 1) * stride
    };
    ChunkSpan {
      first_chunk: first,
      chunks: last - first + 1,
      byte_start,
      byte_end,
      skip: start - first * chunk,
      take: end - start,
    }
  }
}

/// The record bytes [`RecordHeader::span_for`] names for plaintext `[start, end)` of a record of the version this
/// engine writes whose plaintext runs past `end`: what to read together with the header, before its length (or
/// version) is known. For any other record the guess is read again from the header's figures. `None` for an empty range (it
/// needs the record's length to pick its chunk) or one too far out to address.
pub fn span_before_header(start: u64, end: u64) -> Option<(u64, u64)> {
  if end <= start {
    return None;
  }
  let chunk = CHUNK_SIZE as u64;
  let stride = chunk + TAG_LEN as u64;
  let at_chunk = |index: u64| index.checked_mul(stride)?.checked_add(HEADER_LEN as u64);
  Some((at_chunk(start / chunk)?, at_chunk((end - 1) / chunk + 1)?))
}

/// Which chunks (and which record bytes) cover a plaintext range. Built by [`RecordHeader::span_for`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSpan {
  /// Index of the first chunk.
  pub first_chunk: u64,
  /// Number of chunks.
  pub chunks: u64,
  /// First record byte of those chunks.
  pub byte_start: u64,
  /// One past their last record byte.
  pub byte_end: u64,
  /// Plaintext bytes to drop from the front of the decrypted chunks.
  pub skip: u64,
  /// Plaintext bytes to keep after that.
  pub take: u64,
}

/// Chunks of `chunk_size` bytes that hold `plaintext_len` bytes: at least one.
pub(super) fn chunk_count(plaintext_len: u64, chunk_size: u64) -> u64 {
  plaintext_len.div_ceil(chunk_size).max(1)
}

/// The length of a record sealing `plaintext_len` bytes in chunks of `chunk_size`: the header, then each chunk and
/// its tag.
pub(super) fn record_len(plaintext_len: u64, chunk_size: u64) -> u64 {
  HEADER_LEN as u64 + plaintext_len + TAG_LEN as u64 * chunk_count(plaintext_len, chunk_size)
}

pub(super) fn nonce(prefix: &[u8; NONCE_PREFIX_LEN], index: u32, last: bool) -> ChunkNonce {
  let mut bytes = [0u8; 12];
  bytes[..NONCE_PREFIX_LEN].copy_from_slice(prefix);
  bytes[NONCE_PREFIX_LEN..11].copy_from_slice(&index.to_be_bytes());
  bytes[11] = u8::from(last);
  bytes
}

pub(super) fn aad(header: &[u8; HEADER_LEN], keys: &RecordKeys) -> [u8; HEADER_LEN + KEY_LEN] {
  let mut aad = [0u8; HEADER_LEN + KEY_LEN];
  aad[..HEADER_LEN].copy_from_slice(header);
  aad[HEADER_LEN..].copy_from_slice(&keys.storage_key);
  aad
}
