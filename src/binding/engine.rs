//! The hosts' engine: "fit this CallToolResult for this owner" and "answer this result_query for this owner".
//!
//! Both hosts (FrontMCP plugin, MCP SDK adapter) call only these. A fit is two steps because the host runs its own
//! checks in between (`foldPolicy`, output-schema admission): [`ResultHandlesEngine::prepare`] inspects and folds
//! (CPU, off the JS thread) and returns a [`FitPlan`] that keeps the answer on the Rust side;
//! [`ResultHandlesEngine::commit`] seals and stores it (with its path index) for the owner and returns the folded
//! CallToolResult. [`ResultHandlesEngine::query`] reads the record (or, for a window of a large list, the index and
//! one byte range) and runs the query in one native call, so the kept answer never crosses into JS.

use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::{Env, Result};
use napi_derive::napi;

use super::error::{run_async, run_blocking, run_sync};
use super::store::NativeHandleStore;
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::fit::{self, Answer, Envelope, FoldFacts, Verdict};
use crate::core::fold::{fold_answer, folded_json, AnswerSource, FoldOutcome, FoldSettings};
use crate::core::options::{
  problems_message, validate_options, HandleReferenceLimits, HandleReferences,
};
use crate::core::query::index::{
  build_index, build_index_of_raw_value, query_stored, IndexSettings,
};
use crate::core::query::parse_query_args;
use crate::core::references::guide_sentence;
use crate::core::store::{HandleStore, Owner};

/// Answers larger than this are indexed on a second thread while they fold (below it a thread costs more than
/// it saves).
const PARALLEL_INDEX_BYTES: usize = 256 * 1024;

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

/// A folded answer waiting for `commit`: everything stays native.
struct PlanData {
  handle: String,
  bytes: u64,
  folded_json: String,
  shape_json: String,
  canonical_json: String,
  /// The answer's path index, when it is large enough to have one (see `core::query::index`).
  index: Option<Vec<u8>>,
  envelope: Envelope,
}

/// The native engine of one plugin/adapter instance: resolved options and the store.
#[napi]
pub struct ResultHandlesEngine {
  pub(super) core: Arc<EngineCore>,
}

/// What `prepare` decided about one CallToolResult.
#[napi]
pub struct FitPlan {
  kind: &'static str,
  reason: Option<&'static str>,
  bytes: Option<u64>,
  answer_kind: Option<&'static str>,
  data: Option<Arc<PlanData>>,
}

fn settings_of(options_json: &str) -> CoreResult<(FoldSettings, ReferenceSettings)> {
  let value: serde_json::Value = serde_json::from_str(options_json).map_err(|_| {
    CoreError::new(
      ErrorCode::Configuration,
      "Invalid result-handles options: not JSON.",
    )
    .with_remedy("Pass the options through normalizeOptions().")
  })?;
  let resolved = validate_options(&value)
    .map_err(|problems| CoreError::new(ErrorCode::Configuration, problems_message(&problems)))?;
  let fold = FoldSettings {
    threshold_bytes: usize::try_from(resolved.threshold_bytes).unwrap_or(usize::MAX),
    preview_items: usize::try_from(resolved.preview.items).unwrap_or(usize::MAX),
    preview_chars: usize::try_from(resolved.preview.chars).unwrap_or(usize::MAX),
  };
  let references = ReferenceSettings {
    tools: resolved.handle_references,
    limits: resolved.handle_reference_limits,
  };
  Ok((fold, references))
}

fn pass(reason: &'static str, bytes: Option<u64>) -> FitPlan {
  FitPlan {
    kind: "pass",
    reason: Some(reason),
    bytes,
    answer_kind: None,
    data: None,
  }
}

