// The store on a real Redis Cluster (3 masters, 3 replicas, redis-server processes on loopback ports): folds and
// queries spread over the masters, range reads through the path index, two server processes sharing the cluster,
// and a master killed mid-run.
import type { ChildProcess } from 'node:child_process';

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callTool, connectHttp, handleOf, type ToolResult } from './fixtures/mcp-client';
import { seedOrders, spawnHostProcess, startHost, TOKENS } from './fixtures/mcp-host.mjs';
import { startRedisCluster } from './setup/redis-cluster.mjs';
import { noRedisServer } from './setup/redis';
import { skipReason } from './setup/skip';
import { testBindings } from './fixtures/test-bindings';

const NAMESPACE = 'cluster-suite';
/** The store's own deadline (OPERATION_TIMEOUT, 10 s) plus slack. */
const BOUND_MS = 12_000;
/** 6000 orders (≈ 190 KB): large enough for a path index, so paging reads a byte range (GETRANGE). */
const BIG = { orders: Array.from({ length: 6000 }, (_, i) => ({ id: i, note: `order ${i}` })) };

let cluster: Awaited<ReturnType<typeof startRedisCluster>>;

const skip = skipReason('Redis Cluster store', noRedisServer);

beforeAll(async () => {
  if (!skip) cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

function options() {
  return {
    thresholdBytes: 4096,
    namespace: NAMESPACE,
    storage: { type: 'redis', redis: { cluster: { nodes: cluster.urls.slice(0, 2) } } },
  };
}

function bigTool(server: McpServer): void {
  server.registerTool('big_orders', { description: '6000 orders' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(BIG) }],
    structuredContent: BIG,
  }));
}

const connect = (url: string, token = TOKENS.alice.token) => connectHttp(url, token);
const call = callTool;

async function keysByMaster(): Promise<Map<number, string[]>> {
  const byMaster = new Map<number, string[]>();
  for (const port of await cluster.masters()) {
    const keys = await cluster.ask(port, 'KEYS', `${NAMESPACE}:*`);
    byMaster.set(port, keys === '' ? [] : keys.split('\n'));
  }
  return byMaster;
}

