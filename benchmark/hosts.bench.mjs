// ─── hosts benchmark: one fit and one result_query through the host core, native vs plain JS ────────────────
// Run with a release build: `npm run bench` (or `node benchmark/hosts.bench.mjs` after `npm run build`).
// Native: ResultHandlesCore.fit (inspect + fold off the JS thread, seal + keep in the memory store, folded result
// built natively) and ResultHandlesCore.query (read + open + query in one native call).
// Plain JS: the same steps written the obvious way in JS (size by Buffer.byteLength(JSON.stringify), the plain-JS
// preview/shape of benchmark/js-fold.mjs, HKDF + AES-256-GCM with node:crypto, a Map, JSON.parse + slice).
// Prints medians side by side; ratio = JS time / native time (above 1: native is faster).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

import { jsPreview, jsShape } from './js-fold.mjs';
import { formatMs, ordersAnswer, timeAsync } from './support.mjs';

const require = createRequire(import.meta.url);
const { ResultHandlesCore } = require('../dist/core/result-handles.core.js');
const { openEngine, prepareOptions } = require('../dist/core/engine.js');

const OPTIONS = {
  thresholdBytes: 16_384,
  preview: { items: 5, chars: 500 },
  storage: { type: 'memory', memory: { maxEntries: 0 } },
};
const OWNER = { session: 'bench-session', subject: 'bench-user' };
const STATUSES = ['open', 'shipped', 'delivered', 'returned'];

/** Order `i`: a customer and 1-3 line items. */
const makeOrder = (i) => ({
  id: i,
  status: STATUSES[i % 4],
  customer: { name: `Customer ${i}`, email: `c${i}@example.test` },
  items: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ sku: `SKU-${i}-${j}`, qty: j + 1, price: 9.99 + j })),
});

const resultOf = (answer) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer });

// ─── the plain-JS host ──────────────────────────────────────────────────────
const jsStore = new Map();
function jsKeys(handle) {
  const ikm = Buffer.from(`${handle}\0${OWNER.session}\0${OWNER.subject}`);
  const key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'record key', 32));
  const id = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'storage key', 32)).toString('hex');
  return { key, id };
}
async function jsFit(result) {
  const text = JSON.stringify(result);
  const answer = JSON.parse(text).structuredContent;
  const json = JSON.stringify(answer);
  const bytes = Buffer.byteLength(json);
  if (bytes <= OPTIONS.thresholdBytes) return result;
  const folded = { preview: jsPreview(answer, 5, 500), shape: jsShape(answer), handle: randomUUID() };
  const { key, id } = jsKeys(folded.handle);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([iv, cipher.update(json), cipher.final(), cipher.getAuthTag()]);
  jsStore.set(id, sealed);
  const foldedJson = JSON.stringify(folded);
  return {
    content: [
      { type: 'text', text: foldedJson },
      { type: 'text', text: `Read the rest with result_query ${folded.handle}` },
    ],
    structuredContent: folded,
    _meta: { 'frontmcp/result-handle': { handle: folded.handle, bytes, ttlSeconds: 600 } },
  };
}
async function jsQuery(handle, offset, limit) {
  const { key, id } = jsKeys(handle);
  const sealed = jsStore.get(id);
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const json = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString();
  const list = JSON.parse(json).orders;
  return JSON.stringify({ path: "$['orders']", value: list.slice(offset, offset + limit), total: list.length, offset });
}

// ─── run ────────────────────────────────────────────────────────────────────
const prepared = prepareOptions(OPTIONS);
const core = new ResultHandlesCore(() => openEngine(prepared), {}, { warn: (m) => console.warn(m) });
const call = { toolName: 'orders', fullName: 'orders', request: {}, owner: OWNER };
const fmt = (ms) => formatMs(ms, 2, 9);

console.log(`node ${process.version}; medians; ratio = plain JS / native\n`);
console.log('case                                   native        plain JS     ratio');
const small = resultOf({ ok: true, items: [1, 2, 3] });
const rows = [['fit, 60 B answer (passes)', () => core.fit(small, call), () => jsFit(small), 200]];
for (const mb of [1, 10]) {
  const result = resultOf(ordersAnswer(mb * 1024 * 1024, makeOrder));
  const runs = mb === 1 ? 15 : 5;
  rows.push([`fit, ${mb} MB answer (folds)`, () => core.fit(result, call), () => jsFit(result), runs]);
  const nativeHandle = (await core.fit(result, call)).structuredContent.handle;
  const jsHandle = (await jsFit(result)).structuredContent.handle;
  const total = result.structuredContent.orders.length;
  const args = { handle: nativeHandle, path: '$.orders', offset: total - 20, limit: 20 };
  rows.push([
    `query 20 items at the end, ${mb} MB`,
    () => core.query(args, OWNER),
    () => jsQuery(jsHandle, total - 20, 20),
    runs,
  ]);
}
for (const [name, nativeFn, jsFn, runs] of rows) {
  const nativeMs = await timeAsync(nativeFn, runs);
  const jsMs = await timeAsync(jsFn, runs);
  console.log(`${name.padEnd(36)} ${fmt(nativeMs)} ${fmt(jsMs)}   ${(jsMs / nativeMs).toFixed(2)}x`);
}
await core.close();
