//! Member directories: written by the index scan as it passes a long array, read back checked, and the queries they
//! answer answered as the whole read answers them.

use super::*;
use crate::core::query::index::{build_index_and_directories, IndexSettings};
use crate::core::query::tests::orders_text;
use crate::core::query::{run_query, run_query_keeping_spans};
use crate::core::store::{HandleStore, Owner, UnopenedAnswer};

const THRESHOLD: usize = 1_000_000;

/// The directories the fold keeps beside `text`.
fn directories(text: &str) -> Vec<(u64, Vec<u8>)> {
  build_index_and_directories(text, IndexSettings::DEFAULT, false)
    .map(|built| built.directories)
    .unwrap_or_default()
}

fn the_directory(text: &str) -> Directory {
  let found = directories(text);
  assert_eq!(found.len(), 1, "one long array");
  Directory::decode(found[0].1.clone()).expect("it reads back")
}

fn args(path: &str) -> QueryArgs {
  let mut args = QueryArgs::new("h", path).expect("valid");
  args.limit = Some(20);
  args
}

/// The array of `text` that `directory` is of, as its text.
fn array_of<'a>(text: &'a str, directory: &Directory) -> &'a [u8] {
  &text.as_bytes()[directory.start as usize..(directory.start + directory.len) as usize]
}

/// `args` run through `directory` over its array in `text` (first step `$.<list>`).
fn on_list(
  text: &str,
  directory: &Directory,
  args: &QueryArgs,
) -> Option<(CoreResult<String>, QuerySpans)> {
  run_directory_query(array_of(text, directory), directory, 1, args, THRESHOLD)
}

/// `path` (first step `$.orders`) through the directory of `text`'s orders: `None` when the route gives up; else
/// the answer, checked against the whole read's, and the spans against the tape's.
fn through_directory(text: &str, path: &str) -> Option<String> {
  let directory = the_directory(text);
  let args = args(path);
  let (outcome, (_, spans)) = on_list(text, &directory, &args)?;
  let whole = run_query(text.as_bytes(), &args, THRESHOLD);
  assert_eq!(outcome.as_ref().ok(), whole.as_ref().ok(), "{path}");
  let (_, tape_spans) = run_query_keeping_spans(text.as_bytes(), &args, THRESHOLD, None);
  assert_eq!(Some(spans), tape_spans.map(|(_, spans)| spans), "{path}");
  Some(outcome.expect("answered"))
}

/// Each of `paths` answered through the directory of `text`'s orders as the whole read answers it.
fn answered_through_directory(text: &str, paths: &[&str]) {
  for path in paths {
    assert!(through_directory(text, path).is_some(), "{path}");
  }
}

#[test]
fn a_long_array_of_objects_gets_a_directory_naming_every_member() {
  let text = orders_text(100_000);
  let directory = the_directory(&text);
  assert_eq!(directory.start, text.find('[').unwrap() as u64);
  assert_eq!(
    directory.len as usize,
    text.len() - 1 - directory.start as usize
  );
  let orders: serde_json::Value = serde_json::from_str(&text).unwrap();
  let orders = orders["orders"].as_array().unwrap();
  assert_eq!(directory.items.len(), orders.len());
  let array = &text[directory.start as usize..];
  for (at, order) in orders.iter().enumerate() {
    let item = directory.items[at];
    let parsed: serde_json::Value =
      serde_json::from_str(&array[item.start as usize..item.end as usize]).unwrap();
    assert_eq!(&parsed, order);
    let members: Vec<Member> = directory.members(at).map(Option::unwrap).collect();
    assert_eq!(members.len(), order.as_object().unwrap().len());
    for Member { key, start, end } in members {
      let value: serde_json::Value =
        serde_json::from_str(&array[start as usize..end as usize]).unwrap();
      assert_eq!(order[&directory.keys[usize::from(key)]], value);
    }
  }
  assert_eq!(
    directory.keys,
    ["id", "status", "amount", "sku", "customer", "tags"]
  );
}

