// The JS store API: createResultHandleStore over the native memory store, and ResultHandleStore over a storage JS
// already has (FrontMCP's get/set/delete), including one backed by the real Redis.
import { createRequire } from 'node:module';
import { describe, expect, inject, it } from 'vitest';

import { noSharedRedis, RespClient } from './setup/redis';
import { skipReason } from './setup/skip';

const require = createRequire(import.meta.url);
const native = require('../binding.js') as typeof import('../binding');
const api = require('../dist/result-handle.store.js') as typeof import('../lib/result-handle.store');
const { createResultHandleStore, ResultHandleStore, BrowserStoreUnavailableError } = api;

const orders = { orders: Array.from({ length: 50 }, (_, i) => ({ id: i, status: i % 2 ? 'shipped' : 'open' })) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; remedy?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

/** A FrontMCP-shaped storage kept in a Map, recording what it was asked to keep. */
function mapStorage() {
  const entries = new Map<string, { value: string; ttlSeconds?: number }>();
  let disconnected = 0;
  return {
    entries,
    disconnected: () => disconnected,
    storage: {
      async get(key: string) {
        return entries.get(key)?.value ?? null;
      },
      async set(key: string, value: string, options?: { ttlSeconds?: number }) {
        entries.set(key, { value, ttlSeconds: options?.ttlSeconds });
      },
      async delete(key: string) {
        return entries.delete(key);
      },
      root: {
        async disconnect() {
          disconnected += 1;
        },
      },
    },
  };
}

describe('createResultHandleStore', () => {
  it('requires storage, namespace and ttlSeconds, naming every problem', async () => {
    const error = await rejection(createResultHandleStore({} as never));
    expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
    expect(error.message).toContain('storage is required');
    expect(error.message).toContain('namespace');
    expect(error.message).toContain('ttlSeconds');

    const many = await rejection(
      createResultHandleStore({
        storage: { type: 'memory', memory: { maxEntries: -1, maxBytes: 'lots' }, unknownKey: 1 } as never,
        namespace: '',
        ttlSeconds: 1.5,
      }),
    );
    expect(many.code).toBe('RESULT_HANDLES_CONFIGURATION');
    for (const needle of [
      'storage.memory.maxEntries',
      'storage.memory.maxBytes',
      'storage.unknownKey',
      'namespace',
      'ttlSeconds',
    ]) {
      expect(many.message).toContain(needle);
    }
    expect(many.remedy).toBeTruthy();
  });

  it('names a JS Redis client that cannot cross into the native store (cycles included)', async () => {
    const client: Record<string, unknown> = { connect() {} };
    client.self = client;
    const error = await rejection(
      createResultHandleStore({
        storage: { type: 'redis', redis: { client } } as never,
        namespace: 'n',
        ttlSeconds: 60,
      }),
    );
    expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
    expect(error.message).toContain('storage.redis.client');
    expect(error.message).toContain('new ResultHandleStore');
  });

  it('saves and reads values for their owner only; absent is not empty', async () => {
    const store = await createResultHandleStore({ storage: { type: 'memory' }, namespace: 'rh', ttlSeconds: 60 });
    const handle = store.newHandle();
    expect(handle).toMatch(/^[0-9a-f-]{36}$/);
    await store.save(handle, orders, { session: 's1', caller: 'alice' });
    expect(await store.read(handle, { session: 's1', caller: 'alice' })).toEqual({ value: orders });
    for (const other of [
      { session: 's2', caller: 'alice' },
      { session: 's1' },
      { caller: 'alice' },
      {},
      { session: 's1', caller: '' },
    ]) {
      expect(await store.read(handle, other)).toBeUndefined();
    }
    expect(await store.read(store.newHandle(), { session: 's1', caller: 'alice' })).toBeUndefined();
    // `subject` is the owner's name everywhere; `caller`, its earlier name, reads the same record.
    expect(await store.read(handle, { session: 's1', subject: 'alice' })).toEqual({ value: orders });
    expect(await store.read(handle, { session: 's1', subject: 'bob', caller: 'alice' })).toBeUndefined();

    const anonymous = store.newHandle();
    await store.save(anonymous, 'text answer', { session: '' });
    expect(await store.read(anonymous, { session: '' })).toEqual({ value: 'text answer' });
    expect(await store.read(anonymous, {})).toBeUndefined();

    const json = store.newHandle();
    await store.saveJson(json, '{"raw":true}', { session: 's1' });
    expect((await store.readJson(json, { session: 's1' }))?.toString()).toBe('{"raw":true}');
    expect(await store.read(json, { session: 's1' })).toEqual({ value: { raw: true } });

    await store.onShutdown();
    expect((await rejection(store.read(handle, { session: 's1', caller: 'alice' }))).code).toBe(
      'RESULT_STORE_UNAVAILABLE',
    );
  });

  it('memory: drops the oldest past maxEntries', async () => {
    const store = await createResultHandleStore({
      storage: { type: 'memory', memory: { maxEntries: 3 } },
      namespace: 'rh',
      ttlSeconds: 60,
    });
    const handles = Array.from({ length: 5 }, () => store.newHandle());
    for (const [i, handle] of handles.entries()) await store.save(handle, { i }, { session: 's' });
    const kept = await Promise.all(handles.map((h) => store.read(h, { session: 's' })));
    expect(kept.map((hit) => hit?.value)).toEqual([undefined, undefined, { i: 2 }, { i: 3 }, { i: 4 }]);
  });

  it('memory: drops the oldest past maxBytes and refuses an answer larger than the cap', async () => {
    // Each entry holds a 67-byte key ('rh:' + 64 hex) and a record of 36 + ~1000 bytes.
    const store = await createResultHandleStore({
      storage: { type: 'memory', memory: { maxEntries: 0, maxBytes: 2500 } },
      namespace: 'rh',
      ttlSeconds: 60,
    });
    const handles = Array.from({ length: 4 }, () => store.newHandle());
    for (const handle of handles) await store.save(handle, 'x'.repeat(998), { session: 's' });
    const kept = await Promise.all(handles.map(async (h) => (await store.read(h, { session: 's' })) !== undefined));
    expect(kept).toEqual([false, false, true, true]);
    const error = await rejection(store.save(store.newHandle(), 'y'.repeat(3000), { session: 's' }));
    expect(error.code).toBe('RESULT_STORE_WRITE_FAILED');
    expect(error.remedy).toContain('maxBytes');
    expect(await store.read(handles[3], { session: 's' })).toBeDefined();
  });

  it('memory: expired entries are not returned', async () => {
    const store = await createResultHandleStore({ storage: { type: 'memory' }, namespace: 'rh', ttlSeconds: 1 });
    const handle = store.newHandle();
    await store.save(handle, orders, { session: 's' });
    expect(await store.read(handle, { session: 's' })).toBeDefined();
    await sleep(1100);
    expect(await store.read(handle, { session: 's' })).toBeUndefined();
  });

  it('auto picks memory when no store is configured in the environment', async () => {
    const store = await createResultHandleStore({ storage: { type: 'auto' }, namespace: 'rh', ttlSeconds: 60 });
    const handle = store.newHandle();
    await store.save(handle, 1, { caller: 'c' });
    expect(await store.read(handle, { caller: 'c' })).toEqual({ value: 1 });
  });
});

describe('new ResultHandleStore(storage, ttlSeconds)', () => {
  it('checks ttlSeconds with the store rule before any storage call', () => {
    const { ResultHandlesConfigurationError } =
      require('../dist/result-handles.options.js') as typeof import('../lib/result-handles.options');
    const { storage, entries } = mapStorage();
    for (const ttl of [0, -5, 1.5, NaN, Infinity, 3_153_600_001, '600', undefined, null]) {
      let thrown: unknown;
      try {
        new ResultHandleStore(storage, ttl as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(ttl)).toBeInstanceOf(ResultHandlesConfigurationError);
      const error = thrown as InstanceType<typeof ResultHandlesConfigurationError>;
      expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
      // The same wording as the plugin's ttlSeconds option (one check for every entry point).
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(
        /^ttlSeconds: must be a positive whole number of seconds, at most 31536000 \(got /,
      );
      expect(error.message).toContain(error.problems[0]);
    }
    expect(entries.size).toBe(0);
    for (const ttl of [1, 600, 31_536_000]) expect(new ResultHandleStore(storage, ttl).ttlSeconds).toBe(ttl);
  });

  it('keeps base64 records under hex keys with the TTL, and nothing identifying', async () => {
    const { storage, entries, disconnected } = mapStorage();
    const store = new ResultHandleStore(storage, 90);
    const handle = store.newHandle();
    await store.save(
      handle,
      { marker: 'plaintext-marker-71', orders },
      { session: 'session-x-1', caller: 'caller-y-2' },
    );
    expect(await store.read(handle, { session: 'session-x-1', caller: 'caller-y-2' })).toEqual({
      value: { marker: 'plaintext-marker-71', orders },
    });
    expect(await store.read(handle, { session: 'session-x-1' })).toBeUndefined();

    expect(entries.size).toBe(1);
    const [[key, { value, ttlSeconds }]] = [...entries];
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toBe(native.storageKeyFor(handle, 'session-x-1', 'caller-y-2'));
    expect(ttlSeconds).toBe(90);
    const record = Buffer.from(value, 'base64');
    expect(record.subarray(0, 4).toString('latin1')).toBe('RHSR');
    for (const needle of [handle, 'session-x-1', 'caller-y-2', 'plaintext-marker-71', 'shipped']) {
      expect(key.includes(needle) || value.includes(needle) || record.includes(needle)).toBe(false);
    }
    // A value tampered with in the storage reads as missing.
    const bad = Buffer.from(record);
    bad[30] ^= 1;
    entries.set(key, { value: bad.toString('base64') });
    expect(await store.read(handle, { session: 'session-x-1', caller: 'caller-y-2' })).toBeUndefined();

    await store.onShutdown();
    expect(disconnected()).toBe(1);
  });

  it('turns storage failures into coded errors', async () => {
    const failing = {
      async get(): Promise<string | null> {
        throw new Error('socket closed');
      },
      async set() {
        throw new Error('OOM');
      },
      async delete() {
        return false;
      },
    };
    const store = new ResultHandleStore(failing, 60);
    const saved = await rejection(store.save(store.newHandle(), 1, { session: 's' }));
    expect(saved).toMatchObject({ code: 'RESULT_STORE_WRITE_FAILED' });
    const read = await rejection(store.read(store.newHandle(), { session: 's' }));
    expect(read).toMatchObject({ code: 'RESULT_STORE_UNAVAILABLE' });
    expect(read.message).not.toContain('socket closed');
  });

  it('mixes the secret in, from the option or RESULT_HANDLES_SECRET', async () => {
    const secret = 'x'.repeat(40);
    const { storage, entries } = mapStorage();
    const withSecret = new ResultHandleStore(storage, 60, { secret });
    const handle = withSecret.newHandle();
    await withSecret.save(handle, 'v', { session: 's' });
    expect(await new ResultHandleStore(storage, 60).read(handle, { session: 's' })).toBeUndefined();
    expect([...entries.keys()]).toEqual([native.storageKeyFor(handle, 's', undefined, secret)]);
    process.env.RESULT_HANDLES_SECRET = secret;
    try {
      expect(await new ResultHandleStore(storage, 60).read(handle, { session: 's' })).toEqual({ value: 'v' });
    } finally {
      delete process.env.RESULT_HANDLES_SECRET;
    }
  });

  it.skipIf(skipReason('a JS Redis connection against the native store', noSharedRedis(inject('redisUrl'))))(
    'over a JS Redis connection writes records the native Redis store reads (same format, same keys)',
    async () => {
      const url = new URL(inject('redisUrl'));
      const client = await RespClient.connect(Number(url.port));
      const namespace = `interop-${native.newHandle()}`;
      const storage = {
        async get(key: string) {
          const reply = await client.command('GET', `${namespace}:${key}`);
          return Buffer.isBuffer(reply) ? reply.toString('utf8') : null;
        },
        async set(key: string, value: string, options?: { ttlSeconds?: number }) {
          await client.command('SET', `${namespace}:${key}`, value, 'EX', options?.ttlSeconds ?? 60);
        },
        async delete(key: string) {
          return (await client.command('DEL', `${namespace}:${key}`)) === 1;
        },
      };
      try {
        const jsBacked = new ResultHandleStore(storage, 60);
        const handle = jsBacked.newHandle();
        await jsBacked.save(handle, orders, { session: 'shared' });
        expect(await jsBacked.read(handle, { session: 'shared' })).toEqual({ value: orders });
        // The native store keeps raw bytes rather than base64, so move the record across as bytes.
        const key = `${namespace}:${native.storageKeyFor(handle, 'shared')}`;
        const text = (await client.command('GET', key)) as Buffer;
        await client.command('SET', key, Buffer.from(text.toString('utf8'), 'base64'), 'EX', 60);
        const nativeStore = await createResultHandleStore({
          storage: { type: 'redis', redis: { url: url.href } },
          namespace,
          ttlSeconds: 60,
        });
        expect(await nativeStore.read(handle, { session: 'shared' })).toEqual({ value: orders });
        await nativeStore.onShutdown();
      } finally {
        client.close();
      }
    },
  );
});

describe('BrowserStoreUnavailableError', () => {
  it('carries its code and names the memory store', () => {
    const error = new BrowserStoreUnavailableError('redis');
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('BROWSER_STORE_UNAVAILABLE');
    expect(error.storageType).toBe('redis');
    expect(error.message).toContain("storage: { type: 'memory' }");
    expect(error.message).toContain("'redis'");
  });
});
