// ─── slice benchmark: result_query for 20 items at the end of a list, through the path index vs the full read ───
// Run with a release build: `npm run bench` (or `node benchmark/slice.bench.mjs` after `npm run build`).
// Native, indexed: ResultHandlesEngine.commit kept the answer with its path index; query reads the index and one
// byte range. Native, full read: the same answer saved with NativeHandleStore.save (no index); the same
// engine.query reads and opens the whole record, then walks it once. Plain JS: node:crypto AES-256-GCM over the
// whole answer in a Map, JSON.parse, slice, JSON.stringify.
// Memory store, then Redis (own redis-server on loopback, skipped when none is installed).
// Prints medians of interleaved runs (indexed and full read interleaved; plain JS timed after them); ratio = the other route's time / indexed time.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

import { formatMs, interleaved, ordersAnswer, startRedis } from './support.mjs';

const require = createRequire(import.meta.url);
const native = require('../binding.js');
const { checkOptions } = require('../dist/result-handles.options.js');

const OWNER = ['bench-session', 'bench-user'];
const OPTIONS = { thresholdBytes: 16_384, ttlSeconds: 600, preview: { items: 3, chars: 200 } };
const SIZES_MB = [1, 10, 40];

/** Order `i`: a customer name and one line. */
const makeOrder = (i) => ({
  id: i,
  status: ['open', 'shipped'][i % 2],
  customer: `Customer ${i}`,
  lines: [{ sku: `S-${i}`, qty: 1 + (i % 3) }],
});

/** The orders under `data`, until their JSON reaches `bytes`. */
function ordersAnswerUnderData(bytes) {
  const { orders, total } = ordersAnswer(bytes, makeOrder);
  return { data: { orders }, total };
}

const fmt = (ms) => formatMs(ms, 2, 9);

/** A store on `storage`, opened as the package opens one (settings checked once). */
const openStore = (storage) =>
  native.NativeHandleStore.openChecked(checkOptions({ ...OPTIONS, storage, namespace: 'bench' }).settings);

async function run(label, store, withJs) {
  const engine = native.ResultHandlesEngine.create(checkOptions(OPTIONS).settings, store);
  console.log(`\n${label}`);
  console.log(`answer     indexed        full read      ratio${withJs ? '    plain JS       ratio' : ''}`);
  for (const mb of SIZES_MB) {
    const answer = ordersAnswerUnderData(mb * 1024 * 1024);
    const json = JSON.stringify(answer);
    const plan = await engine.prepare(
      JSON.stringify({ content: [{ type: 'text', text: json }], structuredContent: answer }),
    );
    await engine.commit(plan, ...OWNER);
    const plain = native.newHandle();
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
await run('memory store', await openStore({ type: 'memory', memory: { maxEntries: 0 } }), true);
const redis = await startRedis();
if (redis) {
  const store = await openStore({ type: 'redis', redis: { url: redis.url } });
  await run('redis store (own redis-server on 127.0.0.1)', store, false);
  await redis.stop();
} else {
  console.log('\nredis: skipped (no redis-server)');
}
