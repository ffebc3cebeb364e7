//! Reads a `CallToolResult`'s envelope and decides: the answer passes untouched (and why), or which part of it is
//! the answer to fold. The rules are listed in [`super`]; the JSON of the result is read by [`super::readers`].

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::readers::{Entries, LenientBlock, Top};
use super::{
  is_ui_key, Answer, Envelope, Inspection, PassReason, SeparateAnswer, Verdict,
  RESULT_HANDLE_META_KEY,
};
use crate::core::fold::canonical_json;
use crate::core::json::decode::{decode_str, escape_at, Escaped};
use crate::core::json::words::{first_byte, first_difference, word_at};

/// Reads `result_json` (a `CallToolResult` as `JSON.stringify` printed it) and decides whether it is a fold
/// candidate. `tool_meta_json` is the tool definition's `_meta` (an object, or absent), checked for UI keys too.
pub fn inspect<'a>(result_json: &'a str, tool_meta_json: Option<&str>) -> Inspection<'a> {
  match inspect_inner(result_json, tool_meta_json) {
    Ok(inspection) => inspection,
    Err(()) => Inspection {
      verdict: Verdict::Pass(PassReason::NotACallToolResult),
      envelope: Envelope::default(),
    },
  }
}

fn inspect_inner<'a>(
  result_json: &'a str,
  tool_meta_json: Option<&str>,
) -> Result<Inspection<'a>, ()> {
  let top: Top<'a> = serde_json::from_str(result_json).map_err(|_| ())?;
  let blocks: Option<Vec<LenientBlock<'a>>> = top.content;
  let (outer, structured) = read_outer(top.entries, tool_meta_json)?;
  let blocks = blocks.ok_or(())?;
  let envelope = match outer {
    Ok(envelope) => envelope,
    Err(reason) => return Ok(passing(reason)),
  };
  // Texts stay raw string literals (checked JSON, not yet unescaped): the common answer, a text that is
  // `JSON.stringify(structuredContent)`, is then compared in one pass with no copy.
  let mut texts: Vec<&'a RawValue> = Vec::new();
  for block in blocks {
    let block = block.0?;
    match (block.kind.as_deref(), block.text) {
      (Some("text"), Some(text)) if text.get().starts_with('"') => texts.push(text),
      (Some("text"), _) | (None, _) => return Err(()),
      (Some(_), text) => {
        // Reading a block fails on a `text` that is not a string or does not decode (a lone surrogate escape),
        // before any later block is looked at; texts read so far are checked now.
        if let Some(text) = text {
          if !text.get().starts_with('"') {
            return Err(());
          }
          decode(text)?;
        }
        all_decode(&texts)?;
        return Ok(passing(PassReason::NonTextContent));
      }
    }
  }
  if texts.len() > 1 {
    all_decode(&texts)?;
    return Ok(passing(PassReason::SeveralTexts));
  }

  let answer = match (structured, texts.pop()) {
    (Some(structured), None) => Answer::Structured(structured.get()),
    (Some(structured), Some(text)) => {
      // Fast path: the literal decodes to exactly the structuredContent's text (so it decodes, and equals it).
      if !literal_decodes_to(text.get(), structured.get()) {
        let text = decode(text)?;
        if !repeats(&text, structured.get()) {
          return Ok(passing(PassReason::TextDiffers));
        }
      }
      Answer::Structured(structured.get())
    }
    (None, Some(text)) => Answer::Text(decode(text)?),
    (None, None) => return Ok(passing(PassReason::NoAnswer)),
  };
  Ok(Inspection {
    verdict: Verdict::Candidate(answer),
    envelope,
  })
}

fn passing<'a>(reason: PassReason) -> Inspection<'a> {
  Inspection {
    verdict: Verdict::Pass(reason),
    envelope: Envelope::default(),
  }
}

/// The top-level entries other than `content`: the envelope a folded result keeps, or why the answer passes
/// (`isError`, already folded, a UI answer, with `tool_meta_json` checked for UI keys too); and
/// `structuredContent` (absent when `null`). `Err` when `_meta` is not an object we read.
type Outer<'a> = (Result<Envelope, PassReason>, Option<&'a RawValue>);

fn read_outer<'a>(
  entries: Vec<(Cow<'a, str>, &'a RawValue)>,
  tool_meta_json: Option<&str>,
) -> Result<Outer<'a>, ()> {
  let mut structured: Option<&'a RawValue> = None;
  let mut is_error = false;
  let mut meta: Vec<(Cow<'a, str>, &'a RawValue)> = Vec::new();
  let mut other_fields = Vec::new();
  for (key, value) in entries {
    match key.as_ref() {
      "structuredContent" => structured = (value.get() != "null").then_some(value),
      "isError" => is_error = value.get() == "true",
      "_meta" => {
        meta = serde_json::from_str::<Entries<'a>>(value.get())
          .map_err(|_| ())?
          .0
      }
      _ => other_fields.push((key.into_owned(), value.get().to_string())),
    }
  }
  let tool_is_ui = match tool_meta_json {
    Some(text) => serde_json::from_str::<Entries>(text)
      .map(|entries| entries.0.iter().any(|(key, _)| is_ui_key(key)))
      .unwrap_or(false),
    None => false,
  };
  let outer = if is_error {
    Err(PassReason::IsError)
  } else if meta
    .iter()
    .any(|(key, _)| key.as_ref() == RESULT_HANDLE_META_KEY)
  {
    Err(PassReason::AlreadyFolded)
  } else if tool_is_ui || meta.iter().any(|(key, _)| is_ui_key(key)) {
    Err(PassReason::UiAnswer)
  } else {
    Ok(Envelope {
      other_fields,
      meta: meta
        .iter()
        .map(|(key, value)| (key.to_string(), value.get().to_string()))
        .collect(),
    })
  };
  Ok((outer, structured))
}

