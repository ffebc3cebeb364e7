//! Cheap checks a host makes before `prepare`, so that an answer that cannot fold costs no more than a scan.

use napi::{Env, Result};
use napi_derive::napi;

use super::engine::ResultHandlesEngine;
use super::error::run_sync;
use super::text::JsText;
use crate::core::fold::{text_answer_json_of_utf16, text_size_bound};

#[napi]
impl ResultHandlesEngine {
  /// Whether a text answer (a CallToolResult whose only content is this text) is certainly no larger than
  /// `thresholdBytes`, from one scan that writes nothing (see `core::fold::text_size_bound`); `false` means only
  /// that `prepare` must decide. On the JS thread: pass texts of at most a threshold's length.
  #[napi]
  pub fn text_certainly_under_threshold(
    &self,
    env: Env,
    #[napi(ts_arg_type = "string")] text: JsText,
  ) -> Result<bool> {
    let threshold = self.threshold_bytes() as usize;
    run_sync(&env, || {
      Ok(match &text {
        JsText::Utf8(text) => text_size_bound(text) <= threshold,
        JsText::Utf16(units) => text_answer_json_of_utf16(units).len() <= threshold,
      })
    })
  }
}
