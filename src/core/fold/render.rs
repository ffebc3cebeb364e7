//! Writes the preview and the shape from the skeleton, shrinking step by step until both fit.
//!
//! Step 0 uses the configured preview. Each later step lowers every limit a little (strings halve, then lists,
//! object keys and depth); the last two steps keep one level, then only the top value's type and size. Every
//! step stops writing as soon as the budget is passed, so a step costs at most about the budget.

use super::canonical::array_index;
use super::nodes::{ArrayNode, MergeKey, MergeSrc, Node, ObjectNode, Src};
use super::skeleton::{Skeleton, MAX_DEPTH, MAX_KEY_UNITS};
use crate::core::json::decode::{cut_units, utf16_len};
use crate::core::json::scan::RawStr;
use crate::core::json::write::{push_escaped_units, quoted};
use crate::core::json::Kind;

/// The limits of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
  pub items: usize,
  pub chars: usize,
  /// Keys shown per object.
  pub keys: usize,
  /// Container levels shown (the answer itself is level 0).
  pub depth: usize,
  /// Longer keys are left out.
  pub key_units: usize,
}

/// Steps after the configured one.
pub(crate) const LAST_STEP: usize = 13;
/// Strings shrink to no fewer characters than this before the last two steps.
const MIN_CHARS: usize = 16;

/// The limits of step `step` for a configured preview of `items` items and `chars` characters.
pub(crate) fn params(step: usize, items: usize, chars: usize) -> Params {
  match step {
    0 => Params {
      items,
      chars,
      keys: usize::MAX,
      depth: MAX_DEPTH,
      key_units: MAX_KEY_UNITS,
    },
    s if s >= LAST_STEP => Params {
      items: 0,
      chars: 0,
      keys: 0,
      depth: 0,
      key_units: 0,
    },
    s if s == LAST_STEP - 1 => Params {
      items: 1,
      chars: 0,
      keys: 0,
      depth: 1,
      key_units: 0,
    },
    s => {
      let half_steps = (s as u32).div_ceil(2);
      Params {
        items: (items >> half_steps).max(1).min(items),
        chars: (chars >> s).max(MIN_CHARS.min(chars)),
        keys: (1024usize >> s).max(4),
        depth: (MAX_DEPTH >> half_steps).max(2),
        key_units: (MAX_KEY_UNITS >> s).max(MIN_CHARS),
      }
    }
  }
}

struct Overflow;

struct Writer<'a> {
  buf: String,
  limit: usize,
  p: &'a Params,
  /// Something was left out or summarized.
  marked: bool,
}

type Step = Result<(), Overflow>;

