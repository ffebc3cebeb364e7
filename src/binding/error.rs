//! Turns engine errors into JS errors that carry `code` and `remedy`, and keeps panics off the JS thread.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use napi::bindgen_prelude::{
  spawn_blocking, within_runtime_if_available, JsObjectValue, JsValue, PromiseRaw, ToNapiValue,
};
use napi::JsDeferred;
use napi::{Env, Error, Status};

use crate::core::error::{CoreError, CoreResult};

/// Builds a JS `Error` with `code` (stable string) and `remedy` properties.
pub fn to_js_error(env: &Env, error: &CoreError) -> Error {
  let build = || -> napi::Result<Error> {
    let mut object = env.create_error(Error::new(Status::GenericFailure, error.full_message()))?;
    object.set_named_property("code", error.code.as_str())?;
    if let Some(remedy) = &error.remedy {
      object.set_named_property("remedy", remedy.as_str())?;
    }
    Ok(Error::from(object.to_unknown()))
  };
  build().unwrap_or_else(|_| Error::new(Status::GenericFailure, error.full_message()))
}

fn panic_error() -> CoreError {
  CoreError::internal(
    "The native engine hit an internal fault; the server is unaffected. Please report this.",
  )
}

/// `work`'s outcome, a panic in it turned into the internal-fault error.
fn caught<T>(work: impl FnOnce() -> CoreResult<T>) -> CoreResult<T> {
  catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| Err(panic_error()))
}

/// An engine outcome as JS sees it: the value through `to_js`, an error as a coded JS error.
fn settle<'env, T, V>(
  env: &'env Env,
  outcome: CoreResult<T>,
  to_js: impl FnOnce(&'env Env, T) -> napi::Result<V>,
) -> napi::Result<V> {
  match outcome {
    Ok(value) => to_js(env, value),
    Err(error) => Err(to_js_error(env, &error)),
  }
}

/// Runs engine work on the JS thread, mapping errors and catching panics.
pub fn run_sync<T>(env: &Env, work: impl FnOnce() -> CoreResult<T>) -> napi::Result<T> {
  settle(env, caught(work), |_, value| Ok(value))
}

/// A future whose panics, in any poll or as it is dropped, end it with the internal-fault error instead of unwinding
/// into the runtime. It guards the work where it runs: spawning the work as a task of its own to catch a panic at the
/// join costs a hand-off between threads per call.
struct PanicGuard<F> {
  /// `None` once finished: the work is dropped as soon as it is done, under the guard too.
  work: Option<Pin<Box<F>>>,
}

impl<F: Future<Output = CoreResult<T>>, T> Future for PanicGuard<F> {
  type Output = CoreResult<T>;

  fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let Some(work) = this.work.as_mut() else {
      return Poll::Ready(Err(panic_error()));
    };
    let polled = catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx)));
    if let Ok(Poll::Pending) = polled {
      return Poll::Pending;
    }
    // A future that unwound may panic again as it drops.
    let work = this.work.take();
    let dropped = catch_unwind(AssertUnwindSafe(move || drop(work)));
    match (polled, dropped) {
      (Ok(Poll::Ready(outcome)), Ok(())) => Poll::Ready(outcome),
      _ => Poll::Ready(Err(panic_error())),
    }
  }
}

/// Where async engine work is first polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstPoll {
  /// On a runtime worker.
  OnRuntime,
  /// Here, on the JS thread: work that finishes in that poll (a page or a singular read answered from the memory
  /// store: a few chunks decrypted, tens of microseconds; a JSONPath query on an answer of at most two chunks,
  /// under a capped budget, about a tenth of a millisecond) settles the promise at once, without the two wake-ups
  /// between threads a hop to the runtime costs (about 80 µs a call on this class of machine, and more when the other
  /// vCPU sleeps); work that is not done by then (store I/O, or anything past a yield, where costly work must start)
  /// continues on the runtime. Such work must do nothing costly before its first await that can be pending.
  Here,
}

