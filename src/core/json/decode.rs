//! The one decoder of JSON string escapes, and the UTF-16 counts JS measures strings in.
//!
//! `JSON.parse` reads `\uD83D\uDE00` as one character and keeps a surrogate that is not half of a pair as a lone
//! UTF-16 unit; a Rust `str` cannot hold one, so every reader here says [`Escaped::Lone`] and lets its caller
//! decide (keep it as a unit, write it back as `\udXXX`, refuse, or stand something in for it).

use std::borrow::Cow;

use memchr::memchr;

use super::scan::RawStr;
use super::words::find_byte;

/// What one escape of a JSON string stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escaped {
  /// A character: a short escape (`\n`, `\"`…), a `\uXXXX` outside the surrogates, or a surrogate pair.
  Char(char),
  /// A `\uXXXX` surrogate that is not half of a pair.
  Lone(u16),
}

/// The unit of the four hex digits at `bytes[at..]` (either case).
pub(crate) fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
  let digits = bytes.get(at..at.checked_add(4)?)?;
  digits.iter().try_fold(0u16, |unit, &digit| {
    let value = char::from(digit).to_digit(16)?;
    Some((unit << 4) | value as u16)
  })
}

/// The escape whose backslash is `bytes[at]`: what it stands for and how many bytes it spans (12 for a pair);
/// `None` when JSON does not allow it.
#[inline]
pub(crate) fn escape_at(bytes: &[u8], at: usize) -> Option<(Escaped, usize)> {
  let short = match bytes.get(at + 1)? {
    b'"' => '"',
    b'\\' => '\\',
    b'/' => '/',
    b'b' => '\u{8}',
    b'f' => '\u{c}',
    b'n' => '\n',
    b'r' => '\r',
    b't' => '\t',
    b'u' => return unicode_escape(bytes, at),
    _ => return None,
  };
  Some((Escaped::Char(short), 2))
}

fn unicode_escape(bytes: &[u8], at: usize) -> Option<(Escaped, usize)> {
  let unit = hex4(bytes, at + 2)?;
  match unit {
    0xD800..=0xDBFF => {
      let low = (bytes.get(at + 6..at + 8) == Some(b"\\u"))
        .then(|| hex4(bytes, at + 8))
        .flatten()
        .filter(|low| (0xDC00..=0xDFFF).contains(low));
      Some(match low {
        Some(low) => (Escaped::Char(pair(unit, low)), 12),
        None => (Escaped::Lone(unit), 6),
      })
    }
    0xDC00..=0xDFFF => Some((Escaped::Lone(unit), 6)),
    _ => char::from_u32(u32::from(unit)).map(|c| (Escaped::Char(c), 6)),
  }
}

/// The character of a high and a low surrogate.
fn pair(high: u16, low: u16) -> char {
  let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
  char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// A run of a JSON string's content: plain text, one escape, or the point where the content stops being JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
  Plain(&'a str),
  Escape(Escaped),
  /// An escape JSON does not allow (or a trailing backslash); the pieces end here.
  Broken,
}

/// The pieces of a JSON string's content (the text between its quotes), in order.
pub(crate) fn pieces(content: &str) -> Pieces<'_> {
  Pieces { content, at: 0 }
}

pub(crate) struct Pieces<'a> {
  content: &'a str,
  at: usize,
}

impl<'a> Iterator for Pieces<'a> {
  type Item = Piece<'a>;

  fn next(&mut self) -> Option<Piece<'a>> {
    let bytes = self.content.as_bytes();
    let rest = bytes.get(self.at..).filter(|rest| !rest.is_empty())?;
    let plain = find_byte(rest, 0, b'\\');
    if plain > 0 {
      // A backslash is ASCII, so the run ends on a character boundary.
      let run = self.content.get(self.at..self.at + plain)?;
      self.at += plain;
      return Some(Piece::Plain(run));
    }
    match escape_at(bytes, self.at) {
      Some((escaped, width)) => {
        self.at += width;
        Some(Piece::Escape(escaped))
      }
      None => {
        self.at = bytes.len();
        Some(Piece::Broken)
      }
    }
  }
}

