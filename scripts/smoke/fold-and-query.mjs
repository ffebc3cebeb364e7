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

import smoke from './orders-server.cjs';

const require = createRequire(import.meta.url);
const addon = require.resolve('result-handles-native-linux-x64-gnu');
assert.match(addon, /node_modules\/result-handles-native-linux-x64-gnu\//);
assert.equal(typeof ResultHandlesPlugin.init, 'function'); // the default import is the plugin itself

const { orders, folded, query, close } = await smoke.serveOrders({
  McpServer,
  Client,
  InMemoryTransport,
  z,
  createResultHandles,
  foldable,
});
assert.equal(folded.structuredContent.shape.keys.orders.length, 300);
assert.deepEqual((await query({ path: '$.orders', limit: 2, page: 3 })).value, orders.slice(4, 6));
await close();
console.log(`[smoke] ESM: engine ${ENGINE_VERSION} from ${addon}; fold + query ok`);
