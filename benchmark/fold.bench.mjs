// ─── fold benchmark: native fold vs a plain-JS fold, 1 MB and 10 MB answers ─────────────────────────────────
// Run with a release build: `npm run bench` (or `node benchmark/fold.bench.mjs` after `npm run build`).
// Prints medians side by side; ratio = JS time / native time (above 1: native is faster).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { jsPreview, jsShape } from './js-fold.mjs';

const require = createRequire(import.meta.url);
const native = require('../binding.js');

const SETTINGS = { thresholdBytes: 16_384, previewItems: 5, previewChars: 500 };
const STATUSES = ['open', 'shipped', 'delivered', 'returned'];

/** Orders with nested customers and line items, until the JSON reaches `bytes`. */
function ordersAnswer(bytes) {
  const orders = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const order = {
      id: i,
      status: STATUSES[i % 4],
      customer: { name: `Customer ${i}`, email: `c${i}@example.test`, vip: i % 7 === 0 },
      items: Array.from({ length: 1 + (i % 4) }, (_, j) => ({ sku: `SKU-${i}-${j}`, qty: j + 1, price: 9.99 + j })),
      note: i % 3 === 0 ? 'Leave at the door — ring twice ☎' : null,
    };
    size += JSON.stringify(order).length + 1;
    orders.push(order);
  }
  return { orders, total: orders.length };
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(fn, runs) {
  fn(); // warm-up
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function timeAsync(fn, runs) {
  await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const jsFoldValue = (value) => ({
  previewJson: JSON.stringify(jsPreview(value, SETTINGS.previewItems, SETTINGS.previewChars)),
  shapeJson: JSON.stringify(jsShape(value)),
});

const rows = [];
for (const [label, bytes, runs] of [
  ['1 MB', 1_000_000, 25],
  ['10 MB', 10_000_000, 7],
]) {
  const value = ordersAnswer(bytes);
  const json = JSON.stringify(value);

  // The two folds must agree before their times mean anything.
  const nativeResult = native.foldAnswerSync(json, 'json', SETTINGS);
  const jsResult = jsFoldValue(JSON.parse(json));
  if (nativeResult.previewJson !== jsResult.previewJson || nativeResult.shapeJson !== jsResult.shapeJson) {
    throw new Error(`native and JS folds differ on the ${label} answer`);
  }

  const size = `${(Buffer.byteLength(json) / 1e6).toFixed(1)} MB`;
  rows.push({
    answer: `${label} (${size}), from JSON text`,
    native: time(() => native.foldAnswerSync(json, 'json', SETTINGS), runs),
    nativeAsync: await timeAsync(() => native.foldAnswer(json, 'json', SETTINGS), runs),
    js: time(() => jsFoldValue(JSON.parse(json)), runs),
  });
  // A host holds the answer as an object: both sides must stringify it to measure it.
  rows.push({
    answer: `${label} (${size}), from a JS object`,
    native: time(() => native.foldAnswerSync(JSON.stringify(value), 'json', SETTINGS), runs),
    nativeAsync: await timeAsync(() => native.foldAnswer(JSON.stringify(value), 'json', SETTINGS), runs),
    js: time(() => {
      const text = JSON.stringify(value);
      Buffer.byteLength(text);
      return jsFoldValue(value);
    }, runs),
  });
}

const ms = (n) => `${n.toFixed(2)} ms`;
console.log(`fold: native vs plain JS, medians (node ${process.version}, ${process.arch})`);
console.table(
  rows.map((r) => ({
    answer: r.answer,
    'native sync': ms(r.native),
    'native async': ms(r.nativeAsync),
    'plain JS': ms(r.js),
    'JS / native': `${(r.js / r.native).toFixed(2)}×`,
  })),
);
