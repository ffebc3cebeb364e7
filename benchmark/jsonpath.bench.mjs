// ─── JSONPath benchmark: result_query with filters, wildcards and descendants, native vs plain JS ───────────
// Run with a release build: `npm run bench` (or, after `npm run build`,
// `node --expose-gc benchmark/jsonpath.bench.mjs`).
// Native: an McpServer with result handles (memory store); the tool's answer is kept, then `result_query` is
// called through an MCP Client (in-memory transport) with a JSONPath query and limit 20.
// Plain JS: another McpServer whose `js_query` tool does the whole job on the JS thread: AES-256-GCM decrypt with
// node:crypto, JSON.parse, the same selection with array methods, JSON.stringify of the first 20 and the total.
// Also the same 1 MB of orders beside 9 MB of events ("1 in 10 MB"): native reads only the orders, through the path
// index; plain JS decrypts and parses it all. And a 64 KB answer, about what any first query costs: with the 1 MB
// rows it gives what each MB read adds, on each side, and how much 0.2x plain JS at 1 MB leaves native a MB. And a
// 24 KB answer, which native queries in the call's first poll, without a hop between threads.
// Interleaved runs, medians; ratio = native / plain JS (below 1: native is faster). Beside each row, the JS thread's
// CPU time per call (a mean over more first queries, each on a fresh handle), to hold against a singular read's (a
// round trip answered in its first poll) and a tool's that only awaits a timer as long. Then: paging through every
// match of a filter on the 10 MB answer (limit 20, nextOffset to the end) against one query and against the same pages
// from a tool that only returns them (the SDK's round trips alone), and a singular read through the path index (the
// last 20 orders, one item, and a small member beside the lists).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import { createResultHandles } from '../mcp.mjs';
import { resultQueryInputShape, resultQueryOutputShape } from '../dist/host/result-query.schema.js';
import { formatMs, interleaved, jsThreadTime, median, ordersAnswer } from './support.mjs';

const STATUSES = ['open', 'shipped', 'delivered', 'returned'];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Timed first queries a row: three times as many on the answers of 1 MB or less, whose medians move most. */
const runsAt = (mb) => (mb <= 1 ? 3 * RUNS : RUNS);
/**
 * Plain-JS calls made before each row's interleaved runs (beyond the one warm-up round both sides get). On Node 24
 * the plain-JS side's first 10 MB calls grow its heap, and V8 collects on the other vCPU while the native call after
 * them runs: whichever query came first at 10 MB read 56–78 ms native in seven runs (15–30 ms in a later row, or with
 * `--single-threaded-gc`); with these calls first, the filter row read 19–21 ms in two runs.
 */
const JS_WARMUPS = 3;
const LIMIT = 20;

/** Order `i`: status, amount, sku, three or four tags. */
const makeOrder = (i) => ({
  id: i,
  status: STATUSES[i % 4],
  amount: (i * 37) % 1000,
  sku: `SKU-${i}`,
  customer: { name: `Customer ${i}`, tags: ['new', 'eu', `c${i % 7}`] },
  tags: ['a', 'b', `t${i % 5}`, ...(i % 2 ? ['odd'] : [])],
});

/** Calls `visit` on `node` and every value under it, depth first, as `$..` visits them. */
function eachDescendant(node, visit) {
  visit(node);
  if (Array.isArray(node)) for (const child of node) eachDescendant(child, visit);
  else if (node && typeof node === 'object') for (const key in node) eachDescendant(node[key], visit);
}

/** The three queries of issue 13's table (each on 1 and 10 MB), each with its plain-JS selection. */
const QUERIES = [
  {
    path: "$.orders[?@.status=='open' && @.amount > 500]",
    select: (answer) => answer.orders.filter((o) => o.status === 'open' && o.amount > 500),
  },
  { path: '$.orders[*].sku', select: (answer) => answer.orders.filter((o) => 'sku' in o).map((o) => o.sku) },
  {
    path: '$..tags[2]',
    select: (answer) => {
      const out = [];
      eachDescendant(answer, (node) => {
        if (node && typeof node === 'object' && !Array.isArray(node) && Array.isArray(node.tags)) {
          if (node.tags.length > 2) out.push(node.tags[2]);
        }
      });
      return out;
    },
  },
];

const sealed = new Map();
function seal(json) {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(json), cipher.final()]);
  return { key, iv, body, tag: cipher.getAuthTag() };
}
function jsQuery({ id, query, offset }) {
  const { key, iv, body, tag } = sealed.get(id);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  const answer = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString());
  const matches = QUERIES[query].select(answer);
  const out = {
    path: QUERIES[query].path,
    value: matches.slice(offset, offset + LIMIT),
    total: matches.length,
    offset,
  };
  if (offset + LIMIT < matches.length) out.nextOffset = offset + LIMIT;
  return JSON.stringify(out);
}

