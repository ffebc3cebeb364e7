// ─── Nested-call guard ─────────────────────────────────────────────────────────
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Tells a tool call made by a client from one made by another tool while it runs. Each wrapped tool runs inside
 * `run()`; a call that starts while another wrapped call is running in the same async context is nested, and its
 * answer goes back to the calling tool untouched (only the outer answer, the one a model sees, may be folded).
 */
export class NestingGuard {
  private readonly depth = new AsyncLocalStorage<number>();

  /** Whether a wrapped tool call is running in the current async context. */
  nested(): boolean {
    return (this.depth.getStore() ?? 0) > 0;
  }

  /** Runs `work` as one more level of tool call. */
  run<T>(work: () => T): T {
    return this.depth.run((this.depth.getStore() ?? 0) + 1, work);
  }
}
