import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_MEMORY_MAX_ENTRIES,
  MIN_THRESHOLD_BYTES,
  RESULT_HANDLE_META_KEY,
  RESULT_QUERY_TOOL_NAME,
  ResultHandlesConfigurationError,
  normalizeOptions,
  type ResultHandlesOptions,
} from '../lib/result-handles.options';
import { createResultHandleStore } from '../lib/result-handle.store';
import { openEngine, prepareOptions } from '../lib/host/open-engine';
import { resultQueryInputShape } from '../lib/host/result-query.schema';
import * as native from '../lib/native';
import { testBindings } from './fixtures/test-bindings';

function problemsOf(options: unknown): ResultHandlesConfigurationError {
  try {
    normalizeOptions(options as ResultHandlesOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    return error as ResultHandlesConfigurationError;
  }
  throw new Error('expected normalizeOptions to throw');
}

describe('constants', () => {
  it('match the plugin they replace', () => {
    expect(MIN_THRESHOLD_BYTES).toBe(1024);
    expect(DEFAULT_MEMORY_MAX_ENTRIES).toBe(1000);
    expect(RESULT_HANDLE_META_KEY).toBe('frontmcp/result-handle');
    expect(RESULT_QUERY_TOOL_NAME).toBe('result_query');
  });

  it('are the values the engine exports', () => {
    expect(MIN_THRESHOLD_BYTES).toBe(native.MIN_THRESHOLD_BYTES);
    expect(DEFAULT_MEMORY_MAX_ENTRIES).toBe(native.DEFAULT_MEMORY_MAX_ENTRIES);
    expect(RESULT_HANDLE_META_KEY).toBe(native.RESULT_HANDLE_META_KEY);
    expect(RESULT_QUERY_TOOL_NAME).toBe(native.RESULT_QUERY_TOOL_NAME);
  });

  it('MIN_THRESHOLD_BYTES is the smallest threshold the engine accepts', () => {
    expect(normalizeOptions({ thresholdBytes: MIN_THRESHOLD_BYTES }).thresholdBytes).toBe(MIN_THRESHOLD_BYTES);
    expect(problemsOf({ thresholdBytes: MIN_THRESHOLD_BYTES - 1 }).problems.join(' ')).toContain('thresholdBytes');
  });

  it('DEFAULT_MEMORY_MAX_ENTRIES is how many answers the memory store keeps by default', async () => {
    const store = await createResultHandleStore({ storage: { type: 'memory' }, namespace: 'rh', ttlSeconds: 60 });
    const handles: string[] = [];
    for (let i = 0; i <= DEFAULT_MEMORY_MAX_ENTRIES; i += 1) {
      const handle = store.newHandle();
      handles.push(handle);
      await store.saveJson(handle, `{"i":${i}}`, { session: 's' });
    }
    expect(await store.read(handles[0], { session: 's' })).toBeUndefined();
    expect(await store.read(handles[1], { session: 's' })).toEqual({ value: { i: 1 } });
    expect(await store.read(handles[DEFAULT_MEMORY_MAX_ENTRIES], { session: 's' })).toEqual({
      value: { i: DEFAULT_MEMORY_MAX_ENTRIES },
    });
    await store.onShutdown();
  });

  it('RESULT_HANDLE_META_KEY and RESULT_QUERY_TOOL_NAME are what the engine writes into a folded answer', async () => {
    const engine = await openEngine(
      prepareOptions({ thresholdBytes: MIN_THRESHOLD_BYTES, storage: { type: 'memory' } }),
    );
    try {
      const answer = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, note: `row ${i}` })) };
      const plan = await engine.prepare(JSON.stringify({ content: [], structuredContent: answer }));
      expect(plan.kind).toBe('fold');
      const folded = JSON.parse(await engine.commit(plan, 'session-1', null)) as {
        _meta: Record<string, { handle: string }>;
        content: Array<{ text: string }>;
      };
      expect(Object.keys(folded._meta)).toEqual([RESULT_HANDLE_META_KEY]);
      const { handle } = folded._meta[RESULT_HANDLE_META_KEY];
      expect(folded.content[1].text).toContain(RESULT_QUERY_TOOL_NAME);
      expect(folded.content[1].text).toContain(handle);
    } finally {
      await engine.close();
    }
  });

  it("result_query's listed limits are the engine's", () => {
    const shape = resultQueryInputShape(z);
    const limitMeta = z.toJSONSchema(z.object(shape)).properties?.limit as { maximum: number; description: string };
    expect(limitMeta.maximum).toBe(native.RESULT_QUERY_MAX_LIMIT);
    const list = JSON.stringify(Array.from({ length: 3 * native.RESULT_QUERY_DEFAULT_LIST_LIMIT }, (_, i) => i));
    const text = JSON.stringify('x'.repeat(3 * native.RESULT_QUERY_DEFAULT_STRING_LIMIT));
    const read = (answer: string, args: object) =>
      JSON.parse(testBindings.queryAnswerSync(answer, JSON.stringify({ handle: 'h', ...args }), 1 << 30)) as {
        value: unknown[] | string;
      };
    expect(read(list, {}).value).toHaveLength(native.RESULT_QUERY_DEFAULT_LIST_LIMIT);
    expect(read(text, {}).value).toHaveLength(native.RESULT_QUERY_DEFAULT_STRING_LIMIT);
    expect(limitMeta.description).toContain(`default ${native.RESULT_QUERY_DEFAULT_LIST_LIMIT})`);
    expect(limitMeta.description).toContain(`default ${native.RESULT_QUERY_DEFAULT_STRING_LIMIT})`);
    expect(() => read(list, { limit: limitMeta.maximum })).not.toThrow();
    expect(() => read(list, { limit: limitMeta.maximum + 1 })).toThrow(/limit/);
  });
});