/**
 * A server whose tools answer with pages already written (`texts`), as result_query answers, with result_query's own
 * output schema (the text parsed into structuredContent): `page_floor` answers `texts[offset]` (result_query's input
 * schema too), what the SDK's round trips cost alone; `waits` first awaits a timer of `ms`, then answers `texts[0]`,
 * what a call that waits that long costs the JS thread anyway.
 */
function pageFloorServer(texts) {
  const server = new McpServer({ name: 'bench-floor', version: '1.0.0' });
  const written = (text) => ({ content: [{ type: 'text', text }], structuredContent: JSON.parse(text) });
  const outputSchema = resultQueryOutputShape(z);
  server.registerTool('page_floor', { inputSchema: resultQueryInputShape(z), outputSchema }, async ({ offset }) =>
    written(texts[offset]),
  );
  server.registerTool('waits', { inputSchema: { ms: z.number() }, outputSchema }, async ({ ms }) => {
    await sleep(ms);
    return written(texts[0]);
  });
  return server;
}

/**
 * The JS thread's CPU time per call, in ms, for each list of calls (each run one after the other, the lists in turn):
 * a mean, as the clock is read once around a list (see `jsThreadTime`). Under `--expose-gc` the heap is collected
 * before each list, and the sweeping it leaves given time to end, outside the clock: a list is not charged for the
 * garbage of the calls before it (the plain-JS side's parsed answers, above all).
 */
async function jsThreadCpuPerCall(lists) {
  const means = [];
  for (const calls of lists) {
    globalThis.gc?.();
    await sleep(50);
    const { busy } = await jsThreadTime(async () => {
      for (const call of calls) await call();
    });
    means.push(busy / calls.length);
  }
  return means;
}