#[test]
fn queries_over_the_members_are_answered_as_the_whole_read_answers_them() {
  let text = orders_text(100_000);
  answered_through_directory(
    &text,
    &[
      "$.orders[?@.status=='open' && @.amount > 500]",
      "$.orders[*].sku",
      "$.orders[*]",
      "$.orders[*].*",
      "$.orders[*].tags",
      "$.orders[3:40:3].id",
      "$.orders[?@.amount < 20 || !(@.status != 'returned')]",
      "$.orders[?@.odd]",
      "$.orders[?@.customer]",
      "$.orders[?@.customer == @.tags]",
      "$.orders[?length(@.sku) == 6]",
      "$.orders[?match(@.sku, 'SKU-1.')].amount",
      "$.orders[?@.sku > 'SKU-98']['sku','id']",
      "$.orders[?@.nothing == null]",
    ],
  );
}

#[test]
fn queries_inside_the_members_are_answered_as_the_whole_read_answers_them() {
  let text = orders_text(100_000);
  // Each looks inside a member's array or object, which is read from its text.
  answered_through_directory(
    &text,
    &[
      "$.orders[?length(@.tags) > 3]",
      "$.orders[?count(@.tags[*]) > 3]",
      "$.orders[*].tags[0]",
      "$.orders[*].customer.tags[-1]",
      "$.orders[*].customer['name','tags']",
      "$.orders[?@.customer.name == 'Customer 3']",
      "$.orders[?@.tags[3] == 'odd'].id",
      "$.orders..sku",
      "$.orders..tags[2]",
      "$.orders[?@.customer..tags].id",
    ],
  );
}

#[test]
fn long_lists_of_nodes_shared_with_a_helper_thread_answer_alike() {
  // Over 8 Ki items (what tests share): the filter's candidates, and the nodes `[2]` applies to, are cut in pieces.
  let text = orders_text(2_000_000);
  assert!(the_directory(&text).items.len() > 8 * 1024);
  answered_through_directory(
    &text,
    &[
      "$.orders[?@.status=='open' && @.amount > 500]",
      "$.orders..tags[2]",
      "$.orders[*].customer.tags[1]",
    ],
  );
}

#[test]
fn what_the_route_cannot_read_is_left_to_the_tape() {
  let text = orders_text(100_000);
  // A descendant segment that selects otherwise than by name visits every node.
  for path in ["$.orders..*", "$.orders..[0]", "$.orders[?@..[0]]"] {
    assert_eq!(through_directory(&text, path), None, "{path}");
  }
  // A key repeated in an object (JSON.parse keeps its first place and last value) or with an escape, inside an item.
  for (text, path) in [
    (
      list_of(|i| format!("{{\"a\":{{\"b\":{i},\"b\":2}}}}")),
      "$.list[*].a.b",
    ),
    (
      list_of(|i| format!("{{\"a\":{{\"b\":{i},\"b\":2}}}}")),
      "$.list[*].a.*",
    ),
    (
      list_of(|i| format!("{{\"a\":{{\"b\\u0041\":{i}}}}}")),
      "$.list[*].a.bA",
    ),
  ] {
    let directory = the_directory(&text);
    assert!(on_list(&text, &directory, &args(path)).is_none(), "{path}");
    // Not looking inside them, the route answers.
    assert!(on_list(&text, &directory, &args("$.list[*].a")).is_some());
  }
}

#[test]
fn only_descendants_by_name_may_use_the_directory() {
  for (path, may) in [
    ("$.orders..tags[2]", true),
    ("$.orders[*]..a.b[?@.c > 1]", true),
    ("$.orders[*].sku", true),
    ("$.orders..*", false),
    ("$.orders[?@..[0]]", false),
  ] {
    assert_eq!(may_answer_through_directory(&args(path), 1), may, "{path}");
  }
}

