// End-to-end: a real MCP Client over Streamable HTTP against McpServer + the result-handles adapter.
import type { ChildProcess } from 'node:child_process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { seedOrders, spawnHostProcess, startHost, TOKENS } from './fixtures/mcp-host.mjs';
import { noSharedRedis } from './setup/redis';
import { skipReason } from './setup/skip';
import { testBindings } from './fixtures/test-bindings';

const native = testBindings;

type Result = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

const SEED_PREVIEW = '{"orders":[{"id":0,"status":"open"},{"id":1,"status":"shipped"}],"total":500}';
const SEED_SHAPE =
  '{"type":"object","keys":{"orders":{"type":"array","length":500,"items":{"type":"object","keys":{"id":{"type":"number"},"status":{"type":"string","length":4}}}},"total":{"type":"number"}}}';
const META_KEY = 'frontmcp/result-handle';
const OPTIONS = { thresholdBytes: 4096, preview: { items: 2 }, storage: { type: 'memory' } };

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  await client.listTools(); // as clients do: caches output schemas and validates against them
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;

function handleOf(result: Result): string {
  const meta = result._meta?.[META_KEY] as { handle: string } | undefined;
  if (!meta) throw new Error(`not folded: ${JSON.stringify(result).slice(0, 200)}`);
  return meta.handle;
}

function expectFolded(result: Result) {
  expect(result.isError).toBeFalsy();
  const handle = handleOf(result);
  expect(Object.keys(result.structuredContent ?? {})).toEqual(['preview', 'shape', 'handle']);
  expect(result.structuredContent?.handle).toBe(handle);
  expect(result.content).toHaveLength(2);
  expect(JSON.parse(result.content[0].text!)).toEqual(result.structuredContent);
  expect(result.content[1].text).toContain('result_query');
  expect(result.content[1].text).toContain(handle);
  return handle;
}

function expectWhole(result: Result) {
  expect(result._meta?.[META_KEY]).toBeUndefined();
  expect(result.structuredContent?.handle).toBeUndefined();
}

function codeOf(result: Result): string | undefined {
  expect(result.isError).toBe(true);
  return result._meta?.code as string | undefined;
}

