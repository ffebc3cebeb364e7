// ─── result-handles-native: sealed storage ──────────────────────────────────
// The JS face of the native store. Every rule (key derivation, sealing, backends, config validation, TTL) lives in
// Rust; this file only moves values across: JSON text in, JSON text out.
import * as native from './native';
import { optionsInputJson, ResultHandlesConfigurationError } from './result-handles.options';

// ─── Types ──────────────────────────────────────────────────────────────────

/** Who may read a kept answer: the session and/or the subject that saved it. Absent is not empty. */
export interface ResultHandleOwner {
  /** The verified session id. */
  session?: string;
  /** The authenticated subject (the same word the hosts and the record format use). */
  subject?: string;
  /** @deprecated The earlier name of {@link ResultHandleOwner.subject}; still read when `subject` is absent. */
  caller?: string;
}

/** The owner's subject, under either name. */
function subjectOf(owner: ResultHandleOwner): string | undefined {
  return owner.subject ?? owner.caller;
}

/**
 * The FrontMCP storage methods a {@link ResultHandleStore} needs (`@frontmcp/utils` `NamespacedStorage` has them).
 * Records are kept as base64 strings under 64-character hex keys.
 */
export interface ResultHandleStorage {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  set(key: string, value: string, options?: { ttlSeconds?: number }): Promise<unknown> | unknown;
  delete(key: string): Promise<unknown> | unknown;
  /** Called by `onShutdown()` when present (FrontMCP root storages). */
  disconnect?(): Promise<unknown> | unknown;
  /** A FrontMCP namespaced storage's root: `onShutdown()` disconnects it. */
  root?: { disconnect?(): Promise<unknown> | unknown };
}

/** Where answers are kept: the shapes of FrontMCP's `StorageConfig`, plus `sqlite`. See docs/storage.md. */
export type ResultHandleStorageConfig =
  | { type?: 'auto'; [key: string]: unknown }
  | { type: 'memory'; memory?: { maxEntries?: number; maxBytes?: number }; [key: string]: unknown }
  | {
      type: 'redis';
      redis?:
        | { url: string; keyPrefix?: string }
        | {
            config: { host: string; port?: number; password?: string; db?: number; tls?: boolean };
            keyPrefix?: string;
          };
      [key: string]: unknown;
    }
  | {
      type: 'sqlite';
      sqlite: { path: string; walMode?: boolean; ttlCleanupIntervalMs?: number };
      [key: string]: unknown;
    }
  | { type: 'upstash'; upstash?: { url?: string; token?: string; keyPrefix?: string }; [key: string]: unknown }
  | { type: 'vercel-kv'; vercelKv?: { url?: string; token?: string; keyPrefix?: string }; [key: string]: unknown };

/** Options of {@link createResultHandleStore}. */
export interface CreateResultHandleStoreOptions {
  /** Where answers are kept. */
  storage: ResultHandleStorageConfig;
  /** Key namespace (1 to 256 bytes of UTF-8): records live under `namespace:` + hex storage key. */
  namespace: string;
  /** How long an answer is kept, in seconds (1 to 31536000). */
  ttlSeconds: number;
  /** Server secret (at least 32 bytes) mixed into every key; defaults to `RESULT_HANDLES_SECRET` when set. */
  secret?: string;
}

/** Options of `new ResultHandleStore(storage, ttlSeconds, options)`. */
export interface ResultHandleStoreOptions {
  /** Server secret (at least 32 bytes) mixed into every key; defaults to `RESULT_HANDLES_SECRET` when set. */
  secret?: string;
}

// ─── Errors ─────────────────────────────────────────────────────────────────

/** A store failure, from the native store or a JS-provided storage, with its code and remedy. */
export class ResultHandleStoreError extends Error {
  readonly code: 'RESULT_STORE_UNAVAILABLE' | 'RESULT_STORE_WRITE_FAILED';
  readonly remedy: string;

  constructor(code: ResultHandleStoreError['code'], message: string, remedy: string, cause?: unknown) {
    super(`${message} ${remedy}`, cause === undefined ? undefined : { cause });
    this.name = 'ResultHandleStoreError';
    this.code = code;
    this.remedy = remedy;
  }
}

/**
 * Thrown when a server-only store (`redis`, `sqlite`) is asked for in a browser-like runtime.
 *
 * @example
 * ```ts
 * throw new BrowserStoreUnavailableError('redis');
 * // storage type 'redis' needs a server runtime … use storage: { type: 'memory' } in a browser.
 * ```
 */
