// ─── plain-JS fold: the baseline the benchmark races, and the reference the specs compare against ─────────
// JSON.parse, then a walk that builds the preview and the shape by the rules of docs/fold.md (without the
// shrinking step: callers compare only answers whose folded form fits as configured).

/** The first `chars` UTF-16 units of `s`, one fewer when that would split a surrogate pair. */
export function cutString(s, chars) {
  if (s.length <= chars) return s;
  const last = s.charCodeAt(chars - 1);
  const next = s.charCodeAt(chars);
  const splits = last >= 0xd800 && last < 0xdc00 && next >= 0xdc00 && next < 0xe000;
  return s.slice(0, splits ? chars - 1 : chars);
}

/** The preview: first `items` of every list, first `chars` of every string, at every depth. */
export function jsPreview(value, items, chars) {
  if (Array.isArray(value)) return value.slice(0, items).map((item) => jsPreview(item, items, chars));
  if (typeof value === 'string') return cutString(value, chars);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).map((key) => [key, jsPreview(value[key], items, chars)]));
  }
  return value;
}

function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The shape: types, lengths, keys in answer order; list items merged as docs/fold.md says. */
export function jsShape(value) {
  switch (kindOf(value)) {
    case 'array':
      return value.length === 0
        ? { type: 'array', length: 0 }
        : { type: 'array', length: value.length, items: itemsShape(value) };
    case 'object':
      return {
        type: 'object',
        keys: Object.fromEntries(Object.keys(value).map((key) => [key, jsShape(value[key])])),
      };
    case 'string':
      return { type: 'string', length: value.length };
    default:
      return { type: kindOf(value) };
  }
}

function itemsShape(list) {
  const firsts = new Map();
  for (const item of list) {
    const kind = kindOf(item);
    if (!firsts.has(kind)) firsts.set(kind, item);
  }
  const members = [...firsts].map(([kind, first]) =>
    kind === 'object' ? mergedShape(list.filter((item) => kindOf(item) === 'object')) : jsShape(first),
  );
  return members.length === 1 ? members[0] : { anyOf: members };
}

function mergedShape(objects) {
  if (objects.length === 1) return jsShape(objects[0]);
  const keys = new Map();
  for (const object of objects) {
    for (const key of Object.keys(object)) {
      const seen = keys.get(key);
      if (seen) seen.count += 1;
      else keys.set(key, { count: 1, value: object[key] });
    }
  }
  return {
    type: 'object',
    keys: Object.fromEntries(
      [...keys].map(([key, { count, value }]) => [
        key,
        count < objects.length ? { ...jsShape(value), optional: true } : jsShape(value),
      ]),
    ),
  };
}

/** The whole plain-JS fold of JSON text: size, preview and shape. */
export function jsFold(json, items, chars) {
  const value = JSON.parse(json);
  return {
    bytes: Buffer.byteLength(json),
    previewJson: JSON.stringify(jsPreview(value, items, chars)),
    shapeJson: JSON.stringify(jsShape(value)),
  };
}