async function getrangeCalls(): Promise<number> {
  let calls = 0;
  for (const port of await cluster.masters()) {
    const stats = await cluster.ask(port, 'INFO', 'commandstats');
    calls += Number(/cmdstat_getrange:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }
  return calls;
}

describe.skipIf(skip)('Redis Cluster store', () => {
  it('folds and queries across masters, reads ranges, and keeps identifiers out of key names', async () => {
    const host = await startHost({ options: options(), extraTools: bigTool });
    const client = await connect(host.url);
    try {
      const handles: string[] = [];
      for (let i = 0; i < 12; i += 1) handles.push(handleOf(await call(client, 'orders')) as string);
      expect(handles.every((h) => typeof h === 'string')).toBe(true);
      for (const handle of handles) {
        const page = await call(client, 'result_query', { handle, path: '$.orders[-1]' });
        expect(page.structuredContent).toEqual({ path: "$['orders'][499]", value: seedOrders().orders[499] });
      }
      const byMaster = await keysByMaster();
      const holding = [...byMaster.values()].filter((keys) => keys.length > 0);
      expect(holding.length).toBeGreaterThanOrEqual(2); // 12 keys over 3 masters: all on one has odds 3^-11
      const allKeys = [...byMaster.values()].flat();
      expect(allKeys.length).toBe(12);
      for (const key of allKeys) {
        expect(key).toMatch(new RegExp(`^${NAMESPACE}:[0-9a-f]{64}$`));
        for (const handle of handles) expect(key).not.toContain(handle.replace(/-/g, '').slice(0, 12));
      }

      // A window of a large list: the index and one byte range of the record, wherever their slots are.
      const big = handleOf(await call(client, 'big_orders')) as string;
      const before = await getrangeCalls();
      const window = await call(client, 'result_query', { handle: big, path: 'orders', offset: 5998 });
      expect(window.structuredContent).toMatchObject({ value: BIG.orders.slice(5998), total: 6000, offset: 5998 });
      expect(await getrangeCalls()).toBeGreaterThan(before);
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('a record, its path index and its member directory still read after their slots migrate to other masters', async () => {
    const host = await startHost({ options: options(), extraTools: bigTool });
    const client = await connect(host.url);
    try {
      const before = new Set([...(await keysByMaster()).values()].flat());
      const big = handleOf(await call(client, 'big_orders')) as string;
      const added = [...(await keysByMaster()).values()].flat().filter((key) => !before.has(key));
      expect(added.length).toBe(3); // the record, its path index and the orders' member directory
      for (const key of added) {
        const { port } = await cluster.ownerOf(key);
        const target = (await cluster.masters()).find((master) => master !== port) as number;
        await cluster.migrateSlotOf(key, target);
        expect((await cluster.ownerOf(key)).port).toBe(target);
      }
      // The client's slot map is stale now: MOVED redirects lead it to the new masters.
      const window = await call(client, 'result_query', { handle: big, path: 'orders', offset: 3000, limit: 2 });
      expect(window.structuredContent).toMatchObject({ value: BIG.orders.slice(3000, 3002), total: 6000 });
      const one = await call(client, 'result_query', { handle: big, path: '$.orders[5999].note' });
      expect(one.structuredContent).toMatchObject({ path: "$['orders'][5999]['note']", value: 'order 5999' });
      const filtered = await call(client, 'result_query', { handle: big, path: "$.orders[?@.note == 'order 5999']" });
      expect(filtered.structuredContent).toMatchObject({ value: [BIG.orders[5999]], total: 1 });
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('REDIS_CLUSTER_NODES picks the cluster under storage type auto', async () => {
    const native = testBindings;
    const saved = process.env.REDIS_CLUSTER_NODES;
    process.env.REDIS_CLUSTER_NODES = cluster.urls.slice(1, 3).join(',');
    try {
      const store = await native.NativeHandleStore.open('{"type":"auto"}', NAMESPACE, 60);
      expect(store.backend).toBe('redis');
      const handle = native.newHandle();
      await store.save(handle, Buffer.from('{"kept":true}'), 'env-session');
      expect((await store.read(handle, 'env-session'))?.toString()).toBe('{"kept":true}');
      await store.close();
    } finally {
      if (saved === undefined) delete process.env.REDIS_CLUSTER_NODES;
      else process.env.REDIS_CLUSTER_NODES = saved;
    }
  });

  it('two server processes share the cluster: a handle reads on the other, for the same caller only', async () => {
    const children: ChildProcess[] = [];
    const spawnHost = async () => {
      const { url, child } = await spawnHostProcess(options());
      children.push(child);
      return url;
    };
    try {
      const [first, second] = await Promise.all([spawnHost(), spawnHost()]);
      const writer = await connect(first);
      const reader = await connect(second);
      const stranger = await connect(second, TOKENS.bob.token);
      const handle = handleOf(await call(writer, 'orders')) as string;
      expect(handle).toBeTypeOf('string');
      const read = await call(reader, 'result_query', { handle, path: 'total' });
      expect(read.structuredContent).toEqual({ path: "$['total']", value: 500 });
      const refused = await call(stranger, 'result_query', { handle });
      expect(refused._meta?.code).toBe('RESULT_HANDLE_NOT_FOUND');
      await Promise.all([writer.close(), reader.close(), stranger.close()]);
    } finally {
      for (const child of children) child.kill('SIGTERM');
    }
  });

  it('a master killed mid-run: calls succeed after failover or fail coded in time, and nothing kept is lost', async () => {
    const host = await startHost({ options: options() });
    const client = await connect(host.url);
    try {
      const kept = new Set<string>();
      for (let i = 0; i < 9; i += 1) kept.add(handleOf(await call(client, 'orders')) as string);
      await cluster.replicated();
      const byMaster = await keysByMaster();
      const [victim] = [...byMaster.entries()].sort((a, b) => b[1].length - a[1].length)[0];
      await cluster.nodes.find((node) => node.port === victim)?.kill();

      const outcomes: Array<{ ms: number; code?: string }> = [];
      const timed = async (run: () => Promise<ToolResult>) => {
        const started = Date.now();
        const result = await run();
        outcomes.push({ ms: Date.now() - started, code: result.isError ? String(result._meta?.code) : undefined });
        return result;
      };
      const deadline = Date.now() + 40_000;
      let recovered = false;
      while (!recovered && Date.now() < deadline) {
        // A fold while the cluster fails over: kept (folded) or sent whole, never lost.
        const folded = await timed(() => call(client, 'orders'));
        const handle = handleOf(folded);
        if (handle) kept.add(handle);
        else expect(folded.structuredContent).toEqual(seedOrders());
        let all = true;
        for (const h of kept) {
          const read = await timed(() => call(client, 'result_query', { handle: h, path: 'total' }));
          if (read.isError) all = false;
          else expect(read.structuredContent).toEqual({ path: "$['total']", value: 500 });
        }
        recovered = all && handle !== undefined;
      }
      expect(recovered).toBe(true);
      for (const outcome of outcomes) {
        expect(outcome.ms).toBeLessThan(BOUND_MS);
        if (outcome.code !== undefined) expect(outcome.code).toBe('RESULT_STORE_UNAVAILABLE');
      }
      expect((await cluster.masters()).includes(victim)).toBe(false); // a replica took over
    } finally {
      await client.close();
      await host.close();
    }
  }, 90_000);
});
