//! A generated answer of orders, as the JMESPath tests and bench read it: `{ orders, total }`, each order with
//! an amount, a currency, a status, a customer, tags and one to three items, until the orders' JSON reaches `bytes`.

use serde_json::{json, Value};

pub const STATUSES: [&str; 4] = ["open", "paid", "shipped", "cancelled"];

pub fn orders_answer(bytes: usize) -> Value {
  let mut orders = Vec::new();
  let mut size = 0;
  for i in 0.. {
    if size >= bytes {
      break;
    }
    let items: Vec<Value> = (0..1 + i % 3)
      .map(|j| json!({"sku": format!("SKU-{i}-{j}"), "qty": j + 1, "price": 9.99 + (i % 50 + j) as f64}))
      .collect();
    let tag = ["new", "vip", "gift"][i % 3];
    let order = json!({
      "id": i,
      "status": STATUSES[i % 4],
      "amount": ((i * 7919) % 100_000) as f64 / 100.0,
      "currency": "EUR",
      "customer": {"name": format!("Customer {}", i % 997), "email": format!("c{}@example.test", i % 997)},
      "tags": [tag, "web"],
      "items": items,
    });
    size += serde_json::to_string(&order).map_or(0, |text| text.len()) + 1;
    orders.push(order);
  }
  let total = orders.len();
  json!({"orders": orders, "total": total})
}
