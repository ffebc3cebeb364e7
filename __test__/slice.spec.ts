// Reads through the path index: the engine keeps an index beside a large answer (docs/record-format.md, "Path
// index"), and result_query answers a list window from the index and one byte range. Those answers must equal the
// full read's byte for byte; the index record must open with node:crypto under its own labels; a missing or damaged
// index must change nothing but speed; another owner must find nothing.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// @ts-expect-error plain ESM helper without types
import { INDEX_LABELS, deriveKeys, jsOpen } from '../benchmark/js-record.mjs';
import { noRedisServer, noSharedRedis, RespClient, startRedis } from './setup/redis';
import { skipReason } from './setup/skip';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;
const { optionsInputJson } =
  require('../dist/result-handles.options.js') as typeof import('../lib/result-handles.options');
/** The plugin's options checked by the test addon, whose engine takes them. */
const settingsOf = (options: unknown) =>
  native.checkOptions(optionsInputJson(options)) as import('./bindings/binding').NativeSettings;

const redisUrl = inject('redisUrl');
const THRESHOLD = 16_384;
const ME = { session: 'slice-session', subject: 'slice-user' };

const skip = skipReason('the path index over Redis', noSharedRedis(redisUrl));
const skipOwn = skip ?? skipReason('the path index across the network', noRedisServer);

let redis: RespClient;
beforeAll(async () => {
  if (!skip) redis = await RespClient.connect(Number(new URL(redisUrl).port));
});
afterAll(() => redis?.close());

/** The keys of a handle's path index record (docs/record-format.md, "Path index record"). */
const indexKeys = (handle: string, session?: string, subject?: string) =>
  deriveKeys(handle, session, subject, undefined, INDEX_LABELS);

// ─── an engine over Redis ───────────────────────────────────────────────────

function ordersAnswer(count: number) {
  return {
    meta: { source: 'slice', tags: ['a', 'b'] },
    log: Array.from({ length: 20_000 }, (_, i) => (i % 9 === 0 ? `😀é\n"${i}` : `line ${i};`)).join(''),
    data: {
      orders: Array.from({ length: count }, (_, i) => ({
        id: i,
        note: i % 7 === 0 ? `ünïcode 😀 ${i}` : `order ${i}`,
        price: i / 4,
        lines: [{ sku: `S${i}`, qty: i % 5 }],
      })),
    },
  };
}

async function openEngine(namespace: string) {
  const store = await native.NativeHandleStore.open(
    JSON.stringify({ type: 'redis', redis: { url: redisUrl } }),
    namespace,
    600,
  );
  const options = { thresholdBytes: THRESHOLD, ttlSeconds: 600, preview: { items: 3, chars: 200 } };
  const engine = native.ResultHandlesEngine.create(settingsOf(options), store);
  return { store, engine };
}

async function outcome(run: () => Promise<string> | string) {
  try {
    return { ok: await run() };
  } catch (error) {
    const { code, message, remedy } = error as { code: string; message: string; remedy: string };
    return { code, message, remedy };
  }
}

