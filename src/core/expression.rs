//! JMESPath expressions over a JSON value: parsed by the `jmespath` crate, evaluated here under a [`Budget`].
//!
//! The crate's own evaluator cannot be bounded (no step, depth or size limit, and it copies values as it goes), so
//! this module walks the crate's tree itself ([`compile`] turns it into its own [`compile::Expr`] first). The
//! input's nodes are borrowed, not copied, until the result is written out, and every step and every value built
//! is charged to the budget; a spent budget, an expression too long or nested too deep, a syntax error, an unknown
//! function, a wrong number of arguments or an argument of the wrong type each give INVALID_INPUT naming
//! `expression`. Recursion follows the expression's tree, never the input's.

mod budget;
mod compile;
mod eval;
mod functions;
mod value;

use serde_json::Value;

use crate::core::error::{CoreError, CoreResult, ErrorCode};
use compile::Expr;
use eval::Eval;
use value::{to_value, Val};

pub use budget::{
  Budget, BASE_BYTES, BASE_STEPS, BYTES_PER_INPUT_BYTE, INPUT_BYTES_PER_STEP, MAX_BYTES, MAX_STEPS,
};

/// The longest expression accepted, in bytes of UTF-8.
pub const MAX_EXPRESSION_BYTES: usize = 4096;

/// How deep an expression may nest, counted as [`compile`] counts it (brackets, and operators, dots and
/// projections since the innermost bracket or comma). The official suite's deepest case (104 projections one
/// after another) counts 208.
pub const MAX_NESTING: usize = 256;

/// Stack that parsing or evaluating may take: at least twice the most measured at the nesting limit, in each kind
/// of build (docs/benchmarks.md). With less left on the calling thread, they run on a stack of [`STACK_BYTES`]
/// made for them (stacker): a blocking-pool thread's whole stack may be smaller.
const STACK_NEEDED: usize = if cfg!(debug_assertions) {
  4 << 20
} else {
  3 << 19
};
const STACK_BYTES: usize = 8 << 20;

/// A parsed JMESPath expression; evaluate it on any number of values.
#[derive(Debug)]
pub struct Expression {
  root: Expr,
}

impl Expression {
  /// Parses `text`. Errors are INVALID_INPUT naming `expression`: too long, nested too deep, not JMESPath (with
  /// the character where parsing stopped), an unknown function or a wrong number of arguments.
  pub fn parse(text: &str) -> CoreResult<Expression> {
    stacker::maybe_grow(STACK_NEEDED, STACK_BYTES, || compile::compile(text))
      .map(|root| Expression { root })
  }

  /// The expression's result on `input`, whose JSON text is `input_bytes` long (the budget is sized from it).
  pub fn evaluate(&self, input: &Value, input_bytes: usize) -> CoreResult<Value> {
    self
      .evaluate_within(input, Budget::for_bytes(input_bytes))
      .map(|(value, _)| value)
  }

  /// The result on `input` under `budget`, and the budget as spent.
  pub fn evaluate_within(&self, input: &Value, budget: Budget) -> CoreResult<(Value, Budget)> {
    stacker::maybe_grow(STACK_NEEDED, STACK_BYTES, || {
      let mut eval = Eval { budget };
      let result = eval.eval(&self.root, &Val::of(input))?;
      let value = to_value(&result, &mut eval.budget)?;
      Ok((value, eval.budget))
    })
  }
}

fn invalid(message: String, remedy: &str) -> CoreError {
  CoreError::new(ErrorCode::InvalidInput, message).with_remedy(remedy)
}

#[cfg(test)]
mod tests;
