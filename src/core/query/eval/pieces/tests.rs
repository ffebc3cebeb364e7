//! Evaluations sharing long lists with a helper select what one thread selects, in the same order, spend the
//! same budget, and are refused under exactly the same limits.

use super::*;
use crate::core::query::eval::{count_nodes, Budget};
use crate::core::query::tape::Tape;
use crate::jsonpath_spec::spec_query;
use serde_json::{json, Value};
use serde_json_path::JsonPath;

/// A list long enough to share, with nested lists and objects of a few shapes.
fn long_doc() -> Value {
  let orders: Vec<Value> = (0..12_000usize)
    .map(|i| {
      let status = ["open", "shipped", "delivered"][i % 3];
      let mut order = json!({
        "id": i,
        "status": status,
        "amount": (i * 37) % 1000,
        "customer": {"name": format!("c{i}"), "tags": ["new", i % 7]},
        "tags": ["a", "b", format!("t{}", i % 5)],
      });
      if i % 11 == 0 {
        order["tags"] = json!([]);
      }
      order
    })
    .collect();
  json!({ "orders": orders, "tags": ["x", "y", "z"], "total": 12_000 })
}

const SHARED: [&str; 10] = [
  "$..tags[2]",
  "$.orders[*].customer.tags[0]",
  "$.orders[*]['id','status']",
  "$..tags[*]",
  "$..[0]",
  "$..customer.name",
  "$.orders[?@.status=='open' && @.amount > 500]",
  "$.orders[?@.customer.tags[1] == 3 || !@.tags[0]].id",
  "$.orders[?@.amount < 100 && (@.status != 'open' || @.id > 6000)]",
  "$..[?@.amount == 37]",
];

/// One query's matches and spending, with or without helpers, on any node kind.
fn select<'a, N: Node<'a>>(
  root: N,
  path: &str,
  budget: Budget,
  may_split: bool,
) -> (CoreResult<Vec<N>>, u64) {
  let query = JsonPath::parse(path).expect("a valid path");
  let mut evaluation = Evaluation::new(root, budget);
  evaluation.may_split = may_split;
  let selected = evaluation.select(spec_query(&query));
  (selected, evaluation.budget.spent)
}

#[test]
fn shared_queries_select_and_spend_as_one_thread() {
  let doc = long_doc();
  let text = serde_json::to_string(&doc).unwrap();
  let tape = Tape::build(&text).expect("a tape");
  let budget = Budget::for_nodes(count_nodes(&doc));
  // Long enough that both kinds of list are shared.
  assert!(tape.nodes() as usize > 2 * MIN_NODES && 12_000 > MIN_CANDIDATES);
  for path in SHARED {
    let query = JsonPath::parse(path).unwrap();
    assert!(
      query_is_plain(&query),
      "{path} is shared (no function in it)"
    );
    let (alone, spent_alone) = select(tape.root(), path, budget, false);
    let (shared, spent_shared) = select(tape.root(), path, budget, true);
    let texts = |nodes: Vec<crate::core::query::tape::TapeNode>| {
      nodes
        .into_iter()
        .map(|n| n.text().to_string())
        .collect::<Vec<_>>()
    };
    let alone = texts(alone.expect("within budget"));
    assert!(!alone.is_empty(), "{path} selects something");
    assert_eq!(
      texts(shared.expect("within budget")),
      alone,
      "{path} on the tape"
    );
    assert_eq!(spent_shared, spent_alone, "{path} spends the same");
    let (by_value, _) = select(&doc, path, budget, true);
    let by_value: Vec<String> = by_value
      .unwrap()
      .into_iter()
      .map(|v| serde_json::to_string(v).unwrap())
      .collect();
    assert_eq!(by_value, alone, "{path} on the parsed answer");
  }
}

#[test]
fn shared_queries_are_refused_under_the_same_limits() {
  let doc = long_doc();
  let text = serde_json::to_string(&doc).unwrap();
  let tape = Tape::build(&text).expect("a tape");
  for path in SHARED {
    let (_, needed) = select(tape.root(), path, Budget::for_nodes(u64::MAX / 16), false);
    for limit in [needed - 1, needed, needed / 2, needed / 4 * 3] {
      let budget = Budget { limit, spent: 0 };
      let (alone, _) = select(tape.root(), path, budget, false);
      let (shared, _) = select(tape.root(), path, budget, true);
      assert_eq!(
        shared.map(|nodes| nodes.len()),
        alone.map(|nodes| nodes.len()),
        "{path} under {limit} of {needed}"
      );
    }
  }
}

#[test]
fn only_function_free_segments_are_shared() {
  for (path, plain) in [
    ("$..a", true),
    ("$.a[?@.b == 1]", true),
    ("$.a[?@.b[?@.c]]", true),
    ("$.a[?length(@.b) == 1]", false),
    ("$.a[?match(@.b, 'x')]", false),
    ("$.a[?@.b[?search(@, 'x')]]", false),
    ("$.a[?!(@.b == count(@.c))]", false),
  ] {
    let query = JsonPath::parse(path).unwrap();
    assert_eq!(query_is_plain(&query), plain, "{path}");
  }
}

fn query_is_plain(query: &JsonPath) -> bool {
  spec_query(query)
    .segments
    .iter()
    .all(|segment| plain_segment(&segment.segment))
}
