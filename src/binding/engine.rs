//! The hosts' engine: "fit this CallToolResult for this owner" and "answer this result_query for this owner".
//!
//! Both hosts (FrontMCP plugin, MCP SDK adapter) call only these. A fit is two steps because the host runs its own
//! checks in between (`foldPolicy`, output-schema admission): [`ResultHandlesEngine::prepare`] inspects and folds
//! (CPU, off the JS thread) and returns a [`FitPlan`] that keeps the answer on the Rust side;
//! [`ResultHandlesEngine::commit`] seals and stores it (with its path index) for the owner and returns the folded
//! CallToolResult. [`ResultHandlesEngine::query`] reads the record (or, for a window of a large list, the index and
//! one byte range) and runs the query in one native call, so the kept answer never crosses into JS.

use std::borrow::Cow;
use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::{Env, Result};
use napi_derive::napi;

mod plan;

use super::error::{run_async, run_blocking, run_sync, FirstPoll};
use super::options::NativeSettings;
use super::store::{health_of, watch, NativeHandleStore, StoreHealth, StoreWatcher};
use super::text::{utf8_room, JsText, LazyJsText};
use super::warm::AnswerBuffer;
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::fit::{self, FoldFacts, SeparateAnswer, Verdict};
use crate::core::fold::{structured_json_of_utf16, text_answer_json_of_utf16, FoldSettings};
use crate::core::options::{CheckedOptions, HandleReferenceLimits, HandleReferences};
use crate::core::query::index::query_stored;
use crate::core::query::parse_query_args;
use crate::core::references::guide_sentence;
use crate::core::store::{HandleStore, Owner};
use plan::*;

/// Answers larger than this are indexed on a second thread while they fold (below it a thread costs more than
/// it saves).
const PARALLEL_INDEX_BYTES: usize = 256 * 1024;

/// V8's longest string, in UTF-16 units (`String::kMaxLength` on 64-bit).
const MAX_STRING_UNITS: usize = (1 << 29) - 24;

pub(super) struct EngineCore {
  settings: FoldSettings,
  pub(super) store: Arc<HandleStore>,
  /// `handleReferences` and its limits (see `core::references`).
  pub(super) references: ReferenceSettings,
}

/// Which tools take handle references, and how much one call may resolve.
#[derive(Clone)]
pub(super) struct ReferenceSettings {
  pub(super) tools: HandleReferences,
  pub(super) limits: HandleReferenceLimits,
}

/// The rest of a CallToolResult a host split (see [`ResultHandlesEngine::prepare_answer`]).
#[napi(object, object_to_js = false)]
pub struct AnswerParts {
  /// The result without `content` and `structuredContent`, as JSON.
  pub envelope_json: String,
  /// `'structured'` or `'text'`.
  pub kind: String,
  /// With `'structured'`: the only text block, when it is not `===` to the answer (checked natively).
  #[napi(ts_type = "string")]
  pub text: Option<JsText>,
  /// The tool definition's `_meta`, as JSON.
  pub tool_meta_json: Option<String>,
  /// The caller's session, to seal the answer for while it folds.
  pub session: Option<String>,
  /// The caller's subject, to seal the answer for while it folds.
  pub subject: Option<String>,
  /// Fold on one native thread (the host is busy on the JS thread meanwhile and leaves the other core to it).
  pub one_thread: Option<bool>,
}

/// The native engine of one plugin/adapter instance: resolved options and the store.
#[napi]
pub struct ResultHandlesEngine {
  pub(super) core: Arc<EngineCore>,
}

/// The engine's share of the checked options.
fn settings_of(options: &CheckedOptions) -> (FoldSettings, ReferenceSettings) {
  let resolved = &options.resolved;
  let fold = FoldSettings {
    threshold_bytes: usize::try_from(resolved.threshold_bytes).unwrap_or(usize::MAX),
    preview_items: usize::try_from(resolved.preview.items).unwrap_or(usize::MAX),
    preview_chars: usize::try_from(resolved.preview.chars).unwrap_or(usize::MAX),
  };
  let references = ReferenceSettings {
    tools: resolved.handle_references.clone(),
    limits: resolved.handle_reference_limits,
  };
  (fold, references)
}

