// ─── fold-path benchmark: the table of issue 8, through McpServer + Client ──────────────────────────────────────
// Three servers answer the same tool, each behind its own Client over an in-memory transport with a session id:
//   none    the server with no plugin (the floor: what a call costs anyway);
//   stringify  the same server whose tool also runs one JSON.stringify(structuredContent) per call: the "one
//           stringify" that JS-thread time is counted beyond, timed in the same plumbing and conditions as a fold;
//   native  the same server with this package attached (createResultHandles(...).attach(server));
//   lean    the same server with the leanest plain-JS fold we can write (the bar): one
//           JSON.stringify(structuredContent), a === check that the text repeats it, a preview/shape walk over the
//           object, HKDF + one AES-256-GCM seal with node:crypto, a Map store.
// Runs are interleaved (one call of each contender per round) and medians reported. Peak RSS is measured in a child
// process per contender (process.resourceUsage().maxRSS cannot be reset). Run after a release build:
//   npm run build && node --expose-gc benchmark/fold-path.bench.mjs
// `--under-only` stops after the calls under the threshold; `--mb=1,10` folds only those sizes (the result_query row
// needs 10, the peak RSS rows 50).
import { spawnSync } from 'node:child_process';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { jsPreview, jsShape } from './js-fold.mjs';
import { jsThreadCpuMs, jsThreadTime, median, ordersAnswer } from './support.mjs';

const require = createRequire(import.meta.url);
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
const { createResultHandles } = require('../mcp.js');
const { z } = require('zod');

const THRESHOLD = 16_384;
const OPTIONS = { thresholdBytes: THRESHOLD, storage: { type: 'memory', memory: { maxEntries: 0 } } };
const SESSION = 'bench-session';
const STATUSES = ['open', 'shipped', 'delivered', 'returned'];
const MB = 1024 * 1024;

/** Order `i`: a customer and 1-3 line items. */
const makeOrder = (i) => ({
  id: i,
  status: STATUSES[i % 4],
  customer: { name: `Customer ${i}`, email: `c${i}@example.test` },
  items: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ sku: `SKU-${i}-${j}`, qty: j + 1, price: 9.99 + j })),
});

/** A CallToolResult as the SDK documents it: structuredContent and the same JSON as its text. */
const structuredResult = (answer) => ({
  content: [{ type: 'text', text: JSON.stringify(answer) }],
  structuredContent: answer,
});
/** A CallToolResult with only a text (the JSON of the answer). */
const textResult = (answer) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }] });

// ─── the lean plain-JS fold (the bar) ───────────────────────────────────────
const leanStore = new Map();

function leanKeys(handle, session) {
  const ikm = Buffer.from(`${handle}\0${session}`);
  const key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'record key', 32));
  const id = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'storage key', 32)).toString('hex');
  return { key, id };
}

/** A character `JSON.stringify` writes as a six-character `\uXXXX` escape, or a number with an exponent. */
const RARE_ESCAPE_OR_EXPONENT = /[\x00-\x07\x0b\x0e-\x1f]|[0-9][eE]/;

function leanFold(result, session) {
  const text = result.content.length === 1 ? result.content[0].text : undefined;
  let value;
  let json;
  if (result.structuredContent !== undefined) {
    value = result.structuredContent;
    json = JSON.stringify(value);
    if (text !== undefined && text !== json) return result;
  } else {
    // A text alone is measured as the package measures it: its canonical form when it holds JSON, else the quoted
    // text. Bounds first (at most 6 bytes per UTF-16 unit either way; escaping adds at most one byte per unit but
    // for rare control characters and lone surrogates, and only an exponent makes a canonical form longer), then
    // the exact way.
    if (text.length * 6 + 2 <= THRESHOLD) return result;
    const bytes = Buffer.byteLength(text);
    if (bytes + text.length + 2 <= THRESHOLD && text.isWellFormed() && !RARE_ESCAPE_OR_EXPONENT.test(text)) {
      return result;
    }
    try {
      value = JSON.parse(text);
      json = JSON.stringify(value);
    } catch {
      value = text;
      json = JSON.stringify(text);
    }
  }
  const bytes = Buffer.byteLength(json);
  if (bytes <= THRESHOLD) return result;
  const handle = randomUUID();
  const folded = { preview: jsPreview(value, 3, 200), shape: jsShape(value), handle };
  const { key, id } = leanKeys(handle, session);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  leanStore.set(id, Buffer.concat([iv, cipher.update(json, 'utf8'), cipher.final(), cipher.getAuthTag()]));
  const foldedJson = JSON.stringify(folded);
  return {
    content: [
      { type: 'text', text: foldedJson },
      { type: 'text', text: `Read the rest with result_query and handle ${handle}.` },
    ],
    structuredContent: folded,
    _meta: { 'frontmcp/result-handle': { handle, bytes, ttlSeconds: 3600 } },
  };
}

