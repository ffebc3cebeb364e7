// The demo (`npm run demo`): an MCP server with result-handles on a loopback port, a real MCP client, and the
// transcript of what a model would see.
//
//   server: McpServer (official SDK) + Streamable HTTP, one McpServer per session, memory store
//   client: @modelcontextprotocol/sdk Client over StreamableHTTPClientTransport
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createResultHandles } from 'result-handles-native/mcp';

// ─── the server ─────────────────────────────────────────────────────────────
const orders = Array.from({ length: 500 }, (_, i) => ({ id: i, status: i % 2 ? 'shipped' : 'open' }));
const answer = { orders, total: orders.length };

// The seed answer is 14 164 bytes of JSON; with thresholdBytes 8192 it is folded.
const handles = createResultHandles({ thresholdBytes: 8192, preview: { items: 2 }, storage: { type: 'memory' } });

function serverForSession() {
  const server = new McpServer({ name: 'demo-shop', version: '1.0.0' });
  server.registerTool('list_orders', { description: 'Every order in the shop' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer,
  }));
  handles.attach(server);
  return server;
}

const sessions = new Map();
const httpServer = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  let transport = sessions.get(req.headers['mcp-session-id']);
  if (!transport) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    await serverForSession().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
const url = new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`);

// ─── the client ─────────────────────────────────────────────────────────────
const say = (title, value) =>
  console.log(`\n── ${title}\n${typeof value === 'string' ? value : JSON.stringify(value)}`);

async function connect() {
  const client = new Client({ name: 'demo-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

const client = await connect();
const { tools } = await client.listTools();
say('tools the model sees', tools.map((t) => t.name).join(', '));

const full = JSON.stringify(answer);
const folded = await client.callTool({ name: 'list_orders', arguments: {} });
say(`list_orders answers ${Buffer.byteLength(full)} bytes of JSON; the model receives instead`, folded.content[0].text);
say('and this note', folded.content[1].text);
say("_meta['frontmcp/result-handle']", folded._meta['frontmcp/result-handle']);
const { handle } = folded.structuredContent;

const query = async (args) => {
  const result = await client.callTool({ name: 'result_query', arguments: { handle, ...args } });
  return result.isError ? result.content[0].text : result.structuredContent;
};
say('result_query { path: "$.orders", limit: 3 }  (page 1)', await query({ path: '$.orders', limit: 3 }));
say('result_query { path: "$.orders", limit: 3, page: 2 }', await query({ path: '$.orders', limit: 3, page: 2 }));
say(
  'result_query { path: "$.orders[?@.status == \'shipped\']", limit: 4, fields: ["id"] }',
  await query({ path: "$.orders[?@.status == 'shipped']", limit: 4, fields: ['id'] }),
);

const other = await connect();
const foreign = await other.callTool({ name: 'result_query', arguments: { handle, path: '$.total' } });
say('the same handle from a second session (the whole CallToolResult)', foreign);

await other.close();
await client.close();
for (const transport of sessions.values()) await transport.close();
await new Promise((resolve) => httpServer.close(resolve));
await handles.close();
const ok = folded._meta['frontmcp/result-handle'] && foreign._meta?.code === 'RESULT_HANDLE_NOT_FOUND';
console.log(ok ? '\ndemo: ok' : '\ndemo: unexpected output');
process.exit(ok ? 0 : 1);
