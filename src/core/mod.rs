//! The engine: no napi import anywhere below this module.
#![forbid(unsafe_code)]

pub mod error;
pub mod expression;
pub mod fit;
pub mod fold;
pub(crate) mod json;
pub mod options;
pub mod query;
pub(crate) mod recent;
pub mod references;
pub mod seal;
pub mod store;