/// The directory route's view of `text`'s one long list, with no limit on passing over text.
fn view_of<'a>(text: &'a str, directory: &'a Directory) -> View<'a> {
  View {
    text: array_of(text, directory),
    directory,
    strayed: AtomicBool::new(false),
    scanned: AtomicU64::new(0),
    scan_limit: u64::MAX,
  }
}

/// Every object of `value` in pre-order, as compact JSON.
fn objects_in_preorder(value: &serde_json::Value, out: &mut Vec<String>) {
  if value.is_object() {
    out.push(value.to_string());
  }
  match value {
    serde_json::Value::Array(items) => items.iter().for_each(|item| objects_in_preorder(item, out)),
    serde_json::Value::Object(members) => members
      .values()
      .for_each(|member| objects_in_preorder(member, out)),
    _ => {}
  }
}

#[test]
fn a_walk_cut_short_charges_for_at_least_the_nodes_it_leaves_out() {
  const NESTED: &str = r#"[[1,2,[3,[4]]],{"a":[5,6],"b":{"c":"{"}},[],"a long string",{"d":[[[]]],"e":{}},[7,{"f":8}]]"#;
  let text = list_of(|i| {
    if i % 2 == 0 {
      format!("{{\"k\":{i}}}")
    } else {
      NESTED.to_string()
    }
  });
  let directory = the_directory(&text);
  let view = view_of(&text, &directory);
  let mut cut = 0;
  let mut objects = Vec::new();
  for (node, left_out) in DirectoryNode::at(&view, Place::Array).preorder_for_names() {
    let value: serde_json::Value = serde_json::from_str(node.text().unwrap()).unwrap();
    let under = crate::core::query::eval::count_nodes(&value) - 1;
    // A scalar has nothing under it to charge for (a long string would spend the budget otherwise).
    assert!(
      left_out == 0 || value.is_array() || value.is_object(),
      "{value}"
    );
    if left_out > 0 && node.described_object().is_none() {
      cut += 1;
      assert!(left_out >= under as u64, "{value}: {left_out} < {under}");
    }
    if node.kind() == Kind::Object {
      objects.push(node.text().unwrap().to_string());
    }
  }
  // In each nested item [1,2,[3,[4]]], {"a":[5,6]…} and {"d":…} are cut short.
  assert!(cut >= 3 * directory.items.len() / 2, "{cut} cut short");
  // Every object is still visited, in order (a `{` inside a string only keeps a walk from being cut).
  let mut expected = Vec::new();
  let array = &text[directory.start as usize..(directory.start + directory.len) as usize];
  objects_in_preorder(&serde_json::from_str(array).unwrap(), &mut expected);
  assert_eq!(objects, expected);
  assert!(!view.strayed.load(Ordering::Relaxed));
}

#[test]
fn a_walk_through_a_list_charges_for_at_least_every_node_of_the_list() {
  let text = list_of(|i| {
    format!("{{\"a\":{i},\"b\":[1,2,3,4,5,6,7,8],\"c\":{{\"d\":[3]}},\"e\":\"{{\",\"f\":[{{\"g\":1}}],\"h\":\"long text\"}}")
  });
  let directory = the_directory(&text);
  let view = view_of(&text, &directory);
  let (mut visited, mut charged) = (0u64, 0u64);
  for (_, left_out) in DirectoryNode::at(&view, Place::Array).preorder_for_names() {
    visited += 1;
    charged += 1 + left_out;
  }
  let array = &text[directory.start as usize..(directory.start + directory.len) as usize];
  let nodes = crate::core::query::eval::count_nodes(&serde_json::from_str(array).unwrap());
  // Of each item's nineteen nodes, five are visited: the item, `c`, `e` (a `{` in its string), `f` and `f[0]`.
  assert!(visited * 2 < nodes, "{visited} of {nodes} visited");
  assert!(charged >= nodes, "{charged} charged for {nodes}");
  assert!(!view.strayed.load(Ordering::Relaxed));
}