export class BrowserStoreUnavailableError extends Error {
  readonly code = 'BROWSER_STORE_UNAVAILABLE' as const;
  readonly remedy = "Use storage: { type: 'memory' } in a browser-like runtime.";
  /** The storage type that was refused. */
  readonly storageType: string;

  constructor(storageType: string) {
    super(
      `storage type '${storageType}' needs a server runtime and is not available in a browser-like runtime. ` +
        "Use storage: { type: 'memory' } in a browser-like runtime.",
    );
    this.name = 'BrowserStoreUnavailableError';
    this.storageType = storageType;
  }
}

// ─── Helpers ────────────────────────────────────────────────────────────────

/** The engine's refusal as the public error: every problem, the message naming them, the remedy. */
function configurationError(refused: native.ConfigurationProblems): ResultHandlesConfigurationError {
  const error = new ResultHandlesConfigurationError(refused.problems, refused.message);
  return refused.remedy ? Object.assign(error, { remedy: refused.remedy }) : error;
}

function jsonOf(value: unknown): string {
  const text = JSON.stringify(value);
  if (typeof text !== 'string') {
    throw Object.assign(new TypeError('The answer cannot be kept: it has no JSON form (undefined or a function).'), {
      code: 'INVALID_INPUT',
      remedy: 'Save a JSON value.',
    });
  }
  return text;
}

interface Backing {
  save(handle: string, json: string | Buffer, owner: ResultHandleOwner): Promise<void>;
  read(handle: string, owner: ResultHandleOwner): Promise<Buffer | null>;
  close(): Promise<void>;
}

const STORE_CODES: ReadonlySet<string> = new Set(['RESULT_STORE_UNAVAILABLE', 'RESULT_STORE_WRITE_FAILED']);

function isStoreCode(code: unknown): code is ResultHandleStoreError['code'] {
  return typeof code === 'string' && STORE_CODES.has(code);
}

/** A native store failure as the public `ResultHandleStoreError` (same code, message and remedy); others as is. */
function asStoreError(error: unknown): unknown {
  const coded = error as { code?: unknown; message?: unknown; remedy?: unknown } | null;
  if (!(error instanceof Error) || !isStoreCode(coded?.code)) return error;
  const remedy = typeof coded.remedy === 'string' ? coded.remedy : '';
  const message =
    remedy && error.message.endsWith(remedy) ? error.message.slice(0, -remedy.length).trimEnd() : error.message;
  return new ResultHandleStoreError(coded.code, message, remedy, error);
}

async function rethrowingStoreErrors<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asStoreError(error);
  }
}

function nativeBacking(store: native.NativeHandleStore): Backing {
  return {
    save: (handle, json, owner) => rethrowingStoreErrors(store.save(handle, json, owner.session, subjectOf(owner))),
    read: (handle, owner) => rethrowingStoreErrors(store.read(handle, owner.session, subjectOf(owner))),
    close: () => rethrowingStoreErrors(store.close()),
  };
}

function storageBacking(storage: ResultHandleStorage, ttlSeconds: number, secret: string | undefined): Backing {
  return {
    async save(handle, json, owner) {
      const sealed = await native.sealRecord(handle, json, owner.session, subjectOf(owner), secret);
      try {
        await storage.set(sealed.storageKey, sealed.record.toString('base64'), { ttlSeconds });
      } catch (cause) {
        throw new ResultHandleStoreError(
          'RESULT_STORE_WRITE_FAILED',
          'The storage could not keep the answer.',
          'Check the storage connection; the answer is sent whole meanwhile.',
          cause,
        );
      }
    },
    async read(handle, owner) {
      const key = native.storageKeyFor(handle, owner.session, subjectOf(owner), secret);
      let text: string | null | undefined;
      try {
        text = await storage.get(key);
      } catch (cause) {
        throw new ResultHandleStoreError(
          'RESULT_STORE_UNAVAILABLE',
          'The storage could not be read.',
          'Check the storage connection; calls recover once it is back.',
          cause,
        );
      }
      if (typeof text !== 'string') return null;
      return native.openRecord(handle, Buffer.from(text, 'base64'), owner.session, subjectOf(owner), secret);
    },
    async close() {
      const root = storage.root;
      if (root && typeof root.disconnect === 'function') await root.disconnect();
      else if (typeof storage.disconnect === 'function') await storage.disconnect();
    },
  };
}

