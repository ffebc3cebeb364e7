// Every server backend against the real thing: the redis-server the global setup started, a SQLite file in a temp
// dir, and the Upstash / Vercel KV REST protocol through a local endpoint that forwards to that same Redis.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

import { createResultHandles } from '../mcp.mjs';
import { noSharedRedis, RespClient, startRestEndpoint, type RestEndpoint } from './setup/redis';
import { skipReason } from './setup/skip';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;
type NativeHandleStore = import('./bindings/binding').NativeHandleStore;

const redisUrl = inject('redisUrl');
// SQLite runs everywhere; the other backends are Redis, or REST endpoints in front of it.
const noRedis = skipReason('the Redis, Upstash and Vercel KV backends', noSharedRedis(redisUrl));
const redisPort = noRedis ? 0 : Number(new URL(redisUrl).port);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RespClient;
let upstash: RestEndpoint;
let vercel: RestEndpoint;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rh-store-'));
  if (noRedis) return;
  redis = await RespClient.connect(redisPort);
  upstash = await startRestEndpoint(redisPort, 'upstash-test-token');
  vercel = await startRestEndpoint(redisPort, 'vercel-test-token');
});

afterAll(async () => {
  redis?.close();
  await upstash?.close();
  await vercel?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Backend {
  name: string;
  config: () => object;
  /** The raw keys and values the backend holds for a namespace (values as stored). */
  raw: (namespace: string) => Promise<Array<{ key: string; value: Buffer }>>;
}

async function redisRaw(namespace: string) {
  const keys = (await redis.command('KEYS', `${namespace}:*`)) as Buffer[];
  const out: Array<{ key: string; value: Buffer }> = [];
  for (const key of keys) out.push({ key: key.toString(), value: (await redis.command('GET', key)) as Buffer });
  return out;
}

const sqlitePath = () => join(dir, 'handles.db');

const allBackends: Backend[] = [
  { name: 'redis', config: () => ({ type: 'redis', redis: { url: redisUrl } }), raw: redisRaw },
  {
    name: 'redis (config)',
    config: () => ({ type: 'redis', redis: { config: { host: '127.0.0.1', port: redisPort, db: 0 } } }),
    raw: redisRaw,
  },
  {
    name: 'sqlite',
    config: () => ({ type: 'sqlite', sqlite: { path: sqlitePath() } }),
    // The whole database: main file, WAL and shared memory.
    raw: async () => readdirSync(dir).map((file) => ({ key: file, value: readFileSync(join(dir, file)) })),
  },
  {
    name: 'upstash',
    config: () => ({ type: 'upstash', upstash: { url: upstash.url, token: upstash.token } }),
    raw: redisRaw,
  },
  {
    name: 'vercel-kv',
    config: () => ({ type: 'vercel-kv', vercelKv: { url: vercel.url, token: vercel.token } }),
    raw: redisRaw,
  },
];

const backends = allBackends.filter((backend) => !noRedis || backend.name === 'sqlite');

function bigAnswer(marker: string): Buffer {
  const rows = Array.from({ length: 6000 }, (_, i) => ({
    id: i,
    note: `${marker}-${i}`,
    status: i % 2 ? 'shipped' : 'open',
  }));
  return Buffer.from(JSON.stringify({ rows }));
}

describe.each(backends)('$name backend', (backend) => {
  let store: NativeHandleStore;
  const namespace = `ns-${native.newHandle()}`;

  beforeAll(async () => {
    store = await native.NativeHandleStore.open(JSON.stringify(backend.config()), namespace, 60);
  });
  afterAll(async () => {
    await store.close();
  });

  it('opens the backend it was asked for', () => {
    expect(store.backend).toBe(backend.name.split(' ')[0]);
  });

  it('saves and reads for the owner; other owners and unknown handles read null', async () => {
    const handle = store.newHandle();
    const answer = bigAnswer('row-marker');
    await store.save(handle, answer, 'session-a', 'subject-a');
    expect((await store.read(handle, 'session-a', 'subject-a'))?.equals(answer)).toBe(true);
    expect(await store.read(handle, 'session-b', 'subject-a')).toBeNull();
    expect(await store.read(handle, 'session-a')).toBeNull();
    expect(await store.read(handle, undefined, 'subject-a')).toBeNull();
    expect(await store.read(store.newHandle(), 'session-a', 'subject-a')).toBeNull();
    // A string value is kept as its UTF-8 bytes.
    const text = store.newHandle();
    await store.save(text, '{"ünïcode":"✓"}', 'session-a');
    expect((await store.read(text, 'session-a'))?.toString('utf8')).toBe('{"ünïcode":"✓"}');
  });

  it('reads byte ranges without the whole record', async () => {
    const handle = store.newHandle();
    const answer = bigAnswer('range');
    expect(answer.length).toBeGreaterThan(3 * 65_536);
    await store.save(handle, answer, 's');
    for (const [start, end] of [
      [0, 10],
      [65_530, 65_560],
      [150_000, 150_001],
      [answer.length - 5, answer.length + 100],
      [answer.length + 10, answer.length + 100],
      [70_000, 70_000],
    ]) {
      const slice = await store.readRange(handle, start, end, 's');
      expect(slice?.equals(answer.subarray(start, end)), `${start}..${end}`).toBe(true);
    }
    expect(await store.readRange(handle, 0, 10, 'other')).toBeNull();
  });

  it('holds no handle, session, subject or plaintext: only namespace:hex keys and sealed bytes', async () => {
    const handle = store.newHandle();
    await store.save(handle, bigAnswer('secret-plaintext-marker'), 'raw-session-4f2a', 'raw-subject-8c1d');
    const raw = await backend.raw(namespace);
    expect(raw.length).toBeGreaterThan(0);
    const needles = [handle, 'raw-session-4f2a', 'raw-subject-8c1d', 'secret-plaintext-marker', 'shipped'];
    for (const { key, value } of raw) {
      if (backend.name !== 'sqlite') expect(key).toMatch(new RegExp(`^${namespace}:[0-9a-f]{64}$`));
      // REST backends keep base64 text: check the decoded bytes too.
      const forms =
        backend.name === 'upstash' || backend.name === 'vercel-kv'
          ? [value, Buffer.from(value.toString(), 'base64')]
          : [value];
      for (const form of forms) {
        for (const needle of needles) {
          expect(form.includes(needle), `${needle} found in ${backend.name}`).toBe(false);
          expect(key.includes(needle)).toBe(false);
        }
      }
    }
    expect(
      raw.some(({ key }) =>
        key.endsWith(store.storageKey(handle, 'raw-session-4f2a', 'raw-subject-8c1d').slice(namespace.length + 1)),
      ),
    ).toBe(backend.name !== 'sqlite');
  });

  it('answers a query on part of a large answer from that part, page after page, as the whole answer reads', async () => {
    const events = Array.from({ length: 6000 }, (_, i) => ({ at: i, kind: i % 3 ? 'view' : 'click' }));
    const orders = Array.from({ length: 3000 }, (_, i) => ({ id: i, open: i % 4 === 0, amount: (i * 37) % 1000 }));
    const answer = { events, orders };
    const server = new McpServer({ name: 'part', version: '1.0.0' });
    server.registerTool('log_and_orders', { description: 'events beside orders' }, async () => ({
      content: [{ type: 'text', text: JSON.stringify(answer) }],
      structuredContent: answer,
    }));
    // A file of its own: the store above owns its SQLite file (WAL mode).
    const storage =
      backend.name === 'sqlite' ? { type: 'sqlite', sqlite: { path: join(dir, 'part.db') } } : backend.config();
    const handles = createResultHandles({ thresholdBytes: 4096, storage: storage as never });
    handles.attach(server, { connectionSession: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'part', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const folded = await client.callTool({ name: 'log_and_orders', arguments: {} });
      const handle = (folded.structuredContent as { handle: string }).handle;
      const read = async (path: string, offset?: number) => {
        const page = await client.callTool({ name: 'result_query', arguments: { handle, path, offset, limit: 50 } });
        expect(page.isError, JSON.stringify(page.content)).toBeFalsy();
        return page.structuredContent as { value: unknown[]; total: number; nextOffset?: number };
      };
      // The orders are about a third of the answer: the query reads them alone (the engine's tests count the bytes).
      const seen: unknown[] = [];
      let offset: number | undefined;
      do {
        const page = await read('$.orders[?@.open == true && @.amount > 500]', offset);
        seen.push(...page.value);
        offset = page.nextOffset;
      } while (offset !== undefined);
      expect(seen).toEqual(orders.filter((order) => order.open && order.amount > 500));
      expect((await read('$.orders[-3:].id')).value).toEqual([2997, 2998, 2999]);
      expect((await read('$.events[?@.at == 5999]')).value).toEqual([events[5999]]);
    } finally {
      await client.close();
      await handles.close();
    }
  });

  it('reads a record tampered with in the store as null', async () => {
    if (backend.name === 'sqlite') return; // the SQLite file is checked in cargo tests (tamper) and above (raw bytes)
    const handle = store.newHandle();
    await store.save(handle, bigAnswer('tamper'), 's');
    const key = store.storageKey(handle, 's');
    const original = (await redis.command('GET', key)) as Buffer;
    const bytes =
      backend.name === 'redis' || backend.name === 'redis (config)'
        ? Buffer.from(original)
        : Buffer.from(original.toString(), 'base64');
    bytes[100] ^= 1;
    await redis.command('SET', key, backend.name.startsWith('redis') ? bytes : bytes.toString('base64'), 'EX', 60);
    expect(await store.read(handle, 's')).toBeNull();
    expect(await store.readRange(handle, 0, 50, 's')).toBeNull();
    await redis.command('SET', key, original, 'EX', 60);
    expect(await store.read(handle, 's')).not.toBeNull();
  });
});

describe('SQLite file path', () => {
  it('is used as given: spaces and characters beyond ASCII (on Windows, a drive and backslashes too)', async () => {
    const path = join(dir, 'dossier été 😀', 'handles.db');
    mkdirSync(dirname(path), { recursive: true });
    const store = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'sqlite', sqlite: { path } }),
      'paths',
      60,
    );
    const handle = store.newHandle();
    await store.save(handle, '{"kept":true}', 's');
    expect((await store.read(handle, 's'))?.toString()).toBe('{"kept":true}');
    await store.close();
    expect(existsSync(path)).toBe(true);
    expect(readdirSync(dirname(path))).toContain('handles.db');
  });
});