/// How the host handed the answer of a split CallToolResult (`prepareAnswer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartsKind {
  /// `JSON.stringify(structuredContent)`.
  Structured,
  /// The only text block, as the tool wrote it.
  Text,
  /// The only text block, made canonical (`JSON.stringify(JSON.parse(text))` for a JSON text, `JSON.stringify(text)`
  /// for any other): what a text with a raw lone surrogate is folded as, since UTF-8 cannot carry it.
  CanonicalText,
}

impl PartsKind {
  fn parse(kind: &str) -> CoreResult<Self> {
    match kind {
      "structured" => Ok(PartsKind::Structured),
      "text" => Ok(PartsKind::Text),
      _ => Err(
        CoreError::new(ErrorCode::InvalidInput, "Unknown answer kind.")
          .with_remedy("Pass 'structured' or 'text'."),
      ),
    }
  }
}

/// [`prepare_plan`] for a CallToolResult the host split (see `fit::inspect_parts`); with an owner, the answer is
/// sealed as soon as it is folded and indexed.
fn prepare_parts_plan(
  settings: FoldSettings,
  answer: JsText,
  parts: &AnswerParts,
  sealer: Option<Sealer<'_>>,
) -> CoreResult<FitPlan> {
  let mut kind = PartsKind::parse(&parts.kind)?;
  let answer = match answer {
    JsText::Utf8(answer) => answer,
    JsText::Utf16(units) if kind == PartsKind::Text => {
      kind = PartsKind::CanonicalText;
      text_answer_json_of_utf16(&units)
    }
    JsText::Utf16(_) => {
      return Err(
        CoreError::new(
          ErrorCode::InvalidInput,
          "structuredContent's JSON holds a lone surrogate.",
        )
        .with_remedy("Pass JSON.stringify(structuredContent), which escapes them."),
      )
    }
  };
  let separate = match (kind, &parts.text) {
    (PartsKind::Structured, None) => SeparateAnswer::Structured {
      json: &answer,
      text: None,
    },
    (PartsKind::Structured, Some(JsText::Utf8(text))) => SeparateAnswer::Structured {
      json: &answer,
      text: Some(text),
    },
    // A text holding a lone surrogate repeats structuredContent when its canonical form is the answer.
    (PartsKind::Structured, Some(JsText::Utf16(units))) => {
      if structured_json_of_utf16(units).as_deref() == Some(answer.as_str()) {
        SeparateAnswer::Structured {
          json: &answer,
          text: None,
        }
      } else {
        SeparateAnswer::StructuredBesideOtherText(&answer)
      }
    }
    (PartsKind::Text, _) => SeparateAnswer::Text(&answer),
    (PartsKind::CanonicalText, _) => SeparateAnswer::Structured {
      json: &answer,
      text: None,
    },
  };
  let inspection = fit::inspect_parts(
    &parts.envelope_json,
    separate,
    parts.tool_meta_json.as_deref(),
  );
  if let Verdict::Pass(reason) = inspection.verdict {
    return Ok(pass(reason.as_str(), None));
  }
  let envelope = inspection.envelope;
  let threads = if parts.one_thread == Some(true) {
    Threads::One
  } else {
    Threads::Two
  };
  let (kept, kind) = match kind {
    PartsKind::Structured => (Kept::Json(Cow::Owned(answer)), AnswerKind::Structured),
    PartsKind::CanonicalText => (Kept::Json(Cow::Owned(answer)), AnswerKind::Text),
    PartsKind::Text => {
      return fold_plan(
        &settings,
        Kept::Text(&answer),
        AnswerKind::Text,
        envelope,
        sealer,
        threads,
      );
    }
  };
  fold_plan(&settings, kept, kind, envelope, sealer, threads)
}

