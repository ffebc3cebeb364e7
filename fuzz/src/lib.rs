//! What the fuzz targets share: how one input becomes a path, query arguments and an answer.

use result_handles_native::core::query::QueryArgs;

/// Splits `data` at its first newline: the path before it, the rest after. `None` when the path is not UTF-8.
pub fn path_and_rest(data: &[u8]) -> Option<(&str, &[u8])> {
  let cut = data.iter().position(|&b| b == b'\n')?;
  let path = std::str::from_utf8(&data[..cut]).ok()?;
  Some((path, &data[cut + 1..]))
}

/// Query arguments for `path`, with a window chosen by the path's length (so a mutation of the path also moves the
/// window, and no extra bytes are spent on it).
pub fn args_for(path: &str) -> QueryArgs {
  let mut args = QueryArgs::new("fuzz", path);
  match path.len() % 4 {
    0 => {}
    1 => args.offset = Some((path.len() as u64 * 7) % 13),
    2 => args.limit = Some(1 + path.len() % 5),
    _ => {
      args.page = Some(1 + (path.len() as u64 % 3));
      args.limit = Some(2);
    }
  }
  args
}

/// Whether `text` is JSON as JS's `JSON.parse` reads it: serde_json's grammar, plus lone surrogate escapes
/// (`"\udc00"`), which `JSON.stringify` writes and serde_json refuses.
pub fn is_js_json(text: &str) -> bool {
  if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
    return true;
  }
  let mut lenient = String::with_capacity(text.len());
  let mut rest = text;
  while let Some(at) = rest.find("\\u") {
    let escape = rest.get(at + 2..at + 6);
    let surrogate = escape.is_some_and(|hex| {
      u16::from_str_radix(hex, 16).is_ok_and(|unit| (0xd800..0xe000).contains(&unit))
    });
    lenient.push_str(&rest[..at]);
    if surrogate {
      lenient.push_str("\\u0041");
      rest = &rest[at + 6..];
    } else {
      lenient.push_str("\\u");
      rest = &rest[at + 2..];
    }
  }
  lenient.push_str(rest);
  serde_json::from_str::<serde::de::IgnoredAny>(&lenient).is_ok()
}
