// Handle references in tool arguments through the MCP SDK adapter, over Streamable HTTP with a real Client: a
// kept answer handed to another tool by handle, resolved natively before McpServer validates the tool's input.
import { createHash } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { callTool, connectHttp, handleOf, type ToolResult } from './fixtures/mcp-client';
import { seedOrders, startHost } from './fixtures/mcp-host.mjs';

type Host = Awaited<ReturnType<typeof startHost>>;

const SEED_JSON = JSON.stringify(seedOrders());
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the tools below saw, by call: the arguments as JSON text. */
const seen: string[] = [];

function consumerTools(server: McpServer): void {
  const digest = async (args: { value?: unknown }) => {
    const text = JSON.stringify(args.value);
    seen.push(JSON.stringify(args));
    const answer = { bytes: Buffer.byteLength(text), sha256: sha256(text) };
    return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }], structuredContent: answer };
  };
  server.registerTool('digest', { inputSchema: { value: z.unknown() } }, digest);
  server.registerTool('digest_off', { inputSchema: { value: z.unknown() } }, digest);
  server.registerTool('echo', { inputSchema: { a: z.unknown(), b: z.array(z.unknown()) } }, async (args) => {
    seen.push(JSON.stringify(args));
    return { content: [{ type: 'text', text: JSON.stringify(args) }] };
  });
  server.registerTool(
    'open_only',
    { inputSchema: { rows: z.array(z.object({ id: z.number(), status: z.literal('open') })) } },
    async (args) => ({ content: [{ type: 'text', text: `${args.rows.length} open rows` }] }),
  );
}

const ON = { handleReferences: ['digest', 'echo', 'open_only'] };

const connect = (host: Host, who?: string) => connectHttp(host.url, who ? `token-${who}` : undefined);
const call = callTool;

async function foldedHandle(client: Client): Promise<{ handle: string; folded: ToolResult }> {
  const folded = await call(client, 'orders');
  const handle = handleOf(folded);
  expect(handle).toBeTypeOf('string');
  return { handle: handle as string, folded };
}

describe('handle references on', () => {
  let host: Host;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    host = await startHost({
      options: { thresholdBytes: 4096, storage: { type: 'memory' }, ...ON },
      extraTools: consumerTools,
    });
    alice = await connect(host, 'alice');
    bob = await connect(host, 'bob');
  });

  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
    await host?.close();
  });

  it('hands the tool the whole kept answer, byte for byte', async () => {
    const { handle } = await foldedHandle(alice);
    const result = await call(alice, 'digest', { value: { $resultHandle: handle } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ bytes: Buffer.byteLength(SEED_JSON), sha256: sha256(SEED_JSON) });
    expect(seen.at(-1)).not.toContain(handle); // the tool never sees the handle
  });

  it('resolves references nested anywhere, with every path form', async () => {
    const { handle } = await foldedHandle(alice);
    const result = await call(alice, 'echo', {
      a: { deep: [{ $resultHandle: handle, path: '$.orders[-1]' }], keep: { $resultHandle: handle, extra: 1 } },
      b: [{ $resultHandle: handle, path: 'total' }, { $resultHandle: handle, path: '/orders/2/status' }, 'plain'],
    });
    expect(JSON.parse(result.content[0].text as string)).toEqual({
      a: { deep: [{ id: 499, status: 'shipped' }], keep: { $resultHandle: handle, extra: 1 } },
      b: [500, 'open', 'plain'],
    });
  });

  it('a value the tool input schema refuses fails with the schema error', async () => {
    const { handle } = await foldedHandle(alice);
    const refused = await call(alice, 'open_only', { rows: { $resultHandle: handle, path: 'orders' } });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/Input validation error: Invalid arguments for tool open_only/);
    expect(refused.content[0].text).not.toContain(handle);
    const accepted = await call(alice, 'open_only', {
      rows: { $resultHandle: handle, path: '$.orders[?@.status == "open"]' },
    });
    expect(accepted.content[0].text).toBe('250 open rows');
  });

  it("another caller's handle, an unknown one and a missing path fail as result_query does", async () => {
    const { handle } = await foldedHandle(alice);
    const foreign = await call(bob, 'digest', { value: { $resultHandle: handle } });
    const unknown = await call(bob, 'digest', { value: { $resultHandle: '00000000-0000-4000-8000-000000000000' } });
    const viaQuery = await call(bob, 'result_query', { handle });
    expect(foreign.isError).toBe(true);
    expect(foreign._meta?.code).toBe('RESULT_HANDLE_NOT_FOUND');
    expect(foreign.content).toEqual(unknown.content);
    expect(foreign.content).toEqual(viaQuery.content);
    const missing = await call(alice, 'digest', { value: { $resultHandle: handle, path: 'orders.900' } });
    expect(missing._meta?.code).toBe('RESULT_PATH_NOT_FOUND');
    const empty = await call(alice, 'digest', { value: { $resultHandle: '' } });
    expect(empty._meta?.code).toBe('INVALID_INPUT');
  });

  it('leaves tools it is not on for, and result_query, as they were', async () => {
    const { handle } = await foldedHandle(alice);
    await call(alice, 'digest_off', { value: { $resultHandle: handle } });
    expect(JSON.parse(seen.at(-1) as string)).toEqual({ value: { $resultHandle: handle } });
  });

  it('says so in the guide text and the result_query description', async () => {
    const { folded } = await foldedHandle(alice);
    expect(folded.content[1].text).toContain('"$resultHandle"');
    expect(folded.content[1].text).toContain('digest, echo, open_only');
    const { tools } = await alice.listTools();
    expect(tools.find((t) => t.name === 'result_query')?.description).toContain('$resultHandle');
  });
});

