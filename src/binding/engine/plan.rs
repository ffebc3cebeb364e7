//! What `prepare` decides about one CallToolResult ([`FitPlan`]), and the fold that makes it: inspect the result,
//! fold the answer beside its path index, seal it when the owner is known, and hold it natively until `commit`
//! (reporting the bytes held to V8).

use std::borrow::Cow;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::ObjectFinalize;
use napi::{Env, Result};
use napi_derive::napi;

use super::{AnswerParts, PARALLEL_INDEX_BYTES};
use crate::core::error::CoreResult;
use crate::core::fit::{self, Answer, Envelope, Verdict};
use crate::core::fold::{fold_answer, folded_json, AnswerSource, FoldOutcome, FoldSettings};
use crate::core::query::index::{build_index_and_directories, BuiltIndex, IndexSettings};
use crate::core::store::{HandleStore, Owner, SealedAnswer};

/// A folded answer waiting for `commit`: everything stays native.
pub(super) struct PlanData {
  pub(super) handle: String,
  pub(super) bytes: u64,
  pub(super) folded_json: String,
  pub(super) shape_json: String,
  pub(super) envelope: Envelope,
  /// What `commit` keeps; taken by the first commit.
  pub(super) payload: Mutex<Option<Payload>>,
}

/// The kept answer of a plan: sealed already when `prepare` knew the owner, else its canonical JSON.
pub(super) struct Payload {
  pub(super) record: Record,
  /// The answer's path index and member directories, when it is large enough to have them (see
  /// `core::query::index`).
  pub(super) index: Option<BuiltIndex>,
}

pub(super) enum Record {
  Plain(String),
  Sealed(Owner, SealedAnswer),
}

impl Payload {
  fn bytes_held(&self) -> usize {
    let record = match &self.record {
      Record::Plain(json) => json.len(),
      Record::Sealed(_, sealed) => sealed.len(),
    };
    record
      + self.index.as_ref().map_or(0, |built| {
        built.index.len()
          + built
            .directories
            .iter()
            .map(|(_, d)| d.len())
            .sum::<usize>()
      })
  }
}

/// What `prepare` decided about one CallToolResult.
#[napi(custom_finalize)]
pub struct FitPlan {
  pub(super) kind: &'static str,
  pub(super) reason: Option<&'static str>,
  pub(super) bytes: Option<u64>,
  pub(super) answer_kind: Option<&'static str>,
  pub(super) data: Option<Arc<PlanData>>,
  /// Bytes reported to V8 as held by this plan (`adjust_external_memory`), given back when the kept answer is
  /// stored or the plan is collected.
  pub(super) external: Arc<AtomicI64>,
}

impl ObjectFinalize for FitPlan {
  fn finalize(self, env: Env) -> Result<()> {
    release_external(&env, &self.external);
    Ok(())
  }
}

/// Gives back to V8 what a plan reported holding (once).
pub(super) fn release_external(env: &Env, external: &AtomicI64) {
  let held = external.swap(0, Ordering::AcqRel);
  if held != 0 {
    let _ = env.adjust_external_memory(-held);
  }
}

/// Tells V8 a plan holds its kept answer natively, so a burst of large folds makes it collect sooner.
pub(super) fn report_external(env: &Env, plan: FitPlan) -> Result<FitPlan> {
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

pub(super) fn pass(reason: &'static str, bytes: Option<u64>) -> FitPlan {
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
pub(super) fn prepare_plan(
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
      Threads::Two,
    ),
    Answer::Text(text) => fold_plan(
      &settings,
      Kept::Text(&text),
      AnswerKind::Text,
      inspection.envelope,
      None,
      Threads::Two,
    ),
  }
}

/// The answer to fold and keep.
pub(super) enum Kept<'a> {
  /// Canonical JSON already (`JSON.stringify` output): measured, folded, indexed and sealed as it is.
  Json(Cow<'a, str>),
  /// A tool's text: the fold decides whether it holds JSON and writes its canonical form.
  Text(&'a str),
}

/// Whether the answer came from structuredContent or a text (a text's kind then follows its shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AnswerKind {
  Structured,
  Text,
}

