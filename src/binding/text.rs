//! A large JS string copied into Rust once, as cheaply as Node-API allows.
//!
//! [`JsText`] is the same copy for a string that may hold raw lone surrogates, which UTF-8 cannot carry: it comes
//! over as UTF-16 units then, so that the engine, not the host, decides what such a text stands for.
//!
//! napi-rs's `String` asks V8 for the UTF-8 length first (a pass over the whole string) and then writes into a zeroed
//! buffer (every page touched twice). An answer's JSON can be tens of megabytes and this copy runs on the JS thread,
//! so [`LazyJsText`] sizes its buffer from the UTF-16 length instead (no pass: at most 3 UTF-8 bytes per unit) and lets
//! V8 write into it uninitialized; pages never written are never touched, so they cost address space, not memory.

use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, TypeName, ValidateNapiValue};
use napi::{check_status, sys, Result, ValueType};

use crate::core::json::write::has_lone_surrogate;

/// Declares each type a JS-string parameter (its TypeScript type and the check napi makes before reading it).
macro_rules! string_parameter {
  ($($name:ty),+) => {$(
    impl TypeName for $name {
      fn type_name() -> &'static str {
        "String"
      }

      fn value_type() -> ValueType {
        ValueType::String
      }
    }

    impl ValidateNapiValue for $name {}
  )+};
}

string_parameter!(JsText, LazyJsText);

/// Copies a JS string into `bytes` as UTF-8 (lone surrogates written as U+FFFD), with room to seal it in place
/// (emptied first; grown when it has less room than the string may need).
unsafe fn copy_utf8(
  env: sys::napi_env,
  value: sys::napi_value,
  mut bytes: Vec<u8>,
) -> Result<Vec<u8>> {
  let units = unsafe { utf16_len(env, value) }?;
  bytes.clear();
  bytes.reserve(utf8_room(units));
  let capacity = bytes.capacity();
  let mut written = 0;
  check_status!(
    unsafe {
      sys::napi_get_value_string_utf8(
        env,
        value,
        bytes.as_mut_ptr().cast(),
        capacity,
        &mut written,
      )
    },
    "Expected a string"
  )?;
  // SAFETY: V8 initialized the first `written` bytes (`written` < capacity).
  unsafe { bytes.set_len(written.min(capacity)) };
  bytes.shrink_to(sealable_capacity(bytes.len()));
  Ok(bytes)
}

/// Room for the UTF-8 copy of a string of `units` UTF-16 units: at most 3 bytes each, and the NUL V8 writes.
pub fn utf8_room(units: usize) -> usize {
  units.saturating_mul(3).saturating_add(1)
}

/// Room for `len` bytes and what sealing adds in place (a header and a tag per chunk), so that the record is
/// written in the buffer the answer was copied into.
fn sealable_capacity(len: usize) -> usize {
  usize::try_from(crate::core::seal::sealed_len(len as u64)).unwrap_or(len)
}

/// The length of a JS string in UTF-16 units (no copy).
unsafe fn utf16_len(env: sys::napi_env, value: sys::napi_value) -> Result<usize> {
  let mut units = 0;
  // Without a buffer this only reads the length.
  check_status!(
    unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut units) },
    "Expected a string"
  )?;
  Ok(units)
}

/// A JS string's text: UTF-8 when it is well-formed, else its UTF-16 units.
pub enum JsText {
  Utf8(String),
  /// The string holds a raw lone surrogate.
  Utf16(Vec<u16>),
}

impl FromNapiValue for JsText {
  unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
    unsafe { read_js_text(env, value, Vec::new()) }
  }
}

/// [`JsText`] of a JS string, copied into `buffer` as UTF-8 when it is well-formed, else read again as UTF-16.
unsafe fn read_js_text(
  env: sys::napi_env,
  value: sys::napi_value,
  buffer: Vec<u8>,
) -> Result<JsText> {
  let bytes = unsafe { copy_utf8(env, value, buffer) }?;
  // SAFETY: V8 wrote UTF-8.
  let text = unsafe { String::from_utf8_unchecked(bytes) };
  // V8 writes each lone surrogate as U+FFFD: only a text holding one (rare) is read again, to tell them apart.
  if memchr::memmem::find(text.as_bytes(), "\u{FFFD}".as_bytes()).is_none() {
    return Ok(JsText::Utf8(text));
  }
  let mut units = Vec::new();
  unsafe { copy_units(env, value, &mut units) }?;
  Ok(if has_lone_surrogate(&units) {
    JsText::Utf16(units)
  } else {
    JsText::Utf8(text)
  })
}

/// A JS string parameter read in the call's body rather than before it, so that the copy can go into a buffer
/// the call is given ([`LazyJsText::read`]). Only valid during the native call that received it (not `Send`).
pub struct LazyJsText {
  env: sys::napi_env,
  value: sys::napi_value,
}

impl FromNapiValue for LazyJsText {
  unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
    Ok(LazyJsText { env, value })
  }
}

impl LazyJsText {
  /// The string, copied into `buffer` (an empty one allocates as needed).
  pub fn read(self, buffer: Vec<u8>) -> Result<JsText> {
    // SAFETY: `env` and `value` came from the napi call this parameter belongs to, which is still running.
    unsafe { read_js_text(self.env, self.value, buffer) }
  }

  /// The string's UTF-16 units, copied into `buffer` (emptied first): no transcoding, so lone surrogates stay.
  pub fn read_units(&self, buffer: &mut Vec<u16>) -> Result<()> {
    // SAFETY: as in `read`.
    unsafe { copy_units(self.env, self.value, buffer) }
  }
}

/// Copies a JS string's UTF-16 units into `buffer` (emptied first; grown when it has less room than the string).
unsafe fn copy_units(
  env: sys::napi_env,
  value: sys::napi_value,
  buffer: &mut Vec<u16>,
) -> Result<()> {
  let len = unsafe { utf16_len(env, value) }?;
  buffer.clear();
  buffer.reserve(len + 1);
  let mut written = 0;
  check_status!(
    // SAFETY: the buffer has room for `len` units and the NUL V8 writes.
    unsafe {
      sys::napi_get_value_string_utf16(env, value, buffer.as_mut_ptr(), len + 1, &mut written)
    },
    "Expected a string"
  )?;
  // SAFETY: V8 initialized the first `written` units (at most `len`).
  unsafe { buffer.set_len(written.min(len)) };
  Ok(())
}
