//! The built-in functions: all of the JMESPath specification's (jmespath.org/specification.html, "Built-in
//! Functions"), and `group_by` (JEP-18), `items` and `from_items` (JEP-13) as JMESPath Community defines them
//! (jmespath-community/jmespath.spec, functions/*.yml). An argument of the wrong type is an error, as the
//! specification asks; sums and averages add in order in doubles, as JS does.

use std::borrow::Cow;
use std::rc::Rc;

use indexmap::IndexMap;
use serde_json::{Number, Value};

use super::compile::Expr;
use super::eval::Eval;
use super::invalid;
use super::value::{order, to_value, Obj, Type, Val};
use crate::core::error::{CoreError, CoreResult};
use crate::core::json::write::write_value;

/// Declares [`Function`] and [`FUNCTIONS`], each function's name and the fewest and most arguments it takes.
macro_rules! functions {
  ($($variant:ident $name:literal $fewest:literal $most:expr),* $(,)?) => {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Function { $($variant),* }
    const FUNCTIONS: &[(&str, Function, usize, usize)] = &[$(($name, Function::$variant, $fewest, $most)),*];
  };
}

const ANY: usize = usize::MAX;

functions! {
  Abs "abs" 1 1, Avg "avg" 1 1, Ceil "ceil" 1 1, Contains "contains" 2 2, EndsWith "ends_with" 2 2,
  Floor "floor" 1 1, FromItems "from_items" 1 1, GroupBy "group_by" 2 2, Items "items" 1 1, Join "join" 2 2,
  Keys "keys" 1 1, Length "length" 1 1, Map "map" 2 2, Max "max" 1 1, MaxBy "max_by" 2 2, Merge "merge" 1 ANY,
  Min "min" 1 1, MinBy "min_by" 2 2, NotNull "not_null" 1 ANY, Reverse "reverse" 1 1, Sort "sort" 1 1,
  SortBy "sort_by" 2 2, StartsWith "starts_with" 2 2, Sum "sum" 1 1, ToArray "to_array" 1 1,
  ToNumber "to_number" 1 1, ToString "to_string" 1 1, Type "type" 1 1, Values "values" 1 1,
}

impl Function {
  /// The function `name`, when it takes `count` arguments.
  pub(super) fn resolve(name: &str, count: usize) -> CoreResult<Function> {
    let Some(&(name, function, fewest, most)) = FUNCTIONS.iter().find(|entry| entry.0 == name)
    else {
      let names: Vec<&str> = FUNCTIONS.iter().map(|entry| entry.0).collect();
      return Err(invalid(
        "expression calls an unknown function.".into(),
        &format!("Call one of JMESPath's functions: {}.", names.join(", ")),
      ));
    };
    if count < fewest || count > most {
      let takes = match (fewest, most) {
        (n, m) if n == m => format!("{n}"),
        (n, _) => format!("at least {n}"),
      };
      return Err(invalid(
        format!("expression calls {name}() with {count} arguments; it takes {takes}."),
        "Pass the arguments the function's signature lists (jmespath.org/specification.html).",
      ));
    }
    Ok(function)
  }

  fn name(self) -> &'static str {
    FUNCTIONS
      .iter()
      .find(|entry| entry.1 == self)
      .map_or("", |entry| entry.0)
  }

  /// Whether argument `at` is an expression reference (`&price`) rather than a value.
  fn takes_ref(self, at: usize) -> bool {
    use Function::*;
    matches!((self, at), (Map, 0) | (MaxBy | MinBy | SortBy | GroupBy, 1))
  }
}

/// The evaluated arguments of one call, read by type.
struct Args<'v, 'a> {
  function: Function,
  values: &'v [Val<'a>],
}

impl<'v, 'a> Args<'v, 'a> {
  fn at(&self, at: usize) -> &'v Val<'a> {
    &self.values[at]
  }

  fn wrong(&self, at: usize, expected: &str) -> CoreError {
    wrong_type(self.function, at, expected, self.values[at].kind())
  }

  /// Argument `at` read by `read`, or an error saying it should be `expected`.
  fn get<T>(
    &self,
    at: usize,
    expected: &str,
    read: impl FnOnce(&'v Val<'a>) -> Option<T>,
  ) -> CoreResult<T> {
    read(self.at(at)).ok_or_else(|| self.wrong(at, expected))
  }

