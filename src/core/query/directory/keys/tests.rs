//! The route by keys answers as the tape answers, or leaves the query to it.

use std::sync::atomic::AtomicU64;

use super::*;
use crate::core::query::eval::Budget;
use crate::core::query::tape::Tape;
use crate::core::query::tests::orders_text;
use crate::jsonpath_spec::spec_query;
use proptest::prelude::*;
use serde_json::Value;

/// The spans the tape selects for `path` on `text` (certified), and the values it counts.
fn on_tape(text: &str, path: &str) -> (Vec<(u32, u32)>, u64) {
  let query = serde_json_path::JsonPath::parse(path).expect("valid");
  let tape = Tape::build_clean(text, None, &[]).expect("a tape");
  let nodes = Evaluation::new(tape.root(), Budget::for_nodes(tape.nodes()))
    .select(spec_query(&query))
    .expect("runs");
  (nodes.iter().map(|node| node.span()).collect(), tape.nodes())
}

fn by_keys(text: &str, path: &str) -> Option<Vec<(u32, u32)>> {
  let query = serde_json_path::JsonPath::parse(path).expect("valid");
  select_by_keys(text, spec_query(&query), &arrays_of(text))
}

/// The long arrays the path index of `text` records (so that the orders are read in pieces).
fn arrays_of(text: &str) -> Vec<LongArray> {
  use crate::core::query::index::{build_index, certified_arrays, IndexSettings};
  build_index(text, IndexSettings::DEFAULT)
    .and_then(|index| certified_arrays(&index, text.len()))
    .unwrap_or_default()
}

const PATHS: [&str; 15] = [
  "$..tags",
  "$..orders[-1]",
  // The most child steps that go without counting the values (`CHILD_STEPS_WITHIN_ANY_BUDGET`), and one more.
  "$..a[0][0][0][0][0][0]",
  "$..a[0][0][0][0][0][0][0]",
  "$..tags[2]",
  "$..tags[-1]",
  "$..tags[0][1]",
  "$..a['tags'][-3]",
  "$..['tags','a']",
  "$..['a','tags','a']",
  "$..a.tags",
  "$..tags[*]",
  "$..tags[?@ == 'odd']",
  "$..a..tags",
  "$..customer.name",
];

#[test]
fn nested_and_interleaved_keys_are_selected_in_the_order_of_their_objects() {
  let texts = [
    r#"{"a":{"tags":[1,2,3],"b":{"tags":[4,5,6],"x":{"c":{"tags":[7]}}},"a":1},"tags":{"tags":[8,9,10]}}"#,
    r#"[{"c":{"tags":[1,2,3]},"tags":[4,5,6]},{"a":{"a":{"tags":"s"},"tags":[0,0,"odd"]},"tags":[7,8,9]}]"#,
    r#" { "x" : "\"tags\":[1,2,3]" , "tags" : [ "a" , "b" , "odd" ] , "y" : { "tags" :1 } } "#,
    r#"{"s":"a\\","tags":[1,2,3],"t":"\\\"tags\":","u":["tags",{"tags":[]}]}"#,
    r#"{"x\"tags":[1,2,3],"y":{"s\\\"tags" :1,"tags":[4,5,6]},"z":{"t\\\\":"\\","tags":[7,8,9]}}"#,
    r#"{"a":[[[[[[[1],2]]]]]],"b":{"a":[[[[[[["x"]]]]]],[]]}}"#,
  ];
  // Long enough to be read in pieces on two threads, with keys of the root before and after the orders.
  let orders = orders_text(300 << 10);
  let around = format!(
    r#"{{"tags":[0,1,2],{},"tags2":1,"a":{{"tags":[3,4,5]}}}}"#,
    &orders[1..orders.len() - 1]
  );
  // The root's keys on both sides of the orders: those after them come before every order's.
  let root_after = format!(
    r#"{{"a":{{"tags":[0,1,2]}},{},"tags":[3,4,5],"x":{{"a":[6,7,8]}}}}"#,
    &orders[1..orders.len() - 1]
  );
  for long in [&orders, &around, &root_after] {
    assert!(
      array_cut(long.as_bytes(), &arrays_of(long)).is_some(),
      "read in pieces"
    );
  }
  for text in texts
    .iter()
    .map(|text| text.to_string())
    .chain([orders, around, root_after])
  {
    for path in PATHS {
      let found = by_keys(&text, path).unwrap_or_else(|| panic!("answered: {path} on {text:.80}"));
      assert_eq!(found, on_tape(&text, path).0, "{path} on {text:.80}");
    }
  }
}

