// Run by scripts/package-smoke.sh in a fresh ESM app that installed the two tarballs: fold + query through a real
// MCP client, and the addon loaded from the platform package.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import ResultHandlesPlugin, { ENGINE_VERSION } from 'result-handles-native';
import { createResultHandles, foldable } from 'result-handles-native/mcp';

const require = createRequire(import.meta.url);
const addon = require.resolve('result-handles-native-linux-x64-gnu');
assert.match(addon, /node_modules\/result-handles-native-linux-x64-gnu\//);
assert.equal(typeof ResultHandlesPlugin.init, 'function');

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
const { handle, shape } = folded.structuredContent;
assert.equal(shape.keys.orders.length, 300);
const page = await client.callTool({
  name: 'result_query',
  arguments: { handle, path: '$.orders', limit: 2, page: 3 },
});
assert.deepEqual(page.structuredContent.value, orders.slice(4, 6));

await client.close();
await handles.close();
console.log(
  `[smoke] ESM: engine ${ENGINE_VERSION} from ${addon}; folded ${folded._meta['frontmcp/result-handle'].bytes} bytes, page 3 read`,
);