  fn expression(&self, at: usize) -> &'a Expr {
    match self.at(at) {
      Val::Ref(expr) => expr,
      _ => &Expr::Identity,
    }
  }
}

fn wrong_type(function: Function, at: usize, expected: &str, got: Type) -> CoreError {
  invalid(
    format!(
      "expression passes {}() a value of type {} as argument {}; it expects {expected}.",
      function.name(),
      got.name(),
      at + 1
    ),
    "Pass what the function's signature lists (jmespath.org/specification.html; group_by, items and from_items: \
     jmespath.site); convert with to_number, to_string or to_array, or leave out other values with a filter.",
  )
}

impl Eval {
  pub(super) fn call<'a>(
    &mut self,
    function: Function,
    args: &'a [Expr],
    current: &Val<'a>,
  ) -> CoreResult<Val<'a>> {
    let mut values = Vec::with_capacity(args.len());
    for (at, arg) in args.iter().enumerate() {
      let value = self.eval(arg, current)?;
      if matches!(value, Val::Ref(_)) != function.takes_ref(at) {
        let expected = match function.takes_ref(at) {
          true => "an expression reference (&…)",
          false => "a value, not an expression reference",
        };
        return Err(wrong_type(function, at, expected, value.kind()));
      }
      values.push(value);
    }
    let args = Args {
      function,
      values: &values,
    };
    use Function::*;
    match function {
      Abs | Avg | Ceil | Floor | Sum | ToNumber | Type | NotNull => self.numeric(&args),
      Contains | EndsWith | StartsWith | Join | Length | Reverse | ToString | ToArray => {
        self.textual(&args)
      }
      FromItems | Items | Keys | Values | Merge => self.objects(&args),
      Max | Min | Sort => self.ordered(&args),
      GroupBy | Map | MaxBy | MinBy | SortBy => self.by_expression(&args),
    }
  }

  fn numeric<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    Ok(match args.function {
      Function::Abs => Val::Num(args.get(0, "a number", Val::number)?.abs()),
      Function::Ceil => Val::Num(args.get(0, "a number", Val::number)?.ceil()),
      Function::Floor => Val::Num(args.get(0, "a number", Val::number)?.floor()),
      Function::Avg | Function::Sum => {
        let items = args.get(0, "an array", Val::array)?;
        self.budget.step(items.len() as u64)?;
        let mut sum = 0.0;
        for item in items.iter() {
          sum += item
            .number()
            .ok_or_else(|| args.wrong(0, "an array of numbers"))?;
        }
        match (args.function, items.len()) {
          (Function::Avg, 0) => Val::Null,
          (Function::Avg, n) => Val::Num(sum / n as f64),
          _ => Val::Num(sum),
        }
      }
      Function::ToNumber => match args.at(0) {
        text if text.kind() == Type::String => to_number(text.string().unwrap_or_default()),
        number if number.kind() == Type::Number => number.clone(),
        _ => Val::Null,
      },
      Function::Type => Val::Str(Rc::from(args.at(0).kind().name())),
      _ => args
        .values
        .iter()
        .find(|value| !value.is_null())
        .cloned()
        .unwrap_or(Val::Null),
    })
  }

  fn textual<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    let subject = args.at(0);
    Ok(match args.function {
      Function::Contains => match (subject.array(), subject.string()) {
        (Some(items), _) => {
          let mut found = false;
          for item in items.iter() {
            if super::value::equal(&item, args.at(1), &mut self.budget)? {
              found = true;
              break;
            }
          }
          Val::Bool(found)
        }
        (_, Some(text)) => {
          self.budget.step(text.len() as u64 / 64)?;
          Val::Bool(args.at(1).string().is_some_and(|part| text.contains(part)))
        }
        _ => return Err(args.wrong(0, "an array or a string")),
      },
      Function::EndsWith => Val::Bool(args.get(0, "a string", Val::string)?.ends_with(args.get(
        1,
        "a string",
        Val::string,
      )?)),
      Function::StartsWith => Val::Bool(
        args
          .get(0, "a string", Val::string)?
          .starts_with(args.get(1, "a string", Val::string)?),
      ),
      Function::Join => self.join(args)?,
      Function::Length => {
        let length = match (subject.string(), subject.array(), subject.object()) {
          (Some(text), _, _) => {
            self.budget.step(text.len() as u64 / 64)?;
            text.chars().count()
          }
          (_, Some(items), _) => items.len(),
          (_, _, Some(entries)) => entries.len(),
          _ => return Err(args.wrong(0, "a string, an array or an object")),
        };
        Val::Num(length as f64)
      }
      Function::Reverse => match (subject.string(), subject.array()) {
        (Some(text), _) => {
          self.budget.build(text.len() as u64)?;
          Val::Str(text.chars().rev().collect::<String>().into())
        }
        (_, Some(items)) => {
          let mut items = items.to_vec(&mut self.budget)?;
          items.reverse();
          Val::list(items)
        }
        _ => return Err(args.wrong(0, "an array or a string")),
      },
      Function::ToString => match subject.string() {
        Some(_) => subject.clone(),
        None => {
          let value = to_value(subject, &mut self.budget)?;
          let mut text = String::new();
          write_value(&mut text, &value, None);
          self.budget.build(text.len() as u64)?;
          Val::Str(text.into())
        }
      },
      _ => match subject.array() {
        Some(_) => subject.clone(),
        None => Val::list(vec![subject.clone()]),
      },
    })
  }

  fn join<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    let glue = args.get(0, "a string", Val::string)?;
    let items = args.get(1, "an array", Val::array)?;
    let mut length = 0;
    for item in items.iter() {
      let text = item
        .string()
        .ok_or_else(|| args.wrong(1, "an array of strings"))?;
      length += text.len() + glue.len();
    }
    self.budget.step(items.len() as u64)?;
    self.budget.build(length as u64)?;
    let mut out = String::with_capacity(length);
    for (at, item) in items.iter().enumerate() {
      if at > 0 {
        out.push_str(glue);
      }
      out.push_str(item.string().unwrap_or_default());
    }
    Ok(Val::Str(out.into()))
  }

  fn objects<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    if args.function == Function::FromItems {
      return self.object_of_pairs(args);
    }
    if args.function == Function::Merge {
      let mut merged = Obj::new();
      for at in 0..args.values.len() {
        let entries = args.get(at, "an object", Val::object)?;
        self.budget.step(entries.len() as u64)?;
        self.built(entries.len())?;
        merged.extend(entries.iter());
      }
      return Ok(Val::Obj(Rc::new(merged)));
    }
    let entries = args.get(0, "an object", Val::object)?;
    self.budget.step(entries.len() as u64)?;
    self.built(entries.len() * 3)?;
    let key = |key: Cow<str>| Val::Str(Rc::from(key.as_ref()));
    Ok(Val::list(match args.function {
      Function::Keys => entries.iter().map(|(name, _)| key(name)).collect(),
      Function::Values => entries.iter().map(|(_, value)| value).collect(),
      _ => entries
        .iter()
        .map(|(name, value)| Val::list(vec![key(name), value]))
        .collect(),
    }))
  }

  fn object_of_pairs<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    let pairs = args.get(0, "an array", Val::array)?;
    self.budget.step(pairs.len() as u64)?;
    self.built(pairs.len())?;
    let mut members = Obj::with_capacity(pairs.len());
    for pair in pairs.iter() {
      let pair_items = pair.array().filter(|items| items.len() == 2);
      let key = pair_items.and_then(|items| key_of(&items.get(0)?));
      let (Some(items), Some(key)) = (pair_items, key) else {
        return Err(args.wrong(0, "an array of [key, value] pairs whose keys are strings"));
      };
      members.insert(key, items.get(1).unwrap_or(Val::Null));
    }
    Ok(Val::Obj(Rc::new(members)))
  }

  /// `max`, `min` and `sort`: over numbers or strings, never both.
  fn ordered<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    let items = args
      .get(0, "an array", Val::array)?
      .to_vec(&mut self.budget)?;
    let expected = "an array of numbers or an array of strings";
    same_orderable_type(&items).ok_or_else(|| args.wrong(0, expected))?;
    self.sorted_or_extreme(args.function, items.clone(), items)
  }

  fn by_expression<'a>(&mut self, args: &Args<'_, 'a>) -> CoreResult<Val<'a>> {
    let (at, expr) = match args.function {
      Function::Map => (1, args.expression(0)),
      _ => (0, args.expression(1)),
    };
    let items = args
      .get(at, "an array", Val::array)?
      .to_vec(&mut self.budget)?;
    let keys = items
      .iter()
      .map(|item| self.eval(expr, item))
      .collect::<CoreResult<Vec<_>>>()?;
    match args.function {
      Function::Map => Ok(Val::list(keys)),
      Function::GroupBy => self.group_by(args, items, keys),
      function => {
        let expected = "an expression giving numbers or strings (never both)";
        let key_type = same_orderable_type(&keys);
        key_type.ok_or_else(|| wrong_type(function, 1, expected, first_odd_type(&keys)))?;
        self.sorted_or_extreme(function, items, keys)
      }
    }
  }

  /// `items` sorted by `keys` (stable), or the item with the largest or smallest key (the first of equals).
  fn sorted_or_extreme<'a>(
    &mut self,
    function: Function,
    items: Vec<Val<'a>>,
    keys: Vec<Val<'a>>,
  ) -> CoreResult<Val<'a>> {
    let by_key =
      |a: &usize, b: &usize| order(&keys[*a], &keys[*b]).unwrap_or(std::cmp::Ordering::Equal);
    let mut indexes: Vec<usize> = (0..items.len()).collect();
    let n = items.len() as u64;
    let picked = match function {
      Function::Sort | Function::SortBy => {
        // A sort cannot be stopped part way: it is paid for before it starts.
        self.budget.step(n * u64::from(64 - n.leading_zeros()))?;
        self.built(items.len())?;
        indexes.sort_by(by_key);
        return Ok(Val::list(
          indexes.into_iter().map(|at| items[at].clone()).collect(),
        ));
      }
      Function::Max | Function::MaxBy => {
        indexes
          .into_iter()
          .reduce(|best, at| match by_key(&at, &best) {
            std::cmp::Ordering::Greater => at,
            _ => best,
          })
      }
      _ => indexes
        .into_iter()
        .reduce(|best, at| match by_key(&at, &best) {
          std::cmp::Ordering::Less => at,
          _ => best,
        }),
    };
    self.budget.step(n)?;
    Ok(picked.map_or(Val::Null, |at| items[at].clone()))
  }

  /// JEP-18: objects grouped under the string their key expression gives; a null key leaves the object out.
  fn group_by<'a>(
    &mut self,
    args: &Args<'_, 'a>,
    items: Vec<Val<'a>>,
    keys: Vec<Val<'a>>,
  ) -> CoreResult<Val<'a>> {
    let mut groups: IndexMap<Cow<'a, str>, Vec<Val<'a>>> = IndexMap::new();
    for (item, key) in items.into_iter().zip(keys) {
      if item.kind() != Type::Object {
        return Err(args.wrong(0, "an array of objects"));
      }
      if key.is_null() {
        continue;
      }
      let key_type = key.kind();
      let key = key_of(&key).ok_or_else(|| {
        wrong_type(
          Function::GroupBy,
          1,
          "an expression giving strings",
          key_type,
        )
      })?;
      self.built(1)?;
      groups.entry(key).or_default().push(item);
    }
    let groups = groups
      .into_iter()
      .map(|(key, items)| (key, Val::list(items)));
    Ok(Val::Obj(Rc::new(groups.collect())))
  }
}