describe('TTL', () => {
  it('expires on every backend', async () => {
    const namespace = `ttl-${native.newHandle()}`;
    const stores = await Promise.all(
      backends.map((b) => native.NativeHandleStore.open(JSON.stringify(b.config()), namespace, 1)),
    );
    const handles = stores.map((s) => s.newHandle());
    await Promise.all(stores.map((s, i) => s.save(handles[i], `{"n":${i}}`, 's')));
    for (const [i, s] of stores.entries()) expect((await s.read(handles[i], 's'))?.toString()).toBe(`{"n":${i}}`);
    if (!noRedis) {
      // Redis holds the TTL set with the value (SET … EX): between 0 and 1 second left.
      const ttl = await redis.command('PTTL', stores[0].storageKey(handles[0], 's'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1000);
    }
    await sleep(1300);
    for (const [i, s] of stores.entries()) expect(await s.read(handles[i], 's'), backends[i].name).toBeNull();
    if (!noRedis) expect(await redis.command('KEYS', `${namespace}:*`)).toEqual([]);
    await Promise.all(stores.map((s) => s.close()));
  });
});

describe.skipIf(noRedis)('REST protocol details', () => {
  it('uses GETRANGE for range reads (header and range in one pipelined request) and SET … EX for writes', async () => {
    const store = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'upstash', upstash: { url: upstash.url, token: upstash.token } }),
      'rest-details',
      60,
    );
    upstash.commands.length = 0;
    upstash.requests = 0;
    const handle = store.newHandle();
    const answer = bigAnswer('x');
    await store.save(handle, answer, 's');
    const slice = await store.readRange(handle, 70_000, 70_010, 's');
    expect(slice?.equals(answer.subarray(70_000, 70_010))).toBe(true);
    expect(upstash.commands).toEqual(['SET', 'GETRANGE', 'GETRANGE']);
    expect(upstash.requests).toBe(2);
    await store.close();
  });

  it('refuses a wrong token at open with a configuration error that does not echo it', async () => {
    const error = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'upstash', upstash: { url: upstash.url, token: 'wrong-token-value' } }),
      'rh',
      60,
    ).catch((e: unknown) => e as Error & { code: string });
    expect(error).toMatchObject({ code: 'RESULT_HANDLES_CONFIGURATION' });
    expect(error.message).not.toContain('wrong-token-value');
  });

  it('reports an unreachable endpoint as RESULT_STORE_UNAVAILABLE', async () => {
    const error = await native.NativeHandleStore.open(
      JSON.stringify({ type: 'vercel-kv', vercelKv: { url: 'http://127.0.0.1:1', token: 't' } }),
      'rh',
      60,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_STORE_UNAVAILABLE' });
  });
});

