import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper without types
import { jsPreview, jsShape } from '../benchmark/js-fold.mjs';
import { foldAnswer, foldAnswerSync, foldSettingsOf } from './fixtures/fold';
import { normalizeOptions } from '../lib/result-handles.options';
import { seededRandom } from './fixtures/random';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;

const HANDLE = '0b0f6a5e-8a3c-4a8e-9a55-3f1c2d4e5f60';

type Settings = { thresholdBytes: number; previewItems: number; previewChars: number };
const settings = (thresholdBytes: number, previewItems = 5, previewChars = 500): Settings => ({
  thresholdBytes,
  previewItems,
  previewChars,
});

// ─── seeded random JSON ─────────────────────────────────────────────────────

const PIECES = [
  'a',
  'Z',
  ' ',
  'é',
  '€',
  '😀',
  '𝄞',
  '\ud800',
  '\udc00',
  '\u0000',
  '\u001f',
  '\n',
  '\t',
  '"',
  '\\',
  '/',
  '\u2028',
  '\u007f',
  '<',
  '10',
  '__proto__',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1 / 3,
  1e21,
  1e-7,
  1e-6,
  123456789012345680000,
  2 ** 53,
  2 ** 53 + 2,
  5e-324,
  1.7976931348623157e308,
  -1.5e-300,
  999999999999999999999,
];

function randomString(rand: () => number, max = 12): string {
  let s = '';
  const n = Math.floor(rand() * max);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(rand() * PIECES.length)];
  return s;
}

function randomNumber(rand: () => number): number {
  const pick = rand();
  if (pick < 0.4) return NUMBERS[Math.floor(rand() * NUMBERS.length)];
  if (pick < 0.7) return Math.floor((rand() - 0.5) * 2 ** Math.floor(rand() * 60));
  const bits = new DataView(new ArrayBuffer(8));
  bits.setUint32(0, Math.floor(rand() * 2 ** 32));
  bits.setUint32(4, Math.floor(rand() * 2 ** 32));
  const f = bits.getFloat64(0);
  return Number.isFinite(f) ? f : 0.5;
}

function randomValue(rand: () => number, depth = 0): unknown {
  const pick = rand();
  if (depth < 4 && pick < 0.15)
    return Array.from({ length: Math.floor(rand() * 30) }, () => randomValue(rand, depth + 1));
  if (depth < 4 && pick < 0.3) {
    const object: Record<string, unknown> = {};
    const n = Math.floor(rand() * 8);
    for (let i = 0; i < n; i++)
      Object.defineProperty(object, randomString(rand, 4), {
        value: randomValue(rand, depth + 1),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    return object;
  }
  if (pick < 0.5) return randomString(rand, 40);
  if (pick < 0.8) return randomNumber(rand);
  if (pick < 0.9) return rand() < 0.5;
  return null;
}

/** Other spellings of the same number, as JSON allows. */
function respellNumber(n: number, rand: () => number): string {
  if (Object.is(n, -0)) return rand() < 0.5 ? '-0' : '-0.0e7';
  const options = [String(n), n.toExponential().replace('e+', rand() < 0.5 ? 'E+' : 'e'), n.toPrecision(17)];
  if (Number.isInteger(n) && n !== 0 && Math.abs(n) < 1e15) options.push(`${n}.000`, `${n}0e-1`);
  return options[Math.floor(rand() * options.length)];
}

/** Other spellings of the same string: some characters as \u escapes (lone surrogates included). */
function respellString(s: string, rand: () => number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    const mustEscape = unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit < 0xe000);
    if (mustEscape || rand() < 0.3) out += '\\u' + unit.toString(16).padStart(4, '0').toUpperCase();
    else out += s[i];
  }
  return out + '"';
}

/** JSON text for `value`, spelled differently from JSON.stringify: spaces, escapes, number forms, repeated keys. */
function respell(value: unknown, rand: () => number): string {
  const ws = () => [' ', '\n', '\t', '\r', ''][Math.floor(rand() * 5)];
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => respell(v, rand)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (typeof value === 'string') return respellString(value, rand);
  if (typeof value === 'number') return respellNumber(value, rand);
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value).map(
      (k) => `${respellString(k, rand)}${ws()}:${ws()}${respell((value as Record<string, unknown>)[k], rand)}`,
    );
    // A repeated key: JSON.parse keeps its first place and its last value.
    if (members.length > 0 && rand() < 0.3) members.unshift(`${members[members.length - 1].split(':')[0]}:"first"`);
    if (rand() < 0.2) members.push('"7":1e400');
    return `{${ws()}${members.join(',')}${ws()}}`;
  }
  return JSON.stringify(value);
}

