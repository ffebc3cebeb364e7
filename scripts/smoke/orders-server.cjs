// Shared by the smoke apps (scripts/package-smoke.sh): an McpServer with one tool answering 300 orders through a
// foldable() output schema, the adapter attached, and a real MCP client on an in-memory pair. Each app passes in what
// it imported itself (ESM `import` or CommonJS `require`), so each resolution mode is what gets exercised.
async function serveOrders({ McpServer, Client, InMemoryTransport, z, createResultHandles, foldable }) {
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
  const query = async (args) =>
    (await client.callTool({ name: 'result_query', arguments: { handle: folded.structuredContent.handle, ...args } }))
      .structuredContent;
  const close = async () => {
    await client.close();
    await handles.close();
  };
  return { orders, folded, query, close };
}

module.exports = { serveOrders };