describe.skipIf(noRedis)('auto', () => {
  const vars = [
    'UPSTASH_REDIS_REST_URL',
    'UPSTASH_REDIS_REST_TOKEN',
    'KV_REST_API_URL',
    'KV_REST_API_TOKEN',
    'REDIS_URL',
    'REDIS_HOST',
  ];

  it('picks Upstash env, then Vercel KV env, then REDIS_URL, then memory', async () => {
    const saved = Object.fromEntries(vars.map((v) => [v, process.env[v]]));
    const kind = async () => {
      const store = await native.NativeHandleStore.open('{}', 'auto', 60);
      const picked = store.backend;
      const handle = store.newHandle();
      await store.save(handle, '1', 's');
      expect((await store.read(handle, 's'))?.toString()).toBe('1');
      await store.close();
      return picked;
    };
    try {
      for (const v of vars) delete process.env[v];
      process.env.UPSTASH_REDIS_REST_URL = upstash.url;
      process.env.UPSTASH_REDIS_REST_TOKEN = upstash.token;
      process.env.KV_REST_API_URL = vercel.url;
      process.env.KV_REST_API_TOKEN = vercel.token;
      process.env.REDIS_URL = redisUrl;
      expect(await kind()).toBe('upstash');
      delete process.env.UPSTASH_REDIS_REST_TOKEN;
      expect(await kind()).toBe('vercel-kv');
      delete process.env.KV_REST_API_URL;
      expect(await kind()).toBe('redis');
      delete process.env.REDIS_URL;
      process.env.REDIS_HOST = redisUrl;
      expect(await kind()).toBe('redis');
      delete process.env.REDIS_HOST;
      expect(await kind()).toBe('memory');
    } finally {
      for (const v of vars) {
        if (saved[v] === undefined) delete process.env[v];
        else process.env[v] = saved[v];
      }
    }
  });
});
