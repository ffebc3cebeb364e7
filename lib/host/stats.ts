// ─── Counters an operator can read: what the hosts did with answers and queries ─────
//
// Counted where every outcome meets: the core's fit and query (some decisions are the engine's, some the host's:
// no caller, foldPolicy, output schema). Monotonic counts since the runtime was made; nothing about an answer, a
// handle, a session or a caller is kept.

/**
 * A snapshot of the counters. To export them to OpenTelemetry, read it from observable counters named as in
 * {@link RESULT_HANDLES_METRICS}.
 */
export interface ResultHandlesStats {
  /** Answers folded and kept (the model got `{ preview, shape, handle }`). */
  folded: number;
  /** Answers sent whole, by reason (`under-threshold`, `no-owner`, `store-failed`, `fold-policy`, …). */
  passed: Record<string, number>;
  /** Bytes of the answers kept (`Buffer.byteLength(JSON.stringify(answer))`, summed). */
  keptBytes: number;
  /** `result_query` calls by outcome: `ok` or the error code. */
  queries: Record<string, number>;
  /** Calls the store failed (keeping or reading an answer, or opening), by code. */
  storeFailures: Record<string, number>;
  /** Whether the store answers now, and its outages since it opened. */
  store: ResultHandlesStoreHealth;
}

/**
 * The store as its circuit breaker sees it. While `'down'`, calls fail at once with `RESULT_STORE_UNAVAILABLE`
 * (large answers are sent whole) and a probe checks the store in the background until it answers.
 */
export interface ResultHandlesStoreHealth {
  state: 'up' | 'down';
  /** Outages since the store opened. */
  outages: number;
  /** Milliseconds spent down, the outage under way included. */
  outageMs: number;
}

/** What `stats().store` says before the store is open. */
export const STORE_NOT_OPENED: ResultHandlesStoreHealth = Object.freeze({ state: 'up', outages: 0, outageMs: 0 });

/**
 * OpenTelemetry instrument names and the attribute that splits each: monotonic counters, but `storeDown`, a gauge
 * (1 while `store.state` is `'down'`).
 */
export const RESULT_HANDLES_METRICS = {
  folded: { name: 'result_handles.answers.folded', unit: '{answer}' },
  passed: { name: 'result_handles.answers.passed', unit: '{answer}', attribute: 'reason' },
  keptBytes: { name: 'result_handles.kept.size', unit: 'By' },
  queries: { name: 'result_handles.queries', unit: '{query}', attribute: 'outcome' },
  storeFailures: { name: 'result_handles.store.failures', unit: '{failure}', attribute: 'code' },
  storeDown: { name: 'result_handles.store.down', unit: '1' },
  storeOutages: { name: 'result_handles.store.outages', unit: '{outage}' },
  storeOutageMs: { name: 'result_handles.store.outage.duration', unit: 'ms' },
} as const;

const STORE_CODES = new Set(['RESULT_STORE_UNAVAILABLE', 'RESULT_STORE_WRITE_FAILED']);

/** The counters of one runtime. */
export class Stats {
  private folded = 0;
  private keptBytes = 0;
  private readonly passed = new Map<string, number>();
  private readonly queries = new Map<string, number>();
  private readonly storeFailures = new Map<string, number>();

  foldedOne(bytes: number): void {
    this.folded += 1;
    this.keptBytes += bytes;
  }

  passedOne(reason: string): void {
    bump(this.passed, reason);
  }

  queried(outcome: string): void {
    bump(this.queries, outcome);
  }

  /** Counts `code` when it is a store failure. */
  failed(code: string): void {
    if (STORE_CODES.has(code)) bump(this.storeFailures, code);
  }

  snapshot(store: ResultHandlesStoreHealth): ResultHandlesStats {
    return {
      folded: this.folded,
      passed: Object.fromEntries(this.passed),
      keptBytes: this.keptBytes,
      queries: Object.fromEntries(this.queries),
      storeFailures: Object.fromEntries(this.storeFailures),
      store: { ...store },
    };
  }
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
