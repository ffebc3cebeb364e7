// ─── Whether a text is JSON.stringify of structuredContent, proved a piece at a time ─────────
//
// A fold of structuredContent plus the text that repeats it needs the proof that the text is `JSON.stringify` of
// structuredContent. Stringifying the whole answer and comparing it with `===` holds it twice more: on Node 20 the
// stringify returns a rope of pieces, and the comparison copies that rope into one flat string (at 50 MB, 100 MB more
// and about 0.9 ms a MB on this thread, mostly page faults). Stringified a piece at a time instead (the members of the
// root and of two levels below it one by one; the items of a long array, or the members of an object of many, a
// batch at a time), each piece is a short string that lives and dies young, compared in place with the text where it
// must stand: the same characters are written and compared, and nothing as long as the answer is made.
//
// Exactness: the pieces, end to end, are what `JSON.stringify` writes, or the proof fails. Only arrays and plain
// objects are split (a boxed primitive or raw JSON is written as what it holds), and not one with a `toJSON`; what is
// not split is stringified whole. An array item with a `toJSON` fails the proof (its output may depend on the key it
// is called with, which a batch changes); an object of many members is read a batch of members at a time, each batch
// with the same keys. Any throw (a BigInt, a cycle) fails the proof. A failed proof decides nothing: the caller
// stringifies the whole answer as before.

/** About this many characters per piece: short enough to stay out of V8's large-object space. */
const PIECE_CHARS = 32 * 1024;
/** Objects with more members than this are read a batch of members at a time, not member by member. */
const MAX_SPLIT_MEMBERS = 64;
/** Levels split: the root, its members and theirs (`{ data: { items: [...] } }`). */
const SPLIT_LEVELS = 3;
/** Items in a first batch, before the batch size follows the length of the pieces written. */
const FIRST_BATCH_ITEMS = 16;
const MAX_BATCH_ITEMS = 8192;

/** Compares pieces with the text, left to right. */
class PieceReader {
  private at = 0;
  private turnAt: number;

  constructor(
    private readonly text: string,
    private readonly turn: Turn,
  ) {
    this.turnAt = turn.every;
  }

  /** Gives the event loop a turn when `turn.every` characters were read since the last one. */
  async pause(): Promise<void> {
    if (this.at < this.turnAt) return;
    this.turnAt = this.at + this.turn.every;
    await this.turn.give(this.at);
  }

  /** Whether `piece` stands at the reading position; if so, reads past it. */
  take(piece: string): boolean {
    const end = this.at + piece.length;
    // A slice of a flat string is a view, not a copy: the comparison reads the text in place.
    if (end > this.text.length || this.text.slice(this.at, end) !== piece) return false;
    this.at = end;
    return true;
  }

  /** Whether the character `code` stands at the reading position; if so, reads past it. */
  takeChar(code: number): boolean {
    if (this.text.charCodeAt(this.at) !== code) return false;
    this.at += 1;
    return true;
  }

