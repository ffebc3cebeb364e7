//! The serde visitors that read a `CallToolResult` in one pass without building a tree of it: top-level entries
//! and `_meta` in order as raw slices (repeated keys refused), content blocks read leniently in the same pass.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// An object's entries in order, values left as raw JSON slices. Refuses duplicate keys (JS would keep the last,
/// and we would rather pass such an answer untouched than guess).
pub(super) struct Entries<'a>(pub(super) Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct EntriesVisitor;
    impl<'de> Visitor<'de> for EntriesVisitor {
      type Value = Entries<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
          if entries.iter().any(|(seen, _)| *seen == key.0) {
            return Err(de::Error::custom("duplicate key"));
          }
          let value: &'de RawValue = map.next_value()?;
          entries.push((key.0, value));
        }
        Ok(Entries(entries))
      }
    }
    deserializer.deserialize_map(EntriesVisitor)
  }
}

/// A string that borrows when it has no escapes.
pub(super) struct CowStr<'a>(pub(super) Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    Cow::<'de, str>::deserialize(deserializer).map(CowStr)
  }
}

/// A content block: its `type`, and its `text` left as a raw JSON value (not yet unescaped).
pub(super) struct Block<'a> {
  pub(super) kind: Option<Cow<'a, str>>,
  pub(super) text: Option<&'a RawValue>,
}

/// A content block read in the same pass as the whole result, so a long text is not scanned again. Any JSON value
/// reads; one that is not a block as `#[derive(Deserialize)]` would read `{ type?: string | null, text?: any }`
/// (an object with no repeated `type`/`text`, or an array of at most those two in that order; other keys ignored)
/// is `Err`, which [`inspect`] meets in block order, as it would parsing each block on its own.
pub(super) struct LenientBlock<'a>(pub(super) Result<Block<'a>, ()>);

impl<'a> LenientBlock<'a> {
  fn of(kind: Option<&'a RawValue>, text: Option<&'a RawValue>) -> Self {
    let kind = match kind {
      Some(raw) => serde_json::from_str::<Option<CowStr<'a>>>(raw.get())
        .map(|kind| kind.map(|kind| kind.0))
        .map_err(drop),
      None => Ok(None),
    };
    let text = text.filter(|raw| raw.get() != "null");
    LenientBlock(kind.map(|kind| Block { kind, text }))
  }
}

impl<'de> Deserialize<'de> for LenientBlock<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct BlockVisitor;
    impl<'de> Visitor<'de> for BlockVisitor {
      type Value = LenientBlock<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut kind, mut text, mut unreadable) = (None, None, false);
        // Keys are taken raw: one that does not decode (a lone surrogate escape) makes this block unreadable,
        // not the whole result.
        while let Some(key) = map.next_key::<&'de RawValue>()? {
          let key = serde_json::from_str::<CowStr>(key.get()).map(|key| key.0);
          let slot = match key.as_deref() {
            Ok("type") => &mut kind,
            Ok("text") => &mut text,
            other => {
              unreadable |= other.is_err();
              map.next_value::<de::IgnoredAny>()?;
              continue;
            }
          };
          let value: &'de RawValue = map.next_value()?;
          unreadable |= slot.replace(value).is_some();
        }
        if unreadable {
          return Ok(LenientBlock(Err(())));
        }
        Ok(LenientBlock::of(kind, text))
      }
      fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let kind: Option<&'de RawValue> = seq.next_element()?;
        let text: Option<&'de RawValue> = match kind {
          Some(_) => seq.next_element()?,
          None => None,
        };
        let mut extra = false;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
          extra = true;
        }
        if extra {
          return Ok(LenientBlock(Err(())));
        }
        Ok(LenientBlock::of(kind, text))
      }
      fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
      fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(LenientBlock(Err(())))
      }
    }
    deserializer.deserialize_any(BlockVisitor)
  }
}

/// The top level of a `CallToolResult`: `content` read as its list of raw blocks, every other entry as in
/// [`Entries`] (duplicate keys refused the same way).
pub(super) struct Top<'a> {
  pub(super) content: Option<Vec<LenientBlock<'a>>>,
  pub(super) entries: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'de> Deserialize<'de> for Top<'de> {
  fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
    struct TopVisitor;
    impl<'de> Visitor<'de> for TopVisitor {
      type Value = Top<'de>;
      fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
      }
      fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Top {
          content: None,
          entries: Vec::new(),
        };
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
          let seen = if key.0 == "content" {
            top.content.is_some()
          } else {
            top.entries.iter().any(|(seen, _)| *seen == key.0)
          };
          if seen {
            return Err(de::Error::custom("duplicate key"));
          }
          if key.0 == "content" {
            top.content = Some(map.next_value()?);
          } else {
            top.entries.push((key.0, map.next_value()?));
          }
        }
        Ok(top)
      }
    }
    deserializer.deserialize_map(TopVisitor)
  }
}
