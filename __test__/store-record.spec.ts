// The record format, checked from outside: node:crypto alone decrypts what the engine seals, and the engine opens
// what node:crypto seals, both following docs/record-format.md and nothing else.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper without types
import { CHUNK, CHUNK_BY_VERSION, HEADER, TAG, deriveKeys as derive, jsOpen, jsSeal } from '../benchmark/js-record.mjs';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;

function answer(bytes: number): Buffer {
  const text = JSON.stringify({
    rows: Array.from({ length: Math.ceil(bytes / 10) + 1 }, (_, i) => ({ id: i, s: 'x' })),
  });
  return Buffer.from(text.slice(0, Math.max(2, bytes)), 'utf8');
}

// ─── tests ──────────────────────────────────────────────────────────────────

describe('sealed records, per docs/record-format.md', () => {
  afterEach(() => {
    delete process.env.RESULT_HANDLES_SECRET;
  });

  const owners: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    ['', undefined],
    [undefined, ''],
    ['sess-1', 'user-1'],
    ['sëss-ünïcode-✓', undefined],
  ];

  it('node:crypto alone opens what the engine seals (every owner shape, chunk edges)', async () => {
    for (const [session, subject] of owners) {
      for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17]) {
        const handle = native.newHandle();
        const plain = answer(size).subarray(0, size);
        const sealed = await native.sealRecord(handle, plain, session, subject);
        const keys = derive(handle, session, subject);
        expect(sealed.storageKey).toBe(keys.storageKey.toString('hex'));
        expect(sealed.record.length).toBe(HEADER + size + TAG * Math.max(1, Math.ceil(size / CHUNK)));
        expect(jsOpen(sealed.record, keys).equals(plain)).toBe(true);
      }
    }
  });

  it('the engine opens what node:crypto seals, in the version it writes and in version 1', async () => {
    for (const [session, subject] of owners) {
      for (const version of [2, 1] as const) {
        const handle = native.newHandle();
        const plain = answer(2 * CHUNK_BY_VERSION[version] + 5);
        const record = jsSeal(plain, derive(handle, session, subject), version);
        expect(record[4]).toBe(version);
        const opened = await native.openRecord(handle, record, session, subject);
        expect(opened?.equals(plain)).toBe(true);
        expect(native.openRecordSync(handle, record, session, subject)?.equals(plain)).toBe(true);
      }
    }
  });

  it('the secret is the HKDF salt, from the option or RESULT_HANDLES_SECRET', async () => {
    const secret = 'a-server-secret-of-at-least-32-bytes!!';
    const handle = native.newHandle();
    const sealed = await native.sealRecord(handle, Buffer.from('{"a":1}'), 'sess', undefined, secret);
    const keys = derive(handle, 'sess', undefined, secret);
    expect(sealed.storageKey).toBe(keys.storageKey.toString('hex'));
    expect(jsOpen(sealed.record, keys).toString()).toBe('{"a":1}');
    expect(() => jsOpen(sealed.record, derive(handle, 'sess'))).toThrow();

    expect(native.storageKeyFor(handle, 'sess')).toBe(derive(handle, 'sess').storageKey.toString('hex'));
    process.env.RESULT_HANDLES_SECRET = secret;
    expect(native.storageKeyFor(handle, 'sess')).toBe(sealed.storageKey);
    expect((await native.openRecord(handle, sealed.record, 'sess'))?.toString()).toBe('{"a":1}');

    process.env.RESULT_HANDLES_SECRET = 'short';
    expect(() => native.storageKeyFor(handle, 'sess')).toThrow(
      expect.objectContaining({ code: 'RESULT_HANDLES_CONFIGURATION' }),
    );
    const error = await native.sealRecord(handle, 'x', 'sess', undefined, 'too short').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_HANDLES_CONFIGURATION' });
    expect(String((error as Error).message)).not.toContain('too short');
  });

  it('tampered, truncated, reordered, moved or future-version records open as null', async () => {
    const handle = native.newHandle();
    const plain = answer(3 * CHUNK);
    const { record } = native.sealRecordSync(handle, plain, 's', 'u');
    const open = (bytes: Buffer, ...who: [string, string | undefined, string | undefined] | []) =>
      who.length === 0
        ? native.openRecordSync(handle, bytes, 's', 'u')
        : native.openRecordSync(who[0], bytes, who[1], who[2]);
    expect(open(record)?.equals(plain)).toBe(true);

    for (const position of [0, 4, 5, 12, 19, HEADER, HEADER + CHUNK, HEADER + CHUNK + 3, record.length - 1]) {
      const bad = Buffer.from(record);
      bad[position] ^= 0x01;
      expect(open(bad), `flip at ${position}`).toBeNull();
    }
    expect(open(record.subarray(0, record.length - 1))).toBeNull();
    expect(open(record.subarray(0, HEADER + CHUNK + TAG))).toBeNull();
    const stride = CHUNK + TAG;
    const swapped = Buffer.concat([
      record.subarray(0, HEADER),
      record.subarray(HEADER + stride, HEADER + 2 * stride),
      record.subarray(HEADER, HEADER + stride),
      record.subarray(HEADER + 2 * stride),
    ]);
    expect(open(swapped)).toBeNull();
    const future = Buffer.from(record);
    future[4] = 3;
    expect(open(future)).toBeNull();
    expect(() => jsOpen(future, derive(handle, 's', 'u'))).toThrow(/unknown version/);
    expect(open(record, native.newHandle(), 's', 'u')).toBeNull();
    expect(open(record, handle, 's', undefined)).toBeNull();
    expect(open(record, handle, undefined, 'u')).toBeNull();
    expect(open(Buffer.from('not a record'))).toBeNull();
  });

  it('handles are fresh UUID v4 strings', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const handle = native.newHandle();
      expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(handle);
    }
    expect(seen.size).toBe(200);
  });
});
