//! Coded errors shared by every part of the engine.
//!
//! Codes are stable strings: hosts and models branch on them, so never rename one.
//! Messages carry no user data and no secret; the remedy tells the reader what to do next.

use std::fmt;

/// A stable error code, surfaced to JS as `err.code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
  /// Options are invalid; the error lists every problem.
  Configuration,
  /// The handle is unknown, expired, evicted or owned by another session or caller.
  HandleNotFound,
  /// The path is not a dot path, JSON pointer or JSONPath, or a singular path names nothing.
  PathNotFound,
  /// The requested slice serializes to more than `thresholdBytes`.
  SliceTooLarge,
  /// An argument is missing, of the wrong type or out of range.
  InvalidInput,
  /// The store could not be reached in time.
  StoreUnavailable,
  /// The store refused or failed to keep a value.
  StoreWriteFailed,
  /// A server-only store was asked for in a browser-like runtime.
  BrowserStoreUnavailable,
  /// A fault inside the engine (a bug): never expected.
  Internal,
}

impl ErrorCode {
  /// The code as JS sees it.
  pub const fn as_str(self) -> &'static str {
    match self {
      ErrorCode::Configuration => "RESULT_HANDLES_CONFIGURATION",
      ErrorCode::HandleNotFound => "RESULT_HANDLE_NOT_FOUND",
      ErrorCode::PathNotFound => "RESULT_PATH_NOT_FOUND",
      ErrorCode::SliceTooLarge => "RESULT_SLICE_TOO_LARGE",
      ErrorCode::InvalidInput => "INVALID_INPUT",
      ErrorCode::StoreUnavailable => "RESULT_STORE_UNAVAILABLE",
      ErrorCode::StoreWriteFailed => "RESULT_STORE_WRITE_FAILED",
      ErrorCode::BrowserStoreUnavailable => "BROWSER_STORE_UNAVAILABLE",
      ErrorCode::Internal => "RESULT_HANDLES_INTERNAL",
    }
  }
}

impl ErrorCode {
  /// Every code, in declaration order.
  pub const ALL: [ErrorCode; 9] = [
    ErrorCode::Configuration,
    ErrorCode::HandleNotFound,
    ErrorCode::PathNotFound,
    ErrorCode::SliceTooLarge,
    ErrorCode::InvalidInput,
    ErrorCode::StoreUnavailable,
    ErrorCode::StoreWriteFailed,
    ErrorCode::BrowserStoreUnavailable,
    ErrorCode::Internal,
  ];

  /// Whether a `result_query` caller may see this error as it is: failures the caller's arguments or the kept
  /// answer's state explain. Anything else reaches a model only as a generic internal fault.
  pub const fn is_public_to_query_callers(self) -> bool {
    matches!(
      self,
      ErrorCode::HandleNotFound
        | ErrorCode::PathNotFound
        | ErrorCode::SliceTooLarge
        | ErrorCode::InvalidInput
        | ErrorCode::StoreUnavailable
    )
  }
}

impl AsRef<str> for ErrorCode {
  fn as_ref(&self) -> &str {
    self.as_str()
  }
}

/// An engine error: a code, what happened, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreError {
  pub code: ErrorCode,
  pub message: String,
  pub remedy: Option<String>,
}

impl CoreError {
  pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
    Self {
      code,
      message: message.into(),
      remedy: None,
    }
  }

  pub fn with_remedy(mut self, remedy: impl Into<String>) -> Self {
    self.remedy = Some(remedy.into());
    self
  }

  pub fn internal(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::Internal, message)
  }

  /// The message a reader sees: what happened, then the remedy.
  pub fn full_message(&self) -> String {
    match &self.remedy {
      Some(remedy) => format!("{} {}", self.message, remedy),
      None => self.message.clone(),
    }
  }
}

impl fmt::Display for CoreError {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}: {}", self.code.as_str(), self.full_message())
  }
}

impl std::error::Error for CoreError {}

pub type CoreResult<T> = Result<T, CoreError>;

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn full_message_appends_the_remedy() {
    let error = CoreError::new(ErrorCode::InvalidInput, "limit must be 1..100000.")
      .with_remedy("Pass a smaller limit.");
    assert_eq!(
      error.full_message(),
      "limit must be 1..100000. Pass a smaller limit."
    );
    assert_eq!(error.code.as_str(), "INVALID_INPUT");
  }

  #[test]
  fn query_callers_see_their_own_failures_only() {
    let public: Vec<&str> = ErrorCode::ALL
      .into_iter()
      .filter(|code| code.is_public_to_query_callers())
      .map(ErrorCode::as_str)
      .collect();
    assert_eq!(
      public,
      [
        "RESULT_HANDLE_NOT_FOUND",
        "RESULT_PATH_NOT_FOUND",
        "RESULT_SLICE_TOO_LARGE",
        "INVALID_INPUT",
        "RESULT_STORE_UNAVAILABLE"
      ]
    );
  }
}
