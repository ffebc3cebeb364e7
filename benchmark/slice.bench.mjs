// ─── slice benchmark: result_query for 20 items at the end of a list, through the path index vs the full read ───
// Run with a release build: `npm run bench` (or `node benchmark/slice.bench.mjs` after `npm run build`).
// Native, indexed: ResultHandlesEngine.commit kept the answer with its path index; query reads the index and one
// byte range. Native, full read: the same answer saved with NativeHandleStore.save (no index); the same
// engine.query reads and opens the whole record, then walks it once. Plain JS: node:crypto AES-256-GCM over the
// whole answer in a Map, JSON.parse, slice, JSON.stringify.
// Memory store, then Redis (own redis-server on loopback, skipped when none is installed).
// Prints medians of interleaved runs (indexed and full read interleaved; plain JS timed after them); ratio = the other route's time / indexed time.
import { spawn } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const native = require('../binding.js');

const OWNER = ['bench-session', 'bench-user'];
const OPTIONS = { thresholdBytes: 16_384, ttlSeconds: 600, preview: { items: 3, chars: 200 } };
const SIZES_MB = [1, 10, 40];

function ordersAnswer(bytes) {
  const orders = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const order = {
      id: i,
      status: ['open', 'shipped'][i % 2],
      customer: `Customer ${i}`,
      lines: [{ sku: `S-${i}`, qty: 1 + (i % 3) }],
    };
    size += JSON.stringify(order).length + 1;
    orders.push(order);
  }
  return { data: { orders }, total: orders.length };
}

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

/** Runs every function `runs` times, interleaved; returns their medians in ms. */
async function interleaved(fns, runs) {
  for (const fn of fns) await fn();
  const samples = fns.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      samples[i].push(performance.now() - start);
    }
  }
  return samples.map(median);
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = once(child, 'error').then(() => null);
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (child.exitCode !== null) return null;
    const url = `redis://127.0.0.1:${port}`;
    const store = await Promise.race([
      native.NativeHandleStore.open(JSON.stringify({ type: 'redis', redis: { url } }), 'bench', 600).catch(
        () => undefined,
      ),
      failed,
    ]);
    if (store === null) return null;
    if (store) return { child, store };
  }
  child.kill('SIGKILL');
  return null;
}

const fmt = (ms) => `${ms.toFixed(2).padStart(9)} ms`;

async function run(label, store, withJs) {
  const engine = native.ResultHandlesEngine.create(JSON.stringify(OPTIONS), store);
  console.log(`\n${label}`);
  console.log(`answer     indexed        full read      ratio${withJs ? '    plain JS       ratio' : ''}`);
  for (const mb of SIZES_MB) {
    const answer = ordersAnswer(mb * 1024 * 1024);
    const json = JSON.stringify(answer);
    const plan = await engine.prepare(
      JSON.stringify({ content: [{ type: 'text', text: json }], structuredContent: answer }),
    );
    await engine.commit(plan, ...OWNER);
    const plain = store.newHandle();
    await store.save(plain, json, ...OWNER);
    const total = answer.data.orders.length;
    const args = (handle) => JSON.stringify({ handle, path: '$.data.orders', offset: total - 20, limit: 20 });
    const indexed = () => engine.query(args(plan.handle), ...OWNER);
    const full = () => engine.query(args(plain), ...OWNER);
    if ((await indexed()) !== (await full())) throw new Error('the routes disagree');
    // Plain JS: one AES-256-GCM record in a Map, opened whole, parsed, sliced.
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(json), cipher.final(), cipher.getAuthTag()]);
    const js = () => {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      const text = Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - 16)),
        decipher.final(),
      ]).toString();
      const list = JSON.parse(text).data.orders;
      return JSON.stringify({ path: "$['data']['orders']", value: list.slice(total - 20), total, offset: total - 20 });
    };
    const runs = mb >= 40 ? 7 : mb >= 10 ? 11 : 25;
    // The plain-JS route leaves tens of MB of garbage whose collection would land in the next native run: it is
    // timed on its own, after the two native routes.
    const [a, b] = await interleaved([indexed, full], runs);
    const [c] = withJs ? await interleaved([js], runs) : [0];
    let line = `${String(mb).padStart(3)} MB  ${fmt(a)}   ${fmt(b)}   ${(b / a).toFixed(1).padStart(6)}x`;
    if (withJs) line += `  ${fmt(c)}   ${(c / a).toFixed(1).padStart(6)}x`;
    console.log(line);
  }
  await engine.close();
}

console.log(`slice benchmark: node ${process.version}, ${process.arch}; medians of interleaved runs`);
console.log('query: 20 items at the end of $.data.orders (build with `npm run build` first)');
await run(
  'memory store',
  await native.NativeHandleStore.open(JSON.stringify({ type: 'memory', memory: { maxEntries: 0 } }), 'bench', 600),
  true,
);
const redis = await startRedis();
if (redis) {
  await run('redis store (own redis-server on 127.0.0.1)', redis.store, false);
  redis.child.kill('SIGTERM');
  await once(redis.child, 'exit');
} else {
  console.log('\nredis: skipped (no redis-server)');
}
