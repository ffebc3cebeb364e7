//! Who a record is for and the keys it is sealed under: the owner (session, subject), the server secret, and the
//! HKDF derivation of the record key and the storage key (see the derivation in `seal.rs`'s header).

use std::fmt;

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::core::error::{CoreError, CoreResult, ErrorCode};

use super::*;

/// Who may read a record: the session and the subject (caller) that saved it. Absent is not the same as empty.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Owner {
  pub session: Option<String>,
  pub subject: Option<String>,
}

impl Owner {
  pub fn new(session: Option<String>, subject: Option<String>) -> Self {
    Self { session, subject }
  }
}

// Owners are user data: never printed.
impl fmt::Debug for Owner {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("Owner(..)")
  }
}

/// A server secret mixed into every derivation as the HKDF salt. Zeroized on drop, never printed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ServerSecret(Vec<u8>);

impl ServerSecret {
  /// Takes a secret of at least [`MIN_SECRET_BYTES`] bytes.
  pub fn new(bytes: &[u8]) -> CoreResult<Self> {
    if bytes.len() < MIN_SECRET_BYTES {
      return Err(
        CoreError::new(
          ErrorCode::Configuration,
          format!("secret must be at least {MIN_SECRET_BYTES} bytes."),
        )
        .with_remedy(
          "Use a random value of 32 bytes or more, for example `openssl rand -base64 48`.",
        ),
      );
    }
    Ok(Self(bytes.to_vec()))
  }

  /// The secret to use: the option when given, else `RESULT_HANDLES_SECRET` when set and not empty, else none.
  pub fn resolve(option: Option<&str>) -> CoreResult<Option<Self>> {
    Self::resolve_with(option, &|name| std::env::var(name).ok())
  }

  /// [`ServerSecret::resolve`], reading the environment through `env`.
  pub fn resolve_with(
    option: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
  ) -> CoreResult<Option<Self>> {
    if let Some(value) = option {
      return Self::new(value.as_bytes()).map(Some);
    }
    match env(SECRET_ENV) {
      Some(value) if !value.is_empty() => {
        let value = Zeroizing::new(value);
        Self::new(value.as_bytes()).map(Some).map_err(|_| {
          CoreError::new(
            ErrorCode::Configuration,
            format!("{SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes."),
          )
          .with_remedy("Set it to a random value of 32 bytes or more, or unset it.")
        })
      }
      _ => Ok(None),
    }
  }

  pub(super) fn as_bytes(&self) -> &[u8] {
    &self.0
  }
}

impl fmt::Debug for ServerSecret {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("ServerSecret(..)")
  }
}

// ─── derivation ─────────────────────────────────────────────────────────────

/// HKDF-SHA256 (RFC 5869): extract with `salt` (absent = 32 zero bytes), expand with `info` into `out`.
/// Fails only when `out` is longer than 255 × 32 bytes.
pub fn hkdf_sha256(salt: Option<&[u8]>, ikm: &[u8], info: &[u8], out: &mut [u8]) -> CoreResult<()> {
  Hkdf::<Sha256>::new(salt, ikm)
    .expand(info, out)
    .map_err(|_| CoreError::internal("HKDF output length out of range."))
}

pub(super) fn push_field(ikm: &mut Vec<u8>, value: Option<&str>) -> CoreResult<()> {
  match value {
    None => ikm.push(0),
    Some(text) => {
      let len = u32::try_from(text.len()).map_err(|_| {
        CoreError::new(
          ErrorCode::InvalidInput,
          "A handle, session or subject is longer than 4 GiB.",
        )
        .with_remedy("Use a shorter identifier.")
      })?;
      ikm.push(1);
      ikm.extend_from_slice(&len.to_be_bytes());
      ikm.extend_from_slice(text.as_bytes());
    }
  }
  Ok(())
}

/// The input keying material for a handle and an owner (see the module docs for the encoding).
pub fn input_key_material(handle: &str, owner: &Owner) -> CoreResult<Zeroizing<Vec<u8>>> {
  let mut ikm = Zeroizing::new(Vec::with_capacity(
    15 + handle.len()
      + owner.session.as_deref().map_or(0, str::len)
      + owner.subject.as_deref().map_or(0, str::len),
  ));
  push_field(&mut ikm, Some(handle))?;
  push_field(&mut ikm, owner.session.as_deref())?;
  push_field(&mut ikm, owner.subject.as_deref())?;
  Ok(ikm)
}

/// The two keys of one record. Zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct RecordKeys {
  pub(super) record_key: [u8; KEY_LEN],
  pub(super) storage_key: [u8; KEY_LEN],
}

impl RecordKeys {
  /// Derives both keys from the handle, the owner and the optional server secret.
  pub fn derive(handle: &str, owner: &Owner, secret: Option<&ServerSecret>) -> CoreResult<Self> {
    Self::derive_labelled(handle, owner, secret, LABEL_RECORD_KEY, LABEL_STORAGE_KEY)
  }

  /// The keys of the same handle's path index record: the same input, its own two labels.
  pub fn derive_index(
    handle: &str,
    owner: &Owner,
    secret: Option<&ServerSecret>,
  ) -> CoreResult<Self> {
    Self::derive_labelled(
      handle,
      owner,
      secret,
      LABEL_INDEX_KEY,
      LABEL_INDEX_STORAGE_KEY,
    )
  }

  /// The keys of the member directory of the array starting at byte `array_start` of the same handle's answer:
  /// the same input, two more labels, each followed by the start (so each array's directory is a record of its own).
  pub fn derive_directory(
    handle: &str,
    owner: &Owner,
    secret: Option<&ServerSecret>,
    array_start: u64,
  ) -> CoreResult<Self> {
    let labelled = |label: &[u8]| [label, &array_start.to_be_bytes()].concat();
    Self::derive_labelled(
      handle,
      owner,
      secret,
      &labelled(LABEL_DIRECTORY_KEY),
      &labelled(LABEL_DIRECTORY_STORAGE_KEY),
    )
  }

  pub(super) fn derive_labelled(
    handle: &str,
    owner: &Owner,
    secret: Option<&ServerSecret>,
    record_label: &[u8],
    storage_label: &[u8],
  ) -> CoreResult<Self> {
    let ikm = input_key_material(handle, owner)?;
    let hkdf = Hkdf::<Sha256>::new(secret.map(ServerSecret::as_bytes), &ikm);
    let mut keys = RecordKeys {
      record_key: [0; KEY_LEN],
      storage_key: [0; KEY_LEN],
    };
    let expanded = hkdf
      .expand(record_label, &mut keys.record_key)
      .and_then(|()| hkdf.expand(storage_label, &mut keys.storage_key));
    expanded.map_err(|_| CoreError::internal("HKDF output length out of range."))?;
    Ok(keys)
  }

  /// The storage key as 64 lowercase hex characters: the record's name in the store (after the namespace).
  pub fn storage_key_hex(&self) -> String {
    hex::encode(self.storage_key)
  }

  /// The raw storage key (bound into every chunk's AAD).
  pub fn storage_key(&self) -> &[u8; KEY_LEN] {
    &self.storage_key
  }

  pub(super) fn cipher(&self) -> ChunkCipher {
    ChunkCipher::new(&self.record_key)
  }
}

impl fmt::Debug for RecordKeys {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("RecordKeys(..)")
  }
}