#[test]
fn what_the_route_cannot_tell_is_left_to_the_tape() {
  let plain = r#"{"a":{"tags":[1,2,3]}}"#;
  assert!(by_keys(plain, "$..tags").is_some());
  let repeated_elsewhere = r#"{"a":{"tags":[1]},"b":1,"b":2,"c":{"c":{"tags":[2]}}}"#;
  assert!(
    by_keys(repeated_elsewhere, "$..tags").is_some(),
    "a repeat that holds no selected key, or a key repeated at another level, changes nothing"
  );
  for (text, path) in [
    (r#"{"a":{"t\u0061gs":[1,2,3]}}"#, "$..tags"),
    (r#"{"a":{"tags":[1],"tags":[2]}}"#, "$..tags"),
    // A repeated key hides the first value (or moves the last to the first place), as `JSON.parse` reads it.
    (
      r#"{"a":{"tags":[1]},"b":{"tags":[4]},"a":{"x":{"tags":[7]}}}"#,
      "$..tags",
    ),
    (r#"{"a":5,"b":{"tags":[4]},"a":{"tags":[1]}}"#, "$..tags"),
    (r#"[{"c":{"d":{"tags":[1]}},"c":2}]"#, "$..tags"),
    (r#"{"a\"b":{"tags":[1]}}"#, "$..tags"),
    // An escaped slash spells the same key as a slash.
    (r#"{"a/b":{"tags":[1]},"a\/b":2}"#, "$..tags"),
    (r#"{"a":{"tags":[1e400]}}"#, "$..tags"),
    (r#"{"a":{"b":1,"b":2}}"#, "$..a.b"),
    (r#"{"a":{"b\"":1,"b":2}}"#, "$..a.b"),
    (plain, "$..*"),
    (plain, "$.a..tags"),
    (plain, "$..tags[?@ == $.a]"),
    (plain, "$..tags[?@..*]"),
    (plain, "$..['tags',0]"),
    (plain, "$..['a/b']"),
    (plain, "$..[' a']"),
    (plain, "$..['a\"']"),
    ("[1,2]", "$..['']"),
  ] {
    assert!(by_keys(text, path).is_none(), "{path} on {text}");
  }
  // A long list read in pieces, the key that holds it repeated before it: found outside the pieces, where counting
  // the key in the text read after the list cannot tell.
  let orders = orders_text(300 << 10);
  let repeated_before_the_list = format!(r#"{{"orders":5,{}"#, &orders[1..]);
  assert!(array_cut(
    repeated_before_the_list.as_bytes(),
    &arrays_of(&repeated_before_the_list)
  )
  .is_some());
  assert!(by_keys(&repeated_before_the_list, "$..tags").is_none());
  // The root's key on both sides of it: read by different parts, and a repeat all the same.
  let repeated_around_the_list = format!(
    r#"{{"tags":[1,2,3],{},"tags":[4,5,6]}}"#,
    &orders[1..orders.len() - 1]
  );
  assert!(by_keys(&orders, "$..tags").is_some());
  assert!(by_keys(&repeated_around_the_list, "$..tags").is_none());
  // The same where no piece holds the key: the part before the list and the part after it meet in one object.
  let repeated_around_no_key = format!(
    r#"{{"x":[1,2,3],{},"x":[4,5,6]}}"#,
    &orders[1..orders.len() - 1]
  );
  assert!(!orders.contains("\"x\""));
  assert!(by_keys(&repeated_around_no_key, "$..y").is_some());
  assert!(by_keys(&repeated_around_no_key, "$..x").is_none());
  let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
  assert!(
    by_keys(&deep, "$..tags").is_none(),
    "nesting the checking pass refuses"
  );
}

/// A member's key checked in object after object is searched for once in the text, then counted in each object: a
/// repeat in any of them (the second, a later one, or one in a piece of a long list) still leaves the query to the
/// tape, and a repeat at another depth still answers.
#[test]
fn a_key_checked_in_many_objects_is_found_repeated_in_any_of_them() {
  let item = |at: usize| format!(r#"{{"c":{{"tags":[{at}]}}}}"#);
  let items = |count: usize| (0..count).map(item).collect::<Vec<_>>();
  for repeat_at in [1, 2, 5] {
    let mut list = items(6);
    list[repeat_at] = r#"{"c":{"d":{"tags":[9]}},"c":2}"#.to_string();
    let text = format!("[{}]", list.join(","));
    assert!(by_keys(&text, "$..tags").is_none(), "{text}");
  }
  // Counted after an object nested in it was: the count starts again from the object's own start.
  let repeat_around_a_nested_check =
    r#"[{"c":{"tags":[0]}},{"c":{"tags":[0]}},{"c":{"tags":[7]},"c":{"c":{"tags":[1]}}}]"#;
  assert!(by_keys(repeat_around_a_nested_check, "$..tags").is_none());
  let deeper = [
    r#"[{"c":{"tags":[1]}},{"c":{"tags":[2],"c":{"tags":[3]}}},{"c":{"tags":[4]}},{"c":{"tags":[5]}}]"#,
    r#"[{"c":{"tags":[1]}},{"c":{"tags":[2]}},{"x":{"c":{"c":{"tags":[3]}}},"c":{"tags":[4]}},{"c":1}]"#,
    r#"{"c":{"tags":[0]},"l":[{"c":{"tags":[1]}},{"c":{"tags":[2]}}],"m":{"c":{"tags":[3]}}}"#,
  ];
  for text in deeper {
    assert_eq!(
      by_keys(text, "$..tags"),
      Some(on_tape(text, "$..tags").0),
      "{text}"
    );
  }
  let orders = orders_text(300 << 10);
  let customer = r#""customer":{"name":"Customer 2000""#;
  assert!(orders.contains(customer));
  for (again, answers) in [
    (r#""customer":1,"#, false),
    (r#""x":{"customer":1},"#, true),
  ] {
    let text = orders.replacen(customer, &format!("{again}{customer}"), 1);
    assert!(
      array_cut(text.as_bytes(), &arrays_of(&text)).is_some(),
      "read in pieces"
    );
    let found = by_keys(&text, "$..tags[2]");
    assert_eq!(found.is_some(), answers, "{again}");
    if answers {
      assert_eq!(found, Some(on_tape(&text, "$..tags[2]").0));
    }
  }
}

/// A rest of steps that each name one child is charged as the evaluator charges it (one unit a node a step applies
/// to, beyond the first segment's walk): with one unit less, the route gives up.
#[test]
fn steps_that_name_one_child_are_charged_as_the_evaluator_charges_them() {
  let text = r#"{"a":{"tags":[[1,2],[3]],"b":{"c":[]}},"tags":[[4,5,6]],"x":{"tags":"s"}}"#;
  let path = "$..tags[0][1]";
  let query = serde_json_path::JsonPath::parse(path).expect("valid");
  let tape = Tape::build_clean(text, None, &[]).expect("a tape");
  let mut evaluation = Evaluation::new(tape.root(), Budget::for_nodes(tape.nodes()));
  evaluation.select(spec_query(&query)).expect("runs");
  // Three values named `tags`, then two arrays the second step applies to.
  let charged = named_walk_cost(tape.nodes()) + 3 + 2;
  assert_eq!(evaluation.budget.spent, charged);
  // In the order the descendant segment visits them: the root's own first.
  let values = [r#"[[4,5,6]]"#, r#"[[1,2],[3]]"#, r#""s""#].map(|value| {
    let start = text.find(value).expect("there") as u32;
    (start, start + value.len() as u32)
  });
  let steps = [Step::Index(0), Step::Index(1)];
  let route = |limit| KeysRoute {
    finders: Vec::new(),
    steps: Some(&steps),
    limit,
    passed_over: AtomicU64::new(0),
  };
  let keys = values.map(|(value, _)| FoundKey {
    quote: 0,
    value,
    name: 0,
  });
  let container_ends = values.map(|(start, end)| match text.as_bytes()[start as usize] {
    b'[' | b'{' => end,
    _ => 0,
  });
  // Each in an object of its own, in the order of their objects.
  let containers = [1, 2, 3];
  let unlimited = route(u64::MAX);
  let followed = unlimited
    .follow(text.as_bytes(), &keys, &containers, &container_ends)
    .expect("followed");
  assert_eq!(
    followed.spans.iter().flatten().copied().collect::<Vec<_>>(),
    on_tape(text, path).0
  );
  let budget = |limit| Budget {
    limit,
    spent: named_walk_cost(tape.nodes()),
  };
  assert!(Followed::within([&followed], budget(charged)));
  assert!(!Followed::within([&followed], budget(charged - 1)));
  // The arrays listed: the three values, then the two the second step applies to.
  let passed_over = unlimited.passed_over.into_inner();
  let listed = |spans: &[(u32, u32)]| -> u64 {
    spans
      .iter()
      .map(|(start, end)| u64::from(end - start))
      .sum()
  };
  let second = [r#"[4,5,6]"#, r#"[1,2]"#].map(|value| {
    let start = text.find(value).expect("there") as u32;
    (start, start + value.len() as u32)
  });
  assert_eq!(passed_over, listed(&values[..2]) + listed(&second));
  let limited = |limit| route(limit).follow(text.as_bytes(), &keys, &containers, &container_ends);
  assert_eq!(limited(passed_over), Some(followed));
  assert_eq!(limited(passed_over - 1), None);
}

/// Members that hold a selected key, nested in each other, each get their object searched: past four times the text,
/// the route leaves the query to the tape.
#[test]
fn a_deep_nest_of_members_holding_keys_is_left_to_the_tape() {
  let nest = |depth: usize| {
    let inner = format!(r#"{{"tags":[1,2,3],"pad":"{}"}}"#, "x".repeat(20_000));
    (0..depth).fold(inner, |inside, level| format!(r#"{{"k{level}":{inside}}}"#))
  };
  assert_eq!(
    by_keys(&nest(10), "$..tags[2]"),
    Some(on_tape(&nest(10), "$..tags[2]").0)
  );
  assert_eq!(by_keys(&nest(100), "$..tags[2]"), None);
}

/// What the route relies on: a kept answer repeats no key. A text that does is kept in its canonical form (as
/// `JSON.stringify(JSON.parse(text))` prints it), which the route reads as `JSON.parse` reads the text.
#[test]
fn kept_texts_repeat_no_key_and_read_as_json_parse_reads_the_text() {
  for text in [
    r#"{"a":{"tags":[1,2,3]},"b":{"tags":[4,5,6]},"a":{"x":{"tags":[7,8,9]}}}"#,
    r#"{"a":5,"b":{"tags":[4,5,6]},"a":{"tags":[1,2,3]},"c":[{"tags":[0,0,1],"tags":[0,0,2]}]}"#,
  ] {
    let kept = crate::core::fold::canonical_json(text).expect("JSON");
    let parsed: Value = serde_json::from_str(text).expect("JSON");
    for path in ["$..tags[2]", "$..tags", "$..['a','tags']"] {
      let found = by_keys(&kept, path).expect("answered");
      let texts: Vec<Value> = found
        .iter()
        .map(|&(start, end)| {
          serde_json::from_str(&kept[start as usize..end as usize]).expect("JSON")
        })
        .collect();
      let expected = serde_json_path::JsonPath::parse(path)
        .expect("valid")
        .query(&parsed)
        .all();
      assert_eq!(
        texts.iter().collect::<Vec<_>>(),
        expected,
        "{path} on {text}"
      );
    }
  }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_pass_places_keys_in_their_containers_and_counts_values_as_the_tape() {
  use crate::core::query::tape::pass::containers_of_keys;
  let text = r#"{"a":[1,{"k":2},[]],"k":{"k":"}{\"k\":"},"e":{}}"#;
  // The keys `"k":` (not the one escaped inside a string); the second is the root's own.
  let keys: Vec<usize> = text.match_indices("\"k\":").map(|(at, _)| at).collect();
  assert_eq!(keys.len(), 3);
  let listed = Listed(
    keys
      .iter()
      .map(|&key| FoundKey {
        quote: key as u32,
        value: key as u32 + 4,
        name: 0,
      })
      .collect(),
  );
  let placed = containers_of_keys(text.as_bytes(), &listed, None).expect("certified");
  assert_eq!(
    placed.nodes,
    Some(Tape::build(text).expect("a tape").nodes())
  );
  let [whole] = placed.parts.as_slice() else {
    panic!("one part: no long array")
  };
  let (containers, container_ends) = &whole.led;
  let ends: Vec<&str> = container_ends
    .iter()
    .map(|&end| &text[..end as usize])
    .collect();
  assert_eq!(
    ends[1], r#"{"a":[1,{"k":2},[]],"k":{"k":"}{\"k\":"}"#,
    "the value that is an object ends"
  );
  assert_eq!(container_ends[0], 0, "a number is not a container");
  let opens: Vec<u32> = keys
    .iter()
    .map(|&key| text[..key].rfind('{').expect("an object") as u32)
    .collect();
  assert_eq!(*containers, [opens[0], 0, opens[2]]);
}

/// A key before a long list read in pieces, whose value holds the list: its end is found by the scan after the list.
#[cfg(target_arch = "x86_64")]
#[test]
fn a_value_that_holds_the_pieces_ends_where_the_text_after_them_closes_it() {
  use crate::core::query::tape::pass::containers_of_keys;
  let text = orders_text(300 << 10);
  let cut = array_cut(text.as_bytes(), &arrays_of(&text)).expect("read in pieces");
  let orders = FoundKey {
    quote: 1,
    value: 10,
    name: 0,
  };
  assert_eq!(&text[1..11], r#""orders":["#);
  let placed =
    containers_of_keys(text.as_bytes(), &Listed(vec![orders]), Some(&cut)).expect("certified");
  let ends: Vec<u32> = placed
    .parts
    .iter()
    .flat_map(|part| part.led.1.iter().copied())
    .collect();
  assert_eq!(ends, [text.len() as u32 - 1]);
  assert!(
    placed.parts.len() > 2,
    "the text before the list, its pieces, the text after it"
  );
}

/// Keys given by their places, followed nowhere: each part hands back where the pass placed its keys, `(containers,
/// container_ends)`.
#[cfg(target_arch = "x86_64")]
struct Listed(Vec<FoundKey>);

#[cfg(target_arch = "x86_64")]
impl KeysToFollow for Listed {
  type Led = (Vec<u32>, Vec<u32>);

  fn find(&self, _: &[u8], from: usize, to: usize) -> Vec<FoundKey> {
    let within = |key: &&FoundKey| (from..to).contains(&(key.quote as usize));
    self.0.iter().filter(within).copied().collect()
  }

  fn follow(
    &self,
    _: &[u8],
    _: &[FoundKey],
    containers: &[u32],
    container_ends: &[u32],
  ) -> Self::Led {
    (containers.to_vec(), container_ends.to_vec())
  }

  fn counts_values(&self) -> bool {
    true
  }
}

/// Keys that spell `tags` and `a` or nearly, and strings that hold them with their quotes and colons.
fn value() -> impl Strategy<Value = Value> {
  let leaf = prop_oneof![
    Just(Value::Null),
    any::<i64>().prop_map(Value::from),
    "(tags|a|\"tags\":|\\\\|x)[\"\\\\: ]{0,3}".prop_map(Value::String),
  ];
  leaf.prop_recursive(6, 120, 8, |inner| {
    prop_oneof![
      prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
      prop::collection::vec(("tags|a|b|ta|tags\"|x\"tags|\\\\tags|x\\\\", inner), 0..5)
        .prop_map(|members| Value::Object(members.into_iter().collect())),
    ]
  })
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(256))]

  #[test]
  fn answers_as_the_tape_wherever_it_answers(doc in value(), pretty in any::<bool>(), path in 0..PATHS.len()) {
    let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
    let text = text.expect("JSON");
    if let Some(found) = by_keys(&text, PATHS[path]) {
      prop_assert_eq!(found, on_tape(&text, PATHS[path]).0);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(placed) = crate::core::query::tape::pass::containers_of_keys(text.as_bytes(), &Listed(Vec::new()), None) {
      prop_assert_eq!(placed.nodes, Some(on_tape(&text, "$").1));
    }
  }
}

/// The route against the tape (on one thread) on 1 and 10 MB of orders, best of 20, for `$..tags[2]`. Run on a
/// release build: `cargo test --release --target x86_64-unknown-linux-gnu --lib profile_keys_route -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn profile_keys_route() {
  for mb in [1usize, 10] {
    let text = orders_text(mb << 20);
    let query = serde_json_path::JsonPath::parse("$..tags[2]").expect("valid");
    let arrays = arrays_of(&text);
    for _ in 0..3 {
      let (mut best, mut tape_best) = (f64::MAX, f64::MAX);
      for _ in 0..20 {
        let started = std::time::Instant::now();
        let found = select_by_keys(&text, spec_query(&query), &arrays).expect("answered");
        best = best.min(started.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(found);
        let started = std::time::Instant::now();
        std::hint::black_box(on_tape(&text, "$..tags[2]"));
        tape_best = tape_best.min(started.elapsed().as_secs_f64() * 1e3);
      }
      eprintln!("{mb} MB: keys {best:.3} ms, tape (one thread) {tape_best:.3} ms");
    }
  }
}
