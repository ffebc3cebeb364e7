//! `JSON.stringify(JSON.parse(text))` without building the value: one pass, no recursion.
//!
//! What JS does and this reproduces: whitespace goes; strings are re-quoted (`\u0041` → `A`, lone surrogates
//! stay `\udXXX`); numbers take JS's spelling (`1E5` → `100000`, `-0` → `0`, overflow → `null`); in every object,
//! keys that are array indices (`"0"` … `"4294967294"`) come first in ascending order, then the other keys in
//! first-seen order; a repeated key keeps its first place and its last value.

use std::collections::HashSet;

use crate::core::json::scan::{Event, ScanError, Scanner};
use crate::core::json::write::{push_canonical_number, push_canonical_str};

/// Objects with more members than this look duplicates up in a set instead of scanning back.
const LINEAR_DUPLICATE_CHECK: usize = 8;

struct Member {
  key_start: usize,
  key_end: usize,
  value_end: usize,
}

struct ObjectFrame {
  start: usize,
  members: Vec<Member>,
  seen: Option<HashSet<Box<[u8]>>>,
  reorder: bool,
}

enum Frame {
  Object(ObjectFrame),
  Array { empty: bool },
}

/// The canonical JSON of `text`, or the point where `text` stopped being JSON.
pub(crate) fn canonicalize(text: &str) -> Result<String, ScanError> {
  let mut out = String::with_capacity(text.len());
  let mut stack: Vec<Frame> = Vec::new();
  let mut scanner = Scanner::new(text);
  while let Some(event) = scanner.next_event()? {
    match event {
      Event::Key(key) => {
        let Some(Frame::Object(frame)) = stack.last_mut() else {
          return Err(ScanError { offset: 0 });
        };
        if !frame.members.is_empty() {
          out.push(',');
        }
        let key_start = out.len();
        out.push('"');
        push_canonical_str(key, &mut out);
        out.push('"');
        let key_end = out.len();
        let key_bytes = &out.as_bytes()[key_start..key_end];
        if quoted_array_index(key_bytes).is_some()
          || is_repeat(frame, out.as_bytes(), key_start, key_end)
        {
          frame.reorder = true;
        }
        out.push(':');
        frame.members.push(Member {
          key_start,
          key_end,
          value_end: 0,
        });
        continue;
      }
      Event::ObjectEnd => {
        if let Some(Frame::Object(frame)) = stack.pop() {
          if frame.reorder {
            reorder(&mut out, &frame);
          }
        }
        out.push('}');
      }
      Event::ArrayEnd => {
        stack.pop();
        out.push(']');
      }
      _ => {
        if let Some(Frame::Array { empty }) = stack.last_mut() {
          if !*empty {
            out.push(',');
          }
          *empty = false;
        }
        match event {
          Event::ObjectStart => {
            stack.push(Frame::Object(ObjectFrame {
              start: out.len(),
              members: Vec::new(),
              seen: None,
              reorder: false,
            }));
            out.push('{');
            continue;
          }
          Event::ArrayStart => {
            stack.push(Frame::Array { empty: true });
            out.push('[');
            continue;
          }
          Event::Str(s) => {
            out.push('"');
            push_canonical_str(s, &mut out);
            out.push('"');
          }
          Event::Number(raw) => push_canonical_number(raw, &mut out),
          Event::Bool(true) => out.push_str("true"),
          Event::Bool(false) => out.push_str("false"),
          _ => out.push_str("null"),
        }
      }
    }
    // A value just ended: close the member it belongs to.
    if let Some(Frame::Object(frame)) = stack.last_mut() {
      if let Some(member) = frame.members.last_mut() {
        member.value_end = out.len();
      }
    }
  }
  Ok(out)
}

/// The index when a quoted key is an array index.
fn quoted_array_index(quoted: &[u8]) -> Option<u32> {
  array_index(quoted.get(1..quoted.len().checked_sub(1)?)?)
}

/// The index when a key is an array index: `0`, or digits without a leading zero up to 4294967294.
/// JS lists such keys first, in ascending order, whatever order they were added in.
pub(crate) fn array_index(digits: &[u8]) -> Option<u32> {
  if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
    return None;
  }
  if digits.len() > 1 && digits[0] == b'0' {
    return None;
  }
  let value = digits
    .iter()
    .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
  (value <= 4_294_967_294).then_some(value as u32)
}

