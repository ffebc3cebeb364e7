// Lone surrogates (half of a split emoji) through fold, store and every query form, over a real MCP client: the
// value a client reads back equals JSON.parse(JSON.stringify(original)), and a text answer holding a raw lone
// surrogate folds like any other text.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createResultHandles } from '../mcp.mjs';
import { callTool, handleOf as handleIn, META_KEY } from './fixtures/mcp-client';

const HIGH = '\ud83d'; // the first half of 😀
const LOW = '\ude00'; // the second half

/** 400 items, some holding a lone surrogate in a value or a key, one a whole emoji. */
const structured = {
  items: Array.from({ length: 400 }, (_, i) => ({
    id: i,
    note: i % 3 === 0 ? `cut ${HIGH}` : i % 3 === 1 ? `${LOW} tail` : `whole ${HIGH}${LOW}`,
    [`k${HIGH}`]: i,
  })),
};
const rawText = `${'x'.repeat(6000)}${HIGH} and ${LOW}${'y'.repeat(100)}`;
const rawJsonText = JSON.stringify({ s: `a${HIGH}b`, pad: 'p'.repeat(6000) }).replace('\\ud83d', HIGH);

let client: Client;

beforeAll(async () => {
  const server = new McpServer({ name: 'lone-surrogates', version: '1.0.0' });
  server.registerTool('structured', { description: 'structuredContent and its text' }, async () => ({
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  }));
  server.registerTool('raw_text', { description: 'a text with raw lone surrogates' }, async () => ({
    content: [{ type: 'text' as const, text: rawText }],
  }));
  server.registerTool('raw_json_text', { description: 'a JSON text with a raw lone surrogate' }, async () => ({
    content: [{ type: 'text' as const, text: rawJsonText }],
  }));
  createResultHandles({ thresholdBytes: 4096, storage: { type: 'memory' } }).attach(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.sessionId = 'lone-surrogates-session';
  await server.connect(serverSide);
  client = new Client({ name: 'lone-surrogates', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => callTool(client, name, args);

async function handleOf(tool: string): Promise<string> {
  const handle = handleIn(await call(tool));
  expect(handle, `${tool} folds`).toBeTypeOf('string');
  return handle!;
}

async function read(args: Record<string, unknown>): Promise<unknown> {
  const answer = await call('result_query', args);
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return (answer.structuredContent as { value: unknown }).value;
}

/** What a client parsing JSON.stringify(original) reads. */
const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('lone surrogates come back exactly', () => {
  it('through a list window, an item, a field selection and a JSONPath query', async () => {
    const handle = await handleOf('structured');
    expect(await read({ handle, path: '$.items', offset: 0, limit: 6 })).toEqual(
      roundTrip(structured.items.slice(0, 6)),
    );
    expect(await read({ handle, path: 'items.3.note' })).toBe(`cut ${HIGH}`);
    expect(await read({ handle, path: '$.items', offset: 10, limit: 3, fields: ['note'] })).toEqual(
      structured.items.slice(10, 13).map(({ note }) => ({ note })),
    );
    expect(await read({ handle, path: '$.items[?@.id < 3].note' })).toEqual(
      structured.items.slice(0, 3).map(({ note }) => note),
    );
    expect(await read({ handle, path: 'items.0' })).toEqual(roundTrip(structured.items[0]));
  });

  it('a string window counts a lone surrogate as one UTF-16 unit', async () => {
    const handle = await handleOf('structured');
    expect(await read({ handle, path: 'items.1.note', offset: 0, limit: 2 })).toBe(`${LOW} `);
  });

  it('a text answer with raw lone surrogates folds and reads back exactly', async () => {
    const folded = await call('raw_text');
    expect(folded._meta?.[META_KEY], 'folds, as the README says').toBeDefined();
    const handle = (folded._meta![META_KEY] as { handle: string }).handle;
    expect(await read({ handle, path: '$', offset: 5998, limit: 12 })).toBe(rawText.slice(5998, 6010));
  });

  it('a JSON text with a raw lone surrogate folds as the value it holds', async () => {
    const handle = await handleOf('raw_json_text');
    expect(await read({ handle, path: 's' })).toBe(`a${HIGH}b`);
  });
});
