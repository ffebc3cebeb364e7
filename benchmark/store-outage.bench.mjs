// ─── store outages: what a call costs while the store is down, and how soon folds resume ──────────────────────
// Through McpServer + Client (the SDK's in-memory transport), a 100 KB answer, on real parts (__test__/fixtures/
// outage.mjs): Redis frozen (SIGSTOP) then thawed; Redis killed then started again on its port (append-only file, so
// what it kept survives); an Upstash-protocol endpoint that accepts requests and never answers; a SQLite file under
// an exclusive lock held by the sqlite3 shell; a Redis Cluster whose master is lost with no replica allowed to take
// over (cluster_state:fail), then its replica made master. For each: the first call after the fault (sent whole),
// 50 large answers and 50 result_query calls while down (median and slowest), the time from the store's return (5 s
// after the breaker opened, when the waits between probes are at their cap) to the first fold that keeps its answer
// (a fold every few ms meanwhile), and how many of 5 answers kept before the
// outage read after it. Then the load case: 20 sessions each folding fifty 1 MB answers at once on a real Redis,
// counting the breaker's opens.
// Run after `npm run build` (release): `node benchmark/store-outage.bench.mjs [rounds] [only]`, `only` naming one
// case (redisFrozen, redisKilled, restHanging, sqliteLocked, clusterFailed, load).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  answerOf,
  lockSqlite,
  outageHost,
  startRedis,
  startRestEndpoint,
  until,
} from '../__test__/fixtures/outage.mjs';
import { startRedisCluster } from '../__test__/setup/redis-cluster.mjs';
import { median } from './support.mjs';

const ANSWER = answerOf(100_000);
const KEPT = 5;
const WHILE_DOWN = 50;
const HOLD_MS = 5000;