describe('normalizeOptions', () => {
  it('applies every default', () => {
    for (const input of [undefined, {}, { thresholdBytes: undefined }]) {
      expect(normalizeOptions(input)).toEqual({
        thresholdBytes: 16384,
        ttlSeconds: 600,
        preview: { items: 5, chars: 500 },
        storage: { type: 'auto' },
        namespace: 'result-handles',
        handleReferences: false,
        handleReferenceLimits: { maxReferences: 16, maxBytes: 16_777_216 },
      });
    }
  });

  it('keeps given values, either preview key alone, and the caller’s own function and storage object', () => {
    const storage = { type: 'redis' as const, redis: { url: 'redis://127.0.0.1:6379' } };
    const foldPolicy = () => true;
    const resolved = normalizeOptions({
      thresholdBytes: 4096,
      ttlSeconds: 60,
      preview: { chars: 40 },
      foldPolicy,
      storage,
      namespace: 'ns',
      secret: 'x'.repeat(32),
    });
    expect(resolved).toMatchObject({ thresholdBytes: 4096, ttlSeconds: 60, preview: { items: 5, chars: 40 } });
    expect(resolved.foldPolicy).toBe(foldPolicy);
    expect(resolved.storage).toBe(storage);
    expect(resolved.namespace).toBe('ns');
    expect(resolved.secret).toBe('x'.repeat(32));
  });

  it('refuses each invalid option with a coded error naming the option and the range', () => {
    const cases: Array<[unknown, string]> = [
      [{ thresholdBytes: 1023 }, 'thresholdBytes: must be a whole number from 1024 to 2147483648 (got 1023).'],
      [
        { thresholdBytes: 2048.5 },
        'thresholdBytes: must be a whole number from 1024 to 2147483648 (got 2048.5, not a whole number).',
      ],
      [{ thresholdBytes: Number.NaN }, 'thresholdBytes: must be a whole number from 1024 to 2147483648 (got NaN).'],
      [{ thresholdBytes: 10n }, 'thresholdBytes: must be a whole number from 1024 to 2147483648 (got a bigint).'],
      [{ ttlSeconds: 0 }, 'ttlSeconds: must be a positive whole number of seconds, at most 31536000 (got 0).'],
      [
        { ttlSeconds: Infinity },
        'ttlSeconds: must be a positive whole number of seconds, at most 31536000 (got Infinity).',
      ],
      [{ preview: { items: 0 } }, 'preview.items: must be a whole number from 1 to 10000 (got 0).'],
      [{ preview: { chars: -1 } }, 'preview.chars: must be a whole number from 1 to 1000000 (got -1).'],
      [{ preview: 3 }, 'preview: must be an object like { items: 5, chars: 500 } (got 3).'],
      [{ foldPolicy: 'always' }, 'foldPolicy: must be a function (got a string).'],
      [
        { storage: { type: 'disk' } },
        "storage.type must be 'auto', 'memory', 'redis', 'sqlite', 'upstash' or 'vercel-kv'.",
      ],
      [{ storage: () => 1 }, "storage: must be an object such as { type: 'memory' } (got a function)."],
      [{ namespace: '' }, 'namespace: must be a non-empty string of at most 256 bytes (got an empty string).'],
      [{ secret: 'too short' }, 'secret: must be a string of at least 32 bytes (got 9 bytes).'],
      [
        { thresholdbytes: 2048 },
        "'thresholdbytes': unknown option; the options are thresholdBytes, ttlSeconds, preview, foldPolicy, storage, namespace, secret, handleReferences, handleReferenceLimits.",
      ],
      [
        { [Symbol.iterator]: 1, namespace: Symbol('x') },
        'namespace: must be a non-empty string of at most 256 bytes (got a symbol).',
      ],
      ['fast', 'options: must be an object (got a string).'],
    ];
    for (const [options, problem] of cases) {
      const error = problemsOf(options);
      expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
      expect(error.name).toBe('ResultHandlesConfigurationError');
      expect(error.problems).toEqual([problem]);
      expect(error.message).toBe(`Invalid result-handles options (1 problem): ${problem}`);
    }
  });

  it('names every problem at once', () => {
    const error = problemsOf({
      thresholdBytes: 12,
      ttlSeconds: -5,
      preview: { items: 1.5, rows: 2 },
      foldPolicy: 42,
      storage: { type: 'disk' },
      namespace: 7,
      secret: 'abc',
      colour: 'blue',
    });
    const names = [
      "'colour'",
      'thresholdBytes',
      'ttlSeconds',
      "preview.'rows'",
      'preview.items',
      'foldPolicy',
      'storage.type',
      'namespace',
      'secret',
    ];
    expect(error.problems).toHaveLength(names.length);
    names.forEach((name, i) => expect(error.problems[i].startsWith(name)).toBe(true));
    expect(error.message.startsWith('Invalid result-handles options (9 problems): ')).toBe(true);
    for (const problem of error.problems) expect(error.message).toContain(problem);
  });

  it('never echoes a secret or a storage type string', () => {
    const error = problemsOf({ secret: 'hunter2-hunter2', storage: { type: 'hunter2' } });
    expect(error.message).not.toContain('hunter2');
  });

  it('reports circular options instead of crashing', () => {
    const options: Record<string, unknown> = { thresholdBytes: 2048 };
    options.self = options;
    expect(problemsOf(options).problems).toEqual([
      'options: contain a circular reference; pass plain data (functions and class instances are fine).',
    ]);
  });
});