/// [`inspect`] for a `CallToolResult` the host split: `envelope_json` is the result without `content` and
/// `structuredContent` (the host checked that `content` holds nothing but the one text, if any, that `answer`
/// names). The same rules, in the same order, decide.
pub fn inspect_parts<'a>(
  envelope_json: &str,
  answer: SeparateAnswer<'a>,
  tool_meta_json: Option<&str>,
) -> Inspection<'a> {
  let outer = serde_json::from_str::<Top>(envelope_json)
    .map_err(drop)
    .and_then(|top| match top.content {
      None => read_outer(top.entries, tool_meta_json),
      Some(_) => Err(()),
    });
  let envelope = match outer {
    Ok((Ok(envelope), None)) => envelope,
    Ok((Err(reason), None)) => return passing(reason),
    Ok((_, Some(_))) | Err(()) => return passing(PassReason::NotACallToolResult),
  };
  let answer = match answer {
    SeparateAnswer::Structured { json, text: None } => Answer::Structured(json),
    SeparateAnswer::Structured {
      json,
      text: Some(text),
    } => {
      if !repeats(text, json) {
        return passing(PassReason::TextDiffers);
      }
      Answer::Structured(json)
    }
    SeparateAnswer::StructuredBesideOtherText(_) => return passing(PassReason::TextDiffers),
    SeparateAnswer::Text(text) => Answer::Text(Cow::Borrowed(text)),
  };
  Inspection {
    verdict: Verdict::Candidate(answer),
    envelope,
  }
}

/// Whether `text` only repeats `structured_json`: the same text, or a JSON text that `JSON.stringify(JSON.parse())`
/// turns into it. `structured_json` is `JSON.stringify` output, so it is canonical already; the text is made
/// canonical by the fold's one-pass canonicalizer (no tree, no recursion) and the two strings are compared.
/// Whitespace and number spelling (`1.0`, `2e0`) aside, the text must say the same in the same key order.
pub(super) fn repeats(text: &str, structured_json: &str) -> bool {
  if text == structured_json {
    return true;
  }
  let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
  if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
    return false;
  }
  canonical_json(text).is_some_and(|canonical| canonical == structured_json)
}

/// A text block's string literal, unescaped (borrowed when it has no escapes); `Err` when it does not decode to
/// a string (a lone surrogate escape), which makes the result not a `CallToolResult` we read.
pub(super) fn decode(literal: &RawValue) -> Result<Cow<'_, str>, ()> {
  string_content(literal.get()).and_then(decode_str).ok_or(())
}

fn all_decode(literals: &[&RawValue]) -> Result<(), ()> {
  literals
    .iter()
    .try_for_each(|literal| decode(literal).map(drop))
}

/// The text between the quotes of a JSON string literal.
fn string_content(literal: &str) -> Option<&str> {
  literal.strip_prefix('"')?.strip_suffix('"')
}

/// Whether the JSON string literal `literal` (quotes included, its grammar already checked) decodes to exactly
/// `expected`. One pass, no allocation: the two are compared eight bytes at a time while they match and hold no
/// backslash, each escape as the UTF-8 of the character it stands for. A lone surrogate escape decodes to no
/// character, so it answers `false` (the caller's slow path then decides).
pub(super) fn literal_decodes_to(literal: &str, expected: &str) -> bool {
  let Some(content) = string_content(literal) else {
    return false;
  };
  let (content, expected) = (content.as_bytes(), expected.as_bytes());
  let (mut i, mut j) = (0usize, 0usize);
  loop {
    // Eight bytes at a time up to the first backslash; a difference before it decides.
    while let (Some(a), Some(e)) = (word_at(content, i), word_at(expected, j)) {
      let backslash = first_byte(a, b'\\');
      if first_difference(a, e) < backslash {
        return false;
      }
      i += backslash;
      j += backslash;
      if backslash < 8 {
        break;
      }
    }
    let Some(&byte) = content.get(i) else {
      return j == expected.len();
    };
    if byte != b'\\' {
      if expected.get(j) != Some(&byte) {
        return false;
      }
      i += 1;
      j += 1;
      continue;
    }
    let Some((Escaped::Char(c), width)) = escape_at(content, i) else {
      return false;
    };
    if c.is_ascii() {
      if expected.get(j) != Some(&(c as u8)) {
        return false;
      }
      j += 1;
    } else {
      let mut buf = [0u8; 4];
      let encoded = c.encode_utf8(&mut buf).as_bytes();
      if expected.get(j..j + encoded.len()) != Some(encoded) {
        return false;
      }
      j += encoded.len();
    }
    i += width;
  }
}
