import { describe, expect, it } from 'vitest';

import { testBindings as native } from './fixtures/test-bindings';

// ─── helpers ────────────────────────────────────────────────────────────────────────────────────────────────────

interface Answer {
  path: string;
  value: unknown;
  total?: number;
  offset?: number;
  nextOffset?: number;
}

const BIG = 1 << 30;

/** Runs a query synchronously and parses the answer. */
function query(answer: string | Buffer, args: Record<string, unknown>, threshold = BIG): Answer {
  return JSON.parse(native.queryAnswerSync(answer, JSON.stringify({ handle: 'h', ...args }), threshold)) as Answer;
}

/** The error a call throws (sync) or rejects with (async). */
function thrown(fn: () => unknown): Error & { code?: string; remedy?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string; remedy?: string };
  }
  throw new Error('expected a throw');
}

/** A string of exactly `units` UTF-16 units mixing ASCII, BMP and astral characters. */
function mixedText(units: number): string {
  const parts = ['a', 'é', '😀', 'z', '𝄞', '中', ' ', '\n', '"', '🎉'];
  let text = '';
  let i = 0;
  while (text.length < units) {
    const next = parts[i++ % parts.length];
    text += text.length + next.length <= units ? next : 'x';
  }
  return text;
}

function hasLoneSurrogateAtEdges(piece: string): boolean {
  if (piece.length === 0) return false;
  const first = piece.charCodeAt(0);
  const last = piece.charCodeAt(piece.length - 1);
  return (first >= 0xdc00 && first <= 0xdfff) || (last >= 0xd800 && last <= 0xdbff);
}

// ─── paging walks ───────────────────────────────────────────────────────────────────────────────────────────────

describe('queryAnswer paging', () => {
  const items = Array.from({ length: 10_007 }, (_, i) => ({ i, label: `item-${i}`, even: i % 2 === 0 }));
  const listAnswer = JSON.stringify({ data: { items } });

  it('walks a 10,007-item list with nextOffset: every item once, in order', () => {
    // The default limit (20) reads the first 20; whole walks use larger pages to keep the suite quick.
    const first = query(listAnswer, { path: 'data.items' });
    expect([(first.value as unknown[]).length, first.nextOffset, first.total]).toEqual([20, 20, 10_007]);
    for (const limit of [1000, 333]) {
      const seen: unknown[] = [];
      let offset: number | undefined = 0;
      let calls = 0;
      while (offset !== undefined) {
        const answer = query(listAnswer, { path: 'data.items', offset, limit });
        expect(answer.total).toBe(10_007);
        expect(answer.offset).toBe(offset);
        expect(answer.path).toBe("$['data']['items']");
        seen.push(...(answer.value as unknown[]));
        offset = answer.nextOffset;
        calls++;
      }
      expect(seen).toEqual(items);
      expect(calls).toBe(Math.ceil(10_007 / limit));
    }
  });

  it('walks the same list page by page, and page N equals offset (N-1)*limit', () => {
    const seen: unknown[] = [];
    for (let page = 1; ; page++) {
      const byPage = query(listAnswer, { path: '/data/items', page, limit: 1000 });
      const byOffset = query(listAnswer, { path: '$.data.items', offset: (page - 1) * 1000, limit: 1000 });
      expect(byPage).toEqual(byOffset);
      seen.push(...(byPage.value as unknown[]));
      if (byPage.nextOffset === undefined) break;
      expect(byPage.nextOffset).toBe(page * 1000);
    }
    expect(seen).toEqual(items);
  });

  it('walks a 100,003-unit string with astral characters: every character once, pairs never split', () => {
    const text = mixedText(100_003);
    expect(text.length).toBe(100_003);
    const answer = JSON.stringify({ body: text });
    for (const limit of [undefined, 777, 1]) {
      if (limit === 1) {
        // One unit at a time over a shorter stretch keeps the walk quick while crossing many pairs.
        const short = JSON.stringify({ body: text.slice(0, 300) });
        let joined = '';
        let offset: number | undefined = 0;
        while (offset !== undefined) {
          const piece = query(short, { path: 'body', offset, limit });
          expect(hasLoneSurrogateAtEdges(piece.value as string)).toBe(false);
          joined += piece.value as string;
          offset = piece.nextOffset;
        }
        expect(joined).toBe(text.slice(0, 300));
        continue;
      }
      let joined = '';
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const piece = query(answer, { path: 'body', offset, limit });
        expect(piece.total).toBe(100_003);
        expect(hasLoneSurrogateAtEdges(piece.value as string)).toBe(false);
        expect((piece.value as string).length).toBeLessThanOrEqual((limit ?? 2000) + 1);
        joined += piece.value as string;
        offset = piece.nextOffset;
      }
      expect(joined).toBe(text);
    }
  });

  it('reads string pages that equal offset windows', () => {
    const text = mixedText(10_001);
    const answer = JSON.stringify(text);
    let joined = '';
    for (let page = 1; page <= Math.ceil(10_001 / 333); page++) {
      const byPage = query(answer, { page, limit: 333 });
      const byOffset = query(answer, { offset: (page - 1) * 333, limit: 333 });
      expect(byPage).toEqual(byOffset);
      joined += byPage.value as string;
    }
    expect(joined).toBe(text);
  });

  it('answers the same from a Buffer, a string and the async call', async () => {
    const args = JSON.stringify({ handle: 'h', path: '$.data.items[?@.i > 10000].label' });
    const fromString = native.queryAnswerSync(listAnswer, args, BIG);
    expect(native.queryAnswerSync(Buffer.from(listAnswer), args, BIG)).toBe(fromString);
    expect(await native.queryAnswer(Buffer.from(listAnswer), args, BIG)).toBe(fromString);
    expect(JSON.parse(fromString)).toEqual({
      path: '$.data.items[?@.i > 10000].label',
      value: ['item-10001', 'item-10002', 'item-10003', 'item-10004', 'item-10005', 'item-10006'],
      total: 6,
      offset: 0,
    });
  });
});

