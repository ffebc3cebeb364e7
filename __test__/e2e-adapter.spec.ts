// The MCP SDK adapter beyond Streamable HTTP: stdio (the connection is the session), in-memory transports, the
// foldable() helper through the SDK's own listing and validation, registration edge cases, a store that cannot keep
// an answer.
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createResultHandles, foldable, withResultHandles } from '../mcp.mjs';
import { registerTools, seedOrders, startHost } from './fixtures/mcp-host.mjs';

type Result = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
const META_KEY = 'frontmcp/result-handle';
const OPTIONS = { thresholdBytes: 4096, storage: { type: 'memory' as const } };

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;

async function inMemoryPair(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
  return client;
}

function serverWithTools(): McpServer {
  const server = new McpServer({ name: 'unit', version: '1.0.0' });
  registerTools(server);
  return server;
}

describe('stdio: the connection is one session', () => {
  it('folds over stdio and reads back through the same connection', async () => {
    const script = fileURLToPath(new URL('./fixtures/mcp-stdio-host.mjs', import.meta.url));
    const client = new Client({ name: 'stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], stderr: 'inherit' }));
    try {
      const folded = await call(client, 'orders');
      const handle = (folded._meta?.[META_KEY] as { handle: string }).handle;
      expect(folded.structuredContent?.handle).toBe(handle);
      const page = await call(client, 'result_query', { handle, path: '$.orders[-1]' });
      expect(page.structuredContent).toMatchObject({ value: { id: 499, status: 'shipped' } });
    } finally {
      await client.close();
    }
  });
});

describe('transports without a session id', () => {
  it('leave answers whole by default, and fold per connection with connectionSession: true', async () => {
    const handles = createResultHandles(OPTIONS);
    const plain = serverWithTools();
    handles.attach(plain);
    const anonymous = await inMemoryPair(plain);
    const whole = await call(anonymous, 'orders');
    expect(whole._meta?.[META_KEY]).toBeUndefined();
    expect(whole.structuredContent).toEqual(seedOrders());

    const first = serverWithTools();
    const second = serverWithTools();
    handles.attach(first, { connectionSession: true });
    handles.attach(second, { connectionSession: true });
    const one = await inMemoryPair(first);
    const two = await inMemoryPair(second);
    const handle = ((await call(one, 'orders'))._meta?.[META_KEY] as { handle: string }).handle;
    expect((await call(one, 'result_query', { handle, path: 'total' })).structuredContent).toMatchObject({
      value: 500,
    });
    const foreign = await call(two, 'result_query', { handle });
    expect(foreign._meta?.code).toBe('RESULT_HANDLE_NOT_FOUND');
    await Promise.all([anonymous.close(), one.close(), two.close()]);
    await handles.close();
  });
});

describe('registration', () => {
  it('refuses to attach twice and to attach to something else', () => {
    const server = serverWithTools();
    const handles = withResultHandles(server, OPTIONS);
    expect(() => handles.attach(server)).toThrow(/already attached/);
    expect(() => handles.attach({} as McpServer)).toThrow(/McpServer/);
  });

  it('validates options at once', () => {
    expect(() => createResultHandles({ thresholdBytes: 1 })).toThrow(
      expect.objectContaining({ code: 'RESULT_HANDLES_CONFIGURATION' }),
    );
  });

  it('wraps callbacks replaced with update({ callback }) and follows renames', async () => {
    const server = new McpServer({ name: 'unit', version: '1.0.0' });
    const handles = createResultHandles(OPTIONS);
    handles.attach(server, { connectionSession: true });
    const tool = server.registerTool('first', {}, async () => ({ content: [{ type: 'text', text: 'small' }] }));
    tool.update({
      name: 'renamed',
      callback: async () => ({ content: [{ type: 'text', text: JSON.stringify(seedOrders()) }] }),
    });
    const client = await inMemoryPair(server);
    const result = await call(client, 'renamed');
    expect(result._meta?.[META_KEY]).toBeDefined();
    await client.close();
    await handles.close();
  });
});

describe('foldable()', () => {
  const Order = z.object({ id: z.number(), status: z.string() });
  const widened = foldable(z.object({ orders: z.array(Order), total: z.number(), note: z.string().optional() }));

  it('admits the answer and the folded form, and nothing in between', () => {
    expect(widened.safeParse(seedOrders()).success).toBe(true);
    expect(widened.safeParse({ preview: {}, shape: { type: 'object' }, handle: 'h' }).success).toBe(true);
    expect(widened.safeParse({ orders: [] }).success).toBe(false); // total is required
    expect(widened.safeParse({ orders: [{ id: 'x' }], total: 1 }).success).toBe(false); // keys keep their schema
    expect(widened.safeParse({ preview: {}, shape: {}, handle: 'h', total: 1 }).success).toBe(false);
    expect(widened.safeParse({ preview: {}, handle: 'h' }).success).toBe(false);
  });

  it('accepts a raw shape and refuses a schema that already uses a folded key', () => {
    expect(foldable({ total: z.number() }).safeParse({ total: 1 }).success).toBe(true);
    expect(() => foldable(z.object({ handle: z.string() }))).toThrow(/already declares "handle"/);
  });

  it('is listed by the SDK as an object schema that validates both forms on the client', async () => {
    const server = new McpServer({ name: 'unit', version: '1.0.0' });
    const handles = withResultHandles(server, OPTIONS, { connectionSession: true });
    server.registerTool('orders', { outputSchema: widened }, async () => ({
      content: [{ type: 'text', text: JSON.stringify(seedOrders()) }],
      structuredContent: seedOrders(),
    }));
    server.registerTool('few', { outputSchema: widened }, async () => ({
      content: [{ type: 'text', text: '{"orders":[],"total":0}' }],
      structuredContent: { orders: [], total: 0 },
    }));
    const client = await inMemoryPair(server);
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'orders')?.outputSchema as { type: string; properties: object };
    expect(listed.type).toBe('object');
    expect(Object.keys(listed.properties)).toEqual(['orders', 'total', 'note', 'preview', 'shape', 'handle']);
    expect((await call(client, 'orders'))._meta?.[META_KEY]).toBeDefined();
    expect((await call(client, 'few')).structuredContent).toEqual({ orders: [], total: 0 });
    await client.close();
    await handles.close();
  });
});

describe('a store that cannot keep the answer', () => {
  it('sends the answer whole and warns without data', async () => {
    const host = await startHost({
      options: { thresholdBytes: 4096, storage: { type: 'memory', memory: { maxBytes: 1000 } } },
    });
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    try {
      const result = await call(client, 'orders');
      expect(result._meta?.[META_KEY]).toBeUndefined();
      expect(result.structuredContent).toEqual(seedOrders());
      expect(host.warnings).toEqual([
        'could not keep an answer of tool "orders" (RESULT_STORE_WRITE_FAILED); it was sent whole.',
      ]);
    } finally {
      await client.close();
      await host.close();
    }
  });
});