function folded(result: { folded: boolean; previewJson?: string; shapeJson?: string }): {
  preview: string;
  shape: string;
} {
  expect(result.folded).toBe(true);
  return { preview: result.previewJson as string, shape: result.shapeJson as string };
}

// ─── the seed example ───────────────────────────────────────────────────────

const seed = {
  orders: Array.from({ length: 500 }, (_, i) => ({ id: i, status: i % 2 ? 'shipped' : 'open' })),
  total: 500,
};
const SEED_PREVIEW = '{"orders":[{"id":0,"status":"open"},{"id":1,"status":"shipped"}],"total":500}';
const SEED_SHAPE =
  '{"type":"object","keys":{"orders":{"type":"array","length":500,"items":{"type":"object","keys":{"id":{"type":"number"},"status":{"type":"string","length":4}}}},"total":{"type":"number"}}}';

describe('fold through the binding', () => {
  it('folds the seed example byte-exact, sync and async, JSON and text', async () => {
    const json = JSON.stringify(seed);
    for (const [answer, kind] of [
      [json, 'json'],
      [JSON.stringify(seed, null, 2), 'text'],
    ] as const) {
      for (const result of [
        native.foldAnswerSync(answer, kind, settings(1024, 2)),
        await native.foldAnswer(answer, kind, settings(1024, 2)),
      ]) {
        expect(result.bytes).toBe(Buffer.byteLength(json));
        const { preview, shape } = folded(result);
        expect(preview).toBe(SEED_PREVIEW);
        expect(shape).toBe(SEED_SHAPE);
        expect(native.foldedJson(preview, shape, HANDLE)).toBe(
          `{"preview":${SEED_PREVIEW},"shape":${SEED_SHAPE},"handle":"${HANDLE}"}`,
        );
      }
    }
  });

  it('leaves answers at or under the threshold whole', () => {
    const json = JSON.stringify(seed);
    const bytes = Buffer.byteLength(json);
    expect(native.foldAnswerSync(json, 'json', settings(bytes))).toEqual({ folded: false, bytes });
    expect(native.foldAnswerSync(json, 'json', settings(bytes - 1)).folded).toBe(true);
  });

  it('measures JSON text as JSON.stringify(JSON.parse(text)) and returns that text when it folds', () => {
    const rand = seededRandom(2);
    let foldedCount = 0;
    for (let i = 0; i < 400; i++) {
      const value = [randomValue(rand), randomValue(rand), i % 3 === 0 ? 'x'.repeat(1200) : 0];
      const text = respell(value, rand);
      const expected = JSON.stringify(JSON.parse(text));
      const result = native.foldAnswerSync(text, 'text', settings(1024, 3, 20));
      expect(result.bytes).toBe(Buffer.byteLength(expected));
      if (result.folded) {
        foldedCount += 1;
        expect(result.canonicalJson).toBe(expected);
      }
    }
    expect(foldedCount).toBeGreaterThan(100);
  });

  it('measures other text as a JSON string', () => {
    const rand = seededRandom(3);
    const texts = ['42', '"quoted"', '{ not json', '[1,]', 'null', ' true', ''];
    for (let i = 0; i < 200; i++) texts.push(randomString(rand, 400).replace(/[\ud800-\udfff]/g, 'x'));
    for (const text of texts) {
      const expected = JSON.stringify(text);
      const result = native.foldAnswerSync(text, 'text', settings(1024, 5, 10));
      expect(result.bytes).toBe(Buffer.byteLength(expected));
      if (result.folded) {
        expect(result.canonicalJson).toBe(expected);
        expect(JSON.parse(result.shapeJson)).toEqual({ type: 'string', length: text.length });
      }
    }
  });

  it('builds the preview and shape the plain-JS reference builds, whenever nothing had to shrink', () => {
    const rand = seededRandom(4);
    let compared = 0;
    for (let i = 0; i < 300; i++) {
      const value = Array.from({ length: 20 + Math.floor(rand() * 40) }, () => randomValue(rand));
      const json = JSON.stringify(value);
      const items = 1 + Math.floor(rand() * 4);
      const chars = 1 + Math.floor(rand() * 30);
      const threshold = Math.max(1024, Buffer.byteLength(json) - 1);
      const result = native.foldAnswerSync(json, 'json', settings(threshold, items, chars));
      if (!result.folded || JSON.parse(result.shapeJson).note !== undefined) continue;
      compared += 1;
      expect(result.previewJson).toBe(JSON.stringify(jsPreview(value, items, chars)));
      expect(result.shapeJson).toBe(JSON.stringify(jsShape(value)));
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('gives the same answer sync and async', async () => {
    const rand = seededRandom(5);
    for (let i = 0; i < 50; i++) {
      const json = JSON.stringify(Array.from({ length: 40 }, () => randomValue(rand)));
      const s = settings(1024 + Math.floor(rand() * 4000), 1 + Math.floor(rand() * 5), 1 + Math.floor(rand() * 100));
      expect(await native.foldAnswer(json, 'json', s)).toEqual(native.foldAnswerSync(json, 'json', s));
    }
  });
});

// ─── the bound ──────────────────────────────────────────────────────────────

function adversarial(): Array<[string, string]> {
  const wideObject = `{${Array.from({ length: 100_000 }, (_, i) => `"key${i}":${i}`).join(',')}}`;
  const map = JSON.stringify({
    users: Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`user-${i}`, { name: `User ${i}`, tags: ['a', 'b'], age: i }]),
    ),
  });
  const deepArrays = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
  const deepObjects = `${'{"a":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
  const hugeString = JSON.stringify('é😀\ud800'.repeat(1_000_000));
  const row = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`column_${i}`, `value ${i}`]));
  const wideRows = JSON.stringify(Array.from({ length: 300 }, () => row));
  const mixed = JSON.stringify(
    Array.from({ length: 5000 }, (_, i) => [i, `s${i}`, null, { [`k${i}`]: [i] }, [true]][i % 5]),
  );
  return [
    ['100k keys', wideObject],
    ['dynamic-key map', map],
    ['10k-deep arrays', deepArrays],
    ['10k-deep objects', deepObjects],
    ['huge string', hugeString],
    ['wide lists of wide objects', wideRows],
    ['mixed list', mixed],
  ];
}

describe('the folded answer never exceeds thresholdBytes', () => {
  it.each(adversarial())('%s', (_name, json) => {
    for (const [threshold, items, chars] of [
      [1024, 5, 500],
      [4096, 10_000, 1_000_000],
      [16_384, 5, 500],
    ]) {
      const result = native.foldAnswerSync(json, 'json', settings(threshold, items, chars));
      expect(result.bytes).toBe(Buffer.byteLength(json));
      const { preview, shape } = folded(result);
      const envelope = native.foldedJson(preview, shape, HANDLE);
      expect(Buffer.byteLength(envelope)).toBeLessThanOrEqual(threshold);
      const parsed = JSON.parse(envelope);
      expect(parsed.handle).toBe(HANDLE);
    }
  });
});

// ─── errors and the TS wrapper ──────────────────────────────────────────────

describe('fold errors', () => {
  it('refuses a bad kind, a threshold under 1024 and JSON that is not JSON, with INVALID_INPUT', async () => {
    const bad: Array<[string, string, Settings]> = [
      ['[1]', 'xml', settings(1024)],
      ['[1]', 'json', settings(1000)],
      [`[${'1,'.repeat(1000)}]`, 'json', settings(1024)],
    ];
    for (const [answer, kind, s] of bad) {
      expect(() => native.foldAnswerSync(answer, kind, s)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      await expect(native.foldAnswer(answer, kind, s)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        remedy: expect.any(String),
      });
    }
  });
});

describe('TS wrapper', () => {
  it('folds with normalized options', async () => {
    const options = normalizeOptions({ thresholdBytes: 1024, preview: { items: 2 } });
    expect(foldSettingsOf(options)).toEqual({ thresholdBytes: 1024, previewItems: 2, previewChars: 500 });
    const decision = await foldAnswer(JSON.stringify(seed), 'json', options);
    expect(decision).toEqual({
      folded: true,
      bytes: Buffer.byteLength(JSON.stringify(seed)),
      previewJson: SEED_PREVIEW,
      shapeJson: SEED_SHAPE,
    });
    expect(foldAnswerSync('short', 'text', options)).toEqual({ folded: false, bytes: 7 });
  });
});
