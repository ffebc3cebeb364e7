// Run by scripts/package-smoke.sh in a fresh CommonJS app on zod 3.25 that installed the two tarballs: fold + query
// through a real MCP client, output schemas built with zod/v4, and a zod 3 schema refused by foldable() with a code.
const assert = require('node:assert/strict');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const zod3 = require('zod');
const { z } = require('zod/v4');
const { ENGINE_VERSION, ResultHandlesPlugin } = require('result-handles-native');
const { createResultHandles, foldable } = require('result-handles-native/mcp');

async function main() {
  assert.match(require('zod/package.json').version, /^3\./);
  assert.equal(typeof ResultHandlesPlugin.init, 'function');
  assert.throws(() => foldable(zod3.z.object({ id: zod3.z.number() })), { code: 'FOLDABLE_UNSUPPORTED_SCHEMA' });

  const orders = Array.from({ length: 300 }, (_, id) => ({ id, status: id % 2 ? 'shipped' : 'open' }));
  const handles = createResultHandles({ thresholdBytes: 4096, storage: { type: 'memory' } });
  const server = new McpServer({ name: 'smoke', version: '1.0.0' });
  server.registerTool(
    'orders',
    { outputSchema: foldable(z.object({ orders: z.array(z.object({ id: z.number(), status: z.string() })) })) },
    async () => ({ content: [{ type: 'text', text: JSON.stringify({ orders }) }], structuredContent: { orders } }),
  );
  handles.attach(server, { connectionSession: true });

  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'smoke-client', version: '1.0.0' });
  await client.connect(clientSide);

  const folded = await client.callTool({ name: 'orders', arguments: {} });
  const { handle } = folded.structuredContent;
  const page = await client.callTool({ name: 'result_query', arguments: { handle, path: '$.orders[-1]' } });
  assert.deepEqual(page.structuredContent.value, orders[299]);

  await client.close();
  await handles.close();
  console.log(
    `[smoke] CommonJS on zod ${require('zod/package.json').version}: engine ${ENGINE_VERSION}; fold + query ok`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
