//! The skeleton: what one pass over the answer keeps for the preview and the shape, and nothing more.
//!
//! Kept: the first `items` items of every list and the first `chars` UTF-16 units of every string (the
//! preview), plus, per list, the first item of each JSON type and the keys of every object item (the shape's
//! merge). Everything else is skipped, though containers are still counted. Memory is bounded three ways:
//! containers deeper than [`MAX_DEPTH`] are only counted; keys longer than [`MAX_KEY_UNITS`] are left out;
//! a byte budget (a few times the threshold) stops detail, then outlines, once spent. Whatever is left out sets
//! `cut`, so the shape says so.

use crate::core::json::decode::{decode_prefix, utf16_len};
use crate::core::json::scan::{Event, RawStr, ScanError, Scanner};
use crate::core::json::write::{push_canonical_number, push_canonical_str};

use super::nodes::{ArrayNode, Entry, MergeSrc, Node, ObjMerge, ObjectNode, Src, StrNode};

/// Containers at this depth (the answer itself is depth 0) or deeper are counted, not opened.
pub(crate) const MAX_DEPTH: usize = 64;
/// Keys longer than this (UTF-16 units) are left out of preview and shape.
pub(crate) const MAX_KEY_UNITS: usize = 1024;
/// Rough bookkeeping cost of one kept node, in budget bytes.
const NODE_COST: usize = 16;

use crate::core::json::Kind;

impl Kind {
  fn of(event: &Event<'_>) -> Kind {
    match event {
      Event::ObjectStart => Kind::Object,
      Event::ArrayStart => Kind::Array,
      Event::Str(_) => Kind::String,
      Event::Number(_) => Kind::Number,
      Event::Bool(_) => Kind::Boolean,
      _ => Kind::Null,
    }
  }
}

/// What the preview keeps, and how much memory the skeleton may use.
pub(crate) struct Limits {
  pub items: usize,
  pub chars: usize,
  /// Detail stops once this many budget bytes are spent; outlines stop at twice this.
  pub retain_bytes: usize,
  /// Members kept per object, and keys merged per list: more could never be shown.
  pub max_keys: usize,
}

pub(crate) struct Skeleton {
  pub root: Node,
  /// Something was left out while reading.
  pub cut: bool,
  /// The answer's deepest container nesting (a top-level container is 1; a scalar 0).
  pub depth: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
  /// Kept for the preview and the shape.
  Full,
  /// Kept for the shape only: strings keep no characters, lists only their first item.
  Shape,
}

/// Where a finished value goes.
enum Slot {
  Root,
  Entry(Box<str>),
  Item,
  Kind,
  MergedKey(usize),
}

enum Body {
  Object {
    node: ObjectNode,
    mode: Mode,
    /// The key awaiting its value; `None` when that value is skipped.
    pending: Option<Box<str>>,
  },
  Array {
    /// Boxed, as the node it becomes: a frame is pushed and popped for every object item past the kept ones,
    /// and an inline list node made each of those moves several times larger.
    node: Box<ArrayNode>,
    mode: Mode,
  },
  /// An object item past the kept ones: its keys feed the list's merge.
  KeysOnly {
    position: usize,
    /// The merged key whose value is read next, when the key is new.
    pending: Option<usize>,
  },
}

struct Frame {
  slot: Slot,
  depth: usize,
  body: Body,
}

enum Placement {
  Build(Slot, Mode),
  Count(Slot),
  KeysOnly,
  Skip,
}

struct Builder<'a> {
  limits: &'a Limits,
  spent: usize,
  cut: bool,
  root: Option<Node>,
  stack: Vec<Frame>,
}

