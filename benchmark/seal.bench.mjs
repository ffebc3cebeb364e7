// ─── seal + store benchmark ─────────────────────────────────────────────────
// Native sealing vs the same record format written with node:crypto (the plain-JS baseline), record overhead, and a
// Redis round trip for a 1 MB answer (native store vs node:crypto + a plain RESP client). Starts its own redis-server
// on a loopback port. It times bindings the package does not ship (sealRecordSync, readRange): run after
// `npm run build:bench-bindings`, then `node benchmark/seal.bench.mjs`.
import { once } from 'node:events';
import { connect } from 'node:net';

import { deriveKeys, jsOpen as openRecord, jsSeal as sealRecord } from './js-record.mjs';
import { fixed, interleaved, Resp, startRedis, testBindings } from './support.mjs';

const native = testBindings();

// ─── baseline: docs/record-format.md with node:crypto (js-record.mjs) ───────

/** Seals for `(handle, session)` as the native store does: `{ storageKey (hex), record }`. */
function jsSeal(handle, session, plaintext) {
  const keys = deriveKeys(handle, session, undefined);
  return { storageKey: keys.storageKey.toString('hex'), record: sealRecord(plaintext, keys) };
}
const jsOpen = (handle, session, record) => openRecord(record, deriveKeys(handle, session, undefined));

// ─── timing: interleaved, median ────────────────────────────────────────────

/** Medians (ms) of `[name, fn]` cases run `runs` times, interleaved, with no warm-up round. */
function measure(runs, cases) {
  const fns = cases.map(([, fn]) => fn);
  return interleaved(fns, runs, { warmups: 0 });
}

const answer = (bytes) => {
  const rows = [];
  let size = 2;
  for (let i = 0; size < bytes; i += 1) {
    const row = JSON.stringify({ id: i, status: i % 2 ? 'shipped' : 'open', note: `row ${i}` });
    rows.push(row);
    size += row.length + 1;
  }
  return Buffer.from(`[${rows.join(',')}]`).subarray(0, bytes);
};
const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1000)).toFixed(0);
const fmt = (ms) => fixed(ms, 2, 8);

// ─── run ────────────────────────────────────────────────────────────────────

console.log(`seal + store benchmark: node ${process.version}, ${process.arch}, median of interleaved runs`);
console.log('(build with `npm run build` first: a debug .node is many times slower)\n');

console.log('record overhead (bytes of record minus bytes of answer)');
for (const size of [0, 1_000, 16_384, 1_000_000, 10_000_000]) {
  const { record } = native.sealRecordSync(native.newHandle(), answer(size).subarray(0, size), 's');
  console.log(`  ${String(size).padStart(10)} B answer → ${record.length - size} B overhead`);
}

console.log('\nseal / open (ms, MB/s; ratio = node:crypto ms ÷ native ms, > 1 means native is faster)');
console.log('  size    op     native ms  MB/s   node:crypto ms  MB/s   ratio');
for (const [size, runs] of [
  [1_000_000, 41],
  [10_000_000, 11],
]) {
  const plain = answer(size);
  const handle = native.newHandle();
  const sealed = native.sealRecordSync(handle, plain, 's');
  const jsSealed = jsSeal(handle, 's', plain);
  if (!native.openRecordSync(handle, jsSealed.record, 's').equals(plain)) throw new Error('formats differ');
  if (!jsOpen(handle, 's', sealed.record).equals(plain)) throw new Error('formats differ');
  const [nSeal, jSeal, nOpen, jOpen, nSealAsync, nOpenAsync] = await measure(runs, [
    ['native seal', () => native.sealRecordSync(handle, plain, 's')],
    ['js seal', () => jsSeal(handle, 's', plain)],
    ['native open', () => native.openRecordSync(handle, sealed.record, 's')],
    ['js open', () => jsOpen(handle, 's', sealed.record)],
    ['native seal async', () => native.sealRecord(handle, plain, 's')],
    ['native open async', () => native.openRecord(handle, sealed.record, 's')],
  ]);
  const label = `${size / 1e6} MB`.padEnd(6);
  const row = (op, n, j) =>
    console.log(
      `  ${label}  ${op.padEnd(5)} ${fmt(n)} ${mbps(size, n).padStart(5)}  ${fmt(j)}       ${mbps(size, j).padStart(5)}  ${(j / n).toFixed(2)}×`,
    );
  row('seal', nSeal, jSeal);
  row('open', nOpen, jOpen);
  console.log(
    `  ${label}  async seal ${fmt(nSealAsync)} ms, async open ${fmt(nOpenAsync)} ms (off the JS thread, incl. copy)`,
  );
}

console.log('\nRedis round trip, 1 MB answer (save then read; own redis-server on loopback)');
const redis = await startRedis();
if (!redis) throw new Error('redis-server did not start (is it installed?)');
const socket = connect(redis.port, '127.0.0.1');
await once(socket, 'connect');
const client = new Resp(socket);
try {
  const { url } = redis;
  const store = await native.NativeHandleStore.open(JSON.stringify({ type: 'redis', redis: { url } }), 'bench', 60);
  const plain = answer(1_000_000);
  const [nRound, jRound, nRange] = await measure(31, [
    [
      'native',
      async () => {
        const handle = store.newHandle();
        await store.save(handle, plain, 's');
        const back = await store.read(handle, 's');
        if (back.length !== plain.length) throw new Error('short read');
      },
    ],
    [
      'js',
      async () => {
        const handle = native.newHandle();
        const sealed = jsSeal(handle, 's', plain);
        await client.command('SET', `bench:${sealed.storageKey}`, sealed.record, 'EX', 60);
        const back = await client.command('GET', `bench:${sealed.storageKey}`);
        if (jsOpen(handle, 's', back).length !== plain.length) throw new Error('short read');
      },
    ],
    [
      'native range',
      async () => {
        const handle = store.newHandle();
        await store.save(handle, plain, 's');
        await store.readRange(handle, 500_000, 502_000, 's');
      },
    ],
  ]);
  console.log(`  native store:            ${fmt(nRound)} ms  (seal + SET EX + GET + open)`);
  console.log(`  node:crypto + RESP:      ${fmt(jRound)} ms  ratio ${(jRound / nRound).toFixed(2)}×`);
  console.log(`  native save + 2 KB range:${fmt(nRange)} ms  (GETRANGE of the header and the chunks around it)`);
  await store.close();
} finally {
  socket.destroy();
  await redis.stop();
}