/// Whether the key just written (at `start..end` of `out`) was already a member of this object.
fn is_repeat(frame: &mut ObjectFrame, out: &[u8], start: usize, end: usize) -> bool {
  let key = &out[start..end];
  if frame.members.len() < LINEAR_DUPLICATE_CHECK {
    return frame
      .members
      .iter()
      .any(|m| &out[m.key_start..m.key_end] == key);
  }
  let seen = frame.seen.get_or_insert_with(|| {
    frame
      .members
      .iter()
      .map(|m| Box::from(&out[m.key_start..m.key_end]))
      .collect()
  });
  !seen.insert(Box::from(key))
}

/// Rewrites the members of the object starting at `frame.start` in JS property order.
fn reorder(out: &mut String, frame: &ObjectFrame) {
  let text = out.as_str();
  let key_of = |m: &Member| &text[m.key_start..m.key_end];
  // Last value per key, and each key's first place.
  let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
  for (i, member) in frame.members.iter().enumerate() {
    last.insert(key_of(member), i);
  }
  let mut indices: Vec<(u32, usize)> = Vec::new();
  let mut names: Vec<usize> = Vec::new();
  let mut placed: HashSet<&str> = HashSet::new();
  for member in &frame.members {
    let key = key_of(member);
    if !placed.insert(key) {
      continue;
    }
    let chosen = last.get(key).copied().unwrap_or(0);
    match quoted_array_index(key.as_bytes()) {
      Some(index) => indices.push((index, chosen)),
      None => names.push(chosen),
    }
  }
  indices.sort_unstable_by_key(|(index, _)| *index);
  let mut rebuilt = String::with_capacity(out.len() - frame.start);
  rebuilt.push('{');
  for (n, chosen) in indices
    .iter()
    .map(|(_, chosen)| *chosen)
    .chain(names.iter().copied())
    .enumerate()
  {
    if n > 0 {
      rebuilt.push(',');
    }
    let member = &frame.members[chosen];
    rebuilt.push_str(&text[member.key_start..member.value_end]);
  }
  out.truncate(frame.start);
  out.push_str(&rebuilt);
}

#[cfg(test)]
mod tests {
  use super::*;

  fn canon(text: &str) -> String {
    canonicalize(text).expect("valid JSON")
  }

  #[test]
  fn whitespace_escapes_and_numbers() {
    assert_eq!(
      canon(" { \"a\" : [ 1E2 , -0 , \"\\u0041\\/\" , true , null ] , \"b\" : { } } "),
      "{\"a\":[100,0,\"A/\",true,null],\"b\":{}}"
    );
  }

  #[test]
  fn index_keys_come_first_in_numeric_order() {
    assert_eq!(
      canon("{\"b\":1,\"10\":2,\"2\":3,\"a\":4,\"01\":5,\"4294967295\":6,\"4294967294\":7}"),
      "{\"2\":3,\"10\":2,\"4294967294\":7,\"b\":1,\"a\":4,\"01\":5,\"4294967295\":6}"
    );
  }

  #[test]
  fn a_repeated_key_keeps_its_place_and_its_last_value() {
    assert_eq!(canon("{\"a\":1,\"b\":2,\"a\":3}"), "{\"a\":3,\"b\":2}");
    assert_eq!(canon("{\"a\":1,\"\\u0061\":[2]}"), "{\"a\":[2]}");
    let wide: Vec<String> = (0..20).map(|i| format!("\"k{i}\":{i}")).collect();
    let text = format!("{{{},\"k3\":\"x\"}}", wide.join(","));
    let expected: Vec<String> = (0..20)
      .map(|i| {
        if i == 3 {
          "\"k3\":\"x\"".to_string()
        } else {
          format!("\"k{i}\":{i}")
        }
      })
      .collect();
    assert_eq!(canon(&text), format!("{{{}}}", expected.join(",")));
  }

  #[test]
  fn nested_objects_reorder_independently() {
    assert_eq!(
      canon("[{\"z\":{\"1\":0,\"0\":1},\"0\":[{\"b\":1,\"b\":2}]}]"),
      "[{\"0\":[{\"b\":2}],\"z\":{\"0\":1,\"1\":0}}]"
    );
  }

  #[test]
  fn invalid_json_is_refused() {
    assert!(canonicalize("{\"a\":1,}").is_err());
    assert!(canonicalize("[1] x").is_err());
  }

  #[test]
  fn deep_nesting_is_fine() {
    let text = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(canon(&text), text);
  }
}