/// Inspects and folds one CallToolResult (JSON text). Pure CPU: runs on the blocking pool or synchronously.
fn prepare_plan(
  settings: FoldSettings,
  result_json: &str,
  tool_meta_json: Option<&str>,
) -> CoreResult<FitPlan> {
  let inspection = fit::inspect(result_json, tool_meta_json);
  let answer = match inspection.verdict {
    Verdict::Pass(reason) => return Ok(pass(reason.as_str(), None)),
    Verdict::Candidate(answer) => answer,
  };
  let (source, structured) = match &answer {
    Answer::Structured(json) => (AnswerSource::Json(json), true),
    Answer::Text(text) => (AnswerSource::Text(text), false),
  };
  // A large structuredContent slice (checked by serde_json when `inspect` read it, so its index needs no second
  // grammar check) is indexed on a second thread while the fold reads it; the plan is the same either way.
  let (folded, index) = match &answer {
    Answer::Structured(json) if json.len() > settings.threshold_bytes.max(PARALLEL_INDEX_BYTES) => {
      std::thread::scope(|scope| {
        let index = std::thread::Builder::new().spawn_scoped(scope, || {
          build_index_of_raw_value(json, IndexSettings::DEFAULT)
        });
        let folded = fold_answer(source, &settings);
        // No thread to be had: build it here, after the fold. A panic in the builder (none is known) only loses
        // the index: queries then read the whole answer.
        let index = match index {
          Ok(index) => index.join().ok().flatten(),
          Err(_) => build_index_of_raw_value(json, IndexSettings::DEFAULT),
        };
        (folded, Some(index))
      })
    }
    _ => (fold_answer(source, &settings), None),
  };
  let folded = match folded? {
    FoldOutcome::Whole { bytes } => return Ok(pass("under-threshold", Some(bytes as u64))),
    FoldOutcome::Folded(folded) if fit::too_deep_to_query(&folded) => {
      let reason = fit::PassReason::TooDeepToQuery.as_str();
      return Ok(pass(reason, Some(folded.bytes as u64)));
    }
    FoldOutcome::Folded(folded) => folded,
  };
  let answer_kind = if structured {
    "structured"
  } else if folded.shape_json.starts_with(r#"{"type":"string""#) {
    "text"
  } else {
    "json-text"
  };
  let canonical_json = match (folded.canonical_json, &answer) {
    (Some(canonical), _) => canonical,
    (None, Answer::Structured(json)) => (*json).to_string(),
    (None, Answer::Text(text)) => text.to_string(),
  };
  let handle = HandleStore::new_handle();
  let index = match index {
    Some(index) => index,
    None if structured => build_index_of_raw_value(&canonical_json, IndexSettings::DEFAULT),
    None => build_index(&canonical_json, IndexSettings::DEFAULT),
  };
  let data = PlanData {
    index,
    folded_json: folded_json(&folded.preview_json, &folded.shape_json, &handle),
    handle,
    bytes: folded.bytes as u64,
    shape_json: folded.shape_json,
    canonical_json,
    envelope: inspection.envelope,
  };
  Ok(FitPlan {
    kind: "fold",
    reason: None,
    bytes: Some(data.bytes),
    answer_kind: Some(answer_kind),
    data: Some(Arc::new(data)),
  })
}

#[napi]
impl ResultHandlesEngine {
  /// An engine over `store` with the options in `optionsJson` (the JSON `normalizeOptions` produces; checked
  /// again here). Throws `RESULT_HANDLES_CONFIGURATION` naming every problem.
  #[napi(factory)]
  pub fn create(env: Env, options_json: String, store: &NativeHandleStore) -> Result<Self> {
    let store = store.handle_store();
    run_sync(&env, || {
      let (settings, references) = settings_of(&options_json)?;
      Ok(ResultHandlesEngine {
        core: Arc::new(EngineCore {
          settings,
          store,
          references,
        }),
      })
    })
  }

  /// Answers above this many bytes fold.
  #[napi(getter)]
  pub fn threshold_bytes(&self) -> f64 {
    self.core.settings.threshold_bytes as f64
  }

  /// How long a kept answer lives, in seconds (the store's TTL).
  #[napi(getter)]
  pub fn ttl_seconds(&self) -> f64 {
    self.core.store.ttl_seconds() as f64
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
      |_, plan| Ok(plan),
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
    run_sync(&env, || {
      prepare_plan(settings, &result_json, tool_meta_json.as_deref())
    })
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
    let references = self.core.references.tools.clone();
    run_async(
      env,
      async move {
        let data = data.ok_or_else(|| {
          CoreError::new(ErrorCode::InvalidInput, "This plan does not fold.")
            .with_remedy("Commit only plans whose kind is 'fold'.")
        })?;
        let owner = Owner::new(session, subject);
        let record = store.save(
          &data.handle,
          data.canonical_json.as_bytes().to_vec(),
          &owner,
        );
        let index = async {
          match &data.index {
            Some(index) => store.save_index(&data.handle, index.clone(), &owner).await,
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
      |_, folded| Ok(folded),
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
    run_async(
      env,
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
      async move {
        store.close().await;
        Ok(())
      },
      |_, ()| Ok(()),
    )
  }
}

#[napi]
impl FitPlan {
  /// `'fold'`: a candidate over the threshold, ready to commit; `'pass'`: send the answer untouched.
  #[napi(getter)]
  pub fn kind(&self) -> &'static str {
    self.kind
  }

  /// Why it passes: `not-a-call-tool-result`, `is-error`, `already-folded`, `ui-answer`, `non-text-content`,
  /// `several-texts`, `text-differs`, `no-answer`, `under-threshold` or `too-deep-to-query`.
  #[napi(getter)]
  pub fn reason(&self) -> Option<&'static str> {
    self.reason
  }

  /// The answer's size in bytes (`Buffer.byteLength(JSON.stringify(answer))`), when measured.
  #[napi(getter)]
  pub fn bytes(&self) -> Option<f64> {
    self.bytes.map(|bytes| bytes as f64)
  }

  /// `'structured'` (structuredContent), `'json-text'` (a text holding JSON) or `'text'`, when folding.
  #[napi(getter)]
  pub fn answer_kind(&self) -> Option<&'static str> {
    self.answer_kind
  }

  /// `{"preview":…,"shape":…,"handle":…}`, when folding.
  #[napi(getter)]
  pub fn folded_json(&self) -> Option<String> {
    self.data.as_ref().map(|data| data.folded_json.clone())
  }

  /// The handle the answer will be kept under, when folding.
  #[napi(getter)]
  pub fn handle(&self) -> Option<String> {
    self.data.as_ref().map(|data| data.handle.clone())
  }
}
