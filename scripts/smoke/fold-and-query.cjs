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

const { serveOrders } = require('./orders-server.cjs');

async function main() {
  const zodVersion = require('zod/package.json').version;
  assert.match(zodVersion, /^3\./);
  assert.equal(typeof ResultHandlesPlugin.init, 'function');
  assert.throws(() => foldable(zod3.z.object({ id: zod3.z.number() })), { code: 'FOLDABLE_UNSUPPORTED_SCHEMA' });

  const served = await serveOrders({ McpServer, Client, InMemoryTransport, z, createResultHandles, foldable });
  assert.deepEqual((await served.query({ path: '$.orders[-1]' })).value, served.orders[299]);
  await served.close();
  console.log(`[smoke] CommonJS on zod ${zodVersion}: engine ${ENGINE_VERSION}; fold + query ok`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