/// A string value as an object key, borrowed from the input when it lies there.
fn key_of<'a>(value: &Val<'a>) -> Option<Cow<'a, str>> {
  match value {
    Val::Node(Value::String(text)) => Some(Cow::Borrowed(text.as_str())),
    Val::Str(text) => Some(Cow::Owned(text.to_string())),
    _ => None,
  }
}

/// The one type all `values` share when it is number or string (`Some(None)` for no values).
fn same_orderable_type(values: &[Val]) -> Option<Option<Type>> {
  let Some(first) = values.first() else {
    return Some(None);
  };
  let kind = first.kind();
  let orderable = matches!(kind, Type::Number | Type::String);
  (orderable && values.iter().all(|value| value.kind() == kind)).then_some(Some(kind))
}

/// The type that breaks [`same_orderable_type`], for the message.
fn first_odd_type(values: &[Val]) -> Type {
  let first = values.first().map_or(Type::Null, Val::kind);
  if !matches!(first, Type::Number | Type::String) {
    return first;
  }
  values
    .iter()
    .map(Val::kind)
    .find(|kind| *kind != first)
    .unwrap_or(first)
}

/// A string read as a JSON number (nothing around it); null when it is not one or JS could not hold it.
fn to_number<'a>(text: &str) -> Val<'a> {
  let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace());
  match serde_json::from_str::<Number>(text) {
    Ok(number) if trimmed.len() == text.len() => number.as_f64().map_or(Val::Null, Val::Num),
    _ => Val::Null,
  }
}
