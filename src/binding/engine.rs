//! The hosts' engine: "fit this CallToolResult for this owner" and "answer this result_query for this owner".
//!
//! Both hosts (FrontMCP plugin, MCP SDK adapter) call only these. A fit is two steps because the host runs its own
//! checks in between (`foldPolicy`, output-schema admission): [`ResultHandlesEngine::prepare`] inspects and folds
//! (CPU, off the JS thread) and returns a [`FitPlan`] that keeps the answer on the Rust side;
//! [`ResultHandlesEngine::commit`] seals and stores it (with its path index) for the owner and returns the folded
//! CallToolResult. [`ResultHandlesEngine::query`] reads the record (or, for a window of a large list, the index and
//! one byte range) and runs the query in one native call, so the kept answer never crosses into JS.

use std::borrow::Cow;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{ObjectFinalize, PromiseRaw};
use napi::{Env, Result};
use napi_derive::napi;

use super::error::{run_async, run_blocking, run_sync};
use super::store::NativeHandleStore;
use super::text::JsText;
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::fit::{self, Answer, Envelope, FoldFacts, SeparateAnswer, Verdict};
use crate::core::fold::{
  fold_answer, folded_json, structured_json_of_utf16, text_answer_json_of_utf16, AnswerSource,
  FoldOutcome, FoldSettings,
};
use crate::core::options::{
  problems_message, validate_options, HandleReferenceLimits, HandleReferences,
};
use crate::core::query::index::{
  build_index, build_index_of_raw_value, query_stored, IndexSettings,
};
use crate::core::query::parse_query_args;
use crate::core::references::guide_sentence;
use crate::core::store::{HandleStore, Owner, SealedAnswer};

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
  envelope: Envelope,
  /// What `commit` keeps; taken by the first commit.
  payload: Mutex<Option<Payload>>,
}

/// The kept answer of a plan: sealed already when `prepare` knew the owner, else its canonical JSON.
struct Payload {
  record: Record,
  /// The answer's path index, when it is large enough to have one (see `core::query::index`).
  index: Option<Vec<u8>>,
}

enum Record {
  Plain(String),
  Sealed(Owner, SealedAnswer),
}

impl Payload {
  fn bytes_held(&self) -> usize {
    let record = match &self.record {
      Record::Plain(json) => json.len(),
      Record::Sealed(_, sealed) => sealed.len(),
    };
    record + self.index.as_ref().map_or(0, Vec::len)
  }
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
}

/// The native engine of one plugin/adapter instance: resolved options and the store.
#[napi]
pub struct ResultHandlesEngine {
  pub(super) core: Arc<EngineCore>,
}

/// What `prepare` decided about one CallToolResult.
#[napi(custom_finalize)]
pub struct FitPlan {
  kind: &'static str,
  reason: Option<&'static str>,
  bytes: Option<u64>,
  answer_kind: Option<&'static str>,
  data: Option<Arc<PlanData>>,
  /// Bytes reported to V8 as held by this plan (`adjust_external_memory`), given back when the kept answer is
  /// stored or the plan is collected.
  external: Arc<AtomicI64>,
}

impl ObjectFinalize for FitPlan {
  fn finalize(self, env: Env) -> Result<()> {
    release_external(&env, &self.external);
    Ok(())
  }
}

/// Gives back to V8 what a plan reported holding (once).
fn release_external(env: &Env, external: &AtomicI64) {
  let held = external.swap(0, Ordering::AcqRel);
  if held != 0 {
    let _ = env.adjust_external_memory(-held);
  }
}