impl Writer<'_> {
  fn push(&mut self, s: &str) -> Step {
    self.buf.push_str(s);
    self.check()
  }

  fn check(&self) -> Step {
    if self.buf.len() > self.limit {
      Err(Overflow)
    } else {
      Ok(())
    }
  }

  fn number(&mut self, n: usize) -> Step {
    self.push(itoa::Buffer::new().format(n))
  }

  fn key_fits(&self, key: &str) -> bool {
    let units = utf16_len(RawStr {
      raw: key,
      escaped: key.contains('\\'),
    });
    units <= self.p.key_units
  }

  fn key(&mut self, key: &str) -> Step {
    self.push("\"")?;
    self.push(key)?;
    self.push("\":")
  }

  /// Writes the entries of `object` a preview or shape shows (at most `keys`, keys that fit), each value with
  /// `value`; returns how many it wrote.
  fn entries(
    &mut self,
    object: &ObjectNode,
    mut value: impl FnMut(&mut Self, &Node) -> Step,
  ) -> Result<usize, Overflow> {
    let mut shown = 0;
    for entry in &object.entries {
      if shown == self.p.keys {
        break;
      }
      if !self.key_fits(&entry.key) {
        continue;
      }
      if shown > 0 {
        self.push(",")?;
      }
      self.key(&entry.key)?;
      value(self, &entry.value)?;
      shown += 1;
    }
    Ok(shown)
  }

  fn truncated(&mut self) -> Step {
    self.marked = true;
    self.push(",\"truncated\":true")
  }

  // ─── preview ──────────────────────────────────────────────────────────────

  fn preview(&mut self, node: &Node, depth: usize) -> Step {
    match node {
      Node::Null => self.push("null"),
      Node::Bool(b) => self.push(if *b { "true" } else { "false" }),
      Node::Number(text) => self.push(text),
      Node::Str(s) => {
        self.buf.push('"');
        push_escaped_units(cut_units(&s.prefix, self.p.chars), &mut self.buf);
        self.push("\"")
      }
      Node::Array(list) => {
        if list.cut || depth >= self.p.depth {
          self.marked |= list.len > 0;
          return self.push("[]");
        }
        self.push("[")?;
        for (i, item) in list.items.iter().take(self.p.items).enumerate() {
          if i > 0 {
            self.push(",")?;
          }
          self.preview(item, depth + 1)?;
        }
        self.push("]")
      }
      Node::Object(object) => {
        if object.cut || depth >= self.p.depth {
          self.marked |= object.len > 0;
          return self.push("{}");
        }
        self.push("{")?;
        let shown = self.entries(object, |this, value| this.preview(value, depth + 1))?;
        self.marked |= shown < object.len;
        self.push("}")
      }
    }
  }

  // ─── shape ────────────────────────────────────────────────────────────────

  fn shape(&mut self, node: &Node, depth: usize) -> Step {
    match node {
      Node::Null => self.push("{\"type\":\"null\"}"),
      Node::Bool(_) => self.push("{\"type\":\"boolean\"}"),
      Node::Number(_) => self.push("{\"type\":\"number\"}"),
      Node::Str(s) => {
        self.push("{\"type\":\"string\",\"length\":")?;
        self.number(s.units)?;
        self.push("}")
      }
      Node::Array(list) => self.array_shape(list, depth),
      Node::Object(object) => self.object_shape(object, depth),
    }
  }

  fn array_shape(&mut self, list: &ArrayNode, depth: usize) -> Step {
    self.push("{\"type\":\"array\",\"length\":")?;
    self.number(list.len)?;
    if list.len > 0 {
      if list.cut || depth >= self.p.depth || list.kinds.is_empty() {
        self.truncated()?;
      } else {
        self.push(",\"items\":")?;
        self.items_shape(list, depth + 1)?;
      }
    }
    self.push("}")
  }

  /// The shape of a list's items: the first item's, or `{"anyOf":[…]}` with the first item of each type.
  fn items_shape(&mut self, list: &ArrayNode, depth: usize) -> Step {
    if list.kinds.len() == 1 {
      return self.member_shape(list, 0, depth);
    }
    self.push("{\"anyOf\":[")?;
    for slot in 0..list.kinds.len() {
      if slot > 0 {
        self.push(",")?;
      }
      self.member_shape(list, slot, depth)?;
    }
    self.push("]}")
  }

  fn member_shape(&mut self, list: &ArrayNode, slot: usize, depth: usize) -> Step {
    let Some((kind, src)) = list.kinds.get(slot) else {
      return Ok(());
    };
    let node = match src {
      Src::Item(i) => list.items.get(*i),
      Src::Own(node) => Some(node),
      Src::Missing => None,
    };
    match (node, &list.merge) {
      (Some(_), Some(merge)) if *kind == Kind::Object && merge.objects > 1 => {
        self.merged_shape(list, depth)
      }
      (Some(node), _) => self.shape(node, depth),
      (None, _) => {
        self.push("{\"type\":\"")?;
        self.push(kind.name())?;
        self.push("\"")?;
        self.truncated()?;
        self.push("}")
      }
    }
  }

  /// The object items of a list, merged: every key seen (first item's order, then new keys as they appear),
  /// each described by the first item that has it, `"optional":true` when some object items lack it.
  fn merged_shape(&mut self, list: &ArrayNode, depth: usize) -> Step {
    let Some(merge) = &list.merge else {
      return Ok(());
    };
    if depth >= self.p.depth {
      self.push("{\"type\":\"object\"")?;
      self.truncated()?;
      return self.push("}");
    }
    self.push("{\"type\":\"object\",\"keys\":{")?;
    let mut shown = 0;
    for merged in js_key_order(&merge.keys) {
      if shown == self.p.keys {
        break;
      }
      if !self.key_fits(&merged.key) {
        continue;
      }
      if shown > 0 {
        self.push(",")?;
      }
      self.key(&merged.key)?;
      match merged_value(list, &merged.src) {
        Some(value) => self.shape(value, depth + 1)?,
        None => {
          self.push("{")?;
          self.marked = true;
          self.push("\"truncated\":true}")?;
        }
      }
      if merged.count < merge.objects {
        self.buf.pop();
        self.push(",\"optional\":true}")?;
      }
      shown += 1;
    }
    self.push("}")?;
    if shown < merge.keys.len() || merge.incomplete {
      self.truncated()?;
    }
    self.push("}")
  }

  fn object_shape(&mut self, object: &ObjectNode, depth: usize) -> Step {
    if object.len == 0 {
      return self.push("{\"type\":\"object\",\"keys\":{}}");
    }
    if object.cut || depth >= self.p.depth {
      self.push("{\"type\":\"object\",\"keyCount\":")?;
      self.number(object.len)?;
      self.truncated()?;
      return self.push("}");
    }
    self.push("{\"type\":\"object\",\"keys\":{")?;
    let shown = self.entries(object, |this, value| this.shape(value, depth + 1))?;
    self.push("}")?;
    if shown < object.len {
      self.push(",\"keyCount\":")?;
      self.number(object.len)?;
      self.truncated()?;
    }
    self.push("}")
  }
}

