// ─── The FrontMCP glue's runtime: one per plugin instance, one in use per scope ─
import { consoleLogger, type ResultHandlesLogger } from './logger';
import { type Owner, nonEmpty, ownerOf } from './owner';
import { HostPipeline } from './pipeline';
import { HandleReferenceResolver } from './handle-references';
import {
  openEngine,
  prepareOptions,
  type OpenedEngine,
  type PreparedOptions,
  type ResultHandlesOptions,
} from './open-engine';
import { type ResultHandleStore } from '../result-handle.store';

/**
 * The plugin's resolved options as `ResultHandlesConfigToken` provides them (the secret is never exposed, nor the
 * storage's credentials: only its type).
 */
export interface ResultHandlesConfig {
  thresholdBytes: number;
  ttlSeconds: number;
  preview: { items: number; chars: number };
  namespace: string;
  storage: { type: string };
}

/** Options, engine and store of one `ResultHandlesPlugin.init(options)`. */
export class FrontMcpRuntime {
  readonly prepared: PreparedOptions;
  readonly core: HostPipeline;
  /** Handle references in tool arguments (`handleReferences`). */
  readonly references: HandleReferenceResolver;
  private logger: ResultHandlesLogger | undefined;

  constructor(options: ResultHandlesOptions) {
    this.prepared = prepareOptions(options, { browserAware: true });
    const sink: ResultHandlesLogger = { warn: (message) => (this.logger ?? consoleLogger).warn(message) };
    this.core = new HostPipeline(
      () => openEngine(this.prepared),
      {
        foldPolicy: this.prepared.foldPolicy,
        thresholdBytes: this.prepared.resolved.thresholdBytes,
      },
      sink,
    );
    this.references = new HandleReferenceResolver(this.prepared.resolved.handleReferences, () => this.core.ready());
  }

  /**
   * What `ResultHandleStoreToken` provides: the plugin's own store, as the public `ResultHandleStore` API. The
   * pipeline opens the engine once (and retries a failed open); it hands back what `openEngine` made.
   */
  async store(): Promise<ResultHandleStore> {
    return ((await this.core.ready()) as OpenedEngine).store;
  }

  /** Logs through the host's logger when one was offered, else the console. */
  warn(message: string): void {
    (this.logger ?? consoleLogger).warn(message);
  }

  /** Whether a host logger was adopted (see {@link useLogger}). */
  get hasLogger(): boolean {
    return this.logger !== undefined;
  }

  /** Sends warnings to the host's logger from now on (the first logger offered wins). */
  useLogger(logger: unknown): void {
    if (this.logger) return;
    const candidate = logger as { warn?: unknown } | undefined;
    if (candidate && typeof candidate.warn === 'function') {
      this.logger = {
        warn: (message) => (candidate.warn as (m: string) => void).call(candidate, `[result-handles] ${message}`),
      };
    }
  }

  /** What `ResultHandlesConfigToken` provides. */
  config(): ResultHandlesConfig {
    const resolved = this.prepared.resolved;
    return {
      thresholdBytes: resolved.thresholdBytes,
      ttlSeconds: resolved.ttlSeconds,
      preview: { ...resolved.preview },
      namespace: resolved.namespace,
      storage: { type: this.prepared.storageType },
    };
  }
}

// ─── one runtime per scope ──────────────────────────────────────────────────

const runtimesByScope = new WeakMap<object, FrontMcpRuntime>();
/** Runtimes whose options were already compared with their scope's runtime (one warning at most each). */
const compared = new WeakSet<FrontMcpRuntime>();

const UNSERIALIZABLE = '[unserializable]';

/** JSON of everything a runtime was configured with except the secret (the storage's clients and functions by kind). */
function comparable(runtime: FrontMcpRuntime): Record<string, string> {
  const { resolved, storage, foldPolicy } = runtime.prepared;
  const json = (value: unknown) => {
    try {
      return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'function' ? '[function]' : v)) ?? '';
    } catch {
      return UNSERIALIZABLE;
    }
  };
  return {
    thresholdBytes: String(resolved.thresholdBytes),
    ttlSeconds: String(resolved.ttlSeconds),
    preview: json(resolved.preview),
    namespace: resolved.namespace,
    storage: json(storage),
    foldPolicy: foldPolicy === undefined ? 'none' : 'set',
    handleReferences: json(resolved.handleReferences),
    handleReferenceLimits: json(resolved.handleReferenceLimits),
  };
}

/** The names (never the values) of the options in which `later` differs from `first`. */
function differingOptions(first: FrontMcpRuntime, later: FrontMcpRuntime): string[] {
  const a = comparable(first);
  const b = comparable(later);
  const names = Object.keys(a).filter((name) => a[name] !== b[name]);
  if (a.storage === UNSERIALIZABLE && b.storage === UNSERIALIZABLE && !names.includes('storage')) {
    // Storages holding clients JSON cannot walk: compare their settings by identity, one level deep.
    const x = first.prepared.storage;
    const y = later.prepared.storage;
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    if ([...keys].some((key) => x[key] !== y[key])) names.push('storage');
  }
  if (first.prepared.foldPolicy !== later.prepared.foldPolicy && !names.includes('foldPolicy')) {
    names.push('foldPolicy');
  }
  return names;
}

/**
 * The runtime every instance in `scope` uses: the first one seen there. Several apps of one scope each get their own
 * plugin instance, all of whose hooks fire for every call, while `result_query` resolves to the first app's tool;
 * sharing one runtime (one store) per scope makes every app's handles readable through that one tool.
 *
 * So a later `init(options)` in the same scope is not used: when its options differ from the first one's (the secret
 * is not compared), one warning naming the differing options (never their values) is logged, through the logger
 * `logger()` gives, when given.
 */
export function runtimeForScope(scope: unknown, mine: FrontMcpRuntime, logger?: () => unknown): FrontMcpRuntime {
  if (typeof scope !== 'object' || scope === null) return mine;
  let runtime = runtimesByScope.get(scope);
  if (!runtime) {
    runtime = mine;
    runtimesByScope.set(scope, runtime);
  } else if (runtime !== mine && !compared.has(mine)) {
    compared.add(mine);
    const names = differingOptions(runtime, mine);
    if (names.length > 0) {
      if (logger !== undefined && !mine.hasLogger) mine.useLogger(logger());
      mine.warn(
        `ResultHandlesPlugin.init() was given different options (${names.join(', ')}) by another app in the same ` +
          `scope; the first instance's options, store and result_query serve every app of a scope, so these are ` +
          `ignored. Give every app of one scope the same options.`,
      );
    }
  }
  return runtime;
}

// ─── owner mapping (FrontMCP 1.5.x) ─────────────────────────────────────────

/** Session ids that name no durable session: stateless HTTP and per-call anonymous contexts. */
function durableSession(sessionId: unknown): string | undefined {
  const session = nonEmpty(sessionId);
  if (session === undefined || session === '__stateless__' || session.startsWith('anon:')) return undefined;
  return session;
}

/**
 * The caller of a FrontMCP call: session = `state.authInfo.sessionId` (verified by the SDK's session layer),
 * subject = `state.authInfo.user.sub` unless anonymous (`anon:…`).
 */
export function frontMcpOwner(authInfo: unknown): Owner | undefined {
  const info = authInfo as { sessionId?: unknown; user?: { sub?: unknown } } | undefined;
  const sub = nonEmpty(info?.user?.sub);
  return ownerOf(durableSession(info?.sessionId), sub !== undefined && !sub.startsWith('anon:') ? sub : undefined);
}