impl FirstPoll {
  /// [`FirstPoll::Here`] when `here`.
  pub fn here_if(here: bool) -> Self {
    if here {
      FirstPoll::Here
    } else {
      FirstPoll::OnRuntime
    }
  }
}

/// Tool arguments up to this long are parsed (JSON only) in a first poll on the JS thread, 64 µs at most; longer
/// ones on the runtime.
pub const READ_HERE_BYTES: usize = 64 * 1024;

/// `result_query` arguments up to this long are parsed in a first poll on the JS thread. Their JSONPath parse is
/// not linear in the worst case (a 38 KB chain of `||` took 2.9 ms), so only a short call, as a model writes one,
/// is read there (at most about 0.1 ms).
pub const QUERY_READ_HERE_BYTES: usize = 1024;

/// Runs async engine work (store I/O) on the napi tokio runtime, first polled where `first_poll` says; rejects with
/// a coded error.
pub fn run_async<'env, T, V>(
  env: &'env Env,
  first_poll: FirstPoll,
  work: impl Future<Output = CoreResult<T>> + Send + 'static,
  to_js: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
  T: Send + 'static,
  V: ToNapiValue,
{
  // A panic inside `work` must reject this promise, not abort the process.
  let mut guarded = PanicGuard {
    work: Some(Box::pin(work)),
  };
  if first_poll == FirstPoll::Here {
    // In the runtime's context: the work may start timers or blocking tasks. A future may be polled with any
    // waker; if it is pending, the runtime polls it again with its own.
    let polled = within_runtime_if_available(|| {
      Pin::new(&mut guarded).poll(&mut Context::from_waker(Waker::noop()))
    });
    if let Poll::Ready(outcome) = polled {
      return match settle(env, outcome, to_js) {
        Ok(value) => PromiseRaw::resolve(env, value),
        Err(error) => PromiseRaw::reject(env, error),
      };
    }
  }
  let settled = async move { Ok::<CoreResult<T>, Error>(guarded.await) };
  env.spawn_future_with_callback(settled, move |env, outcome| settle(env, outcome, to_js))
}

/// How a promise made by [`run_blocking`] is settled, on the JS thread.
type Settle<V> = Box<dyn FnOnce(Env) -> napi::Result<V> + Send>;

/// The promise of one [`run_blocking`] call. Settled once; dropped unsettled (its work cancelled, as when the
/// runtime shuts down) it rejects with the internal-fault error rather than leave the promise pending forever.
struct Pending<V: ToNapiValue + 'static> {
  deferred: Option<JsDeferred<V, Settle<V>>>,
}

impl<V: ToNapiValue + 'static> Pending<V> {
  fn settle(mut self, settle: Settle<V>) {
    if let Some(deferred) = self.deferred.take() {
      deferred.resolve(settle);
    }
  }
}

impl<V: ToNapiValue + 'static> Drop for Pending<V> {
  fn drop(&mut self) {
    if let Some(deferred) = self.deferred.take() {
      deferred.resolve(Box::new(|env| Err(to_js_error(&env, &panic_error()))));
    }
  }
}

/// Runs CPU-bound engine work off the JS thread (tokio's blocking pool); rejects with a coded error.
///
/// The work goes straight to the blocking pool and settles its promise from there: going through an async task
/// first (to await the blocking one) costs a hand-off to a runtime worker and back per call.
pub fn run_blocking<'env, T, V>(
  env: &'env Env,
  work: impl FnOnce() -> CoreResult<T> + Send + 'static,
  to_js: impl FnOnce(&Env, T) -> napi::Result<V> + Send + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
  T: Send + 'static,
  V: ToNapiValue + 'static,
{
  let (deferred, promise) = env.create_deferred::<V, Settle<V>>()?;
  let pending = Pending {
    deferred: Some(deferred),
  };
  spawn_blocking(move || {
    // A panic inside `work` must reject this promise, not abort the process.
    let outcome = caught(work);
    pending.settle(Box::new(move |env| settle(&env, outcome, to_js)));
  });
  Ok(PromiseRaw::new(env.raw(), promise.raw()))
}
