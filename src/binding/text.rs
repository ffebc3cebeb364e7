//! A large JS string copied into Rust once, as cheaply as Node-API allows.
//!
//! napi-rs's `String` asks V8 for the UTF-8 length first (a pass over the whole string) and then writes into a zeroed
//! buffer (every page touched twice). An answer's JSON can be tens of megabytes and this copy runs on the JS thread,
//! so [`JsonText`] sizes its buffer from the UTF-16 length instead (no pass: at most 3 UTF-8 bytes per unit) and lets
//! V8 write into it uninitialized; pages never written are never touched, so they cost address space, not memory.

use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, TypeName, ValidateNapiValue};
use napi::{check_status, sys, Result, ValueType};

/// A JS string's text, for a parameter that may be large.
pub struct JsonText(pub String);

impl TypeName for JsonText {
  fn type_name() -> &'static str {
    "String"
  }

  fn value_type() -> ValueType {
    ValueType::String
  }
}

impl ValidateNapiValue for JsonText {}

impl FromNapiValue for JsonText {
  unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
    let mut units = 0;
    // Without a buffer this only reads the length in UTF-16 units.
    check_status!(
      unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut units) },
      "Expected a string"
    )?;
    // Room for the terminating NUL V8 writes.
    let capacity = units.saturating_mul(3).saturating_add(1);
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
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
    // SAFETY: V8 initialized the first `written` bytes (`written` < capacity), with UTF-8 (lone surrogates are
    // written as U+FFFD).
    unsafe { bytes.set_len(written.min(capacity)) };
    // Keep room for what sealing adds in place (a header and a tag per 64 KiB chunk), and give back the rest.
    bytes.shrink_to(bytes.len() + bytes.len() / 2048 + 64);
    Ok(JsonText(unsafe { String::from_utf8_unchecked(bytes) }))
  }
}