describe('MCP SDK adapter over Streamable HTTP (stateful sessions)', () => {
  let host: Awaited<ReturnType<typeof startHost>>;
  let client: Client;

  beforeAll(async () => {
    host = await startHost({ options: OPTIONS });
    client = await connect(host.url);
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it('folds the seed example byte-exact through the wire', async () => {
    const result = await call(client, 'orders');
    const handle = expectFolded(result);
    expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.content[0].text).toBe(`{"preview":${SEED_PREVIEW},"shape":${SEED_SHAPE},"handle":"${handle}"}`);
    const bytes = Buffer.byteLength(JSON.stringify(seedOrders()));
    expect(result._meta?.[META_KEY]).toEqual({ handle, bytes, ttlSeconds: 600 });
    expect(result.content[1].text).toContain('"path":"$.orders"');
  });

  it('reads every page to the end, and a field projection', async () => {
    const handle = handleOf(await call(client, 'orders'));
    const items: unknown[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const page = await call(client, 'result_query', { handle, path: '$.orders', offset, limit: 64 });
      expect(page.isError).toBeFalsy();
      const answer = page.structuredContent as { value: unknown[]; total: number; nextOffset?: number; path: string };
      expect(answer.total).toBe(500);
      expect(JSON.parse(page.content[0].text!)).toEqual(answer);
      items.push(...answer.value);
      offset = answer.nextOffset;
      pages += 1;
    }
    expect(pages).toBe(8);
    expect(items).toEqual(seedOrders().orders);
    const fields = await call(client, 'result_query', { handle, path: 'orders', page: 2, limit: 3, fields: ['id'] });
    expect(fields.structuredContent).toMatchObject({ value: [{ id: 3 }, { id: 4 }, { id: 5 }], offset: 3 });
    const total = await call(client, 'result_query', { handle, path: '/total' });
    expect(total.structuredContent).toMatchObject({ value: 500 });
  });

  it('answers the four error codes through the wire', async () => {
    const handle = handleOf(await call(client, 'orders'));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ handle: '00000000-0000-4000-8000-000000000000' }, 'RESULT_HANDLE_NOT_FOUND'],
      [{ handle, path: '$.nope' }, 'RESULT_PATH_NOT_FOUND'],
      [{ handle, path: '$.orders', limit: 100000 }, 'RESULT_SLICE_TOO_LARGE'],
      [{ handle, path: '$.orders', page: 2, offset: 3 }, 'INVALID_INPUT'],
      [{ handle, limit: 'ten' }, 'INVALID_INPUT'],
      [{ handle, fields: [] }, 'INVALID_INPUT'],
    ];
    // The remedy each error carries, as the engine gives it for the same arguments (no store involved).
    const seedJson = JSON.stringify(seedOrders());
    const remedyOf = (fn: () => unknown): string => {
      try {
        fn();
      } catch (error) {
        const remedy = (error as { remedy?: unknown }).remedy;
        if (typeof remedy === 'string' && remedy.length > 0) return remedy;
      }
      throw new Error('expected a coded error with a remedy');
    };
    const gist: Record<string, RegExp> = {
      RESULT_HANDLE_NOT_FOUND: /call the original tool again/i,
      RESULT_PATH_NOT_FOUND: /present in the shape/i,
      RESULT_SLICE_TOO_LARGE: /\d+ items/,
      INVALID_INPUT: /offset|page|limit|fields/,
    };
    for (const [args, code] of cases) {
      const result = await call(client, 'result_query', args);
      expect(codeOf(result), JSON.stringify(args)).toBe(code);
      const text = result.content[0].text!;
      expect(text).toMatch(new RegExp(`^${code}: `));
      const remedy =
        code === 'RESULT_HANDLE_NOT_FOUND'
          ? remedyOf(() => native.throwHandleNotFound())
          : remedyOf(() => native.queryAnswerSync(seedJson, JSON.stringify(args), OPTIONS.thresholdBytes));
      expect(text, code).toContain(remedy);
      expect(remedy, code).toMatch(gist[code]);
    }
  });

  it('folds every candidate form', async () => {
    for (const name of ['orders_text', 'orders_pretty', 'orders_only_structured', 'long_text', 'with_meta']) {
      expectFolded(await call(client, name));
    }
    const text = await call(client, 'long_text');
    const shape = (text.structuredContent as { shape: { type: string; length: number } }).shape;
    expect(shape).toMatchObject({ type: 'string', length: 'lorem ipsum '.length * 4000 });
    const meta = await call(client, 'with_meta');
    expect(meta._meta?.trace).toBe('abc');
    const jsonText = await call(client, 'orders_text');
    const page = await call(client, 'result_query', { handle: handleOf(jsonText), path: '$.orders[1].status' });
    expect(page.structuredContent).toMatchObject({ value: 'shipped' });
  });

  it('passes untouched what must not fold', async () => {
    const data = seedOrders();
    for (const name of ['with_image', 'with_resource', 'two_texts', 'says_else', 'widget', 'widget_answer']) {
      const result = await call(client, name);
      expectWhole(result);
    }
    expect((await call(client, 'says_else')).structuredContent).toEqual(data);
    expect(await call(client, 'small')).toEqual({
      content: [{ type: 'text', text: '{"ok":true}' }],
      structuredContent: { ok: true },
    });
    const failed = await call(client, 'fails');
    expect(failed.isError).toBe(true);
    expectWhole(failed);
    const preFolded = await call(client, 'pre_folded');
    expect(preFolded._meta?.[META_KEY]).toEqual({ handle: 'elsewhere', bytes: 1, ttlSeconds: 1 });
    expect(preFolded.structuredContent).toEqual(data);
    expectWhole(await call(client, 'skipped_by_policy'));
  });

  it('leaves a nested call whole and folds the outer answer only', async () => {
    const outer = await call(client, 'outer');
    expect(outer.content[0].text).toBe('inner came back whole');
    expectFolded(await call(client, 'inner'));
  });

  it('honours output schemas: foldable() folds, a strict schema goes whole with one warning', async () => {
    const ok = await call(client, 'schema_foldable');
    expectFolded(ok);
    const first = await call(client, 'schema_strict');
    const second = await call(client, 'schema_strict');
    for (const result of [first, second]) {
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(seedOrders());
    }
    const warnings = host.warnings.filter((w) => w.includes('"schema_strict"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('foldable()');
    expect(warnings.join('\n')).not.toContain('shipped');
  });

  it('wraps tools registered with server.tool() too', async () => {
    expectFolded(await call(client, 'legacy_orders'));
  });

  it('keeps each session to its own handles', async () => {
    const other = await connect(host.url);
    try {
      const handle = handleOf(await call(client, 'orders'));
      expect(codeOf(await call(other, 'result_query', { handle }))).toBe('RESULT_HANDLE_NOT_FOUND');
      expect((await call(client, 'result_query', { handle, path: '$.total' })).structuredContent).toMatchObject({
        value: 500,
      });
    } finally {
      await other.close();
    }
  });
});

