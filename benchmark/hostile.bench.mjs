// ─── hostile-query benchmark: one session's reads while another session runs costly JSONPath queries ────────
// Run with a release build: `npm run bench` (or `node benchmark/hostile.bench.mjs` after `npm run build`).
// Two sessions (two McpServer connections on one result-handles runtime, memory store), each with a kept 1 MB
// answer of 10,000 items. Session B reads 200 times (a singular read through the path index, then a filter) alone,
// then while session A keeps 8 hostile queries of issue 11 running (a regex over the size limit, a 10,000-way
// alternation, 20 and 40 `count(@..*)` filters side by side under `$..`). Prints B's p50/p99 and A's outcomes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createResultHandles } from '../mcp.mjs';

const items = Array.from({ length: 10_000 }, (_, i) => ({ id: i, note: `note ${i} ${'a'.repeat(80)}` }));
const answer = { items };
const handles = createResultHandles({ thresholdBytes: 16_384, storage: { type: 'memory' } });
async function session() {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('items', {}, async () => ({
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer,
  }));
  handles.attach(server, { connectionSession: true });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(c);
  const folded = await client.callTool({ name: 'items', arguments: {} });
  return { client, handle: folded.structuredContent.handle };
}
const a = await session();
const b = await session();
const alternation = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join('|');
const hostile = [
  "$.items[?match(@.note, 'a{1000}{1000}')]",
  `$.items[?search(@.note, '${alternation}')]`,
  '$..[' + Array(20).fill('?count(@..*)>0').join(',') + ']',
  '$..[' + Array(40).fill('?count(@..*)>0').join(',') + ']',
];
const read = (s, path, extra = {}) =>
  s.client.callTool({ name: 'result_query', arguments: { handle: s.handle, path, ...extra } });
async function sample(n, path, extra) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await read(b, path, extra);
    if (r.isError) throw new Error(r.content[0].text);
    times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.floor(n * 0.99)], max: times[n - 1] };
}
const fmt = (o) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v.toFixed(2)} ms`)
    .join(', ');
for (const [label, path, extra] of [
  ['singular read (index)', '$.items', { offset: 9980, limit: 20 }],
  ['filter (first page)', '$.items[?@.id == 5]', {}],
]) {
  console.log(`${label}, alone: ${fmt(await sample(200, path, extra))}`);
  let stop = false;
  const outcomes = {};
  const loops = Array.from({ length: 8 }, (_, k) =>
    (async () => {
      while (!stop) {
        const t = performance.now();
        const r = await read(a, hostile[k % 4]);
        const key = `${k % 4}:${r.isError ? r.content[0].text.slice(0, 40) : 'ok'}`;
        (outcomes[key] ??= []).push(performance.now() - t);
      }
    })(),
  );
  await new Promise((r) => setTimeout(r, 200));
  console.log(`${label}, beside 8 hostile queries: ${fmt(await sample(200, path, extra))}`);
  stop = true;
  await Promise.all(loops);
  for (const [k, v] of Object.entries(outcomes))
    console.log(
      `  hostile ${k}: n=${v.length}, median ${v.sort((x, y) => x - y)[Math.floor(v.length / 2)].toFixed(0)} ms`,
    );
}
await a.client.close();
await b.client.close();
await handles.close();