// ─── ResultHandleStore ──────────────────────────────────────────────────────

/**
 * Keeps answers sealed (AES-256-GCM, keys derived per handle and owner) with a TTL, and reads them back only for
 * the owner that saved them. Wraps the native store made by {@link createResultHandleStore}, or any storage with
 * FrontMCP's `get` / `set` / `delete` (for example a connection you already have).
 *
 * @example
 * ```ts
 * const store = new ResultHandleStore(frontMcpStorage.namespace('result-handles'), 600);
 * const handle = store.newHandle();
 * await store.save(handle, { orders }, { session: 'sess-1' });
 * const hit = await store.read(handle, { session: 'sess-1' }); // { value: { orders } }
 * await store.read(handle, { session: 'sess-2' }); // undefined
 * ```
 */
export class ResultHandleStore {
  readonly ttlSeconds: number;
  private readonly backing: Backing;

  constructor(
    storage: ResultHandleStorage | native.NativeHandleStore,
    ttlSeconds: number,
    options: ResultHandleStoreOptions = {},
  ) {
    // The same check as every other entry point's, in the engine.
    const refused = native.checkWrapperOptions(optionsInputJson({ ttlSeconds, secret: options.secret }));
    if (refused) throw configurationError(refused);
    this.ttlSeconds = ttlSeconds;
    this.backing =
      storage instanceof native.NativeHandleStore
        ? nativeBacking(storage)
        : storageBacking(storage, ttlSeconds, options.secret);
  }

  /** A fresh handle: a random UUID v4 from the OS CSPRNG. */
  newHandle(): string {
    return native.newHandle();
  }

  /** Keeps `value` (JSON-stringified) for `owner`, with the TTL. Rejects with a coded error if the store cannot. */
  save(handle: string, value: unknown, owner: ResultHandleOwner = {}): Promise<void> {
    return this.backing.save(handle, jsonOf(value), owner);
  }

  /** `{ value }` for the owner that saved it; `undefined` when missing, expired or another owner's. */
  async read(handle: string, owner: ResultHandleOwner = {}): Promise<{ value: unknown } | undefined> {
    const bytes = await this.backing.read(handle, owner);
    return bytes === null ? undefined : { value: JSON.parse(bytes.toString('utf8')) };
  }

  /** Keeps an answer that is already JSON text (no second stringify). */
  saveJson(handle: string, json: string | Buffer, owner: ResultHandleOwner = {}): Promise<void> {
    return this.backing.save(handle, json, owner);
  }

  /** The kept JSON text as bytes (no parse), or `undefined` as for {@link ResultHandleStore.read}. */
  async readJson(handle: string, owner: ResultHandleOwner = {}): Promise<Buffer | undefined> {
    return (await this.backing.read(handle, owner)) ?? undefined;
  }

  /** Disconnects the store (the native backend, or the wrapped storage's root). */
  onShutdown(): Promise<void> {
    return this.backing.close();
  }
}

/**
 * Opens a native store and wraps it. All three options are required.
 * Rejects with `ResultHandlesConfigurationError` (`RESULT_HANDLES_CONFIGURATION`, every problem in `problems`) or
 * `ResultHandleStoreError` (`RESULT_STORE_UNAVAILABLE`).
 *
 * @example
 * ```ts
 * const store = await createResultHandleStore({
 *   storage: { type: 'redis', redis: { url: 'redis://127.0.0.1:6379' } },
 *   namespace: 'result-handles',
 *   ttlSeconds: 600,
 * });
 * ```
 */
export async function createResultHandleStore(options: CreateResultHandleStoreOptions): Promise<ResultHandleStore> {
  const { storage, namespace, ttlSeconds, secret } = options ?? ({} as CreateResultHandleStoreOptions);
  const settings = native.checkStoreOptions(optionsInputJson({ storage, namespace, ttlSeconds, secret }));
  if (!(settings instanceof native.NativeSettings)) throw configurationError(settings);
  let store: native.NativeHandleStore;
  try {
    store = await native.NativeHandleStore.openChecked(settings);
  } catch (error) {
    throw asStoreError(error);
  }
  return new ResultHandleStore(store, store.ttlSeconds);
}
