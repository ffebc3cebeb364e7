//! Native engine for result handles.
//!
//! `core` holds every rule and imports nothing from napi; `binding` is the only place with `#[napi]`.
//! The binding is left out of unit-test builds: its functions are only reachable from JS.

#[cfg(not(test))]
mod binding;
pub mod core;
mod jsonpath_spec;
