// The hosts' engine opener (lib/host/open-engine.ts): which results are inspected on the JS thread.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { openEngine, prepareOptions } from '../lib/host/open-engine';
import * as native from '../lib/native';

const resultOf = (chars: number) => {
  const structuredContent = { text: 'x'.repeat(chars) };
  return JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent });
};

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
});
