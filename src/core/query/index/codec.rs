//! The index's bytes: writing a [`Node`] tree as unsigned LEB128 integers, and reading it back checked (spans
//! inside the answer, checkpoints increasing, bounded nesting and counts), so a damaged index is ignored, never
//! trusted. The format is in the parent module's docs.

use super::{Node, INDEX_VERSION, MAGIC, MAX_DECODE_DEPTH};

/// Writes `n` as unsigned LEB128 (the index's and the member directory's integers).
pub(crate) fn put(out: &mut Vec<u8>, mut n: u64) {
  loop {
    let low = (n & 0x7f) as u8;
    n >>= 7;
    if n == 0 {
      out.push(low);
      return;
    }
    out.push(low | 0x80);
  }
}

pub(super) fn encode(out: &mut Vec<u8>, node: &Node) {
  match node {
    Node::Array {
      start,
      end,
      len,
      checkpoints,
      children,
    } => {
      out.push(1);
      put(out, *start);
      put(out, *end);
      put(out, *len);
      put_checkpoints(out, *start, checkpoints);
      put(out, children.len() as u64);
      for (index, child) in children {
        put(out, *index);
        encode(out, child);
      }
    }
    Node::Object {
      start,
      end,
      children,
    } => {
      out.push(2);
      put(out, *start);
      put(out, *end);
      put(out, children.len() as u64);
      for (key, child) in children {
        put(out, key.len() as u64);
        out.extend_from_slice(key.as_bytes());
        encode(out, child);
      }
    }
    Node::Text {
      start,
      end,
      units,
      checkpoints,
    } => {
      out.push(3);
      put(out, *start);
      put(out, *end);
      put(out, *units);
      put_checkpoints(out, *start, checkpoints);
    }
  }
}

fn put_checkpoints(out: &mut Vec<u8>, start: u64, checkpoints: &[(u64, u64)]) {
  put(out, checkpoints.len() as u64);
  let (mut at, mut byte) = (0, start);
  for &(next_at, next_byte) in checkpoints {
    put(out, next_at - at);
    put(out, next_byte - byte);
    (at, byte) = (next_at, next_byte);
  }
}

/// Reads unsigned LEB128 integers and bytes, checked (the index's and the member directory's).
pub(crate) struct Reader<'a> {
  bytes: &'a [u8],
  at: usize,
}

impl<'a> Reader<'a> {
  /// A reader of `bytes` from byte `at`.
  pub(crate) fn at(bytes: &'a [u8], at: usize) -> Self {
    Reader { bytes, at }
  }

  /// Where it reads next.
  pub(crate) fn position(&self) -> usize {
    self.at
  }

  /// The next `len` bytes.
  pub(crate) fn take(&mut self, len: usize) -> Option<&'a [u8]> {
    let taken = self.bytes.get(self.at..self.at.checked_add(len)?)?;
    self.at += len;
    Some(taken)
  }

  fn byte(&mut self) -> Option<u8> {
    let byte = *self.bytes.get(self.at)?;
    self.at += 1;
    Some(byte)
  }

  pub(crate) fn number(&mut self) -> Option<u64> {
    let mut n: u64 = 0;
    for shift in (0..64).step_by(7) {
      let byte = self.byte()?;
      n |= u64::from(byte & 0x7f).checked_shl(shift)?;
      if byte & 0x80 == 0 {
        return Some(n);
      }
    }
    None
  }

  /// A count of entries, each at least one byte long (so a forged count cannot make a huge allocation).
  pub(crate) fn count(&mut self) -> Option<usize> {
    let n = usize::try_from(self.number()?).ok()?;
    (n <= self.bytes.len() - self.at).then_some(n)
  }

  /// A node, checked: spans inside the answer, checkpoints increasing and inside their array, children in range.
  fn node(&mut self, depth: usize, answer_len: u64) -> Option<Node> {
    if depth > MAX_DECODE_DEPTH {
      return None;
    }
    let tag = self.byte()?;
    let start = self.number()?;
    let end = self.number()?;
    if start >= end || end > answer_len {
      return None;
    }
    match tag {
      1 => {
        let len = self.number()?;
        let checkpoints = self.checkpoints(start, end, len)?;
        let m = self.count()?;
        let mut children = Vec::with_capacity(m);
        for _ in 0..m {
          let index = self.number()?;
          if index >= len {
            return None;
          }
          children.push((index, self.node(depth + 1, answer_len)?));
        }
        Some(Node::Array {
          start,
          end,
          len,
          checkpoints,
          children,
        })
      }
      2 => {
        let m = self.count()?;
        let mut children = Vec::with_capacity(m);
        for _ in 0..m {
          let key_len = self.count()?;
          let key = std::str::from_utf8(self.bytes.get(self.at..self.at + key_len)?).ok()?;
          self.at += key_len;
          children.push((key.to_string(), self.node(depth + 1, answer_len)?));
        }
        Some(Node::Object {
          start,
          end,
          children,
        })
      }
      3 => {
        let units = self.number()?;
        let checkpoints = self.checkpoints(start, end, units)?;
        Some(Node::Text {
          start,
          end,
          units,
          checkpoints,
        })
      }
      _ => None,
    }
  }

  /// Checkpoints: the first at 0, both coordinates strictly increasing, below `len` and inside `[start, end)`.
  fn checkpoints(&mut self, start: u64, end: u64, len: u64) -> Option<Vec<(u64, u64)>> {
    let n = self.count()?;
    let mut checkpoints = Vec::with_capacity(n);
    let (mut at, mut byte) = (0u64, start);
    for i in 0..n {
      let (at_delta, byte_delta) = (self.number()?, self.number()?);
      if i > 0 && (at_delta == 0 || byte_delta == 0) {
        return None;
      }
      at = at.checked_add(at_delta)?;
      byte = byte.checked_add(byte_delta)?;
      if at >= len || byte >= end {
        return None;
      }
      checkpoints.push((at, byte));
    }
    if checkpoints.first().is_none_or(|&(first, _)| first != 0) {
      return None;
    }
    Some(checkpoints)
  }
}

/// An index's reader past its flags: version 1 has none (0), version 2 one byte.
fn after_version(index: &[u8]) -> Option<(u8, Reader<'_>)> {
  if index.get(..4)? != MAGIC {
    return None;
  }
  let (flags, at) = match *index.get(4)? {
    1 => (0, 5),
    INDEX_VERSION => (*index.get(5)?, 6),
    _ => return None,
  };
  Some((flags, Reader { bytes: index, at }))
}

/// The flags and answer length of an index; `None` for another version or a malformed header.
pub(super) fn header(index: &[u8]) -> Option<(u8, u64)> {
  let (flags, mut reader) = after_version(index)?;
  Some((flags, reader.number()?))
}

/// The answer length and root node of an index; `None` for another version or anything malformed.
pub(super) fn decode(index: &[u8]) -> Option<(u64, Node)> {
  let (_, mut reader) = after_version(index)?;
  let answer_len = reader.number()?;
  let root = reader.node(0, answer_len)?;
  (reader.at == index.len()).then_some((answer_len, root))
}
