//! The limit table: every bound an option or store setting takes, written once. The checks, the messages, the
//! limits exported to JS (`optionLimits()`), the d.ts comments and the README's limits table all read these (the
//! last two are compared with them by `__test__/option-limits.spec.ts`).

/// Smallest `thresholdBytes`: below this the folded form itself would not fit.
pub const MIN_THRESHOLD_BYTES: u64 = 1024;
/// Largest `thresholdBytes` (2 GiB): no model context comes near it, and it keeps sizes in 32 bits for JS.
pub const MAX_THRESHOLD_BYTES: u64 = 1 << 31;
/// Default `thresholdBytes`.
pub const DEFAULT_THRESHOLD_BYTES: u64 = 16 * 1024;
/// Default `ttlSeconds`.
pub const DEFAULT_TTL_SECONDS: u64 = 600;
/// Largest `ttlSeconds`: one year. A handle is meant for a conversation, not for archiving.
pub const MAX_TTL_SECONDS: u64 = 365 * 24 * 60 * 60;
/// Default `preview.items`.
pub const DEFAULT_PREVIEW_ITEMS: u64 = 5;
/// Largest `preview.items`.
pub const MAX_PREVIEW_ITEMS: u64 = 10_000;
/// Default `preview.chars`.
pub const DEFAULT_PREVIEW_CHARS: u64 = 500;
/// Largest `preview.chars` (UTF-16 units, as JS counts).
pub const MAX_PREVIEW_CHARS: u64 = 1_000_000;
/// Default `namespace`.
pub const DEFAULT_NAMESPACE: &str = "result-handles";
/// Largest `namespace`, in UTF-8 bytes (it prefixes every store key).
pub const MAX_NAMESPACE_BYTES: usize = 256;
/// Smallest `secret`, in UTF-8 bytes (256 bits).
pub const MIN_SECRET_BYTES: usize = 32;
/// Default `handleReferenceLimits.maxReferences`: handle references resolved in one tool call.
pub const DEFAULT_MAX_HANDLE_REFERENCES: u64 = 16;
/// Largest `handleReferenceLimits.maxReferences`.
pub const MAX_HANDLE_REFERENCES: u64 = 1024;
/// Default `handleReferenceLimits.maxBytes`: bytes of JSON all references of one call may resolve to (16 MiB).
pub const DEFAULT_MAX_RESOLVED_BYTES: u64 = 16 * 1024 * 1024;
/// Largest `handleReferenceLimits.maxBytes` (256 MiB: well under V8's longest string, which the arguments become).
pub const MAX_RESOLVED_BYTES: u64 = 256 * 1024 * 1024;

/// One bounded setting: where it is given, its unit, its range and its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
  /// The option's name as users write it (`preview.items`).
  pub option: &'static str,
  /// What is counted.
  pub unit: &'static str,
  /// Smallest accepted.
  pub min: u64,
  /// Largest accepted; `None` when unbounded.
  pub max: Option<u64>,
  /// The value used when the option is not given; `None` when there is none (or it is not a number).
  pub default: Option<u64>,
}

/// Every bound, in the order the README's table lists them.
pub const LIMITS: [Limit; 8] = [
  Limit {
    option: "thresholdBytes",
    unit: "bytes",
    min: MIN_THRESHOLD_BYTES,
    max: Some(MAX_THRESHOLD_BYTES),
    default: Some(DEFAULT_THRESHOLD_BYTES),
  },
  Limit {
    option: "ttlSeconds",
    unit: "seconds",
    min: 1,
    max: Some(MAX_TTL_SECONDS),
    default: Some(DEFAULT_TTL_SECONDS),
  },
  Limit {
    option: "preview.items",
    unit: "items",
    min: 1,
    max: Some(MAX_PREVIEW_ITEMS),
    default: Some(DEFAULT_PREVIEW_ITEMS),
  },
  Limit {
    option: "preview.chars",
    unit: "UTF-16 units",
    min: 1,
    max: Some(MAX_PREVIEW_CHARS),
    default: Some(DEFAULT_PREVIEW_CHARS),
  },
  Limit {
    option: "namespace",
    unit: "UTF-8 bytes",
    min: 1,
    max: Some(MAX_NAMESPACE_BYTES as u64),
    default: None,
  },
  Limit {
    option: "secret",
    unit: "UTF-8 bytes",
    min: MIN_SECRET_BYTES as u64,
    max: None,
    default: None,
  },
  Limit {
    option: "handleReferenceLimits.maxReferences",
    unit: "references",
    min: 1,
    max: Some(MAX_HANDLE_REFERENCES),
    default: Some(DEFAULT_MAX_HANDLE_REFERENCES),
  },
  Limit {
    option: "handleReferenceLimits.maxBytes",
    unit: "bytes",
    min: 1,
    max: Some(MAX_RESOLVED_BYTES),
    default: Some(DEFAULT_MAX_RESOLVED_BYTES),
  },
];
