// One limit table (src/core/options/limits.rs, exported as optionLimits()): the README's options table and the
// typings users read state it, and every entry point (plugin options, createResultHandleStore, new
// ResultHandleStore) accepts exactly its bounds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import * as native from '../lib/native';
import { testBindings } from './fixtures/test-bindings';
import { normalizeOptions, ResultHandlesConfigurationError } from '../lib/result-handles.options';
import { createResultHandleStore, ResultHandleStore } from '../lib/result-handle.store';

const root = fileURLToPath(new URL('..', import.meta.url));
const limits = testBindings.optionLimits();
const byOption = new Map(limits.map((limit) => [limit.option, limit]));

function limit(option: string) {
  const found = byOption.get(option);
  if (!found) throw new Error(`no limit for ${option}`);
  return found;
}

/** How a bound is written in prose: `1 to 256`, or `at least 32`. */
function range(min: number, max: number | null | undefined): string {
  return max == null ? `at least ${min}` : `${min} to ${max}`;
}

/** The JSDoc blocks of every property `name` in a .d.ts text. */
function docsOf(dts: string, name: string): string[] {
  return [...dts.matchAll(new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*(?:readonly\\s+)?${name}\\??:`, 'g'))].map(
    ([, doc]) => doc.replace(/\s*\*\s*/g, ' '),
  );
}

describe('the limit table', () => {
  it('has every bounded setting', () => {
    expect(limits.map((l) => l.option)).toEqual([
      'thresholdBytes',
      'ttlSeconds',
      'preview.items',
      'preview.chars',
      'namespace',
      'secret',
      'handleReferenceLimits.maxReferences',
      'handleReferenceLimits.maxBytes',
    ]);
  });

  it.each(limits)("the README's options table states $option", ({ option, min, max, default: fallback }) => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const [top, key] = option.split('.');
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${top}\``));
    expect(row, `no README row for ${top}`).toBeDefined();
    const bounds = max == null ? `at least ${min}` : key ? `\`${key}\` ${min} to ${max}` : `\`${min}\``;
    expect(row).toContain(bounds);
    if (max != null) expect(row).toContain(`${max}`);
    if (fallback != null) expect(row).toContain(key ? `${key}: ${fallback}` : `\`${fallback}\``);
  });

  it.each(limits)('the typings state $option wherever it is an option', ({ option, min, max }) => {
    const dts = ['result-handles.options.d.ts', 'result-handle.store.d.ts']
      .map((file) => readFileSync(join(root, 'dist', file), 'utf8'))
      .join('\n');
    const [top, key] = option.split('.');
    // preview.items is documented on `items`; handleReferenceLimits' keys on the option itself.
    const docs = [...(key ? docsOf(dts, key) : []), ...docsOf(dts, top)].filter((doc) => doc.includes(range(min, max)));
    expect(docs.length, `no doc comment states ${range(min, max)} for ${option}`).toBeGreaterThan(0);
    if (!key) {
      for (const doc of docsOf(dts, top)) expect(doc, `${top}: ${doc}`).toContain(range(min, max));
    }
  });
});

async function refusal(work: () => unknown): Promise<ResultHandlesConfigurationError | undefined> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    return error as ResultHandlesConfigurationError;
  }
  return undefined;
}

const storage = { get: () => null, set: () => undefined, delete: () => undefined };
const SECRET_AT_MIN = 's'.repeat(limit('secret').min);

/** Each entry point that takes the setting, as a function of its value. */
const entryPoints: Record<string, Array<[string, (value: unknown) => unknown]>> = {
  ttlSeconds: [
    ['plugin options', (ttlSeconds) => normalizeOptions({ ttlSeconds } as never)],
    [
      'createResultHandleStore',
      async (ttlSeconds) =>
        (
          await createResultHandleStore({ storage: { type: 'memory' }, namespace: 'n', ttlSeconds } as never)
        ).onShutdown(),
    ],
    ['new ResultHandleStore', (ttlSeconds) => new ResultHandleStore(storage, ttlSeconds as never)],
  ],
  namespace: [
    ['plugin options', (namespace) => normalizeOptions({ namespace } as never)],
    [
      'createResultHandleStore',
      async (namespace) =>
        (
          await createResultHandleStore({ storage: { type: 'memory' }, namespace, ttlSeconds: 60 } as never)
        ).onShutdown(),
    ],
  ],
  secret: [
    ['plugin options', (secret) => normalizeOptions({ secret } as never)],
    [
      'createResultHandleStore',
      async (secret) =>
        (
          await createResultHandleStore({
            storage: { type: 'memory' },
            namespace: 'n',
            ttlSeconds: 60,
            secret,
          } as never)
        ).onShutdown(),
    ],
    ['new ResultHandleStore', (secret) => new ResultHandleStore(storage, 60, { secret } as never)],
  ],
};

/** A value of the setting at `size` (a number, or a string of that many bytes). */
function sized(option: string, size: number): unknown {
  return option === 'ttlSeconds' ? size : 'x'.repeat(size);
}

describe('every entry point takes the same bounds', () => {
  for (const [option, points] of Object.entries(entryPoints)) {
    const { min, max } = limit(option);
    it.each(points)(`${option}: %s accepts ${range(min, max)} and nothing outside`, async (_name, enter) => {
      expect(await refusal(() => enter(sized(option, min)))).toBeUndefined();
      if (max != null) expect(await refusal(() => enter(sized(option, max)))).toBeUndefined();
      const below = await refusal(() => enter(sized(option, min - 1)));
      expect(below?.problems.join(' ')).toContain(`${option}:`);
      if (max != null) {
        const above = await refusal(() => enter(sized(option, max + 1)));
        expect(above?.problems.join(' ')).toContain(`${option}:`);
      }
    });
  }

  it.each(['thresholdBytes', 'preview.items', 'preview.chars', 'handleReferenceLimits.maxReferences'])(
    'plugin options: %s accepts its bounds and nothing outside',
    async (option) => {
      const { min, max } = limit(option);
      const [top, key] = option.split('.');
      const options = (value: number) => (key ? { [top]: { [key]: value } } : { [top]: value });
      for (const ok of [min, max!]) expect(await refusal(() => normalizeOptions(options(ok)))).toBeUndefined();
      for (const bad of [min - 1, max! + 1]) {
        expect((await refusal(() => normalizeOptions(options(bad))))?.problems.join(' ')).toContain(`${option}:`);
      }
    },
  );

  it('the secret limit is the one the sealing uses', () => {
    expect(SECRET_AT_MIN).toHaveLength(32);
    expect(() => native.storageKeyFor(native.newHandle(), 's', undefined, SECRET_AT_MIN.slice(1))).toThrow();
    expect(native.storageKeyFor(native.newHandle(), 's', undefined, SECRET_AT_MIN)).toMatch(/^[0-9a-f]{64}$/);
  });
});
