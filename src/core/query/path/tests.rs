//! The path forms: which text is which form, the steps it names, and what is refused.

use super::*;

fn steps(path: &str) -> Option<Vec<Step>> {
  match parse_path(path) {
    Ok((_, ParsedPath::Steps(steps))) => Some(steps),
    _ => None,
  }
}

fn member(key: &str, index: Option<i64>) -> Step {
  Step::Member {
    key: key.to_string(),
    index,
  }
}

#[test]
fn root_forms() {
  assert!(matches!(parse_path(""), Ok((PathForm::Root, _))));
  assert!(matches!(parse_path("$"), Ok((PathForm::Root, _))));
  assert_eq!(steps("$"), Some(vec![]));
  assert!(matches!(parse_path("/"), Ok((PathForm::Pointer, _))));
  assert!(matches!(parse_path("a"), Ok((PathForm::Simple, _))));
}

#[test]
fn dot_paths() {
  let expected = vec![
    member("orders", None),
    member("2", Some(2)),
    member("note", None),
  ];
  assert_eq!(steps("orders.2.note"), Some(expected.clone()));
  assert_eq!(steps("$.orders.2.note"), Some(expected));
  assert_eq!(
    steps("$.orders[2].note"),
    Some(vec![
      member("orders", None),
      Step::Index(2),
      member("note", None)
    ])
  );
  assert_eq!(
    steps("$.orders.-1"),
    Some(vec![member("orders", None), member("-1", Some(-1))])
  );
  assert_eq!(
    steps("a.02"),
    Some(vec![member("a", None), member("02", None)])
  );
  assert_eq!(
    steps("$.content-type"),
    Some(vec![member("content-type", None)])
  );
  assert_eq!(
    steps("[0].a"),
    Some(vec![Step::Index(0), member("a", None)])
  );
  assert_eq!(steps(".a"), Some(vec![member("a", None)]));
}

#[test]
fn bracket_names_and_blanks() {
  assert_eq!(steps("$['a.b']"), Some(vec![Step::Key("a.b".into())]));
  assert_eq!(steps("$[\"x y\"]"), Some(vec![Step::Key("x y".into())]));
  assert_eq!(
    steps("$[ 'a' ] [ -1 ]"),
    Some(vec![Step::Key("a".into()), Step::Index(-1)])
  );
  assert_eq!(
    steps("$['\\u263A\\'\"']"),
    Some(vec![Step::Key("☺'\"".into())])
  );
  assert_eq!(
    steps("$[\"\\uD834\\uDD1E\"]"),
    Some(vec![Step::Key("𝄞".into())])
  );
  assert_eq!(steps("$[\"\\\"\"]"), Some(vec![Step::Key("\"".into())]));
  // Not simple paths: `\"` in a single-quoted name, `\'` in a double-quoted one, a lone surrogate, short hex.
  for text in [
    "$['\\\"']",
    "$[\"\\'\"]",
    "$['\\uD834']",
    "$['\\uDD1E\\uD834']",
    "$['\\u12g4']",
  ] {
    assert_eq!(steps(text), None, "{text}");
  }
}

#[test]
fn pointers() {
  assert_eq!(steps("/"), Some(vec![member("", None)]));
  assert_eq!(
    steps("/a~1b/m~0n/0"),
    Some(vec![
      member("a/b", None),
      member("m~n", None),
      member("0", Some(0))
    ])
  );
  assert_eq!(
    steps("/a/-1"),
    Some(vec![member("a", None), member("-1", None)])
  );
  assert_eq!(
    steps("/a/01"),
    Some(vec![member("a", None), member("01", None)])
  );
  let error = parse_path("/a~2").expect_err("bad escape");
  assert_eq!(error.code, ErrorCode::PathNotFound);
  assert!(error.remedy.as_deref().is_some_and(|r| r.contains("~1")));
}

#[test]
fn queries_that_select_several_nodes() {
  for path in [
    "$.*",
    "$..a",
    "$[0,1]",
    "$[1:3]",
    "$[?@.a > 1]",
    "orders[*].id",
    "..a",
    "[*]",
  ] {
    assert!(
      matches!(parse_path(path), Ok((PathForm::Query, _))),
      "{path}"
    );
  }
}

#[test]
fn not_paths() {
  for path in [
    "$ ",
    " $",
    "$. a",
    "$.a b",
    "$[01]",
    "$[-0]",
    "$['a]",
    "$[\"\\uD800\"]",
    "$.a..",
    "$.'a'",
    "$[?]",
  ] {
    let error = parse_path(path).expect_err(path);
    assert_eq!(error.code, ErrorCode::PathNotFound, "{path}");
    assert!(
      error
        .remedy
        .as_deref()
        .is_some_and(|r| r.contains("JSON pointer")),
      "{path}"
    );
  }
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
  let deep = format!("$[?{}@.a{}]", "(".repeat(5000), ")".repeat(5000));
  let error = parse_path(&deep).expect_err("too deep");
  assert_eq!(error.code, ErrorCode::PathNotFound);
  assert!(error
    .remedy
    .as_deref()
    .is_some_and(|r| r.contains("at most 64")));
  let nested = format!("$[?{}@.a{}]", "@[?".repeat(6), "]".repeat(6));
  let error = parse_path(&nested).expect_err("filters too deep");
  assert!(error
    .remedy
    .as_deref()
    .is_some_and(|r| r.contains("filters inside filters at most 6")));
  let nested = format!("$[?{}@.a{}]", "count(@[1, ?".repeat(6), "])>0".repeat(6));
  assert!(parse_path(&nested).is_err());
  // Sibling filters and filters in a selector list do not nest.
  let siblings = format!("$.a{}", "[?@.x > 1, ?@.y]".repeat(10));
  assert!(parse_path(&siblings).is_ok());
  let five = format!("$[?{}@['?,]']{}]", "@[?".repeat(5), "]".repeat(5));
  assert!(parse_path(&five).is_ok());
  let fine = format!("$[?{}@.a == 1{}]", "(".repeat(63), ")".repeat(63));
  let started = std::time::Instant::now();
  assert!(parse_path(&fine).is_ok());
  eprintln!("63 nested parentheses parsed in {:?}", started.elapsed());
}

#[test]
fn normalized_form_escapes() {
  let elements = vec![
    PathElement::Name("a'b\\c\u{1}\u{1f}\n".into()),
    PathElement::Index(3),
  ];
  assert_eq!(
    normalized_path(&elements),
    "$['a\\'b\\\\c\\u0001\\u001f\\n'][3]"
  );
}