describe('handle references: limits and expiry', () => {
  it('names the limit a call goes over', async () => {
    const host = await startHost({
      options: {
        thresholdBytes: 4096,
        storage: { type: 'memory' },
        handleReferences: true,
        handleReferenceLimits: { maxReferences: 2, maxBytes: Buffer.byteLength(SEED_JSON) + 100 },
      },
      extraTools: consumerTools,
    });
    const client = await connect(host, 'alice');
    try {
      const { handle } = await foldedHandle(client);
      const ref = { $resultHandle: handle, path: 'total' };
      const three = await call(client, 'echo', { a: ref, b: [ref, ref] });
      expect(three._meta?.code).toBe('INVALID_INPUT');
      expect(three.content[0].text).toContain('handleReferenceLimits.maxReferences');
      const whole = { $resultHandle: handle };
      const tooBig = await call(client, 'echo', { a: whole, b: [whole] });
      expect(tooBig._meta?.code).toBe('INVALID_INPUT');
      expect(tooBig.content[0].text).toContain('handleReferenceLimits.maxBytes');
      const fits = await call(client, 'echo', { a: whole, b: [ref] });
      expect(fits.isError).toBeFalsy();
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('an expired handle is not found', async () => {
    const host = await startHost({
      options: { thresholdBytes: 4096, ttlSeconds: 1, storage: { type: 'memory' }, ...ON },
      extraTools: consumerTools,
    });
    const client = await connect(host, 'alice');
    try {
      const { handle } = await foldedHandle(client);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await call(client, 'digest', { value: { $resultHandle: handle } });
      expect(expired._meta?.code).toBe('RESULT_HANDLE_NOT_FOUND');
    } finally {
      await client.close();
      await host.close();
    }
  });
});

describe('handle references off (the default)', () => {
  it('hands the tool the reference object as sent, and says nothing about it', async () => {
    const host = await startHost({
      options: { thresholdBytes: 4096, storage: { type: 'memory' } },
      extraTools: consumerTools,
    });
    const client = await connect(host, 'alice');
    try {
      const { handle, folded } = await foldedHandle(client);
      await call(client, 'digest', { value: { $resultHandle: handle } });
      expect(JSON.parse(seen.at(-1) as string)).toEqual({ value: { $resultHandle: handle } });
      expect(folded.content[1].text).not.toContain('$resultHandle');
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'result_query')?.description).not.toContain('$resultHandle');
    } finally {
      await client.close();
      await host.close();
    }
  });
});
