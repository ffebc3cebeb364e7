// ─── Logging: one sink, warnings said once ─────────────────────────────────────

/**
 * Where the hosts send warnings. Anything with a `warn(message)` method fits: `console`, a FrontMCP logger, pino.
 * Warnings name tools and error codes, never an answer, a handle, a session or a subject.
 *
 * @example
 * ```ts
 * createResultHandles({}, { logger: { warn: (m) => myLog.warn(m) } });
 * ```
 */
export interface ResultHandlesLogger {
  warn(message: string): void;
}

/** The default sink: `console.warn` with a `[result-handles]` prefix. */
export const consoleLogger: ResultHandlesLogger = {
  warn: (message) => console.warn(`[result-handles] ${message}`),
};

/** Says each keyed warning once (per instance), and every unkeyed one. */
export class Warnings {
  private readonly said = new Set<string>();

  constructor(private readonly logger: ResultHandlesLogger) {}

  /** Whether `key` was said already. */
  has(key: string): boolean {
    return this.said.has(key);
  }

  /** Logs `message` the first time `key` is seen. */
  once(key: string, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.say(message);
  }

  /** Logs `message`; a logger that throws never breaks a call. */
  say(message: string): void {
    try {
      this.logger.warn(message);
    } catch {
      // A broken logger must not turn a tool answer into a failure.
    }
  }
}
