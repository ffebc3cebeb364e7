// The proof that a text is JSON.stringify of structuredContent, a piece at a time (lib/host/stringified.ts): it may
// fail to prove, but it never proves a text that JSON.stringify does not write, and it proves what it writes for the
// data tools return (no toJSON).
import { describe, expect, it } from 'vitest';

import { provedStringified } from '../lib/host/stringified';
import { seededRandom as random } from './fixtures/random';

const STRINGS = ['', 'a', 'é', '"quoted"', 'back\\slash', 'line\nbreak', '\u2028', '\ud83d\ude00', '\ud800', '\u0001'];

/** A value as tools return them, with what JSON.stringify skips or writes `null` for (undefined, functions). */
function valueOf(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 6 : 9));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -0, 1.5, 1e21, -3e-7, NaN, Infinity, 2 ** 53][Math.floor(next() * 8)];
    case 3:
      return STRINGS[Math.floor(next() * STRINGS.length)];
    case 4:
      return undefined;
    case 5:
      return () => 1;
    case 6:
    case 7: {
      const length = Math.floor(next() * (next() < 0.2 ? 400 : 6));
      const list: unknown[] = Array.from({ length }, () => valueOf(next, depth + 1));
      if (length > 2 && next() < 0.2) delete list[1]; // a hole
      return list;
    }
    default: {
      const members = Math.floor(next() * (next() < 0.1 ? 90 : 6));
      const object: Record<string, unknown> = {};
      for (let i = 0; i < members; i++)
        object[next() < 0.2 ? String(i) : `k${i}${STRINGS[i % 4]}`] = valueOf(next, depth + 1);
      return object;
    }
  }
}

/** One character of `text` changed, or one added or removed. */
function altered(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  const kind = Math.floor(next() * 3);
  if (kind === 0) return text.slice(0, at) + (text[at] === '1' ? '2' : '1') + text.slice(at + 1);
  if (kind === 1) return text.slice(0, at) + ' ' + text.slice(at);
  return text.slice(0, at) + text.slice(at + 1);
}