#[napi]
impl ResultHandlesEngine {
  /// An engine over `store` with the options `checkOptions` checked (nothing is checked again). Throws
  /// `RESULT_HANDLES_CONFIGURATION` when given store settings instead of the plugin's options.
  #[napi(factory)]
  pub fn create(env: Env, options: &NativeSettings, store: &NativeHandleStore) -> Result<Self> {
    let store = store.handle_store();
    run_sync(&env, || {
      let checked = options.options.as_ref().ok_or_else(|| {
        CoreError::new(
          ErrorCode::Configuration,
          "The engine needs the plugin's options (checkOptions), not store settings.",
        )
      })?;
      let (settings, references) = settings_of(checked);
      Ok(ResultHandlesEngine {
        core: Arc::new(EngineCore {
          settings,
          store,
          references,
        }),
      })
    })
  }

  /// Whether the store answers now, and its outages since it opened.
  #[napi]
  pub fn store_health(&self) -> StoreHealth {
    health_of(&self.core.store)
  }

  /// Calls `watcher` on the JS thread when a store outage starts and when it ends, also when a background probe
  /// finds the store back and no call comes; it does not keep the process alive.
  #[napi(ts_args_type = "watcher: (event: StoreEvent) => void")]
  pub fn watch_store(&self, watcher: StoreWatcher) {
    watch(&self.core.store, watcher);
  }

