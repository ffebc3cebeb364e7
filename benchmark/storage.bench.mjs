// ─── storage benchmark: one fold and one query on each backend ─────────────────────────────────────────────
// The same native engine (HostPipeline over openEngine) on memory, SQLite (a temp file), Redis (its own
// redis-server), Redis Cluster (3 masters + 3 replicas on loopback, __test__/setup/redis-cluster.mjs) and the
// Upstash REST protocol (a loopback endpoint forwarding to that Redis: this measures the client and the protocol,
// not a real Upstash, which adds one HTTPS round trip over the internet per command).
// Fold: fit a CallToolResult over the threshold (inspect, fold, index, seal, keep record + index). Query: a page of
// 20 items deep in the list (the index, which a store outside the process keeps from the fold, then one byte range
// of the record, open it, answer).
// The baseline is the memory backend (no I/O): the other columns show what each store adds. The plain-JS
// comparisons of the same steps are in hosts.bench.mjs (memory) and seal.bench.mjs (Redis).
// Run after `npm run build` (release): `node benchmark/storage.bench.mjs`.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startRedisCluster } from '../__test__/setup/redis-cluster.mjs';
import { fixed, interleaved, ordersAnswer, Resp, startRedis } from './support.mjs';

const require = createRequire(import.meta.url);
const { HostPipeline } = require('../dist/host/pipeline.js');
const { openEngine, prepareOptions } = require('../dist/host/open-engine.js');

const OWNER = { session: 'bench-session', subject: 'bench-user' };
const makeOrder = (i) => ({ id: i, status: i % 2 ? 'shipped' : 'open', customer: `Customer ${i}`, total: i * 1.5 });

/**
 * A loopback endpoint speaking the Upstash REST protocol (`POST /` + JSON command, `{ result }`; `POST /pipeline` +
 * an array of commands, an array of `{ result }`), over Redis.
 */
async function upstashEndpoint(redisPort, token) {
  const socket = connect(redisPort, '127.0.0.1');
  await once(socket, 'connect');
  const redis = new Resp(socket);
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      const reply = (status, body) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'Unauthorized' });
      const run = async (command) => {
        const value = await redis.command(...command);
        if (value instanceof Error) return { error: value.message };
        return { result: Buffer.isBuffer(value) ? value.toString('utf8') : value };
      };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (request.url === '/pipeline') {
        const results = [];
        for (const command of body) results.push(await run(command));
        return reply(200, results);
      }
      const outcome = await run(body);
      reply('error' in outcome ? 400 : 200, outcome);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
      socket.destroy();
    },
  };
}

async function coreFor(storage) {
  const prepared = prepareOptions({ thresholdBytes: 16_384, storage });
  const core = new HostPipeline(() => openEngine(prepared), {}, { warn: (message) => console.warn(message) });
  await core.ready();
  return core;
}

const resultOf = (answer) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer });
const call = { toolName: 'orders', fullName: 'orders', request: {}, owner: OWNER };

async function fold(core, result) {
  const folded = await core.fit(result, call);
  const handle = folded?._meta?.['frontmcp/result-handle']?.handle;
  if (!handle) throw new Error('the answer was not kept');
  return handle;
}

console.log(`storage benchmark: node ${process.version}, ${process.arch}, medians of interleaved runs (ms)`);
console.log('(build with `npm run build` first: a debug .node is many times slower)\n');

const dir = mkdtempSync(join(tmpdir(), 'rh-storage-bench-'));
const redis = await startRedis();
if (!redis) throw new Error('redis-server did not start (is it installed?)');
const cluster = await startRedisCluster();
const rest = await upstashEndpoint(redis.port, 'bench-token');
const backends = [
  ['memory', { type: 'memory', memory: { maxEntries: 0 } }],
  ['sqlite', { type: 'sqlite', sqlite: { path: join(dir, 'store.db') } }],
  ['redis', { type: 'redis', redis: { url: redis.url } }],
  ['redis cluster', { type: 'redis', redis: { cluster: { nodes: cluster.urls.slice(0, 3) } } }],
  ['upstash (loopback)', { type: 'upstash', upstash: { url: rest.url, token: 'bench-token' } }],
];
try {
  const cores = [];
  for (const [, storage] of backends) cores.push(await coreFor(storage));
  console.log(`${'answer'.padEnd(22)}${backends.map(([name]) => name.padStart(20)).join('')}`);
  for (const [bytes, runs] of [
    [100_000, 21],
    [1_000_000, 11],
  ]) {
    const answer = ordersAnswer(bytes, makeOrder);
    const result = resultOf(answer);
    const folds = await interleaved(
      cores.map((core) => () => fold(core, result)),
      runs,
    );
    const handles = await Promise.all(cores.map((core) => fold(core, result)));
    const offset = Math.floor(answer.orders.length * 0.9);
    const args = (handle) => ({ handle, path: 'orders', offset, limit: 20 });
    const queries = await interleaved(
      cores.map((core, i) => () => core.query(args(handles[i]), OWNER)),
      runs * 4,
    );
    const label = `${bytes / 1000} kB`;
    console.log(`${`fold ${label}`.padEnd(22)}${folds.map((ms) => fixed(ms, 2, 20)).join('')}`);
    console.log(`${`query 20 items, ${label}`.padEnd(22)}${queries.map((ms) => fixed(ms, 2, 20)).join('')}`);
  }
  await Promise.all(cores.map((core) => core.close()));
} finally {
  rest.close();
  await cluster.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
