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