/// Reads `text` (JSON) once and keeps what preview and shape need.
pub(crate) fn build(text: &str, limits: &Limits) -> Result<Skeleton, ScanError> {
  let mut builder = Builder {
    limits,
    spent: 0,
    cut: false,
    root: None,
    stack: Vec::new(),
  };
  let mut scanner = Scanner::new(text);
  while let Some(event) = scanner.next_event()? {
    match event {
      Event::ObjectEnd | Event::ArrayEnd => builder.close(),
      Event::Key(key) => {
        if !builder.key(key) {
          scanner.skip_member_value()?;
        }
      }
      _ => builder.value(event, &mut scanner)?,
    }
  }
  match builder.root {
    Some(root) => Ok(Skeleton {
      root,
      cut: builder.cut,
      depth: scanner.deepest(),
    }),
    None => Err(ScanError { offset: text.len() }),
  }
}

fn canonical_key(key: RawStr<'_>) -> Box<str> {
  if !key.escaped {
    return Box::from(key.raw);
  }
  let mut out = String::new();
  push_canonical_str(key, &mut out);
  out.into_boxed_str()
}

impl Builder<'_> {
  fn detail_ok(&self) -> bool {
    self.spent < self.limits.retain_bytes
  }

  fn outline_ok(&self) -> bool {
    self.spent < self.limits.retain_bytes.saturating_mul(2)
  }

  fn charge(&mut self, bytes: usize) {
    self.spent = self.spent.saturating_add(bytes);
  }

  /// Takes a key of the current object; `false` when its value is not kept (the caller skips it unread).
  fn key(&mut self, key: RawStr<'_>) -> bool {
    let outline_ok = self.outline_ok();
    let depth = self.stack.len();
    let Some(frame) = self.stack.last_mut() else {
      return true;
    };
    match &mut frame.body {
      Body::Object { node, pending, .. } => {
        node.len += 1;
        *pending = None;
        if outline_ok && node.len <= self.limits.max_keys && utf16_len(key) <= MAX_KEY_UNITS {
          let key = canonical_key(key);
          self.spent = self.spent.saturating_add(key.len() + NODE_COST);
          *pending = Some(key);
        } else {
          self.cut = true;
        }
        pending.is_some()
      }
      Body::KeysOnly { position, pending } => {
        *pending = None;
        let at = *position;
        *position += 1;
        let Some(list_at) = depth.checked_sub(2) else {
          return false;
        };
        let merged = self.merge_item_key(list_at, at, key);
        if let Some(Frame {
          body: Body::KeysOnly { pending, .. },
          ..
        }) = self.stack.last_mut()
        {
          *pending = merged;
        }
        merged.is_some()
      }
      Body::Array { .. } => true,
    }
  }

  /// Merges a key of an object item past the kept ones into the list `self.stack[list_at]`, as the item's
  /// `position`th key. The merged key's index when the key is new and its value is to be read, else `None`.
  fn merge_item_key(&mut self, list_at: usize, position: usize, key: RawStr<'_>) -> Option<usize> {
    let detail_ok = self.detail_ok();
    let Some(Frame {
      body: Body::Array { node: list, .. },
      ..
    }) = self.stack.get_mut(list_at)
    else {
      return None;
    };
    let merge = list.merge.as_mut()?;
    let found = if key.escaped {
      merge.find(position, &canonical_key(key))
    } else {
      merge.find(position, key.raw)
    };
    match found {
      Some(index) => {
        merge.keys[index].count += 1;
        None
      }
      None if detail_ok && utf16_len(key) <= MAX_KEY_UNITS => {
        let key = canonical_key(key);
        self.spent = self.spent.saturating_add(key.len() + NODE_COST);
        merge.add(key, MergeSrc::Missing, self.limits.max_keys)
      }
      None => {
        merge.incomplete = true;
        self.cut = true;
        None
      }
    }
  }

  /// Reads an object item past the kept ones (the list is the top frame), merging its keys, with no frame of
  /// its own and no event for a value until a key is new: most items repeat the keys already merged, and a
  /// frame and an event per member were most of a fold of such a list. A new key's value describes the key:
  /// from there the item goes on through a frame, as any value read for the shape.
  fn keys_only_item(&mut self, scanner: &mut Scanner<'_>, depth: usize) -> Result<(), ScanError> {
    let mut position = 0;
    loop {
      match scanner.next_event()? {
        Some(Event::Key(key)) => {
          let pending = self.merge_item_key(depth - 1, position, key);
          position += 1;
          if pending.is_some() {
            self.stack.push(Frame {
              slot: Slot::Item,
              depth,
              body: Body::KeysOnly { position, pending },
            });
            return Ok(());
          }
          scanner.skip_member_value()?;
        }
        Some(Event::ObjectEnd) => return Ok(()),
        // After an object's start or a member the scanner gives a key or the object's end, else an error.
        _ => {
          return Err(ScanError {
            offset: scanner.offset(),
          })
        }
      }
    }
  }

  /// Decides what becomes of a value starting in the current container.
  fn place(&mut self, kind: Kind) -> Placement {
    let detail_ok = self.detail_ok();
    let outline_ok = self.outline_ok();
    let items_limit = self.limits.items;
    let Some(frame) = self.stack.last_mut() else {
      return Placement::Build(Slot::Root, Mode::Full);
    };
    let child_depth = frame.depth + 1;
    let too_deep = kind == Kind::Object || kind == Kind::Array;
    let too_deep = too_deep && child_depth >= MAX_DEPTH;
    let build_or_count = |slot: Slot, mode: Mode| {
      if too_deep || !detail_ok {
        Placement::Count(slot)
      } else {
        Placement::Build(slot, mode)
      }
    };
    let mut lost = false;
    let placement = match &mut frame.body {
      Body::Object { pending, mode, .. } => match pending.take() {
        Some(key) if outline_ok => build_or_count(Slot::Entry(key), *mode),
        Some(_) => {
          lost = true;
          Placement::Skip
        }
        None => Placement::Skip,
      },
      Body::KeysOnly { pending, .. } => match pending.take() {
        Some(index) => build_or_count(Slot::MergedKey(index), Mode::Shape),
        None => Placement::Skip,
      },
      Body::Array { node, mode } => {
        let index = node.len;
        node.len += 1;
        let new_kind = !node.kinds.iter().any(|(k, _)| *k == kind);
        let keep_item = match mode {
          Mode::Full => index < items_limit,
          Mode::Shape => index == 0,
        } && node.items.len() == index;
        if keep_item && outline_ok {
          if new_kind {
            node.kinds.push((kind, Src::Item(index)));
          }
          build_or_count(Slot::Item, *mode)
        } else if new_kind {
          node.kinds.push((kind, Src::Missing));
          if too_deep || !detail_ok {
            lost = true;
            Placement::Skip
          } else {
            Placement::Build(Slot::Kind, Mode::Shape)
          }
        } else if kind == Kind::Object && !too_deep {
          match node.merge.as_mut() {
            Some(merge) => {
              merge.objects += 1;
              Placement::KeysOnly
            }
            None => Placement::Skip,
          }
        } else {
          Placement::Skip
        }
      }
    };
    if lost || matches!(placement, Placement::Count(_)) {
      self.cut = true;
    }
    placement
  }

  fn value(&mut self, event: Event<'_>, scanner: &mut Scanner<'_>) -> Result<(), ScanError> {
    let kind = Kind::of(&event);
    let depth = self.stack.len();
    let container = matches!(kind, Kind::Object | Kind::Array);
    match self.place(kind) {
      Placement::Build(slot, mode) => {
        if container {
          self.charge(NODE_COST);
          let body = if kind == Kind::Object {
            Body::Object {
              node: ObjectNode {
                len: 0,
                entries: Vec::new(),
                cut: false,
              },
              mode,
              pending: None,
            }
          } else {
            Body::Array {
              node: Box::new(ArrayNode {
                len: 0,
                items: Vec::new(),
                cut: false,
                kinds: Vec::new(),
                merge: None,
              }),
              mode,
            }
          };
          self.stack.push(Frame { slot, depth, body });
        } else {
          let chars = match mode {
            Mode::Full => self.limits.chars,
            Mode::Shape => 0,
          };
          let node = self.scalar(event, chars);
          self.attach(slot, node);
        }
      }
      Placement::Count(slot) => {
        let node = if container {
          let len = scanner.skip_container()?;
          self.charge(NODE_COST);
          if kind == Kind::Object {
            Node::Object(Box::new(ObjectNode {
              len,
              entries: Vec::new(),
              cut: true,
            }))
          } else {
            Node::Array(Box::new(ArrayNode {
              len,
              items: Vec::new(),
              cut: true,
              kinds: Vec::new(),
              merge: None,
            }))
          }
        } else {
          self.scalar(event, 0)
        };
        self.attach(slot, node);
      }
      Placement::KeysOnly => self.keys_only_item(scanner, depth)?,
      Placement::Skip => {
        if container {
          scanner.skip_container()?;
        }
      }
    }
    Ok(())
  }

  fn scalar(&mut self, event: Event<'_>, chars: usize) -> Node {
    match event {
      Event::Str(s) => {
        let room = self.limits.retain_bytes.saturating_sub(self.spent);
        let keep = chars.min(room);
        let mut prefix = Vec::new();
        let units = decode_prefix(s, keep, &mut prefix);
        self.charge(prefix.len() + NODE_COST);
        Node::Str(Box::new(StrNode { units, prefix }))
      }
      Event::Number(raw) => {
        let mut text = String::new();
        push_canonical_number(raw, &mut text);
        self.charge(text.len() + NODE_COST);
        Node::Number(text.into_boxed_str())
      }
      Event::Bool(b) => Node::Bool(b),
      _ => Node::Null,
    }
  }

  fn close(&mut self) {
    let Some(frame) = self.stack.pop() else {
      return;
    };
    let node = match frame.body {
      Body::Object { node, .. } => Node::Object(Box::new(node)),
      Body::Array { node, .. } => Node::Array(node),
      Body::KeysOnly { .. } => return,
    };
    self.attach(frame.slot, node);
  }

  fn attach(&mut self, slot: Slot, node: Node) {
    let max_keys = self.limits.max_keys;
    let depth = self.stack.len();
    let (below, top) = self.stack.split_at_mut(depth.saturating_sub(1));
    let Some(parent) = top.first_mut() else {
      self.root = Some(node);
      return;
    };
    match (slot, &mut parent.body) {
      (Slot::Entry(key), Body::Object { node: object, .. }) => {
        object.entries.push(Entry { key, value: node })
      }
      (Slot::Item, Body::Array { node: list, .. }) => {
        let item = list.items.len();
        if let Node::Object(object) = &node {
          let merge = list.merge.get_or_insert_with(ObjMerge::default);
          merge.absorb(object, max_keys, |entry| MergeSrc::Item { item, entry });
        }
        list.items.push(node);
      }
      (Slot::Kind, Body::Array { node: list, .. }) => {
        let slot = list.kinds.len().saturating_sub(1);
        if let Node::Object(object) = &node {
          let merge = list.merge.get_or_insert_with(ObjMerge::default);
          merge.absorb(object, max_keys, |entry| MergeSrc::Kind { slot, entry });
        }
        if let Some((_, src)) = list.kinds.last_mut() {
          *src = Src::Own(node);
        }
      }
      (Slot::MergedKey(index), Body::KeysOnly { .. }) => {
        if let Some(Frame {
          body: Body::Array { node: list, .. },
          ..
        }) = below.last_mut()
        {
          if let Some(key) = list.merge.as_mut().and_then(|m| m.keys.get_mut(index)) {
            key.src = MergeSrc::Own(node);
          }
        }
      }
      _ => {}
    }
  }
}
