// ─── fold benchmark: native fold vs a plain-JS fold, 1 MB and 10 MB answers ─────────────────────────────────
// `foldAnswer` is not shipped: run after `npm run build:bench-bindings` (an optimized addon that has it).
// Prints medians side by side; ratio = JS time / native time (above 1: native is faster).
import { jsPreview, jsShape } from './js-fold.mjs';
import { formatMs, ordersAnswer, testBindings, time, timeAsync } from './support.mjs';

const native = testBindings();

const SETTINGS = { thresholdBytes: 16_384, previewItems: 5, previewChars: 500 };
const STATUSES = ['open', 'shipped', 'delivered', 'returned'];

/** Order `i`: a nested customer and 1-4 line items; the answer holds orders until its JSON reaches N bytes. */
const makeOrder = (i) => ({
  id: i,
  status: STATUSES[i % 4],
  customer: { name: `Customer ${i}`, email: `c${i}@example.test`, vip: i % 7 === 0 },
  items: Array.from({ length: 1 + (i % 4) }, (_, j) => ({ sku: `SKU-${i}-${j}`, qty: j + 1, price: 9.99 + j })),
  note: i % 3 === 0 ? 'Leave at the door — ring twice ☎' : null,
});

const jsFoldValue = (value) => ({
  previewJson: JSON.stringify(jsPreview(value, SETTINGS.previewItems, SETTINGS.previewChars)),
  shapeJson: JSON.stringify(jsShape(value)),
});

const rows = [];
for (const [label, bytes, runs] of [
  ['1 MB', 1_000_000, 25],
  ['10 MB', 10_000_000, 7],
]) {
  const value = ordersAnswer(bytes, makeOrder);
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

console.log(`fold: native vs plain JS, medians (node ${process.version}, ${process.arch})`);
console.table(
  rows.map((r) => ({
    answer: r.answer,
    'native sync': formatMs(r.native),
    'native async': formatMs(r.nativeAsync),
    'plain JS': formatMs(r.js),
    'JS / native': `${(r.js / r.native).toFixed(2)}×`,
  })),
);
