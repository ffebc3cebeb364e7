// The MCP SDK adapter's nested-call guard (lib/host/nesting.ts): a call whose request `extra` belongs to a wrapped
// call still running is nested; every other call is a client's.
import { describe, expect, it } from 'vitest';

import { NestingGuard } from '../lib/host/nesting';

/** A wrapped call as the adapter runs it: enter, await the handler, leave whatever happened. */
async function wrapped<T>(guard: NestingGuard, extra: unknown, handler: () => Promise<T>): Promise<T> {
  guard.enter(extra);
  try {
    return await handler();
  } finally {
    guard.leave(extra);
  }
}

describe('NestingGuard', () => {
  it("tells a call made with a running call's extra from a client's", async () => {
    const guard = new NestingGuard();
    const outer = { requestId: 1 };
    const other = { requestId: 2 };
    const seen: boolean[] = [];
    await wrapped(guard, outer, async () => {
      await Promise.resolve();
      seen.push(guard.nested(outer), guard.nested(other), guard.nested({ ...outer }));
    });
    expect(seen).toEqual([true, false, false]);
    expect(guard.nested(outer)).toBe(false);
  });

  it('keeps concurrent calls apart and forgets a call that threw', async () => {
    const guard = new NestingGuard();
    const [a, b] = [{ requestId: 'a' }, { requestId: 'b' }];
    let release: () => void = () => {};
    const first = wrapped(guard, a, () => new Promise<void>((resolve) => (release = resolve)));
    expect(guard.nested(a)).toBe(true);
    await expect(wrapped(guard, b, () => Promise.reject(new Error('tool failed')))).rejects.toThrow('tool failed');
    expect(guard.nested(b)).toBe(false);
    expect(guard.nested(a)).toBe(true);
    release();
    await first;
    expect(guard.nested(a)).toBe(false);
  });

  it('takes a call without an extra object for a client call', async () => {
    const guard = new NestingGuard();
    expect(await wrapped(guard, undefined, async () => 42)).toBe(42);
    expect(guard.nested(undefined)).toBe(false);
  });
});