/// A JSON string's content decoded; borrowed when it has no escape. `None` when it holds a lone surrogate (no
/// Rust string holds one) or an escape JSON does not allow.
pub(crate) fn decode_str(content: &str) -> Option<Cow<'_, str>> {
  if memchr(b'\\', content.as_bytes()).is_none() {
    return Some(Cow::Borrowed(content));
  }
  let mut out = String::with_capacity(content.len());
  for piece in pieces(content) {
    match piece {
      Piece::Plain(run) => out.push_str(run),
      Piece::Escape(Escaped::Char(c)) => out.push(c),
      Piece::Escape(Escaped::Lone(_)) | Piece::Broken => return None,
    }
  }
  Some(Cow::Owned(out))
}

/// Every escape of a JSON text (not one string: a whole document), with the byte offset of its backslash. No
/// string state is needed: escapes occur only inside strings, and `\\` is taken whole.
pub(crate) fn escapes_in(text: &str) -> impl Iterator<Item = (usize, Escaped)> + '_ {
  let bytes = text.as_bytes();
  let mut from = 0;
  std::iter::from_fn(move || loop {
    let at = from + memchr(b'\\', bytes.get(from..)?)?;
    match escape_at(bytes, at) {
      Some((escaped, width)) => {
        from = at + width;
        return Some((at, escaped));
      }
      None => from = at + 2,
    }
  })
}

/// UTF-16 units of the UTF-8 text `s`: one per character, two for characters beyond U+FFFF.
pub(crate) fn utf16_len_of_utf8(s: &str) -> usize {
  s.bytes()
    .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
    .sum()
}

/// Feeds the UTF-16 units of a JSON string's content to `sink` until it returns `false`.
fn for_each_unit(s: RawStr<'_>, mut sink: impl FnMut(u16) -> bool) {
  let mut buf = [0u16; 2];
  for piece in pieces(s.raw) {
    let more = match piece {
      Piece::Plain(run) => run
        .chars()
        .all(|c| c.encode_utf16(&mut buf).iter().all(|&unit| sink(unit))),
      Piece::Escape(Escaped::Char(c)) => c.encode_utf16(&mut buf).iter().all(|&unit| sink(unit)),
      Piece::Escape(Escaped::Lone(unit)) => sink(unit),
      Piece::Broken => false,
    };
    if !more {
      return;
    }
  }
}

/// The UTF-16 length of a JSON string's content, as JS's `length` counts it.
pub(crate) fn utf16_len(s: RawStr<'_>) -> usize {
  if !s.escaped {
    return utf16_len_of_utf8(s.raw);
  }
  let mut count = 0usize;
  for_each_unit(s, |_| {
    count += 1;
    true
  });
  count
}

/// Appends the first `limit` UTF-16 units of a JSON string's content to `out`, and one more when there is
/// one (so a later cut can tell a pair from a lone surrogate); returns the whole length.
pub(crate) fn decode_prefix(s: RawStr<'_>, limit: usize, out: &mut Vec<u16>) -> usize {
  if limit == 0 {
    return utf16_len(s);
  }
  let limit = limit.saturating_add(1);
  let mut count = 0usize;
  if !s.escaped {
    // Decode only what is kept; count the rest fast.
    let mut consumed = 0usize;
    for (at, c) in s.raw.char_indices() {
      if count >= limit {
        consumed = at;
        break;
      }
      let mut buf = [0u16; 2];
      let units = c.encode_utf16(&mut buf);
      out.extend_from_slice(units);
      count += units.len();
      consumed = at + c.len_utf8();
    }
    return count + utf16_len_of_utf8(&s.raw[consumed..]);
  }
  for_each_unit(s, |unit| {
    if count < limit {
      out.push(unit);
    }
    count += 1;
    true
  });
  count
}

/// At most `n` units of `units`, one fewer when the cut would split a surrogate pair.
pub(crate) fn cut_units(units: &[u16], n: usize) -> &[u16] {
  if n >= units.len() {
    return units;
  }
  let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
  let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
  if n > 0 && is_high(units[n - 1]) && is_low(units[n]) {
    &units[..n - 1]
  } else {
    &units[..n]
  }
}
