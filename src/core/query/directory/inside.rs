//! Reading a value the directory does not describe (a member's array or object, an item that is not an object) from
//! its text, when the evaluator asks: its children's spans, found by passing over them with the tape's own pass
//! (`tape::pass`). The text is a kept answer, JSON as serde_json reads it (a directory is written only beside an
//! index that certifies it), so the pass checks only what it relies on; anything else it does not expect (a key
//! with an escape, which would have to be decoded to be compared) ends it with `Err`, and the route gives up.

use std::ops::ControlFlow;

use crate::core::query::tape::pass::{past_container, past_string, skip_blanks};

/// A child of a container: its key's span between the quotes (objects only) and its value's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
  pub key: Option<(u32, u32)>,
  pub start: u32,
  pub end: u32,
}

/// Calls `each` on the children of the container spanning `[start, end)` of `text`, in order, until it breaks.
pub(super) fn each_entry(
  text: &[u8],
  (start, end): (u32, u32),
  mut each: impl FnMut(Entry) -> ControlFlow<()>,
) -> Result<(), ()> {
  let (start, end) = (start as usize, end as usize);
  let object = match text.get(start) {
    Some(b'{') => true,
    Some(b'[') => false,
    _ => return Err(()),
  };
  let last = end.checked_sub(1).ok_or(())?;
  let mut at = skip_blanks(text, start + 1);
  if at == last {
    return Ok(());
  }
  loop {
    let key = if object {
      let key_end = string_end(text, at)?;
      let key = (at + 1, key_end - 1);
      if text[key.0..key.1].contains(&b'\\') {
        return Err(());
      }
      at = skip_blanks(text, key_end);
      if text.get(at) != Some(&b':') {
        return Err(());
      }
      at = skip_blanks(text, at + 1);
      Some((key.0 as u32, key.1 as u32))
    } else {
      None
    };
    let value_end = value_end(text, at)?;
    if value_end > last {
      return Err(());
    }
    let entry = Entry {
      key,
      start: at as u32,
      end: value_end as u32,
    };
    if each(entry).is_break() {
      return Ok(());
    }
    at = skip_blanks(text, value_end);
    match text.get(at) {
      Some(b',') => at = skip_blanks(text, at + 1),
      Some(_) if at == last => return Ok(()),
      _ => return Err(()),
    }
  }
}

/// Finds the child of an object whose key is `name` as written, as its children are shown to [`MemberNamed::see`]
/// one by one (by whatever lists them).
pub(super) struct MemberNamed<'a> {
  text: &'a [u8],
  name: &'a [u8],
  found: Option<Entry>,
  repeated: bool,
}

impl<'a> MemberNamed<'a> {
  pub(super) fn new(text: &'a [u8], name: &'a [u8]) -> Self {
    MemberNamed {
      text,
      name,
      found: None,
      repeated: false,
    }
  }

  pub(super) fn see(&mut self, entry: Entry) -> ControlFlow<()> {
    let (text, name) = (self.text, self.name);
    if entry
      .key
      .is_some_and(|(start, end)| &text[start as usize..end as usize] == name)
    {
      self.repeated |= self.found.is_some();
      self.found = Some(entry);
    }
    ControlFlow::Continue(())
  }

  /// The member found, once all were seen (`read`: they could be listed); `None` when they could not, or the key is
  /// repeated (`JSON.parse` keeps its first place and last value, which the tape reads).
  pub(super) fn found(self, read: bool) -> Option<Option<Entry>> {
    (read && !self.repeated).then_some(self.found)
  }
}

/// Finds the item of an array at `index`, as its items are shown to [`ItemAt::see`] one by one.
pub(super) struct ItemAt {
  index: usize,
  at: usize,
  found: Option<Entry>,
}

impl ItemAt {
  pub(super) fn new(index: usize) -> Self {
    ItemAt {
      index,
      at: 0,
      found: None,
    }
  }

  pub(super) fn see(&mut self, entry: Entry) -> ControlFlow<()> {
    if self.at == self.index {
      self.found = Some(entry);
      return ControlFlow::Break(());
    }
    self.at += 1;
    ControlFlow::Continue(())
  }

  /// The item found (`read`: the items could be listed up to it); `None` when they could not.
  pub(super) fn found(self, read: bool) -> Option<Option<Entry>> {
    read.then_some(self.found)
  }
}

/// Just past the value that starts at byte `at`.
pub(super) fn value_end(text: &[u8], at: usize) -> Result<usize, ()> {
  match text.get(at).ok_or(())? {
    b'"' => string_end(text, at),
    b'[' | b'{' => container_end(text, at),
    _ => {
      let length = text[at..]
        .iter()
        .position(|byte| matches!(byte, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t'))
        .ok_or(())?;
      if length == 0 {
        return Err(());
      }
      Ok(at + length)
    }
  }
}

/// Just past the closing quote of the string whose opening quote is at byte `at` (the tape's pass over a string).
fn string_end(text: &[u8], at: usize) -> Result<usize, ()> {
  if text.get(at) != Some(&b'"') {
    return Err(());
  }
  past_string(text, at + 1).ok_or(())
}

/// Just past the closing bracket of the container that opens at byte `at` (the tape's pass over a container).
fn container_end(text: &[u8], at: usize) -> Result<usize, ()> {
  past_container(text, at).ok_or(())
}

#[cfg(test)]
mod tests {
  use super::*;

  fn entries(text: &str) -> Result<Vec<(Option<&str>, &str)>, ()> {
    let mut out = Vec::new();
    each_entry(text.as_bytes(), (0, text.len() as u32), |entry| {
      let key = entry.key.map(|(s, e)| &text[s as usize..e as usize]);
      out.push((key, &text[entry.start as usize..entry.end as usize]));
      ControlFlow::Continue(())
    })?;
    Ok(out)
  }

  #[test]
  fn lists_the_children_of_objects_and_arrays() {
    assert_eq!(
      entries(r#"{"a":1,"b":"x\"]","c":[1,{"d":[]}],"e":{},"f":true}"#).unwrap(),
      vec![
        (Some("a"), "1"),
        (Some("b"), r#""x\"]""#),
        (Some("c"), r#"[1,{"d":[]}]"#),
        (Some("e"), "{}"),
        (Some("f"), "true"),
      ]
    );
    assert_eq!(
      entries("[ -1.5e3 ,\n\"\\\\\" , null ]").unwrap(),
      vec![(None, "-1.5e3"), (None, r#""\\""#), (None, "null")]
    );
    assert_eq!(entries("[]").unwrap(), vec![]);
    assert_eq!(entries("{ }").unwrap(), vec![]);
  }

  #[test]
  fn gives_up_on_escaped_keys_and_broken_text() {
    assert!(entries(r#"{"a\u0062":1}"#).is_err());
    assert!(entries(r#"{"a":1,}"#).is_err());
    assert!(entries(r#"{"a" 1}"#).is_err());
    assert!(entries(r#"["a]"#).is_err());
    assert!(entries("[[1]").is_err());
    assert!(entries("1").is_err());
  }
}