  /// Inspects a CallToolResult (`JSON.stringify` output) and folds its answer when it is a candidate over the
  /// threshold; `toolMetaJson` is the tool definition's `_meta` (UI tools pass). Runs off the JS thread.
  #[napi(ts_return_type = "Promise<FitPlan>")]
  pub fn prepare<'env>(
    &self,
    env: &'env Env,
    result_json: String,
    tool_meta_json: Option<String>,
  ) -> Result<PromiseRaw<'env, FitPlan>> {
    let settings = self.core.settings;
    run_blocking(
      env,
      move || prepare_plan(settings, &result_json, tool_meta_json.as_deref()),
      report_external,
    )
  }

  /// Reserves the buffer an answer of `units` UTF-16 units will be copied into by `prepareAnswer`, and starts
  /// touching its pages on another thread (see `warm.rs`): call it as soon as the answer's length is known, then
  /// do the JS thread's other steps, then pass it to `prepareAnswer`.
  #[napi]
  pub fn reserve_answer(&self, units: u32) -> AnswerBuffer {
    // No JS string is longer than V8's limit (2^29 - 24 units): a larger number is not a length.
    let units = (units as usize).min(MAX_STRING_UNITS);
    // Room for the worst case; only pages written are ever resident, and the pages an ASCII answer fills are the
    // ones touched.
    AnswerBuffer::reserve(utf8_room(units), units)
  }

  /// `prepare` for a CallToolResult the host split, so that the text repeating structuredContent never crosses:
  /// `answer` is `JSON.stringify(structuredContent)` (`parts.kind` `'structured'`; `parts.text` the only text
  /// block when it is not `===` to it), or the only text (`'text'`); a text holding a raw lone surrogate crosses
  /// as UTF-16 and is read here as JS reads it. `parts.envelopeJson` is the result without `content` and
  /// `structuredContent`. With a session or subject the answer is sealed for that owner beside the fold (commit
  /// with the same owner). `buffer` (from `reserveAnswer`) is where the answer is copied. Runs off the JS thread.
  #[napi(ts_return_type = "Promise<FitPlan>")]
  pub fn prepare_answer<'env>(
    &self,
    env: &'env Env,
    #[napi(ts_arg_type = "string")] answer: LazyJsText,
    parts: AnswerParts,
    buffer: Option<&AnswerBuffer>,
  ) -> Result<PromiseRaw<'env, FitPlan>> {
    let answer = answer.read(buffer.and_then(AnswerBuffer::take).unwrap_or_default())?;
    let core = Arc::clone(&self.core);
    run_blocking(
      env,
      move || {
        let sealer = Sealer::of(&core.store, &parts);
        prepare_parts_plan(core.settings, answer, &parts, sealer)
      },
      report_external,
    )
  }

  /// `prepare` on the JS thread.
  #[napi]
  pub fn prepare_sync(
    &self,
    env: Env,
    result_json: String,
    tool_meta_json: Option<String>,
  ) -> Result<FitPlan> {
    let settings = self.core.settings;
    let plan = run_sync(&env, || {
      prepare_plan(settings, &result_json, tool_meta_json.as_deref())
    })?;
    report_external(&env, plan)
  }

  /// Seals and keeps a folded plan's answer for the owner, then resolves with the folded CallToolResult (JSON).
  /// Rejects with `RESULT_STORE_UNAVAILABLE` / `RESULT_STORE_WRITE_FAILED` when the store cannot keep it.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn commit<'env>(
    &self,
    env: &'env Env,
    plan: &FitPlan,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, String>> {
    let data = plan.data.clone();
    let store = Arc::clone(&self.core.store);
    let external = Arc::clone(&plan.external);
    let references = self.core.references.tools.clone();
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move {
        let data = data.ok_or_else(|| {
          CoreError::new(ErrorCode::InvalidInput, "This plan does not fold.")
            .with_remedy("Commit only plans whose kind is 'fold'.")
        })?;
        let payload = data
          .payload
          .lock()
          .ok()
          .and_then(|mut payload| payload.take())
          .ok_or_else(|| {
            CoreError::new(ErrorCode::InvalidInput, "This plan was committed already.")
              .with_remedy("Prepare the answer again to keep it again.")
          })?;
        let owner = Owner::new(session, subject);
        let record = async {
          match payload.record {
            Record::Plain(json) => store.save(&data.handle, json.into_bytes(), &owner).await,
            Record::Sealed(sealed_for, sealed) if sealed_for == owner => {
              store.keep_sealed(sealed).await
            }
            Record::Sealed(..) => Err(
              CoreError::new(
                ErrorCode::InvalidInput,
                "This plan was sealed for another caller.",
              )
              .with_remedy("Commit with the session and subject given to prepareAnswer."),
            ),
          }
        };
        let index = async {
          match payload.index {
            Some(built) => {
              store
                .save_index_and_directories(&data.handle, built, &owner)
                .await
            }
            None => Ok(()),
          }
        };
        // The index only speeds reads up: when it cannot be kept, queries read the whole answer.
        let (record, _) = tokio::join!(record, index);
        record?;
        let references = guide_sentence(&references, &data.handle);
        let facts = FoldFacts {
          handle: &data.handle,
          bytes: data.bytes,
          ttl_seconds: store.ttl_seconds(),
          references: references.as_deref(),
        };
        Ok(fit::build_folded_result(
          &data.envelope,
          &data.folded_json,
          &data.shape_json,
          facts,
        ))
      },
      move |env, folded| {
        release_external(env, &external);
        Ok(folded)
      },
    )
  }

  /// Answers `result_query` for the owner: `argsJson` is the tool's arguments as JSON. A window of a large list
  /// is read through the answer's path index (the index and one byte range of the record); anything else reads
  /// the whole record. Runs natively; resolves with `{ path, value, total?, offset?, nextOffset? }` (JSON). Rejects with
  /// RESULT_HANDLE_NOT_FOUND, RESULT_PATH_NOT_FOUND, RESULT_SLICE_TOO_LARGE or INVALID_INPUT.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn query<'env>(
    &self,
    env: &'env Env,
    args_json: String,
    session: Option<String>,
    subject: Option<String>,
  ) -> Result<PromiseRaw<'env, String>> {
    let store = Arc::clone(&self.core.store);
    let threshold = self.core.settings.threshold_bytes;
    let short_args = args_json.len() <= super::error::QUERY_READ_HERE_BYTES;
    run_async(
      env,
      FirstPoll::here_if(short_args),
      async move {
        let value: serde_json::Value = serde_json::from_str(&args_json).map_err(|_| {
          CoreError::new(
            ErrorCode::InvalidInput,
            "result_query arguments must be a JSON object.",
          )
          .with_remedy("Pass { handle, path?, offset?, limit?, page?, fields? }.")
        })?;
        let args = parse_query_args(&value)?;
        let owner = Owner::new(session, subject);
        query_stored(&store, args, &owner, threshold).await
      },
      |_, answer| Ok(answer),
    )
  }

  /// Disconnects the store.
  #[napi(ts_return_type = "Promise<void>")]
  pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
    let store = Arc::clone(&self.core.store);
    run_async(
      env,
      FirstPoll::OnRuntime,
      async move {
        store.close().await;
        super::memory::release_free_memory();
        Ok(())
      },
      |_, ()| Ok(()),
    )
  }
}
