// Redis stopped mid-test: calls fail with a code within a bounded time (never hang, never crash), and work again
// once the server is back. Uses its own redis-server so other suites are unaffected.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startRedis, type RedisServer } from './setup/redis';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;
const { createResultHandleStore } =
  require('../dist/result-handle.store.js') as typeof import('../lib/result-handle.store');

/** The store's own deadline (OPERATION_TIMEOUT in src/core/store.rs) plus slack: a call must settle before it. */
const BOUND_MS = 12_000;

async function settle<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: Error & { code?: string } }> {
  const started = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error: error as Error & { code?: string } };
  }
}

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server.stop();
});

describe('Redis outage', () => {
  it('rejects with RESULT_STORE_UNAVAILABLE within a bounded time, then recovers', async () => {
    const store = await createResultHandleStore({
      storage: { type: 'redis', redis: { url: server.url } },
      namespace: 'outage',
      ttlSeconds: 60,
    });
    const before = store.newHandle();
    await store.save(before, { ok: 1 }, { session: 's' });

    await server.stop(true); // SIGKILL: a crash, not a clean shutdown

    const saved = await settle(store.save(store.newHandle(), { ok: 2 }, { session: 's' }));
    expect(saved.error?.code).toBe('RESULT_STORE_UNAVAILABLE');
    expect(saved.error?.message).not.toContain('ok');
    expect(saved.ms).toBeLessThan(BOUND_MS);
    const read = await settle(store.read(before, { session: 's' }));
    expect(read.error?.code).toBe('RESULT_STORE_UNAVAILABLE');
    expect(read.ms).toBeLessThan(BOUND_MS);
    // Many calls at once while down: all settle, none hang.
    const burst = await settle(
      Promise.allSettled(Array.from({ length: 20 }, () => store.save(store.newHandle(), 1, {}))),
    );
    expect(burst.value?.every((r) => r.status === 'rejected')).toBe(true);
    expect(burst.ms).toBeLessThan(BOUND_MS);

    await server.restart(); // same port, empty (no persistence)

    const after = store.newHandle();
    await store.save(after, { ok: 3 }, { session: 's' });
    expect(await store.read(after, { session: 's' })).toEqual({ value: { ok: 3 } });
    expect(await store.read(before, { session: 's' })).toBeUndefined(); // the restarted server lost it
    await store.onShutdown();
  });

  it('refuses to open against a server that is down, within the bound', async () => {
    const down = await startRedis();
    const url = down.url;
    await down.stop();
    const opened = await settle(
      native.NativeHandleStore.open(JSON.stringify({ type: 'redis', redis: { url } }), 'x', 60),
    );
    expect(opened.error?.code).toBe('RESULT_STORE_UNAVAILABLE');
    expect(opened.ms).toBeLessThan(BOUND_MS);
    const fallback = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'redis', redis: { url }, fallback: 'memory' }),
      'x',
      60,
    );
    expect(fallback.backend).toBe('memory');
    await fallback.close();
  });
});