function leanQuery({ handle, path, offset, limit }, session) {
  const { key, id } = leanKeys(handle, session);
  const sealed = leanStore.get(id);
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const json = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString();
  const list = JSON.parse(json)[path.slice(2)];
  const value = {
    path: `$['${path.slice(2)}']`,
    value: list.slice(offset, offset + limit),
    total: list.length,
    offset,
  };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

// ─── servers and clients ────────────────────────────────────────────────────
let payload = structuredResult({});

async function connect(kind) {
  const server = new McpServer({ name: `bench-${kind}`, version: '1.0.0' });
  const answer =
    kind === 'lean'
      ? async (extra) => leanFold(payload, extra.sessionId)
      : kind === 'stringify'
        ? async () => (JSON.stringify(payload.structuredContent) === undefined ? undefined : payload)
        : async () => payload;
  server.registerTool('answer', { description: 'The current answer' }, answer);
  if (kind === 'lean') {
    server.registerTool(
      'result_query',
      {
        description: 'Reads a kept answer',
        inputSchema: { handle: z.string(), path: z.string(), offset: z.number(), limit: z.number() },
      },
      async (args, extra) => leanQuery(args, extra.sessionId),
    );
  }
  if (kind === 'native') createResultHandles(OPTIONS).attach(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.sessionId = SESSION;
  await server.connect(serverSide);
  const client = new Client({ name: `bench-${kind}`, version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
  return client;
}

const callAnswer = (client) => client.callTool({ name: 'answer', arguments: {} });

// ─── measurements ───────────────────────────────────────────────────────────

/** Median time of one call, from interleaved batches of `batch` calls. */
async function perCall(clients, batch, rounds) {
  const samples = clients.map(() => []);
  for (let r = -2; r < rounds; r++) {
    for (const [i, client] of clients.entries()) {
      const start = performance.now();
      for (let k = 0; k < batch; k++) await callAnswer(client);
      if (r >= 0) samples[i].push((performance.now() - start) / batch);
    }
  }
  return samples.map(median);
}

/** The longest gap between the ticks of a 1 ms interval while `fn` runs: the worst event-loop stall, in ms. */
async function worstStall(fn) {
  await sleep(2);
  let last = performance.now();
  let worst = 0;
  const tick = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  };
  const timer = setInterval(tick, 1);
  const value = await fn();
  await sleep(3); // the tick after a stall at the very end of the call
  clearInterval(timer);
  tick();
  return { stall: worst, value };
}

/** One call: wall time, JS-thread busy time and the worst event-loop stall, in ms; `folds`: the answer must fold. */
async function observed(client, folds = true) {
  globalThis.gc?.();
  let wall = 0;
  const {
    stall,
    value: { busy, value: result },
  } = await worstStall(() =>
    jsThreadTime(async () => {
      const start = performance.now();
      const result = await callAnswer(client);
      wall = performance.now() - start;
      return result;
    }),
  );
  if (folds && !result.structuredContent?.handle) {
    throw new Error(`the answer did not fold: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return { wall, busy, stall, handle: result.structuredContent.handle };
}

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const us = (value) => `${Math.round(value * 1000)} µs`;
const row = (cells) => `| ${cells.join(' | ')} |`;

// ─── peak RSS, one child process per contender ──────────────────────────────
/**
 * Samples the process's RSS every millisecond on a worker thread (so a stall of the JS thread does not hide a peak)
 * until stopped; resolves with the highest sample, in bytes.
 */
function rssSampler() {
  const shared = new Int32Array(new SharedArrayBuffer(12)); // [stop, peak MiB·16 (1/16 MiB units), started]
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const shared = new Int32Array(workerData);
     Atomics.store(shared, 2, 1);
     while (Atomics.load(shared, 0) === 0) {
       const sixteenths = Math.ceil(process.memoryUsage.rss() / 65536);
       if (sixteenths > Atomics.load(shared, 1)) Atomics.store(shared, 1, sixteenths);
       Atomics.wait(shared, 0, 0, 1);
     }`,
    { eval: true, workerData: shared.buffer },
  );
  return {
    /** Forgets the samples so far. */
    reset: () => Atomics.store(shared, 1, 0),
    started: async () => {
      while (Atomics.load(shared, 2) === 0) await sleep(5);
    },
    stop: async () => {
      Atomics.store(shared, 0, 1);
      Atomics.notify(shared, 0);
      await worker.terminate();
      return Atomics.load(shared, 1) * 65536;
    },
  };
}

async function rssChild(kind, mb) {
  const client = await connect(kind);
  const answer = ordersAnswer(mb * MB, makeOrder);
  payload = structuredResult(answer);
  const sampler = rssSampler();
  await sampler.started();
  await sleep(50);
  globalThis.gc?.();
  await sleep(50);
  const idle = process.memoryUsage.rss();
  sampler.reset();
  const result = await callAnswer(client);
  const peak = await sampler.stop();
  if (kind !== 'none' && !result.structuredContent?.handle) throw new Error('the answer did not fold');
  const answerBytes = Buffer.byteLength(payload.content[0].text);
  process.stdout.write(JSON.stringify({ peakBeyond: Math.max(0, peak - idle), answerBytes }));
  process.exit(0);
}

function peakRss(kind, mb) {
  const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--rss', kind, String(mb)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`rss child failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// ─── run ────────────────────────────────────────────────────────────────────
/** Answer sizes folded (MB) and runs of each; `--mb=1,10` keeps some (the result_query row needs 10). */
const FOLD_SIZES = (() => {
  const all = [
    [1, 25],
    [10, 7],
    [50, 3],
  ];
  const chosen = process.argv
    .find((arg) => arg.startsWith('--mb='))
    ?.slice(5)
    .split(',')
    .map(Number);
  return chosen ? all.filter(([mb]) => chosen.includes(mb)) : all;
})();

async function main() {
  const [none, native, lean, stringifyOnly] = await Promise.all(['none', 'native', 'lean', 'stringify'].map(connect));
  const cpuClock = typeof process.threadCpuUsage === 'function' ? 'process.threadCpuUsage' : 'schedstat';
  console.log(
    `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}); ` +
      `threshold ${THRESHOLD} B; medians of interleaved runs; JS-thread CPU from ${cpuClock}\n`,
  );

  // Warm every contender's code (the SDK's, this package's, the lean fold's) before the first timed case, so the
  // first row does not time the JIT.
  payload = structuredResult(ordersAnswer(4096, makeOrder));
  await perCall([none, native, lean], 50, 20);
  console.log('Under the threshold: time per call (ratio to the server without the plugin)\n');
  console.log(row(['case', 'no plugin', 'this package', 'lean plain JS']));
  console.log(row(['---', '---', '---', '---']));
  for (const [label, bytes] of [
    [`200 B`, 200],
    ['4 KB', 4096],
    ['15 KB', 15 * 1024],
  ]) {
    const answer = ordersAnswer(bytes - 40, makeOrder);
    for (const [shape, result] of [
      ['structuredContent + text', structuredResult(answer)],
      ['text only', textResult(answer)],
    ]) {
      payload = result;
      const [a, b, c] = await perCall([none, native, lean], 25, 200);
      console.log(
        row([`${label}, ${shape}`, us(a), `${us(b)} (${(b / a).toFixed(2)}×)`, `${us(c)} (${(c / a).toFixed(2)}×)`]),
      );
    }
  }

  if (process.argv.includes('--under-only')) {
    await Promise.all([none, native, lean, stringifyOnly].map((client) => client.close()));
    return;
  }
  console.log('\nFolding (structuredContent + the same JSON as text): native vs the lean plain-JS fold\n');
  console.log(
    row([
      'answer',
      'one JSON.stringify alone: JS-thread CPU, mean (wall: median, worst)',
      'a call that only stringifies: JS-thread CPU, mean (worst stall)',
      'JS-thread CPU beyond that call, mean: package / lean (ratio)',
      'worst stall: package / lean',
      'wall: package / lean (ratio)',
    ]),
  );
  console.log(row(['---', '---', '---', '---', '---', '---']));
  const handles = {};
  for (const [mb, runs] of FOLD_SIZES) {
    const answer = ordersAnswer(mb * MB, makeOrder);
    payload = structuredResult(answer);
    const stringify = [];
    const stringifyWall = [];
    const timeStringify = async () => {
      globalThis.gc?.();
      await sleep(2);
      let wall = 0;
      const { busy } = await jsThreadTime(() => {
        const start = performance.now();
        const length = JSON.stringify(answer).length;
        wall = performance.now() - start;
        return length;
      });
      stringify.push(busy);
      stringifyWall.push(wall);
    };
    const seen = { native: [], lean: [], stringify: [] };
    await observed(native);
    await observed(lean);
    await observed(stringifyOnly, false);
    for (let r = 0; r < runs; r++) {
      await timeStringify();
      seen.native.push(await observed(native));
      seen.lean.push(await observed(lean));
      seen.stringify.push(await observed(stringifyOnly, false));
    }
    // CPU times are averaged: schedstat's few-ms granularity averages out over the runs, a median would not.
    const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
    const oneStringify = mean(stringify);
    const busy = (list) => mean(list.map((sample) => sample.busy));
    const stringifyCall = busy(seen.stringify);
    const med = (list, key) => median(list.map((sample) => sample[key]));
    const worst = (list) => Math.max(...list.map((sample) => sample.stall));
    // Beyond the call that only stringifies: the same plumbing, timers and GC conditions, so only the fold differs.
    const beyond = (list) => Math.max(0, busy(list) - stringifyCall);
    const [nb, lb] = [beyond(seen.native), beyond(seen.lean)];
    const [nw, lw] = [med(seen.native, 'wall'), med(seen.lean, 'wall')];
    console.log(
      row([
        `${mb} MB`,
        `${ms(oneStringify)} (${ms(median(stringifyWall))}, ${ms(Math.max(...stringifyWall))})`,
        `${ms(stringifyCall)} (${ms(worst(seen.stringify))})`,
        `${ms(nb)} / ${ms(lb)} (${(nb / lb).toFixed(2)}×)`,
        `${ms(worst(seen.native))} / ${ms(worst(seen.lean))}`,
        `${ms(nw)} / ${ms(lw)} (${(nw / lw).toFixed(2)}×)`,
      ]),
    );
    const [na, la] = [Math.max(0, busy(seen.native) - oneStringify), Math.max(0, busy(seen.lean) - oneStringify)];
    console.log(
      `|   | JS-thread CPU per call, mean: package ${ms(busy(seen.native))}, lean ${ms(busy(seen.lean))}; ` +
        `beyond the stringify alone: ${ms(na)} / ${ms(la)} (${(na / la).toFixed(2)}×) | | | | |`,
    );
    if (mb === 10) {
      handles.native = seen.native[0].handle;
      handles.lean = seen.lean[0].handle;
      handles.total = answer.orders.length;
    }
    payload = structuredResult({});
  }

  if (handles.native !== undefined) await queryRow(native, lean, handles);
  if (FOLD_SIZES.some(([mb]) => mb === 50)) rssRows();
  await Promise.all([none, native, lean, stringifyOnly].map((client) => client.close()));
}

/** The result_query row: the last 20 orders of the kept 10 MB answer, package against the lean fold's store. */
async function queryRow(native, lean, handles) {
  console.log('\nresult_query: the last 20 orders of the kept 10 MB answer, through the client\n');
  const query = (client, handle) =>
    client.callTool({
      name: 'result_query',
      arguments: { handle, path: '$.orders', offset: handles.total - 20, limit: 20 },
    });
  const queries = { native: [], lean: [] };
  for (let r = -1; r < 15; r++) {
    for (const kind of ['native', 'lean']) {
      const start = performance.now();
      await query(kind === 'native' ? native : lean, handles[kind]);
      if (r >= 0) queries[kind].push(performance.now() - start);
    }
  }
  const [qn, ql] = [median(queries.native), median(queries.lean)];
  console.log(`package ${ms(qn)}, lean plain JS ${ms(ql)} (${(ql / qn).toFixed(1)}× faster natively)`);
}

/** Peak RSS folding 50 MB, one child process per contender. */
function rssRows() {
  console.log('\nPeak RSS while folding 50 MB, beyond the idle server holding the built answer (own process each)\n');
  const names = { none: 'no plugin (the answer sent whole)', native: 'package', lean: 'lean plain JS' };
  for (const kind of ['none', 'native', 'lean']) {
    const { peakBeyond, answerBytes } = peakRss(kind, 50);
    console.log(
      `${names[kind]}: ${(peakBeyond / MB).toFixed(0)} MB ` +
        `(${(peakBeyond / answerBytes).toFixed(2)}× the answer's ${(answerBytes / MB).toFixed(0)} MB)`,
    );
  }
}

if (process.argv[2] === '--rss') await rssChild(process.argv[3], Number(process.argv[4]));
else await main();