// ─── fields ─────────────────────────────────────────────────────────────────────────────────────────────────────

describe('queryAnswer fields', () => {
  const answer = JSON.stringify({
    rows: [{ id: 1, name: 'a', secret: 'x' }, 'plain', { id: 2 }],
    odd: JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c", "toString": 1, "id": 3}'),
  });

  it('keeps only the named keys of each object in a list; other items pass unchanged', () => {
    expect(query(answer, { path: 'rows', fields: ['id', 'name', 'missing'] }).value).toEqual([
      { id: 1, name: 'a' },
      'plain',
      { id: 2 },
    ]);
  });

  it('treats __proto__ and constructor as plain keys, never as a way into JS internals', () => {
    const read = query(answer, { path: 'odd', fields: ['__proto__', 'constructor', 'hasOwnProperty'] });
    const value = read.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(query(answer, { path: 'odd.__proto__.polluted' }).value).toBe(true);
    expect(query(answer, { path: '/odd/constructor' })).toEqual({
      path: "$['odd']['constructor']",
      value: 'c',
      total: 1,
      offset: 0,
    });
  });
});

// ─── errors ─────────────────────────────────────────────────────────────────────────────────────────────────────

describe('queryAnswer errors', () => {
  const answer = JSON.stringify({
    orders: Array.from({ length: 50 }, (_, i) => ({ id: i, note: 'n'.repeat(40) })),
    meta: { count: 50 },
  });

  it('RESULT_PATH_NOT_FOUND for a path naming nothing, showing the nearest existing parent', () => {
    const error = thrown(() => query(answer, { path: 'orders.50.note' }));
    expect(error.code).toBe('RESULT_PATH_NOT_FOUND');
    expect(error.remedy).toContain("`$['orders']`, an array of 50 items (indexes 0 to 49 or -50 to -1)");
    const deeper = thrown(() => query(answer, { path: '$.meta.total' }));
    expect(deeper.remedy).toContain("`$['meta']`, an object with 1 key");
  });

  it('RESULT_PATH_NOT_FOUND for text that is no path, with the path forms shown', () => {
    for (const path of ['$.zqx[', '$.orders[?@.zqx ==]', '/zqx~2', '$. zqx']) {
      const error = thrown(() => query(answer, { path }));
      expect(error.code).toBe('RESULT_PATH_NOT_FOUND');
      expect(error.remedy).toContain('JSON pointer');
      expect(`${error.message} ${error.remedy}`).not.toContain('zqx');
    }
  });

  it('an empty list, not an error, for a query that can select several nodes and matches none', () => {
    expect(query(answer, { path: '$.orders[?@.id > 1000]' })).toEqual({
      path: '$.orders[?@.id > 1000]',
      value: [],
      total: 0,
      offset: 0,
    });
  });

  it('RESULT_SLICE_TOO_LARGE says how many items fit, and that many do', () => {
    const threshold = 1000;
    const error = thrown(() => query(answer, { path: 'orders', limit: 40 }, threshold));
    expect(error.code).toBe('RESULT_SLICE_TOO_LARGE');
    expect(error.message).toContain('over the 1000-byte limit');
    const fits = Number(/At most (\d+) items fit/.exec(error.remedy ?? '')?.[1]);
    expect(fits).toBeGreaterThan(0);
    const read = native.queryAnswerSync(
      answer,
      JSON.stringify({ handle: 'h', path: 'orders', limit: fits }),
      threshold,
    );
    expect(Buffer.byteLength(read)).toBeLessThanOrEqual(threshold);
    const over = thrown(() => query(answer, { path: 'orders', limit: fits + 1 }, threshold));
    expect(over.code).toBe('RESULT_SLICE_TOO_LARGE');
    expect(error.remedy).toContain('fields');
  });

  it('RESULT_SLICE_TOO_LARGE for a string says how many characters fit', () => {
    const text = JSON.stringify({ body: '😀'.repeat(500) });
    const error = thrown(() => query(text, { path: 'body', limit: 1000 }, 300));
    expect(error.code).toBe('RESULT_SLICE_TOO_LARGE');
    expect(error.remedy).toMatch(/At most \d+ characters fit/);
  });

  it.each([
    [{ page: 2, offset: 0 }, 'page and offset', 'not both'],
    [{ limit: 0 }, 'limit must be a whole number from 1 to 100000', 'limit'],
    [{ limit: 100_001 }, 'limit must be a whole number from 1 to 100000', 'limit'],
    [{ limit: 2.5 }, 'limit', 'from 1 to 100000'],
    [{ offset: -1 }, 'offset must be a whole number from 0', 'offset'],
    [{ offset: '3' }, 'offset', 'offset'],
    [{ page: 0 }, 'page must be a whole number from 1', 'page'],
    [{ fields: [] }, 'fields must be a non-empty array of strings', 'keys to keep'],
    [{ fields: ['id', 2] }, 'fields', 'keys to keep'],
    [{ path: 7 }, 'path must be a string', 'path'],
    [{ handle: '' }, 'handle must be a non-empty string', 'handle'],
    [{ path: 'meta', offset: 5 }, 'only to lists and strings', 'Leave out offset and page'],
  ])('INVALID_INPUT for %j', (args, message, remedy) => {
    const error = thrown(() => query(answer, args));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(message);
    expect(error.remedy).toContain(remedy);
  });

  it('INVALID_INPUT for arguments that are not JSON, a missing handle and a bad threshold', async () => {
    const notJson = thrown(() => native.queryAnswerSync(answer, '{handle:', BIG));
    expect(notJson).toMatchObject({ code: 'INVALID_INPUT', remedy: expect.stringContaining('JSON.stringify') });
    const noHandle = thrown(() => native.queryAnswerSync(answer, '{"path":"$"}', BIG));
    expect(noHandle).toMatchObject({ code: 'INVALID_INPUT', remedy: expect.stringContaining('handle') });
    for (const threshold of [0, 1.5, -3, Number.NaN]) {
      const error = thrown(() => native.queryAnswerSync(answer, '{"handle":"h"}', threshold));
      expect(error).toMatchObject({ code: 'INVALID_INPUT', remedy: expect.stringContaining('thresholdBytes') });
    }
    const rejected = await native.queryAnswer(answer, '{"handle":"h","limit":0}', BIG).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(Error);
    expect(rejected).toMatchObject({ code: 'INVALID_INPUT', remedy: expect.stringContaining('limit') });
    const missing = await native.queryAnswer(answer, '{"handle":"h","path":"nope"}', BIG).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'RESULT_PATH_NOT_FOUND', remedy: expect.stringContaining('`$`') });
  });

  it('RESULT_HANDLE_NOT_FOUND has one text for every host', () => {
    const error = thrown(() => native.throwHandleNotFound());
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('RESULT_HANDLE_NOT_FOUND');
    expect(error.remedy).toContain('Call the original tool again');
  });
});