#[test]
fn an_item_that_is_not_an_object_has_no_members_and_its_kind_is_read_from_its_text() {
  let mut text = String::from("{\"list\":[");
  for i in 0..12_000 {
    let item = match i % 5 {
      0 => format!("{{\"n\":{i},\"s\":\"x{i}\"}}"),
      1 => format!("[{i},{{\"n\":1}}]"),
      2 => format!("\"text {i}\""),
      3 => "null".to_string(),
      _ => format!("{i}.5"),
    };
    text.push_str(&item);
    text.push(',');
  }
  text.push_str("{}]}");
  let directory = the_directory(&text);
  for path in [
    "$.list[*]",
    "$.list[?@.n > 100]",
    "$.list[*].n",
    "$.list[?@ == null]",
    "$.list[?@ > 2000]",
  ] {
    let args = args(path);
    let (outcome, _) = on_list(&text, &directory, &args)
      .unwrap_or_else(|| panic!("{path} went through the directory"));
    assert_eq!(
      outcome.ok(),
      run_query(text.as_bytes(), &args, THRESHOLD).ok(),
      "{path}"
    );
  }
  // An item that is an array is read from its text.
  let args = args("$.list[*][1].n");
  assert!(on_list(&text, &directory, &args).is_some());
}

/// `{"list":[item(0), item(1), …]}` past 100 KB.
fn list_of(item: impl Fn(usize) -> String) -> String {
  let mut text = String::from("{\"list\":[");
  let mut i = 0;
  while text.len() < 100_000 {
    text.push_str(&item(i));
    text.push(',');
    i += 1;
  }
  text.push_str("null]}");
  text
}

/// [`list_of`] `{"a":i}` items, item `at` being `odd` instead.
fn plain_list_but(at: usize, odd: &str) -> String {
  list_of(|i| {
    if i == at {
      odd.to_string()
    } else {
      format!("{{\"a\":{i}}}")
    }
  })
}

#[test]
fn no_directory_where_it_could_answer_otherwise_than_the_whole_read() {
  let plain = list_of(|i| format!("{{\"a\":{i},\"b\":\"x\"}}"));
  assert_eq!(directories(&plain).len(), 1);
  for (why, text) in [
    (
      "a key with an escape",
      list_of(|i| format!("{{\"a\":{i},\"b\\u0041\":1}}")),
    ),
    (
      "a repeated key",
      list_of(|i| format!("{{\"a\":{i},\"a\":2}}")),
    ),
    (
      "an overflowing number",
      plain_list_but(900, "{\"a\":1e400}"),
    ),
    (
      "an overflowing number deeper",
      plain_list_but(900, "{\"a\":[[-1E+309]]}"),
    ),
    (
      "a long integer",
      plain_list_but(900, &format!("{{\"a\":{}}}", "9".repeat(400))),
    ),
    ("too many keys", list_of(|i| format!("{{\"k{i}\":1}}"))),
    (
      "an item of over 64 KiB",
      plain_list_but(10, &format!("{{\"a\":\"{}\"}}", "x".repeat(70_000))),
    ),
    (
      "nesting too deep",
      plain_list_but(
        10,
        &format!("{{\"a\":{}{}}}", "[".repeat(100), "]".repeat(100)),
      ),
    ),
    ("no object", list_of(|i| format!("[{i}]"))),
  ] {
    assert_eq!(directories(&text).len(), 0, "{why}");
  }
  // Escapes in values, small numbers with exponents and nesting within bounds keep it.
  for text in [
    list_of(|i| format!("{{\"a\":\"\\\"{i}\\n\",\"b\":1.5e3,\"c\":-2E-300}}")),
    list_of(|i| format!("{{\"a\":{}{i}{}}}", "[".repeat(60), "]".repeat(60))),
  ] {
    assert_eq!(directories(&text).len(), 1);
  }
}

