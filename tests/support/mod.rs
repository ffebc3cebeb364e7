//! Helpers the query integration tests share.

use serde_json::Value;

/// JSON equality where `1` and `1.0` are the same number (answers print numbers as JS does).
pub fn same(a: &Value, b: &Value) -> bool {
  match (a, b) {
    (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
    (Value::Array(x), Value::Array(y)) => {
      x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
    }
    (Value::Object(x), Value::Object(y)) => {
      x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
    }
    _ => a == b,
  }
}