/// Merged keys in the order a JS object would list them: array indices first, ascending, then the rest in
/// first-seen order (so the shape reads the same after `JSON.parse`).
fn js_key_order(keys: &[MergeKey]) -> impl Iterator<Item = &MergeKey> {
  let mut indices: Vec<(u32, &MergeKey)> = keys
    .iter()
    .filter_map(|k| array_index(k.key.as_bytes()).map(|i| (i, k)))
    .collect();
  indices.sort_by_key(|(i, _)| *i);
  let names = keys
    .iter()
    .filter(|k| array_index(k.key.as_bytes()).is_none());
  indices.into_iter().map(|(_, k)| k).chain(names)
}

fn merged_value<'a>(list: &'a ArrayNode, src: &'a MergeSrc) -> Option<&'a Node> {
  let entry_of = |node: Option<&'a Node>, entry: usize| match node {
    Some(Node::Object(object)) => object.entries.get(entry).map(|e| &e.value),
    _ => None,
  };
  match src {
    MergeSrc::Item { item, entry } => entry_of(list.items.get(*item), *entry),
    MergeSrc::Kind { slot, entry } => match list.kinds.get(*slot) {
      Some((_, Src::Own(node))) => entry_of(Some(node), *entry),
      Some((_, Src::Item(item))) => entry_of(list.items.get(*item), *entry),
      _ => None,
    },
    MergeSrc::Own(node) => Some(node),
    MergeSrc::Missing => None,
  }
}

fn plural(n: usize, one: &str, many: &str) -> String {
  format!("{n} {}", if n == 1 { one } else { many })
}

/// The note the shape carries when something was shortened or left out.
fn note(step: usize, p: &Params, threshold: usize) -> String {
  if step == 0 {
    return "Parts of this answer are left out (marked truncated); read them with result_query."
      .to_string();
  }
  let keys = if p.keys == usize::MAX {
    String::new()
  } else {
    format!(", objects {}", plural(p.keys, "key", "keys"))
  };
  format!(
    "Shortened to fit {threshold} bytes (lists {}, strings {}{keys}, depth {}); parts marked truncated \
     are left out: read them with result_query.",
    plural(p.items, "item", "items"),
    plural(p.chars, "char", "chars"),
    p.depth
  )
}

/// Preview and shape JSON that together take at most `budget` bytes, or `None` if even the last step
/// does not fit (the budget is then smaller than any folded form).
pub(crate) fn render(
  skeleton: &Skeleton,
  items: usize,
  chars: usize,
  budget: usize,
  threshold: usize,
) -> Option<(String, String)> {
  for step in 0..=LAST_STEP {
    let p = params(step, items, chars);
    let mut preview = Writer {
      buf: String::new(),
      limit: budget,
      p: &p,
      marked: false,
    };
    if preview.preview(&skeleton.root, 0).is_err() {
      continue;
    }
    let mut shape = Writer {
      buf: String::new(),
      limit: budget - preview.buf.len(),
      p: &p,
      marked: false,
    };
    if shape.shape(&skeleton.root, 0).is_err() {
      continue;
    }
    let mut shape_json = shape.buf;
    if step > 0 || skeleton.cut || preview.marked || shape.marked {
      // Every shape is a JSON object: the note goes in before its closing brace.
      shape_json.pop();
      shape_json.push_str(",\"note\":");
      shape_json.push_str(&quoted(&note(step, &p, threshold)));
      shape_json.push('}');
    }
    if preview.buf.len() + shape_json.len() <= budget {
      return Some((preview.buf, shape_json));
    }
  }
  None
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn steps_shrink_monotonically_to_nothing() {
    let mut previous = params(0, 5, 500);
    for step in 1..=LAST_STEP {
      let p = params(step, 5, 500);
      assert!(
        p.items <= previous.items && p.chars <= previous.chars,
        "step {step}"
      );
      assert!(
        p.keys <= previous.keys && p.depth <= previous.depth,
        "step {step}"
      );
      previous = p;
    }
    assert_eq!(previous.depth, 0);
    assert_eq!(params(1, 1, 1).items, 1);
    assert_eq!(params(1, 1, 1).chars, 1);
  }
}