#[test]
fn strings_with_escapes_compare_decoded() {
  let text = list_of(|i| format!("{{\"a\":\"\\u0041{}\",\"n\":{i}}}", i % 3));
  let directory = the_directory(&text);
  let args = args("$.list[?@.a == 'A1'].n");
  let (outcome, _) = on_list(&text, &directory, &args).unwrap();
  assert_eq!(
    outcome.as_ref().ok(),
    run_query(text.as_bytes(), &args, THRESHOLD).as_ref().ok()
  );
  assert!(outcome.unwrap().contains("\"total\":"));
}

#[test]
fn damaged_or_foreign_directories_are_not_read() {
  let text = orders_text(100_000);
  let bytes = directories(&text).remove(0).1;
  assert!(Directory::decode(bytes.clone()).is_some());
  for cut in [0, 4, 5, 9, bytes.len() / 2, bytes.len() - 1] {
    assert!(
      Directory::decode(bytes[..cut].to_vec()).is_none(),
      "cut at {cut}"
    );
  }
  let mut version = bytes.clone();
  version[4] = 2;
  assert!(Directory::decode(version).is_none());
  let mut longer = bytes.clone();
  longer.push(0);
  assert!(Directory::decode(longer).is_none());
  // A member that does not read back (a key number past the keys) makes the route give up, not answer.
  let directory = Directory::decode(bytes.clone()).unwrap();
  let first = directory.items[0].members as usize;
  let mut unknown_key = bytes.clone();
  unknown_key[first] = 200;
  let damaged = Directory::decode(unknown_key).expect("its items still list");
  let first_id = args("$.orders[?@.id == 0]");
  assert!(on_list(&text, &directory, &first_id).is_some());
  assert!(on_list(&text, &damaged, &first_id).is_none());
  // A directory of another array (another length) is not used for this one.
  let args = args("$.orders[*].sku");
  let array = array_of(&text, &directory);
  assert!(
    run_directory_query(&array[..array.len() - 1], &directory, 1, &args, THRESHOLD).is_none()
  );
}

#[tokio::test]
async fn a_directory_is_kept_for_its_owner_beside_the_index_and_removed_with_the_answer() {
  use crate::core::store::counting::Counting;
  use crate::core::store::Owner;
  let text = orders_text(100_000);
  let built = build_index_and_directories(&text, IndexSettings::DEFAULT, false).unwrap();
  let (start, kept) = built.directories[0].clone();
  let (backend, store) = Counting::store();
  let (me, other) = (
    Owner::new(Some("s".into()), None),
    Owner::new(Some("t".into()), None),
  );
  let handle = crate::core::store::HandleStore::new_handle();
  store.save(&handle, text.as_bytes(), &me).await.unwrap();
  store
    .save_index_and_directories(&handle, built, &me)
    .await
    .unwrap();
  assert_eq!(
    backend.inner.len(),
    3,
    "the answer, its index and one directory"
  );
  assert_eq!(
    read_directory(&store, &handle, &me, start).await,
    Some(kept)
  );
  assert_eq!(read_directory(&store, &handle, &other, start).await, None);
  assert_eq!(read_directory(&store, &handle, &me, start + 1).await, None);
  // Sealed: the backend holds no member name in the clear.
  assert!(backend
    .inner
    .snapshot()
    .iter()
    .all(|(_, value)| !value.windows(8).any(|w| w == b"customer")));
  assert!(store.delete(&handle, &me).await.unwrap());
  assert_eq!(read_directory(&store, &handle, &me, start).await, None);
  assert_eq!(backend.inner.len(), 0);
}

/// The directory as `answer_from_fragment` reads it: unopened, then opened.
async fn read_directory(
  store: &HandleStore,
  handle: &str,
  owner: &Owner,
  start: u64,
) -> Option<Vec<u8>> {
  store
    .read_directory_unopened(handle, owner, start)
    .await
    .unwrap()
    .and_then(UnopenedAnswer::open)
}