async function timed(fn) {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** One outage through one host: the figures of one row. */
async function outage(name, storage, fault, recover) {
  const host = await outageHost({ storage, answer: ANSWER, namespace: `outage-bench-${Date.now()}` });
  try {
    const me = await host.session();
    const kept = [];
    for (let i = 0; i < KEPT; i++) kept.push(await me.fold());
    if (kept.some((handle) => handle === undefined)) throw new Error(`${name}: a fold before the fault failed`);
    await fault();
    const first = await timed(() => me.fold());
    const opened = performance.now();
    if (first.value !== undefined) throw new Error(`${name}: the first call after the fault folded`);
    const whole = [];
    const refused = [];
    for (let i = 0; i < WHILE_DOWN; i++) {
      const fold = await timed(() => me.fold());
      if (fold.value !== undefined) throw new Error(`${name}: a fold while down kept its answer`);
      whole.push(fold.ms);
      const query = await timed(() => me.query(kept[0]));
      if (query.value.code !== 'RESULT_STORE_UNAVAILABLE') throw new Error(`${name}: a query while down answered`);
      refused.push(query.ms);
    }
    // Down long enough for the waits between probes to reach their cap: the worst case for resuming.
    await sleep(Math.max(0, HOLD_MS - (performance.now() - opened)));
    await recover();
    const back = performance.now();
    let resumed;
    while (resumed === undefined) {
      if ((await me.fold()) !== undefined) resumed = performance.now() - back;
      else if (performance.now() - back > 30_000) throw new Error(`${name}: folds did not resume in 30 s`);
      else await sleep(2);
    }
    let readable = 0;
    for (const handle of kept) if ((await me.query(handle)).value !== undefined) readable += 1;
    const { store } = host.handles.stats();
    return {
      name,
      first: first.ms,
      whole: [median(whole), Math.max(...whole)],
      refused: [median(refused), Math.max(...refused)],
      resumed,
      readable,
      outages: store.outages,
      warnings: host.outageWarnings(),
    };
  } finally {
    await host.close();
  }
}

async function redisFrozen() {
  const redis = await startRedis();
  try {
    return await outage(
      'Redis frozen (SIGSTOP)',
      { type: 'redis', redis: { url: redis.url } },
      async () => redis.freeze(),
      async () => redis.thaw(),
    );
  } finally {
    await redis.stop();
  }
}

async function redisKilled() {
  const redis = await startRedis({ persist: true });
  try {
    return await outage(
      'Redis killed, started again',
      { type: 'redis', redis: { url: redis.url } },
      () => redis.kill(),
      () => redis.start(),
    );
  } finally {
    await redis.stop();
  }
}

async function restHanging() {
  const redis = await startRedis();
  const rest = await startRestEndpoint(redis.port);
  try {
    return await outage(
      'REST endpoint never answering',
      { type: 'upstash', upstash: { url: rest.url, token: rest.token } },
      async () => (rest.hanging = true),
      async () => (rest.hanging = false),
    );
  } finally {
    await rest.close();
    await redis.stop();
  }
}

async function sqliteLocked() {
  const dir = mkdtempSync(join(tmpdir(), 'rh-outage-bench-'));
  const path = join(dir, 'store.db');
  let lock;
  try {
    return await outage(
      'SQLite file locked elsewhere',
      { type: 'sqlite', sqlite: { path, walMode: false } },
      async () => (lock = await lockSqlite(path)),
      () => lock.release(),
    );
  } finally {
    await lock?.release();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function clusterFailed() {
  const cluster = await startRedisCluster();
  try {
    const [victim, live] = await cluster.masters();
    const id = await cluster.ask(victim, 'CLUSTER', 'MYID');
    const line = (await cluster.ask(victim, 'CLUSTER', 'NODES')).split('\n').find((l) => l.includes(`slave ${id}`));
    const replica = Number(/:(\d+)@/.exec(line)[1]);
    await cluster.ask(replica, 'CONFIG', 'SET', 'cluster-replica-no-failover', 'yes');
    return await outage(
      'Cluster: master lost, no failover',
      { type: 'redis', redis: { cluster: { nodes: cluster.urls.slice(0, 2) } } },
      async () => {
        await cluster.replicated();
        await cluster.nodes.find((node) => node.port === victim).kill();
        await until('cluster_state:fail', async () =>
          (await cluster.ask(live, 'CLUSTER', 'INFO')).includes('cluster_state:fail'),
        );
      },
      () => cluster.ask(replica, 'CLUSTER', 'FAILOVER', 'TAKEOVER'),
    );
  } finally {
    await cluster.stop();
  }
}

/** 20 sessions each folding fifty 1 MB answers at once on a real Redis: the breaker's opens, and the time taken. */
async function load() {
  const redis = await startRedis();
  const host = await outageHost({
    storage: { type: 'redis', redis: { url: redis.url } },
    answer: answerOf(1 << 20),
    namespace: `outage-load-${Date.now()}`,
  });
  try {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => host.session()));
    const started = performance.now();
    const times = [];
    const folded = await Promise.all(
      sessions.map(async (me) => {
        let kept = 0;
        for (let i = 0; i < 50; i++) {
          const fold = await timed(() => me.fold());
          times.push(fold.ms);
          if (fold.value !== undefined) kept += 1;
        }
        return kept;
      }),
    );
    const { store } = host.handles.stats();
    return {
      folded: folded.reduce((a, b) => a + b, 0),
      seconds: (performance.now() - started) / 1000,
      median: median(times),
      slowest: Math.max(...times),
      outages: store.outages,
      warnings: host.warnings.length,
    };
  } finally {
    await host.close();
    await redis.stop();
  }
}

const ms = (value) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`);
const rounds = Number(process.argv[2] ?? 1);
const only = process.argv[3];
const outages = [redisFrozen, redisKilled, restHanging, sqliteLocked, clusterFailed].filter(
  (run) => only === undefined || run.name === only,
);
console.log(`node ${process.version}, ${rounds} round(s), answer ${JSON.stringify(ANSWER).length} bytes`);
console.log(
  '| store fault | first call | large answer while down (median / slowest) | result_query while down (median / ' +
    'slowest) | folds resume after the store is back | kept before, readable after | outages | warnings (start/end) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (let round = 0; round < rounds; round++) {
  for (const run of outages) {
    const row = await run();
    console.log(
      `| ${row.name} | ${ms(row.first)} | ${ms(row.whole[0])} / ${ms(row.whole[1])} | ${ms(row.refused[0])} / ` +
        `${ms(row.refused[1])} | ${ms(row.resumed)} | ${row.readable} of ${KEPT} | ${row.outages} | ` +
        `${row.warnings.started}/${row.warnings.ended} |`,
    );
  }
}
for (let round = 0; round < (only === undefined || only === 'load' ? rounds : 0); round++) {
  const row = await load();
  console.log(
    `load: 20 sessions x 50 folds of 1 MB on Redis: ${row.folded} of 1000 folded in ${row.seconds.toFixed(1)} s ` +
      `(a fold: median ${ms(row.median)}, slowest ${ms(row.slowest)}); breaker opened ${row.outages} times; ` +
      `${row.warnings} warnings`,
  );
}