describe('MCP SDK adapter: handles that are gone', () => {
  it('answers RESULT_HANDLE_NOT_FOUND for an expired handle', async () => {
    const host = await startHost({ options: { ...OPTIONS, ttlSeconds: 1 } });
    const client = await connect(host.url);
    try {
      const handle = expectFolded(await call(client, 'orders'));
      expect((await call(client, 'result_query', { handle, path: 'total' })).structuredContent).toMatchObject({
        value: 500,
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const gone = await call(client, 'result_query', { handle, path: 'total' });
      expect(codeOf(gone)).toBe('RESULT_HANDLE_NOT_FOUND');
      expect(gone.content[0].text).toMatch(/call the original tool again/i);
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('answers RESULT_HANDLE_NOT_FOUND for a handle the memory store evicted', async () => {
    const host = await startHost({ options: { ...OPTIONS, storage: { type: 'memory', memory: { maxEntries: 1 } } } });
    const client = await connect(host.url);
    try {
      const first = expectFolded(await call(client, 'orders'));
      const second = expectFolded(await call(client, 'orders_text'));
      expect(codeOf(await call(client, 'result_query', { handle: first }))).toBe('RESULT_HANDLE_NOT_FOUND');
      expect((await call(client, 'result_query', { handle: second, path: 'total' })).structuredContent).toMatchObject({
        value: 500,
      });
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('calls foldPolicy(toolName, answer, { bytes, fullName, request }) and honours false and async answers', async () => {
    const calls: Array<{
      toolName: string;
      answer: unknown;
      context: { bytes: number; fullName: string; request: any };
    }> = [];
    const foldPolicy = async (toolName: string, answer: unknown, context: any) => {
      calls.push({ toolName, answer, context });
      await new Promise((resolve) => setTimeout(resolve, 1));
      return toolName !== 'skipped_by_policy';
    };
    const host = await startHost({ options: { ...OPTIONS, foldPolicy } });
    const client = await connect(host.url);
    try {
      const data = seedOrders();
      const expected: Record<string, unknown> = {
        orders: data,
        orders_text: data,
        long_text: 'lorem ipsum '.repeat(4000),
        skipped_by_policy: data,
      };
      for (const name of Object.keys(expected)) {
        const result = await call(client, name, {});
        const recorded = calls.at(-1)!;
        expect(recorded.toolName).toBe(name);
        expect(recorded.answer).toEqual(expected[name]);
        expect(recorded.context.bytes).toBe(Buffer.byteLength(JSON.stringify(recorded.answer)));
        expect(recorded.context.fullName).toBe(name);
        expect(recorded.context.request).toMatchObject({ method: 'tools/call', params: { name } });
        if (name === 'skipped_by_policy') {
          expectWhole(result);
          expect(result.structuredContent).toEqual(data);
        } else {
          expectFolded(result);
        }
      }
      expect(calls.map((c) => c.toolName)).toEqual(Object.keys(expected));
      expect(typeof calls[2].answer).toBe('string');
    } finally {
      await client.close();
      await host.close();
    }
  });
});

describe('MCP SDK adapter, stateless', () => {
  let host: Awaited<ReturnType<typeof startHost>>;

  beforeAll(async () => {
    host = await startHost({ options: OPTIONS, mode: 'stateless', attachBeforeTools: true });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('sends a stateless anonymous call untouched', async () => {
    const anonymous = await connect(host.url);
    try {
      const result = await call(anonymous, 'orders');
      expectWhole(result);
      expect(result.structuredContent).toEqual(seedOrders());
    } finally {
      await anonymous.close();
    }
  });

  it('folds for an authenticated caller and keeps each subject to its own handles', async () => {
    const alice = await connect(host.url, TOKENS.alice.token);
    const alice2 = await connect(host.url, TOKENS.alice.token);
    const bob = await connect(host.url, TOKENS.bob.token);
    const robot = await connect(host.url, TOKENS.robot.token);
    try {
      const handle = expectFolded(await call(alice, 'orders'));
      expect(codeOf(await call(bob, 'result_query', { handle }))).toBe('RESULT_HANDLE_NOT_FOUND');
      expect(codeOf(await call(robot, 'result_query', { handle }))).toBe('RESULT_HANDLE_NOT_FOUND');
      // Stateless: the subject alone owns it, from any connection of the same caller.
      expect((await call(alice2, 'result_query', { handle, path: 'total' })).structuredContent).toMatchObject({
        value: 500,
      });
      // A caller known only by its OAuth client id folds too (subject client:<clientId>).
      const robotHandle = expectFolded(await call(robot, 'orders'));
      expect(codeOf(await call(alice, 'result_query', { handle: robotHandle }))).toBe('RESULT_HANDLE_NOT_FOUND');
    } finally {
      await Promise.all([alice.close(), alice2.close(), bob.close(), robot.close()]);
    }
  });
});

const redisSkip = skipReason('Redis-backed store across processes', noSharedRedis(inject('redisUrl')));

describe.skipIf(redisSkip)('Redis-backed store across processes', () => {
  const children: ChildProcess[] = [];

  async function spawnHost(redisUrl: string): Promise<string> {
    const options = {
      thresholdBytes: 4096,
      preview: { items: 2 },
      storage: { type: 'redis', redis: { url: redisUrl } },
    };
    const { url, child } = await spawnHostProcess(options);
    children.push(child);
    return url;
  }

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  });

  it('folds in one server process and reads through another sharing the Redis', async () => {
    const redisUrl = inject('redisUrl');
    const [first, second] = await Promise.all([spawnHost(redisUrl), spawnHost(redisUrl)]);
    const writer = await connect(first, TOKENS.alice.token);
    const reader = await connect(second, TOKENS.alice.token);
    const stranger = await connect(second, TOKENS.bob.token);
    try {
      const handle = expectFolded(await call(writer, 'orders'));
      const page = await call(reader, 'result_query', { handle, path: '$.orders', offset: 498 });
      expect(page.structuredContent).toEqual({
        path: "$['orders']",
        value: [
          { id: 498, status: 'open' },
          { id: 499, status: 'shipped' },
        ],
        total: 500,
        offset: 498,
      });
      expect(codeOf(await call(stranger, 'result_query', { handle }))).toBe('RESULT_HANDLE_NOT_FOUND');
    } finally {
      await Promise.all([writer.close(), reader.close(), stranger.close()]);
    }
  });
});