/// Tells V8 a plan holds its kept answer natively, so a burst of large folds makes it collect sooner.
fn report_external(env: &Env, plan: FitPlan) -> Result<FitPlan> {
  let held = plan
    .data
    .as_ref()
    .and_then(|data| data.payload.lock().ok()?.as_ref().map(Payload::bytes_held))
    .unwrap_or(0);
  let held = i64::try_from(held).unwrap_or(i64::MAX);
  if held > 0 && env.adjust_external_memory(held).is_ok() {
    plan.external.store(held, Ordering::Release);
  }
  Ok(plan)
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
    external: Arc::default(),
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
  match answer {
    Answer::Structured(json) => fold_plan(
      &settings,
      Kept::Json(Cow::Borrowed(json)),
      AnswerKind::Structured,
      inspection.envelope,
      None,
    ),
    Answer::Text(text) => fold_plan(
      &settings,
      Kept::Text(&text),
      AnswerKind::Text,
      inspection.envelope,
      None,
    ),
  }
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
  let text = match &parts.text {
    None => None,
    Some(JsText::Utf8(text)) => Some(text.as_str()),
    // Its canonical form is the answer (then the text repeats it) or it says something else (the empty text,
    // which repeats nothing).
    Some(JsText::Utf16(units)) => Some(
      if structured_json_of_utf16(units).as_deref() == Some(answer.as_str()) {
        answer.as_str()
      } else {
        ""
      },
    ),
  };
  let separate = match kind {
    PartsKind::Structured => SeparateAnswer::Structured {
      json: &answer,
      text,
    },
    PartsKind::Text => SeparateAnswer::Text(&answer),
    PartsKind::CanonicalText => SeparateAnswer::Structured {
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
      );
    }
  };
  fold_plan(&settings, kept, kind, envelope, sealer)
}

/// The answer to fold and keep.
enum Kept<'a> {
  /// Canonical JSON already (`JSON.stringify` output): measured, folded, indexed and sealed as it is.
  Json(Cow<'a, str>),
  /// A tool's text: the fold decides whether it holds JSON and writes its canonical form.
  Text(&'a str),
}

/// Whether the answer came from structuredContent or a text (a text's kind then follows its shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnswerKind {
  Structured,
  Text,
}

/// Who a plan's answer is sealed for (the fast path knows the owner at `prepare`).
struct Sealer<'a> {
  store: &'a HandleStore,
  owner: Owner,
}

impl<'a> Sealer<'a> {
  /// The parts' owner, when they name one.
  fn of(store: &'a HandleStore, parts: &AnswerParts) -> Option<Self> {
    (parts.session.is_some() || parts.subject.is_some()).then(|| Sealer {
      store,
      owner: Owner::new(parts.session.clone(), parts.subject.clone()),
    })
  }
}

/// Runs `main` while the path index of `json` is built on a second thread: both read the same bytes and neither
/// depends on the other. Small answers run one after the other (a thread costs more than it saves). When no thread
/// can be started the index is built here afterwards; a panic in the builder (none is known) only loses the index
/// (queries then read the whole answer).
fn beside_index<T: Send>(
  json: &str,
  main: impl FnOnce() -> T + Send,
  grammar_checked: bool,
) -> (T, Option<Vec<u8>>) {
  let build = || {
    if grammar_checked {
      build_index_of_raw_value(json, IndexSettings::DEFAULT)
    } else {
      build_index(json, IndexSettings::DEFAULT)
    }
  };
  if json.len() <= PARALLEL_INDEX_BYTES {
    return (main(), build());
  }
  std::thread::scope(|scope| {
    let index = std::thread::Builder::new().spawn_scoped(scope, build);
    let out = main();
    let index = match index {
      Ok(index) => index.join().ok().flatten(),
      Err(_) => build(),
    };
    (out, index)
  })
}

