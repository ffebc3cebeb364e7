// The MCP SDK adapter's nested-call guard (lib/host/nesting.ts): a call whose request `extra` belongs to a wrapped
// call still running is nested; every other call is a client's.
import { describe, expect, it } from 'vitest';

import { NestingGuard } from '../lib/host/nesting';

describe('NestingGuard', () => {
  it("tells a call made with a running call's extra from a client's", async () => {
    const guard = new NestingGuard();
    const outer = { requestId: 1 };
    const other = { requestId: 2 };
    const seen: boolean[] = [];
    await guard.run(outer, async () => {
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
    const waiting = new Promise<void>((resolve) => (release = resolve));
    const first = guard.run(a, () => waiting);
    expect(guard.nested(a)).toBe(true);
    await expect(guard.run(b, () => Promise.reject(new Error('tool failed')))).rejects.toThrow('tool failed');
    expect(guard.nested(b)).toBe(false);
    expect(guard.nested(a)).toBe(true);
    release();
    await first;
    expect(guard.nested(a)).toBe(false);
  });

  it('runs a call without an extra object as a client call', async () => {
    const guard = new NestingGuard();
    expect(await guard.run(undefined, () => 42)).toBe(42);
    expect(guard.nested(undefined)).toBe(false);
  });
});
