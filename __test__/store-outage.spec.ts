// Store outages on real parts (a redis-server frozen, killed and started again; a REST endpoint that never answers; a
// Redis Cluster that cannot fail over, and one that does; a SQLite file another process locks; many sessions
// folding 1 MB answers): the first call finds the store down within the store's bound, every call after it fails at
// once with RESULT_STORE_UNAVAILABLE (answers go whole, result_query is refused) without waiting on the store, one
// warning says the outage started and one that it ended (with no call needed), and folds resume by themselves.
// How fast is measured by benchmark/store-outage.bench.mjs, not here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { answerOf, lockSqlite, outageHost, startRedis, startRestEndpoint, until } from './fixtures/outage.mjs';
import { startRedisCluster } from './setup/redis-cluster.mjs';
import { noRedisServer } from './setup/redis';
import { skipReason } from './setup/skip';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;
const { createResultHandleStore } =
  require('../dist/result-handle.store.js') as typeof import('../lib/result-handle.store');

/** The store's own deadline (OPERATION_TIMEOUT in src/core/store.rs) plus slack: a call must settle before it. */
const BOUND_MS = 12_000;
/** About 100 KB: folds, with a path index. */
const ANSWER = answerOf(100_000);
const UNAVAILABLE = 'RESULT_STORE_UNAVAILABLE';
/** Every case but the SQLite lock stops and starts its own redis-server; the lock needs the `sqlite3` shell. */
const skip = skipReason('store outages', noRedisServer);
const noSqliteShell = skipReason(
  'the SQLite lock case',
  spawnSync('sqlite3', ['-version'], { stdio: 'ignore' }).error
    ? 'the sqlite3 shell is not on the PATH (apt-get install sqlite3)'
    : undefined,
);

type Host = Awaited<ReturnType<typeof outageHost>>;
type Session = Awaited<ReturnType<Host['session']>>;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function settle<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: Error & { code?: string } }> {
  const started = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error: error as Error & { code?: string } };
  }
}

/**
 * The outage as a caller and an operator see it: `fault()` takes the store down; the first fold finds it down
 * (sent whole, within the bound) and opens the breaker; folds and queries after it are refused by the breaker
 * itself; `recover()` brings the store back and the end is told with no call made. Returns a handle kept before.
 */
async function throughOutage(host: Host, me: Session, fault: () => Promise<unknown>, recover: () => Promise<unknown>) {
  const kept = await me.fold();
  expect(kept).toBeTypeOf('string');
  expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });

  await fault();
  const first = await settle(me.call('big'));
  expect(first.ms).toBeLessThan(BOUND_MS);
  expect(first.value?.structuredContent).toEqual(ANSWER); // sent whole
  expect(host.handles.stats().store).toMatchObject({ state: 'down', outages: 1 });

  for (let i = 0; i < 3; i++) {
    expect(await me.fold()).toBeUndefined();
    const refused = await me.call('result_query', { handle: kept, path: '$.orders[0]' });
    expect(refused._meta?.code).toBe(UNAVAILABLE);
    // The breaker's own refusal: no call waited on the store.
    expect(refused.content?.[0]?.text).toContain('not answering; calls fail at once');
  }
  expect(host.outageWarnings()).toEqual({ started: 1, ended: 0 });
  expect(host.warnings.filter((w) => w.includes('could not keep'))).toEqual([]);

  await recover();
  await until('the end of the outage told, with no call', () => host.outageWarnings().ended === 1, 20_000);
  const stats = host.handles.stats();
  expect(stats.store).toMatchObject({ state: 'up', outages: 1 });
  expect(stats.store.outageMs).toBeGreaterThan(0);
  expect(stats.passed['store-failed']).toBe(4);
  expect(stats.queries[UNAVAILABLE]).toBe(3);
  expect(host.warnings.find((w) => w.includes('answers again after'))).toMatch(/after \d+\.\d s down/);
  expect(await me.fold()).toBeTypeOf('string');
  expect(host.outageWarnings()).toEqual({ started: 1, ended: 1 });
  return kept as string;
}