fn fold_plan(
  settings: &FoldSettings,
  kept: Kept<'_>,
  kind: AnswerKind,
  envelope: Envelope,
  sealer: Option<Sealer<'_>>,
) -> CoreResult<FitPlan> {
  let (folded, canonical, index) = match kept {
    // Structured answers over the threshold fold: fold and index at once.
    Kept::Json(json) if json.len() > settings.threshold_bytes => {
      let (folded, index) = beside_index(
        &json,
        || fold_answer(AnswerSource::Json(&json), settings),
        true,
      );
      (folded?, json, index)
    }
    Kept::Json(json) => (
      fold_answer(AnswerSource::Json(&json), settings)?,
      json,
      None,
    ),
    // A text's canonical form comes out of its fold; the index reads that.
    Kept::Text(text) => match fold_answer(AnswerSource::Text(text), settings)? {
      FoldOutcome::Folded(mut folded) => {
        let canonical = folded
          .canonical_json
          .take()
          .unwrap_or_else(|| text.to_string());
        let ((), index) = beside_index(&canonical, || (), false);
        (FoldOutcome::Folded(folded), Cow::Owned(canonical), index)
      }
      whole => (whole, Cow::Borrowed(text), None),
    },
  };
  let folded = match folded {
    FoldOutcome::Whole { bytes } => return Ok(pass("under-threshold", Some(bytes as u64))),
    FoldOutcome::Folded(folded) if fit::too_deep_to_query(&folded) => {
      let reason = fit::PassReason::TooDeepToQuery.as_str();
      return Ok(pass(reason, Some(folded.bytes as u64)));
    }
    FoldOutcome::Folded(folded) => folded,
  };
  let answer_kind = match kind {
    AnswerKind::Structured => "structured",
    AnswerKind::Text if folded.shape_json.starts_with(r#"{"type":"string""#) => "text",
    AnswerKind::Text => "json-text",
  };
  let handle = HandleStore::new_handle();
  // Sealed now, over the answer's own buffer, when the owner is known: the plan then holds one copy of the
  // answer (the record) instead of two.
  let record = match sealer {
    Some(sealer) => {
      let sealed =
        sealer
          .store
          .seal_answer(&handle, canonical.into_owned().into_bytes(), &sealer.owner)?;
      Record::Sealed(sealer.owner, sealed)
    }
    None => Record::Plain(canonical.into_owned()),
  };
  let data = PlanData {
    folded_json: folded_json(&folded.preview_json, &folded.shape_json, &handle),
    handle,
    bytes: folded.bytes as u64,
    shape_json: folded.shape_json,
    envelope,
    payload: Mutex::new(Some(Payload { record, index })),
  };
  Ok(FitPlan {
    kind: "fold",
    reason: None,
    bytes: Some(data.bytes),
    answer_kind: Some(answer_kind),
    data: Some(Arc::new(data)),
    external: Arc::default(),
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
      report_external,
    )
  }

  /// `prepare` for a CallToolResult the host split, so that the text repeating structuredContent never crosses:
  /// `answer` is `JSON.stringify(structuredContent)` (`parts.kind` `'structured'`; `parts.text` the only text
  /// block when it is not `===` to it), or the only text (`'text'`); a text holding a raw lone surrogate crosses
  /// as UTF-16 and is read here as JS reads it. `parts.envelopeJson` is the result without `content` and `structuredContent`. With a
  /// session or subject the answer is sealed for that owner beside the fold (commit with the same owner). Runs
  /// off the JS thread.
  #[napi(ts_return_type = "Promise<FitPlan>")]
  pub fn prepare_answer<'env>(
    &self,
    env: &'env Env,
    #[napi(ts_arg_type = "string")] answer: JsText,
    parts: AnswerParts,
  ) -> Result<PromiseRaw<'env, FitPlan>> {
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

  /// `prepareAnswer` on the JS thread (for answers of at most a threshold's length: a hop to the thread pool
  /// costs more than reading them).
  #[napi]
  pub fn prepare_answer_sync(
    &self,
    env: Env,
    #[napi(ts_arg_type = "string")] answer: JsText,
    parts: AnswerParts,
  ) -> Result<FitPlan> {
    let core = &self.core;
    let plan = run_sync(&env, || {
      prepare_parts_plan(
        core.settings,
        answer,
        &parts,
        Sealer::of(&core.store, &parts),
      )
    })?;
    report_external(&env, plan)
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
            Some(index) => store.save_index(&data.handle, index, &owner).await,
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
        super::memory::release_free_memory();
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