describe('provedStringified', () => {
  it('proves JSON.stringify output of generated answers, and nothing else', async () => {
    let proved = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const value = { items: valueOf(next, 0), meta: valueOf(next, 2), list: [valueOf(next, 1), valueOf(next, 1)] };
      const text = JSON.stringify(value);
      expect(await provedStringified(value, text), `seed ${seed}`).toBe(true);
      proved++;
      const other = altered(text, next);
      if (other !== text) expect(await provedStringified(value, other), `seed ${seed}, altered`).toBe(false);
      expect(await provedStringified(value, JSON.stringify(value, null, 1)), `seed ${seed}, indented`).toBe(
        JSON.stringify(value, null, 1) === text,
      );
    }
    expect(proved).toBe(400);
  });

  it('proves long arrays read in many batches, at the root and below it', async () => {
    const items = Array.from({ length: 20_000 }, (_, id) => ({ id, name: `itém ${id}`, tags: ['a', id % 7] }));
    for (const value of [items, { items }, { data: { items, total: items.length } }]) {
      const text = JSON.stringify(value);
      expect(await provedStringified(value, text)).toBe(true);
      expect(await provedStringified(value, text.replace('"itém 19999"', '"itém 19998"'))).toBe(false);
      expect(await provedStringified(value, text.slice(0, -1))).toBe(false);
      expect(await provedStringified(value, `${text} `)).toBe(false);
    }
  });

  it('proves objects of many members a batch at a time, keys and their toJSON calls unchanged', async () => {
    const byId: Record<string, unknown> = {};
    for (let id = 0; id < 5_000; id++) byId[id % 3 === 0 ? String(id) : `order-${id}`] = { id, total: id / 8 };
    Object.assign(byId, { skipped: undefined, alsoSkipped: () => 1, when: new Date(0) });
    Object.defineProperty(byId, '__proto__', { value: { own: true }, enumerable: true, configurable: true });
    // A member's toJSON gets its key, in a batch as in the whole stringify.
    const keyed = { toJSON: (key: string) => `member ${key}` };
    byId.keyed = keyed;
    for (const value of [byId, { data: byId, count: 5_003 }]) {
      const text = JSON.stringify(value);
      expect(text).toContain('"__proto__":{"own":true}');
      expect(text).toContain('"keyed":"member keyed"');
      expect(await provedStringified(value, text)).toBe(true);
      expect(await provedStringified(value, text.replace('"member keyed"', '"member 0"'))).toBe(false);
      expect(await provedStringified(value, text.replace('"order-4999"', '"order-4998"'))).toBe(false);
    }
    // Every member skipped: nothing between the braces.
    const skipped = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, undefined]));
    expect(await provedStringified({ skipped, list: [1] }, '{"skipped":{},"list":[1]}')).toBe(true);
  });

  it('gives the event loop a turn every so many characters, between two pieces', async () => {
    const items = Array.from({ length: 60_000 }, (_, id) => ({ id, name: `item ${id}` }));
    const text = JSON.stringify({ items });
    const every = 100_000;
    const reads: number[] = [];
    const give = async (read: number) => {
      reads.push(read);
      await new Promise((resolve) => setImmediate(resolve));
    };
    expect(await provedStringified({ items }, text, { every, give })).toBe(true);
    // A turn once `every` more characters are read than at the last one, at most a piece (about 32 K) later.
    const gaps = [...reads, text.length].map((read, i) => read - (i === 0 ? 0 : reads[i - 1]));
    expect(gaps.length).toBeGreaterThan(10);
    for (const gap of gaps.slice(0, -1)) expect(gap).toBeGreaterThanOrEqual(every);
    for (const gap of gaps) expect(gap).toBeLessThan(every + 64 * 1024);
  });

  it('does not prove through a toJSON, whose output may depend on the key it is given', async () => {
    // Called with its index in the whole array, this item writes that index; in a batch it would write another.
    let calls = 0;
    const items = Array.from({ length: 3_000 }, (_, id) => ({
      id,
      toJSON: (key: string) => {
        calls++;
        return `at ${key}`;
      },
    }));
    const answer = { items };
    const text = JSON.stringify(answer);
    expect(text).toContain('"at 2999"');
    calls = 0;
    expect(await provedStringified(answer, text)).toBe(false);
    expect(calls).toBe(0); // never called with a key the whole stringify would not give
    const dated = { when: new Date(0), items: [1, 2] };
    expect(await provedStringified(dated, JSON.stringify(dated))).toBe(true); // a member's toJSON is stringified whole
    expect(await provedStringified({ toJSON: () => ({ a: 1 }) }, '{"a":1}')).toBe(false);
  });

  it('splits only arrays and plain objects: a boxed primitive, raw JSON or class instance is written whole', async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const boxed = { name: new String('ab'), count: new Number(2), point: new Point(1, 2), items: [new Boolean(false)] };
    const text = JSON.stringify(boxed);
    expect(text).toBe('{"name":"ab","count":2,"point":{"x":1,"y":2},"items":[false]}');
    expect(await provedStringified(boxed, text)).toBe(true);
    // Read as objects of their members, they would prove what JSON.stringify does not write.
    const membersRead = '{"name":{"0":"a","1":"b"},"count":{},"point":{"x":1,"y":2},"items":[false]}';
    expect(await provedStringified(boxed, membersRead)).toBe(false);
    const rawJson = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;
    if (rawJson) {
      const raw = { big: rawJson('12345678901234567890') };
      expect(await provedStringified(raw, JSON.stringify(raw))).toBe(true);
      expect(await provedStringified(raw, '{"big":{"rawJSON":"12345678901234567890"}}')).toBe(false);
    }
  });

  it('fails, without throwing, on what JSON.stringify throws on', async () => {
    const cyclic: Record<string, unknown> = { items: [1, 2] };
    (cyclic.items as unknown[]).push(cyclic);
    expect(await provedStringified(cyclic, '{"items":[1,2,{}]}')).toBe(false);
    expect(await provedStringified({ items: [1n] }, '{"items":[1]}')).toBe(false);
    const throwing = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw new Error('no prototype');
        },
      },
    );
    await expect(provedStringified(throwing, '{}')).resolves.toBe(false);
    const getter = Object.defineProperty({}, 'toJSON', {
      get: () => {
        throw new Error('no toJSON');
      },
    });
    await expect(provedStringified(getter, '{}')).resolves.toBe(false);
  });

  it('does not split what is not an object or array', async () => {
    for (const value of ['text', 12, null, true]) {
      expect(await provedStringified(value, JSON.stringify(value))).toBe(false);
    }
  });

  it('reads every member and item once, as JSON.stringify does', async () => {
    let reads = 0;
    const items = new Proxy([1, 2, 3], {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const answer = {
      get total() {
        reads++;
        return 3;
      },
      items,
    };
    const text = JSON.stringify(answer);
    reads = 0;
    expect(await provedStringified(answer, text)).toBe(true);
    expect(reads).toBe(4);
  });
});
