// The hosts' engine opener (lib/host/open-engine.ts): which results are inspected on the JS thread.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { engineOpener, openEngine, prepareOptions } from '../lib/host/open-engine';
import { HostPipeline } from '../lib/host/pipeline';
import * as native from '../lib/native';

const resultOf = (chars: number) => {
  const structuredContent = { text: 'x'.repeat(chars) };
  return JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
};

/** A pipeline over a memory store with a 1 KiB threshold, and a function that keeps `answer` for `owner`. */
function memoryPipeline(owner: { session: string }) {
  const thresholdBytes = 1024;
  const core = new HostPipeline(
    engineOpener(prepareOptions({ thresholdBytes, storage: { type: 'memory' } })),
    { thresholdBytes },
    console,
  );
  const keep = async (answer: object) => {
    const folded = (await core.fit(
      { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer },
      { toolName: 't', fullName: 't', request: {}, owner },
    )) as { structuredContent: { handle: string } };
    return folded.structuredContent.handle;
  };
  return { core, keep };
}

describe('openEngine: prepare on or off the JS thread', () => {
  afterEach(() => vi.restoreAllMocks());

  it('inspects a result on the JS thread only while its JSON is at most thresholdBytes long', async () => {
    const proto = native.ResultHandlesEngine.prototype;
    const onThread = vi.spyOn(proto, 'prepareSync');
    const offThread = vi.spyOn(proto, 'prepare');
    const thresholdBytes = 2048;
    const engine = await openEngine(prepareOptions({ thresholdBytes, storage: { type: 'memory' } }));
    try {
      const small = resultOf(200);
      expect(small.length).toBeLessThanOrEqual(thresholdBytes);
      expect((await engine.prepare(small)).kind).toBe('pass');
      expect(onThread).toHaveBeenCalledTimes(1);
      expect(offThread).not.toHaveBeenCalled();

      // Well under the old 64 K inline limit, but over the threshold: it may fold, so it goes to the thread pool.
      for (const chars of [2100, 20_000]) {
        const large = resultOf(chars);
        expect(large.length).toBeGreaterThan(thresholdBytes);
        expect((await engine.prepare(large)).kind).toBe('fold');
      }
      expect(onThread).toHaveBeenCalledTimes(1);
      expect(offThread).toHaveBeenCalledTimes(2);
    } finally {
      await engine.close();
    }
  });

  it('answers a kept page and a singular read from the memory store in the same turn, without a hop', async () => {
    const owner = { session: 'same-turn' };
    const { core, keep } = memoryPipeline(owner);
    const orders = Array.from({ length: 3000 }, (_, id) => ({ id, status: id % 3 ? 'shipped' : 'open' }));
    const handle = await keep({ orders });
    // Settled before a macrotask queued just before the call: only microtasks ran, so no other thread took part.
    const inOneTurn = async (args: Record<string, unknown>) => {
      let macrotaskRan = false;
      setImmediate(() => (macrotaskRan = true));
      const answer = JSON.parse(await core.query(args, owner)) as { value: unknown };
      return { value: answer.value, sameTurn: !macrotaskRan };
    };
    const filter = "$.orders[?@.status=='open']";
    await core.query({ handle, path: filter, limit: 10 }, owner); // the first query reads the whole answer
    const page = await inOneTurn({ handle, path: filter, limit: 10, offset: 10 });
    expect(page).toEqual({ value: orders.filter((o) => o.status === 'open').slice(10, 20), sameTurn: true });
    const singular = await inOneTurn({ handle, path: '$.orders', offset: 2990, limit: 10 });
    expect(singular).toEqual({ value: orders.slice(2990), sameTurn: true });
    const missing = await core.query({ handle: 'no-such-handle', path: '$' }, owner).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'RESULT_HANDLE_NOT_FOUND' });
  });

  it('reads a whole kept answer for a first query off the JS thread: a macrotask queued at the call runs first', async () => {
    const owner = { session: 'off-thread' };
    const { core, keep } = memoryPipeline(owner);
    // Large enough that its orders are a fragment the path index names (read alone), and slow enough to read that
    // a turn of the event loop fits in it many times over.
    const orders = Array.from({ length: 40_000 }, (_, id) => ({ id, status: id % 3 ? 'shipped' : 'open', n: id % 7 }));
    const handle = await keep({ orders, note: 'kept' });
    const firstQuery = async (path: string) => {
      let macrotaskRan = false;
      setImmediate(() => (macrotaskRan = true));
      const read = JSON.parse(await core.query({ handle, path, limit: 3 }, owner)) as { value: unknown; total: number };
      return { value: read.value, total: read.total, macrotaskRanFirst: macrotaskRan };
    };
    // Through the fragment its first step leads to, and through the whole answer (a descendant segment).
    expect(await firstQuery("$.orders[?@.n==6 && @.status=='open']")).toEqual({
      value: orders.filter((o) => o.n === 6 && o.status === 'open').slice(0, 3),
      total: orders.filter((o) => o.n === 6 && o.status === 'open').length,
      macrotaskRanFirst: true,
    });
    expect(await firstQuery('$..n')).toEqual({ value: [0, 1, 2], total: orders.length, macrotaskRanFirst: true });
  });

  it('settles arguments without a handle reference in the same turn, and reads a referenced answer', async () => {
    const thresholdBytes = 1024;
    const engine = await openEngine(
      prepareOptions({ thresholdBytes, storage: { type: 'memory' }, handleReferences: true }),
    );
    try {
      let macrotaskRan = false;
      setImmediate(() => (macrotaskRan = true));
      expect(await engine.resolveReferences('{"city":"Oslo","days":[1,2]}', 'S', null)).toBeNull();
      expect(macrotaskRan).toBe(false);
      const missing = await engine
        .resolveReferences('{"rows":{"$resultHandle":"no-such-handle"}}', 'S', null)
        .catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'RESULT_HANDLE_NOT_FOUND' });
    } finally {
      await engine.close();
    }
  });
});