async function connected(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const textOf = (result) => {
  if (result.isError) throw new Error(result.content[0].text);
  return result.content[0].text;
};

/** Event `i` of a log kept beside the orders. */
const makeEvent = (i) => ({ at: 1_700_000_000 + i, kind: i % 3 ? 'view' : 'click', page: `/p/${i % 100}` });

/** The id of the answer whose 1 MB of orders sits beside 9 MB of events: a query reads only the orders. */
const INSIDE = 100;
/** A kept answer of 64 KB (in MB): about what any first query costs, whatever the answer's size. */
const SMALL = 1 / 16;
/** A kept answer of 24 KB (in MB), small enough to be queried in the call's first poll, without a hop. */
const TINY = 24 / 1024;

/** The label of a kept answer in the table. */
const sizeLabel = (mb) => (mb === INSIDE ? '1 in 10 MB' : mb < 1 ? `${Math.round(mb * 1024)} KB` : `${mb} MB`);

/** What each MB of answer read beyond 64 KB adds to a first query (ms), from its 64 KB and 1 MB times. */
const perMbBeyondSmall = (small, large) => (large - small) / (1 - SMALL);

async function main() {
  const answers = new Map(
    [TINY, SMALL, 1, 10].map((mb) => [mb, { orders: ordersAnswer(mb * 1024 * 1024, makeOrder).orders }]),
  );
  const events = ordersAnswer(9 * 1024 * 1024, makeEvent).orders;
  answers.set(INSIDE, {
    meta: { events: events.length, orders: answers.get(1).orders.length, source: 'bench' },
    events,
    orders: answers.get(1).orders,
  });
  const handles = createResultHandles({ thresholdBytes: 16_384, storage: { type: 'memory' } });
  const nativeServer = new McpServer({ name: 'bench-native', version: '1.0.0' });
  nativeServer.registerTool('orders', { inputSchema: { mb: z.number() } }, async ({ mb }) => {
    const answer = answers.get(mb);
    return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
  });
  handles.attach(nativeServer, { connectionSession: true }); // the in-memory connection is the session
  const jsServer = new McpServer({ name: 'bench-js', version: '1.0.0' });
  jsServer.registerTool(
    'js_query',
    { inputSchema: { id: z.number(), query: z.number(), offset: z.number() } },
    async (args) => ({ content: [{ type: 'text', text: jsQuery(args) }] }),
  );
  const native = await connected(nativeServer);
  const js = await connected(jsServer);

  // The store keeps where a query's matches are, so the same query on the same handle is a cheap range read:
  // every timed first query gets a handle of its own (one warm-up round, then runsAt(mb)).
  const pools = new Map();
  for (const [mb, answer] of answers) {
    const pool = [];
    const first = runsAt(mb) + 1;
    for (let i = 0; i < first + 3 + RUNS; i++) {
      const folded = await native.callTool({ name: 'orders', arguments: { mb } });
      pool.push(folded.structuredContent.handle);
    }
    // Handles for the timed first queries, one kept for repeat reads, two for paging, RUNS for the JS
    // thread's CPU time.
    pools.set(mb, {
      first: pool.slice(0, first),
      kept: pool[first],
      paging: pool.slice(first + 1, first + 3),
      cpu: pool.slice(first + 3),
    });
    sealed.set(mb, seal(JSON.stringify(answer)));
  }
  const nativeRead = (handle, path, extra = {}) =>
    native.callTool({ name: 'result_query', arguments: { handle, path, limit: LIMIT, ...extra } }).then(textOf);
  const jsRead = (mb, query, offset = 0) =>
    js.callTool({ name: 'js_query', arguments: { id: mb, query, offset } }).then(textOf);

  console.log(
    `node ${process.version}, medians of ${runsAt(1)} interleaved runs (${runsAt(10)} on the 10 MB answers); ratio = native / plain JS\n`,
  );
  console.log(
    'kept answer  query (limit 20)                                   native      plain JS    ratio   next page    JS-thread CPU a call: native / plain JS',
  );
  const rows = [];
  for (const mb of [TINY, SMALL, 1, 10, INSIDE]) {
    for (const [q, { path }] of QUERIES.entries()) {
      if (mb === INSIDE && path.startsWith('$..')) continue; // a descendant query reads the whole answer anyway
      const [a, b] = [JSON.parse(await nativeRead(pools.get(mb).kept, path)), JSON.parse(await jsRead(mb, q))];
      if (!isDeepStrictEqual(a, b)) throw new Error(`native and JS answers differ for ${path}`);
      for (let i = 0; i < JS_WARMUPS; i++) await jsRead(mb, q);
      // Each query on each handle once: the pool holds one handle per round.
      const pool = pools.get(mb).first;
      let round = 0;
      const [nativeMs, jsMs] = await interleaved(
        [() => nativeRead(pool[round++], path), () => jsRead(mb, q)],
        runsAt(mb),
      );
      const [againMs] = await interleaved([() => nativeRead(pools.get(mb).kept, path, { offset: LIMIT })], RUNS);
      const [nativeCpuMs, jsCpuMs] = await jsThreadCpuPerCall([
        pools.get(mb).cpu.map((handle) => () => nativeRead(handle, path)),
        pools.get(mb).cpu.map(() => () => jsRead(mb, q)),
      ]);
      rows.push({ mb, path, nativeMs, jsMs, againMs, total: a.total });
      console.log(
        `${sizeLabel(mb).padEnd(12)} ${path.padEnd(50)} ${formatMs(nativeMs, 2, 9)}  ${formatMs(jsMs, 2, 9)}   ${(nativeMs / jsMs).toFixed(2)}   ${formatMs(againMs, 2, 7)}    ${formatMs(nativeCpuMs, 3)} / ${formatMs(jsCpuMs, 2)}`,
      );
    }
  }

  // Why 1 MB is harder than 10 MB: what every query pays, about the 64 KB row, weighs more there.
  console.log('\neach MB read beyond 64 KB adds to a first query (from the 64 KB and 1 MB rows):');
  for (const { path } of QUERIES) {
    const at = (mb) => rows.find((row) => row.mb === mb && row.path === path);
    const native = perMbBeyondSmall(at(SMALL).nativeMs, at(1).nativeMs);
    const js = perMbBeyondSmall(at(SMALL).jsMs, at(1).jsMs);
    const allowed = perMbBeyondSmall(at(SMALL).nativeMs, 0.2 * at(1).jsMs);
    console.log(
      `  ${path.padEnd(50)} native ${formatMs(native, 2)}, plain JS ${formatMs(js, 2)}; 0.2× plain JS at 1 MB leaves native ${formatMs(allowed, 2)}`,
    );
  }

  // Paging: every match of the filter on a fresh 10 MB handle, 20 at a time, against one (first) query.
  const filter = QUERIES[0].path;
  const pageTexts = [];
  // A client reads a page's structuredContent (the SDK hands it over parsed); the text repeats it.
  const nativePage = (handle, offset) =>
    native
      .callTool({ name: 'result_query', arguments: { handle, path: filter, limit: LIMIT, offset } })
      .then((result) => {
        if (result.isError) throw new Error(result.content[0].text);
        pageTexts.push(result.content[0].text);
        return result.structuredContent;
      });
  const pageAll = async (handle) => {
    let offset = 0;
    let pages = 0;
    for (;;) {
      const page = await nativePage(handle, offset);
      pages += 1;
      if (page.nextOffset === undefined) return pages;
      offset = page.nextOffset;
    }
  };
  const started = performance.now();
  const pages = await pageAll(pools.get(10).paging[0]);
  const pagingMs = performance.now() - started;
  const firstStarted = performance.now();
  await nativeRead(pools.get(10).paging[1], filter);
  const oneMs = performance.now() - firstStarted;
  // The same pages from a tool that only hands back their text, already written, with result_query's schemas: what
  // the SDK's round trips cost on their own, whatever the engine does.
  const floor = await connected(pageFloorServer(pageTexts.slice(0, pages)));
  const floorStarted = performance.now();
  for (let page = 0; page < pages; page++) {
    const result = await floor.callTool({ name: 'page_floor', arguments: { handle: 'h', path: filter, offset: page } });
    if (result.structuredContent === undefined) throw new Error('the floor tool lost its structuredContent');
  }
  const floorMs = performance.now() - floorStarted;
  // Our part of a page: the kept pages read again, each right before the floor tool's copy of it, so that both see
  // the machine in the same state (the two passes above run a few ms apart, and each page moves with the machine).
  const ourPartMs = [];
  for (let page = 1; page < pages; page++) {
    const nativeStarted = performance.now();
    await nativeRead(pools.get(10).paging[0], filter, { offset: page * LIMIT });
    const floorPageStarted = performance.now();
    await floor.callTool({ name: 'page_floor', arguments: { handle: 'h', path: filter, offset: page } });
    const floorPageMs = performance.now() - floorPageStarted;
    ourPartMs.push(floorPageStarted - nativeStarted - floorPageMs);
  }
  // A singular read through the path index: the last 20 orders. Also the floor of one `result_query` round trip.
  const total = answers.get(10).orders.length;
  const [singularMs] = await interleaved(
    [() => nativeRead(pools.get(10).kept, '$.orders', { offset: total - LIMIT })],
    RUNS * 4,
  );
  console.log(
    `\npaging ${filter} on 10 MB: ${pages} pages in ${formatMs(pagingMs, 0)} total; one first query ${formatMs(oneMs, 2)}; ratio ${(pagingMs / oneMs).toFixed(2)}`,
  );
  // One first query is one sample; the table's median for the same query is steadier.
  const firstMedianMs = rows.find((row) => row.mb === 10 && row.path === filter).nativeMs;
  console.log(
    `  against the table's median first query (${formatMs(firstMedianMs, 2)}): ratio ${(pagingMs / firstMedianMs).toFixed(2)}`,
  );
  console.log(
    `  per page after the first: ${formatMs((pagingMs - oneMs) / (pages - 1), 3)}; one result_query round trip (the singular read below): ${formatMs(singularMs, 3)}`,
  );
  console.log(
    `  the same ${pages} pages from a tool that returns them already written (the SDK's round trips alone): ${formatMs(floorMs, 0)}, ${(floorMs / oneMs).toFixed(2)}× one first query`,
  );
  console.log(
    `  our part of a page beyond the SDK's round trip (each page read again beside the floor's): ${formatMs(median(ourPartMs), 3)}, median of ${ourPartMs.length}`,
  );
  console.log(`singular read, last 20 of $.orders on 10 MB (path index): ${formatMs(singularMs, 3)}`);
  const [singularCpuMs] = await jsThreadCpuPerCall([
    Array.from({ length: RUNS * 4 }, () => () => nativeRead(pools.get(10).kept, '$.orders', { offset: total - LIMIT })),
  ]);
  console.log(`  its JS-thread CPU a call (answered in the call's first poll): ${formatMs(singularCpuMs, 3)}`);
  // A call that waits as long as a first query (on a timer, not another thread) costs the JS thread this much anyway.
  const waits = [1, 10].map((mb) => Math.round(rows.find((row) => row.mb === mb).nativeMs));
  const waitingCpuMs = await jsThreadCpuPerCall(
    waits.map((ms) =>
      Array.from({ length: RUNS * 2 }, () => () => floor.callTool({ name: 'waits', arguments: { ms } })),
    ),
  );
  console.log(
    `a tool that only awaits a timer for as long as a first query (${waits.map((ms) => formatMs(ms, 0)).join(' / ')}), then answers a page: JS-thread CPU ${waitingCpuMs.map((ms) => formatMs(ms, 3)).join(' / ')} a call`,
  );
  // A singular path into one item: the index's checkpoints name the range of items around it.
  const itemPath = `$.orders[${total - 5}].sku`;
  const [itemMs] = await interleaved([() => nativeRead(pools.get(10).kept, itemPath)], RUNS * 4);
  console.log(`singular read into one item, ${itemPath} on 10 MB (path index): ${formatMs(itemMs, 3)}`);
  // A small member beside the large ones: the index reads the parts of the root between them.
  const [memberMs] = await interleaved([() => nativeRead(pools.get(INSIDE).kept, '$.meta.orders')], RUNS * 4);
  console.log(
    `singular read of a small member, $.meta.orders beside 10 MB of lists (path index): ${formatMs(memberMs, 3)}`,
  );

  await floor.close();
  await native.close();
  await js.close();
  await handles.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
