// ─── handle references benchmark: a kept answer handed to another tool by handle, vs sent inline ───────────
// Through the real plumbing: McpServer (Streamable HTTP, stateful, the MCP host fixture) + the SDK's Client.
// By reference: the tool call carries `{ "$resultHandle": h }`; the adapter resolves it natively (read, open, node
// as JSON text), parses it once, and McpServer validates and runs the tool.
// Inline (the baseline: what a client does without references): the tool call carries the answer itself, which the
// client serializes, HTTP carries and the server parses. The model's side (context tokens) is not timed here: inline,
// the whole answer passes through the model's context first, which is what references avoid.
// Run after `npm run build` (release): `node benchmark/references.bench.mjs`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';

import { startHost, TOKENS } from '../__test__/fixtures/mcp-host.mjs';
import { fixed, interleaved, ordersAnswer } from './support.mjs';

const makeOrder = (i) => ({ id: i, status: i % 2 ? 'shipped' : 'open', customer: `Customer ${i}`, total: i * 1.5 });
let current;

const host = await startHost({
  options: {
    thresholdBytes: 16_384,
    storage: { type: 'memory', memory: { maxEntries: 0 } },
    handleReferences: ['count'],
  },
  extraTools: (server) => {
    server.registerTool('big', { description: 'the current answer' }, async () => ({
      content: [{ type: 'text', text: JSON.stringify(current) }],
      structuredContent: current,
    }));
    server.registerTool('count', { inputSchema: { rows: z.array(z.unknown()) } }, async ({ rows }) => ({
      content: [{ type: 'text', text: String(rows.length) }],
    }));
  },
});
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(host.url), {
    requestInit: { headers: { Authorization: `Bearer ${TOKENS.alice.token}` } },
  }),
);

console.log(`handle references benchmark: node ${process.version}, ${process.arch}, medians of interleaved runs`);
console.log('tools/call over Streamable HTTP on loopback; ratio = inline ms ÷ by-reference ms\n');
console.log('answer      by reference   inline     ratio');
try {
  for (const [bytes, runs] of [
    [100_000, 31],
    [1_000_000, 15],
    [10_000_000, 5],
  ]) {
    current = ordersAnswer(bytes, makeOrder);
    const folded = await client.callTool({ name: 'big', arguments: {} });
    const handle = folded._meta['frontmcp/result-handle'].handle;
    const expected = String(current.orders.length);
    const check = (result) => {
      if (result.isError || result.content[0].text !== expected) throw new Error('the tool saw something else');
    };
    const [byReference, inline] = await interleaved(
      [
        async () =>
          check(
            await client.callTool({ name: 'count', arguments: { rows: { $resultHandle: handle, path: 'orders' } } }),
          ),
        async () => check(await client.callTool({ name: 'count', arguments: { rows: current.orders } })),
      ],
      runs,
    );
    console.log(
      `${`${bytes / 1e6} MB`.padEnd(10)}${fixed(byReference, 2, 10)} ms${fixed(inline, 2, 9)} ms   ${(inline / byReference).toFixed(2)}×`,
    );
  }
} finally {
  await client.close();
  await host.close();
}