// ─── validateQueryArgs ──────────────────────────────────────────────────────────────────────────────────────────

describe('validateQueryArgs', () => {
  it('fills the default path and drops nulls and unknown keys', () => {
    expect(JSON.parse(native.validateQueryArgs('{"handle":"h","offset":null,"extra":1}'))).toEqual({
      handle: 'h',
      path: '$',
    });
    expect(
      JSON.parse(
        native.validateQueryArgs(JSON.stringify({ handle: 'h', path: 'a', page: 3, limit: 5, fields: ['x'] })),
      ),
    ).toEqual({ handle: 'h', path: 'a', page: 3, limit: 5, fields: ['x'] });
  });

  it('throws INVALID_INPUT naming the argument', () => {
    const error = thrown(() => native.validateQueryArgs('{"handle":"h","page":1,"offset":1}'));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', remedy: expect.stringContaining('not both') });
  });
});

describe('a malformed path', () => {
  it('fails with RESULT_PATH_NOT_FOUND before the store is read, even for an unknown handle', async () => {
    const { openEngine, prepareOptions } = await import('../lib/host/open-engine');
    const engine = await openEngine(prepareOptions({ thresholdBytes: 1024, storage: { type: 'memory' } }));
    try {
      // Reading the store would answer RESULT_HANDLE_NOT_FOUND for this handle: the path is refused first.
      for (const path of ['$[', '$.a[?@.b ==]', '/a/~2']) {
        const args = JSON.stringify({ handle: 'never-issued', path });
        await expect(engine.query(args, 'session-a')).rejects.toMatchObject({ code: 'RESULT_PATH_NOT_FOUND' });
      }
      const wellFormed = JSON.stringify({ handle: 'never-issued', path: '$.a[?@.b == 1]' });
      await expect(engine.query(wellFormed, 'session-a')).rejects.toMatchObject({ code: 'RESULT_HANDLE_NOT_FOUND' });
    } finally {
      await engine.close();
    }
  });
});