/// Who a plan's answer is sealed for (the fast path knows the owner at `prepare`).
pub(super) struct Sealer<'a> {
  store: &'a HandleStore,
  owner: Owner,
}

impl<'a> Sealer<'a> {
  /// The parts' owner, when they name one.
  pub(super) fn of(store: &'a HandleStore, parts: &AnswerParts) -> Option<Self> {
    (parts.session.is_some() || parts.subject.is_some()).then(|| Sealer {
      store,
      owner: Owner::new(parts.session.clone(), parts.subject.clone()),
    })
  }
}

/// How many threads a fold may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Threads {
  /// The index of a large answer is built on a second thread while it folds.
  Two,
  /// One after the other: the JS thread is busy meanwhile (the host folds the text while it stringifies
  /// structuredContent), and on a two-core machine a second native thread would take its core.
  One,
}

/// Runs `main` while the path index of `json` is built on a second thread: both read the same bytes and neither
/// depends on the other. Small answers, and folds told to take one thread, run one after the other. When no
/// thread can be started the index is built here afterwards; a panic in the builder (none is known) only loses
/// the index (queries then read the whole answer).
pub(super) fn beside_index<T: Send>(
  json: &str,
  main: impl FnOnce() -> T + Send,
  grammar_checked: bool,
  threads: Threads,
) -> (T, Option<BuiltIndex>) {
  let build = || build_index_and_directories(json, IndexSettings::DEFAULT, grammar_checked);
  if json.len() <= PARALLEL_INDEX_BYTES || threads == Threads::One {
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

/// The fold of the answer to keep, its canonical JSON and its path index (built beside the fold).
fn fold_beside_index<'a>(
  settings: &FoldSettings,
  kept: Kept<'a>,
  threads: Threads,
) -> CoreResult<(FoldOutcome, Cow<'a, str>, Option<BuiltIndex>)> {
  Ok(match kept {
    // Structured answers over the threshold fold: fold and index at once.
    Kept::Json(json) if json.len() > settings.threshold_bytes => {
      let (folded, index) = beside_index(
        &json,
        || fold_answer(AnswerSource::Json(&json), settings),
        true,
        threads,
      );
      (folded?, json, index)
    }
    Kept::Json(json) => (
      fold_answer(AnswerSource::Json(&json), settings)?,
      json,
      None,
    ),
    // A text's canonical form comes out of its fold, and the index must read that. A large text is mostly its own
    // canonical form (`JSON.stringify` output): its index is built beside the fold and kept when the two are byte
    // for byte the same (the same text gives the same index), else built again from the form.
    Kept::Text(text) => {
      let bet = text.len() > settings.threshold_bytes;
      let fold = || fold_answer(AnswerSource::Text(text), settings);
      let (folded, early_index) = if bet {
        beside_index(text, fold, false, threads)
      } else {
        (fold(), None)
      };
      match folded? {
        FoldOutcome::Folded(mut folded) => {
          let canonical = folded
            .canonical_json
            .take()
            .unwrap_or_else(|| text.to_string());
          let index = if bet && canonical == text {
            early_index
          } else {
            beside_index(&canonical, || (), false, threads).1
          };
          (FoldOutcome::Folded(folded), Cow::Owned(canonical), index)
        }
        whole => (whole, Cow::Borrowed(text), None),
      }
    }
  })
}

pub(super) fn fold_plan(
  settings: &FoldSettings,
  kept: Kept<'_>,
  kind: AnswerKind,
  envelope: Envelope,
  sealer: Option<Sealer<'_>>,
  threads: Threads,
) -> CoreResult<FitPlan> {
  let (folded, canonical, index) = fold_beside_index(settings, kept, threads)?;
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
}
