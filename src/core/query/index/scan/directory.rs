//! The index scan's pass over one item of a long array that also writes the array's member directory (see
//! `query::directory`): an object's members are read one by one, each value passed without being recorded.

use super::Scan;
use crate::core::query::directory::{Recorder, MAX_ITEM_DEPTH};
use crate::core::query::tape::pass::past_number;

impl<'a> Scan<'a> {
  /// Past the item here (at `depth`), written into `directory`; false, wherever it stopped, when the directory
  /// cannot describe it (see the directory's module docs) or it is over `min_span` bytes (the index may record it).
  pub(super) fn directory_item(&mut self, directory: &mut Recorder<'a>, depth: usize) -> bool {
    let start = self.at;
    let limit = self.bytes.len().min(start + self.settings.min_span);
    if self.peek() != Some(b'{') {
      let passed = self.pass_bounded(limit, depth);
      if passed {
        directory.other(start, self.at);
      }
      return passed;
    }
    directory.begin_object(start);
    self.at += 1;
    self.blank();
    if self.peek() == Some(b'}') {
      self.at += 1;
      directory.end_object(self.at);
      return true;
    }
    loop {
      self.blank();
      if self.peek() != Some(b'"') {
        return false;
      }
      let key_start = self.at + 1;
      if self.string().is_none() || self.at > limit {
        return false;
      }
      let key = &self.bytes[key_start..self.at - 1];
      if key.contains(&b'\\') {
        return false;
      }
      self.blank();
      if self.peek() != Some(b':') {
        return false;
      }
      self.at += 1;
      self.blank();
      let value_start = self.at;
      if !self.pass_bounded(limit, depth + 1) || !directory.member(key, value_start, self.at) {
        return false;
      }
      self.blank();
      match self.peek() {
        Some(b',') => self.at += 1,
        Some(b'}') => {
          self.at += 1;
          break;
        }
        _ => return false,
      }
    }
    directory.end_object(self.at);
    self.at <= limit
  }

  /// Past the value here (at `depth`), when it ends by `limit`, nests at most [`MAX_ITEM_DEPTH`] levels below
  /// the item, and holds no number serde_json refuses (the tape refuses such a text: its own rule, `past_number`). Its
  /// strings go through the index scan's own `string`, which notes lone surrogate escapes; the tape's passes over
  /// containers jump over escapes unread, so they cannot stand in here.
  fn pass_bounded(&mut self, limit: usize, depth: usize) -> bool {
    match self.peek() {
      Some(b'"') => self.string().is_some() && self.at <= limit,
      Some(b'[' | b'{') => self.pass_container(limit, depth),
      Some(b'-' | b'0'..=b'9') => self.pass_number() && self.at <= limit,
      Some(b't' | b'f' | b'n') => {
        while self.peek().is_some_and(|byte| byte.is_ascii_lowercase()) {
          self.at += 1;
        }
        self.at <= limit
      }
      _ => false,
    }
  }

  fn pass_container(&mut self, limit: usize, depth: usize) -> bool {
    let deepest = MAX_ITEM_DEPTH.saturating_sub(depth);
    let mut open = 0usize;
    while self.at < limit {
      match self.bytes[self.at] {
        b'"' => {
          if self.string().is_none() {
            return false;
          }
        }
        b'[' | b'{' => {
          open += 1;
          if open > deepest {
            return false;
          }
          self.at += 1;
        }
        b']' | b'}' => {
          let Some(still) = open.checked_sub(1) else {
            return false;
          };
          open = still;
          self.at += 1;
          if open == 0 {
            return true;
          }
        }
        b'-' | b'0'..=b'9' => {
          if !self.pass_number() {
            return false;
          }
        }
        _ => self.at += 1,
      }
    }
    false
  }

  /// Past the number here; false when serde_json refuses it.
  fn pass_number(&mut self) -> bool {
    match past_number(self.bytes, self.at) {
      Some(end) => {
        self.at = end;
        true
      }
      None => false,
    }
  }
}