  /** Whether the whole text was read. */
  done(): boolean {
    return this.at === this.text.length;
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** `JSON.isRawJSON` where the runtime has it (Node 21+). */
const isRawJson = (JSON as { isRawJSON?: (value: unknown) => boolean }).isRawJSON;

/** Whether `value` is an array or plain object this proof may split. */
function splittable(value: unknown, level: number): value is object {
  if (level >= SPLIT_LEVELS || typeof value !== 'object' || value === null || hasToJson(value)) return false;
  if (Array.isArray(value)) return true;
  // A boxed primitive and raw JSON are written as what they hold, not as their members.
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !isRawJson?.(value);
}

/**
 * Reads the JSON of a container of `count` entries a batch at a time, and its brackets (`open`, `close`):
 * `batchJson(start, end)` is the JSON of entries `[start, end)` in brackets of their own, `undefined` when the proof
 * cannot go on. Batches grow or shrink toward {@link PIECE_CHARS}.
 */
async function readBatches(
  count: number,
  [open, close]: readonly [number, number],
  batchJson: (start: number, end: number) => string | undefined,
  reader: PieceReader,
): Promise<boolean> {
  if (!reader.takeChar(open)) return false;
  let batchSize = FIRST_BATCH_ITEMS;
  let wrote = false;
  for (let start = 0; start < count;) {
    const end = Math.min(count, start + batchSize);
    const json = batchJson(start, end);
    if (json === undefined) return false;
    // An object's batch writes nothing when JSON.stringify skips all its members.
    if (json.length > 2) {
      if (wrote && !reader.takeChar(COMMA)) return false;
      if (!reader.take(json.slice(1, -1))) return false;
      wrote = true;
    }
    batchSize = Math.max(1, Math.min(MAX_BATCH_ITEMS, Math.round((batchSize * PIECE_CHARS) / json.length)));
    start = end;
    await reader.pause();
  }
  return reader.takeChar(close);
}

const BRACKETS = [OPEN_BRACKET, CLOSE_BRACKET] as const;
const BRACES = [OPEN_BRACE, CLOSE_BRACE] as const;

/** Reads the JSON of the items of `list`, a batch at a time. */
function readArray(list: unknown[], reader: PieceReader): Promise<boolean> {
  const batch: unknown[] = [];
  const batchJson = (start: number, end: number) => {
    batch.length = end - start;
    for (let i = start; i < end; i++) {
      const item = list[i];
      // An item's toJSON is called with its index, which would be its index in the batch.
      if (typeof item === 'object' && item !== null && hasToJson(item)) return undefined;
      batch[i - start] = item;
    }
    return JSON.stringify(batch);
  };
  return readBatches(list.length, BRACKETS, batchJson, reader);
}

/**
 * Reads the JSON of the members of an object of many, a batch at a time: each batch an object of the same keys in
 * the same order (no prototype, so that a `__proto__` key is a member), whose members' `toJSON`s get the same keys.
 */
function readMemberBatches(object: object, keys: string[], reader: PieceReader): Promise<boolean> {
  const source = object as Record<string, unknown>;
  const batchJson = (start: number, end: number) => {
    const batch = Object.create(null) as Record<string, unknown>;
    for (let i = start; i < end; i++) batch[keys[i]] = source[keys[i]];
    return JSON.stringify(batch);
  };
  return readBatches(keys.length, BRACES, batchJson, reader);
}

/**
 * Reads the JSON of the members of `object` and its braces (`JSON.stringify` skips members it writes nothing for):
 * member by member, each split in turn, or a batch at a time for an object of many.
 */
async function readObject(object: object, level: number, reader: PieceReader): Promise<boolean> {
  const keys = Object.keys(object);
  if (keys.length > MAX_SPLIT_MEMBERS) return readMemberBatches(object, keys, reader);
  if (!reader.takeChar(OPEN_BRACE)) return false;
  let first = true;
  for (const key of keys) {
    const member: unknown = (object as Record<string, unknown>)[key];
    const split = splittable(member, level + 1);
    const whole = split ? undefined : (JSON.stringify(member) as string | undefined);
    if (!split && whole === undefined) continue;
    if (!first && !reader.takeChar(COMMA)) return false;
    first = false;
    if (!reader.take(`${JSON.stringify(key)}:`)) return false;
    if (split ? !(await readValue(member, level + 1, reader)) : !reader.take(whole as string)) return false;
    await reader.pause();
  }
  return reader.takeChar(CLOSE_BRACE);
}

/** Reads the JSON of a splittable value. */
function readValue(value: object, level: number, reader: PieceReader): Promise<boolean> {
  return Array.isArray(value) ? readArray(value, reader) : readObject(value, level, reader);
}

/** How often the proof gives the event loop a turn: every `every` characters read, by awaiting `give(read)`. */
export interface Turn {
  every: number;
  give: (read: number) => Promise<void>;
}

/** A proof that never gives its turn away. */
const NO_TURNS: Turn = { every: Infinity, give: async () => undefined };

/**
 * Whether `text` is certainly `JSON.stringify(structured)`, proved a piece at a time without writing the whole
 * answer; `false` when this way cannot tell (the caller then stringifies the whole answer). Gives the event loop a
 * turn as `turn` says, so that a long answer does not stall it for its whole stringify. Never rejects.
 *
 * @example
 * ```ts
 * const answer = { items: [1, 2, 3] };
 * await provedStringified(answer, JSON.stringify(answer)); // true
 * await provedStringified(answer, JSON.stringify(answer, null, 2)); // false: not what JSON.stringify writes
 * ```
 */
export async function provedStringified(structured: unknown, text: string, turn: Turn = NO_TURNS): Promise<boolean> {
  try {
    // Inside: reading a `toJSON` or a prototype may throw (a getter, a proxy).
    if (!splittable(structured, 0)) return false;
    const reader = new PieceReader(text, turn);
    return (await readValue(structured, 0, reader)) && reader.done();
  } catch {
    return false;
  }
}