describe.skipIf(skip)('result_query through the path index', () => {
  const answer = ordersAnswer(12_000);
  const json = JSON.stringify(answer);
  let engine: import('./bindings/binding').ResultHandlesEngine;
  let store: import('./bindings/binding').NativeHandleStore;
  let handle: string;
  let plainHandle: string;
  const namespace = `slice-${randomUUID()}`;

  beforeAll(async () => {
    ({ engine, store } = await openEngine(namespace));
    const plan = await engine.prepare(
      JSON.stringify({ content: [{ type: 'text', text: json }], structuredContent: answer }),
    );
    expect(plan.kind).toBe('fold');
    await engine.commit(plan, ME.session, ME.subject);
    handle = (JSON.parse(plan.foldedJson!) as { handle: string }).handle;
    // The same answer kept without an index: the engine reads it whole.
    plainHandle = store.newHandle();
    await store.save(plainHandle, json, ME.session, ME.subject);
  });
  afterAll(() => engine.close());

  it('keeps a sealed index beside the answer, opened by node:crypto under its own labels', async () => {
    const keys = indexKeys(handle, ME.session, ME.subject);
    const raw = (await redis.command('GET', `${namespace}:${keys.storageKey.toString('hex')}`)) as Buffer;
    expect(Buffer.isBuffer(raw)).toBe(true);
    const index = jsOpen(raw, keys);
    // "RHIX", version 2, flags: certified JSON (docs/record-format.md)
    expect(index.subarray(0, 6)).toEqual(Buffer.from([0x52, 0x48, 0x49, 0x58, 2, 1]));
    expect(index.length).toBeLessThan(json.length / 100);
    expect(await redis.command('EXISTS', store.storageKey(plainHandle, ME.session, ME.subject))).toBe(1);
  });

  const cases: Array<Record<string, unknown>> = [
    { path: '$.data.orders' },
    { path: 'data.orders', offset: 11_980 },
    { path: '/data/orders', offset: 11_995, limit: 20 },
    { path: "$['data']['orders']", page: 300, limit: 40 },
    { path: '$.data.orders', offset: 5000, fields: ['id', 'note', 'nope'] },
    { path: '$.data.orders', offset: 12_000 },
    { path: '$.data.orders', offset: 99_999 },
    { path: '$.data.orders', offset: 100, limit: 1000 }, // over the threshold: the remedy counts what fits
    { path: '$.data.orders', offset: 100, limit: 1000, fields: ['id'] },
    { path: '$.data.orders[-1]' },
    { path: '$.data.orders[*].id', limit: 3 },
    { path: '$.meta.tags' },
    { path: '$.log' },
    { path: '/log', offset: 50_001, limit: 3 },
    { path: "$['log']", page: 40, limit: 999 },
    { path: '$.log', offset: 140_000 },
    { path: '$.log', offset: 20_000, limit: 20_000 }, // over the threshold: the remedy counts what fits
    { path: '$.data.missing' },
    { path: '$.data', offset: 1 },
    // Into one item: the range around it, then the rest of the path inside it.
    { path: '$.data.orders[7000].note' },
    { path: '/data/orders/11999/id' },
    { path: '$.data.orders[-2]', fields: ['id'] },
    { path: '$.data.orders[3].nope' },
    // A small member beside large ones: the parts of the object between them.
    { path: '$.meta.source' },
    { path: '/meta/tags/1' },
    { path: '$.meta.nope' },
    { path: '$.meta.tags[*]' },
    { path: "$.meta[?@ == 'slice']" },
    // A query on the list alone: the fragment the index records, not the whole answer.
    { path: '$.data.orders[?@.id > 11990].id', limit: 4 },
    { path: '$.data.orders[?@.id > 11990].id', offset: 4 },
  ];

  it.each(cases)('answers %j as the full read does', async (args) => {
    const argsJson = (h: string) => JSON.stringify({ handle: h, ...args });
    const indexed = await outcome(() => engine.query(argsJson(handle), ME.session, ME.subject));
    const full = await outcome(() => engine.query(argsJson(plainHandle), ME.session, ME.subject));
    const direct = await outcome(() => native.queryAnswerSync(json, argsJson('h'), THRESHOLD));
    expect(indexed).toEqual(full);
    expect(indexed).toEqual(direct);
  });

  it('another owner finds nothing, exactly as before', async () => {
    const args = JSON.stringify({ handle, path: '$.data.orders', offset: 11_980 });
    const foreign = await outcome(() => engine.query(args, ME.session, 'someone-else'));
    const unknown = await outcome(() => engine.query(JSON.stringify({ handle: randomUUID() }), ME.session, ME.subject));
    expect(foreign.code).toBe('RESULT_HANDLE_NOT_FOUND');
    expect(foreign).toEqual(unknown);
  });

  it('a damaged or missing index changes nothing but speed', async () => {
    const args = JSON.stringify({ handle, path: '$.data.orders', offset: 7_000, limit: 15, fields: ['id'] });
    const before = await engine.query(args, ME.session, ME.subject);
    const key = `${namespace}:${indexKeys(handle, ME.session, ME.subject).storageKey.toString('hex')}`;
    const raw = (await redis.command('GET', key)) as Buffer;
    const damaged = Buffer.from(raw);
    damaged[damaged.length - 1] ^= 1;
    expect(await redis.command('SET', key, damaged)).toBe('OK');
    // The engine that folded the answer keeps its sealed index; another server process reads the damaged one.
    const elsewhere = await openEngine(namespace);
    try {
      expect(await engine.query(args, ME.session, ME.subject)).toBe(before);
      expect(await elsewhere.engine.query(args, ME.session, ME.subject)).toBe(before);
      expect(await redis.command('DEL', key)).toBe(1);
      expect(await elsewhere.engine.query(args, ME.session, ME.subject)).toBe(before);
    } finally {
      await elsewhere.engine.close();
    }
  });
});

describe.skipIf(skipOwn)('the path index kept beside a store across the network', () => {
  /** `GET`s the server has answered so far (INFO commandstats). */
  async function gets(client: RespClient): Promise<number> {
    const info = String(await client.command('INFO', 'commandstats'));
    return Number(/cmdstat_get:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }

  it('reads a window in one round trip where the index is kept: no GET of the index, nor of the answer', async () => {
    // A Redis of this test's own, so that no other suite's commands are counted.
    const server = await startRedis();
    const counter = await RespClient.connect(server.port);
    const namespace = `near-${randomUUID()}`;
    const open = async () => {
      const store = await native.NativeHandleStore.open(
        JSON.stringify({ type: 'redis', redis: { url: server.url } }),
        namespace,
        600,
      );
      const options = { thresholdBytes: THRESHOLD, ttlSeconds: 600, preview: { items: 3, chars: 200 } };
      return native.ResultHandlesEngine.create(settingsOf(options), store);
    };
    const folder = await open();
    const another = await open();
    try {
      const answer = ordersAnswer(12_000);
      const json = JSON.stringify(answer);
      const plan = await folder.prepare(
        JSON.stringify({ content: [{ type: 'text', text: json }], structuredContent: answer }),
      );
      await folder.commit(plan, ME.session, ME.subject);
      const { handle } = JSON.parse(plan.foldedJson!) as { handle: string };
      const args = JSON.stringify({ handle, path: '$.data.orders', offset: 11_980 });
      const expected = JSON.stringify({
        path: "$['data']['orders']",
        value: answer.data.orders.slice(11_980),
        total: 12_000,
        offset: 11_980,
      });
      const readWith = async (engine: import('../binding').ResultHandlesEngine) => {
        const before = await gets(counter);
        expect(await engine.query(args, ME.session, ME.subject)).toBe(expected);
        return (await gets(counter)) - before;
      };
      expect(await readWith(folder)).toBe(0);
      // Another server process on the same Redis reads the index once, then keeps it.
      expect(await readWith(another)).toBe(1);
      expect(await readWith(another)).toBe(0);
    } finally {
      await Promise.all([folder.close(), another.close()]);
      counter.close();
      await server.stop();
    }
  });
});