describe.skipIf(skip)('a store outage costs a call nothing beyond the first', () => {
  it('Redis frozen (SIGSTOP), then thawed: what it kept reads again', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const host = await outageHost({ storage: { type: 'redis', redis: { url: redis.url } }, answer: ANSWER });
    try {
      const me = await host.session();
      const kept = await throughOutage(
        host,
        me,
        async () => redis.freeze(),
        async () => redis.thaw(),
      );
      expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });
    } finally {
      await host.close();
      await redis.stop();
    }
  }, 60_000);

  it('Redis killed, then started again on its port (with an append-only file: what it kept reads again)', async () => {
    const redis = await startRedis({ persist: true });
    cleanups.push(() => redis.stop());
    const host = await outageHost({ storage: { type: 'redis', redis: { url: redis.url } }, answer: ANSWER });
    try {
      const me = await host.session();
      const kept = await throughOutage(
        host,
        me,
        () => redis.kill(),
        () => redis.start(),
      );
      expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });
    } finally {
      await host.close();
      await redis.stop();
    }
  }, 60_000);

  it('an Upstash REST endpoint that accepts requests and never answers them', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const rest = await startRestEndpoint(redis.port);
    cleanups.push(() => rest.close());
    const storage = { type: 'upstash', upstash: { url: rest.url, token: rest.token } };
    const host = await outageHost({ storage, answer: ANSWER });
    try {
      const me = await host.session();
      const kept = await throughOutage(
        host,
        me,
        async () => (rest.hanging = true),
        async () => (rest.hanging = false),
      );
      expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });
    } finally {
      await host.close();
      await rest.close();
      await redis.stop();
    }
  }, 60_000);

  it.skipIf(noSqliteShell)(
    'a SQLite file held under an exclusive lock by another process',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rh-outage-sqlite-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, 'store.db');
      // walMode: false shares the file with other processes (with WAL the store itself holds it exclusively).
      const host = await outageHost({ storage: { type: 'sqlite', sqlite: { path, walMode: false } }, answer: ANSWER });
      let lock: Awaited<ReturnType<typeof lockSqlite>> | undefined;
      try {
        const me = await host.session();
        const kept = await throughOutage(
          host,
          me,
          async () => (lock = await lockSqlite(path)),
          async () => lock?.release(),
        );
        expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });
      } finally {
        await lock?.release();
        await host.close();
      }
    },
    60_000,
  );

  it('the native store: refused at once while down, health readable, back once the server is', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const store = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'redis', redis: { url: redis.url } }),
      'outage-store',
      60,
    );
    try {
      const before = native.newHandle();
      await store.save(before, Buffer.from('{"ok":1}'), 's');
      expect(store.health).toEqual({ state: 'up', outages: 0, outageMs: 0 });

      await redis.kill(); // a crash, not a clean shutdown
      const saved = await settle(store.save(native.newHandle(), Buffer.from('{"ok":2}'), 's'));
      expect(saved.error?.code).toBe(UNAVAILABLE);
      expect(saved.error?.message).not.toContain('ok');
      expect(saved.ms).toBeLessThan(BOUND_MS);
      expect(store.health).toMatchObject({ state: 'down', outages: 1 });
      // Many calls at once while down: all refused by the breaker.
      const burst = await Promise.allSettled(Array.from({ length: 20 }, () => store.read(before, 's')));
      for (const outcome of burst) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as Error & { code?: string };
        expect(reason.code).toBe(UNAVAILABLE);
        expect(reason.message).toContain('not answering; calls fail at once');
      }

      await redis.start(); // same port, empty (no persistence)
      await until('the store answering again', () => store.health.state === 'up');
      const after = native.newHandle();
      await store.save(after, Buffer.from('{"ok":3}'), 's');
      expect((await store.read(after, 's'))?.toString()).toBe('{"ok":3}');
      expect(await store.read(before, 's')).toBeNull(); // the restarted server lost it
      expect(store.health).toMatchObject({ state: 'up', outages: 1 });
    } finally {
      await store.close();
      await redis.stop();
    }
  }, 60_000);

  it('a store that is down at open is refused within the bound, or falls back to memory', async () => {
    const down = await startRedis();
    const url = down.url;
    await down.stop();
    const opened = await settle(
      createResultHandleStore({ storage: { type: 'redis', redis: { url } }, namespace: 'x', ttlSeconds: 60 }),
    );
    expect(opened.error?.code).toBe(UNAVAILABLE);
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

describe.skipIf(skip)('Redis Cluster outages', () => {
  const clusterStorage = (urls: string[]) => ({ type: 'redis', redis: { cluster: { nodes: urls } } });

  it('a master lost with no replica allowed to take over (cluster_state:fail), then its replica made master', async () => {
    const cluster = await startRedisCluster();
    cleanups.push(() => cluster.stop());
    const host = await outageHost({ storage: clusterStorage(cluster.urls.slice(0, 2)), answer: ANSWER });
    try {
      const me = await host.session();
      const masters = await cluster.masters();
      const victim = masters[0];
      const replicaOf = async (port: number) => {
        const id = await cluster.ask(port, 'CLUSTER', 'MYID');
        const line = (await cluster.ask(port, 'CLUSTER', 'NODES')).split('\n').find((l) => l.includes(`slave ${id}`));
        return Number(/:(\d+)@/.exec(line ?? '')?.[1]);
      };
      const replica = await replicaOf(victim);
      // As a replica that had not synced: it may not start a failover of its own.
      await cluster.ask(replica, 'CONFIG', 'SET', 'cluster-replica-no-failover', 'yes');
      const live = masters[1];
      const kept = await throughOutage(
        host,
        me,
        async () => {
          await cluster.replicated();
          await cluster.nodes.find((node) => node.port === victim)?.kill();
          await until('cluster_state:fail', async () =>
            (await cluster.ask(live, 'CLUSTER', 'INFO')).includes('cluster_state:fail'),
          );
        },
        () => cluster.ask(replica, 'CLUSTER', 'FAILOVER', 'TAKEOVER'),
      );
      expect(await me.query(kept)).toEqual({ value: ANSWER.orders[0] });
    } finally {
      await host.close();
      await cluster.stop();
    }
  }, 90_000);

  it('a master killed while its replica can take over: folds go on, and any outage ends by itself', async () => {
    const cluster = await startRedisCluster();
    cleanups.push(() => cluster.stop());
    const host = await outageHost({ storage: clusterStorage(cluster.urls.slice(0, 2)), answer: ANSWER });
    try {
      const me = await host.session();
      const kept: string[] = [];
      for (let i = 0; i < 6; i++) kept.push((await me.fold()) as string);
      await cluster.replicated();
      const [victim] = await cluster.masters();
      await cluster.nodes.find((node) => node.port === victim)?.kill();
      await until('a replica taking over', async () => !(await cluster.masters()).includes(victim), 30_000, 200);
      await until('cluster_state:ok', async () => {
        const [live] = await cluster.masters();
        return (await cluster.ask(live, 'CLUSTER', 'INFO')).includes('cluster_state:ok');
      });
      await until('folds again', async () => (await me.fold()) !== undefined, 20_000, 100);
      await until('the store up', () => host.handles.stats().store.state === 'up', 5_000);
      for (const handle of kept) expect(await me.query(handle)).toEqual({ value: ANSWER.orders[0] });
      const { outages } = host.handles.stats().store;
      expect(host.outageWarnings()).toEqual({ started: outages, ended: outages });
    } finally {
      await host.close();
      await cluster.stop();
    }
  }, 90_000);
});

describe.skipIf(skip)('a slow but healthy store never opens the breaker', () => {
  it('20 sessions each folding fifty 1 MB answers on a real Redis at once', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const sessions = 20;
    const folds = 50;
    const host = await outageHost({ storage: { type: 'redis', redis: { url: redis.url } }, answer: answerOf(1 << 20) });
    try {
      const all = await Promise.all(Array.from({ length: sessions }, () => host.session()));
      const handles = await Promise.all(
        all.map(async (me) => {
          const mine: Array<string | undefined> = [];
          for (let i = 0; i < folds; i++) mine.push(await me.fold());
          return mine;
        }),
      );
      expect(handles.flat().every((handle) => typeof handle === 'string')).toBe(true);
      expect(host.handles.stats()).toMatchObject({
        folded: sessions * folds,
        store: { state: 'up', outages: 0, outageMs: 0 },
      });
      expect(host.warnings).toEqual([]);
    } finally {
      await host.close();
      await redis.stop();
    }
  }, 120_000);
});
