// ─── result-handles-native: options ─────────────────────────────────────────
// Every rule and limit lives in the native engine (src/core/options/). This file only carries the options across,
// once: their JSON plus a side table naming what JSON cannot hold, then the checked options back.
import * as native from './native';

// ─── constants ──────────────────────────────────────────────────────────────

// Each value is read from the native engine, where it is written once; the casts keep the literal types users had.

/** Smallest `thresholdBytes` accepted: below it the folded form itself would not fit. */
export const MIN_THRESHOLD_BYTES = native.MIN_THRESHOLD_BYTES as 1024;

/** How many answers the in-memory store keeps before it evicts the oldest. */
export const DEFAULT_MEMORY_MAX_ENTRIES = native.DEFAULT_MEMORY_MAX_ENTRIES as 1000;

/** The `_meta` key a folded tool result carries its handle under. */
export const RESULT_HANDLE_META_KEY = native.RESULT_HANDLE_META_KEY as 'frontmcp/result-handle';

/** The name of the tool a model calls to read parts of a folded answer. */
export const RESULT_QUERY_TOOL_NAME = native.RESULT_QUERY_TOOL_NAME as 'result_query';

// ─── option types ───────────────────────────────────────────────────────────

/** Where folded answers are kept. `'auto'` picks Redis when configured, else memory. */
export type ResultHandlesStorageType = 'memory' | 'redis' | 'sqlite' | 'upstash' | 'vercel-kv' | 'auto';

/**
 * Storage configuration: a `type`, plus whatever that store needs (the store checks those).
 *
 * @example
 * { type: 'redis', redis: { url: 'redis://127.0.0.1:6379' } }
 */
export interface ResultHandlesStorageOptions {
  /** Which store keeps folded answers. */
  type: ResultHandlesStorageType;
  /** Settings for that store. */
  [setting: string]: unknown;
}

/** How much of a folded answer the model sees right away. */
export interface ResultHandlesPreviewOptions {
  /**
   * Items kept from every list, at every depth (1 to 10000).
   * @default 5
   */
  items?: number;
  /**
   * Characters (UTF-16 units, as JS counts `length`) kept from every string (1 to 1000000).
   * @default 500
   */
  chars?: number;
}

/**
 * Decides, per tool call, whether an answer folds. The hosts call it; the options only check that it is a
 * function.
 */
export type ResultHandlesFoldPolicy = (...args: any[]) => unknown;

/**
 * Options of the result-handles plugin.
 *
 * @example
 * ResultHandlesPlugin.init({ thresholdBytes: 32_768, preview: { items: 3 }, storage: { type: 'memory' } });
 */
export interface ResultHandlesOptions {
  /**
   * Answers whose JSON is larger than this many bytes are folded (1024 to 2147483648).
   * @default 16384
   */
  thresholdBytes?: number;
  /**
   * How long a folded answer can be read, in seconds (1 to 31536000).
   * @default 600
   */
  ttlSeconds?: number;
  /**
   * How much the preview keeps; either key may be omitted.
   * @default { items: 5, chars: 500 }
   */
  preview?: ResultHandlesPreviewOptions;
  /** Decides per call whether an answer folds. */
  foldPolicy?: ResultHandlesFoldPolicy;
  /**
   * Where folded answers are kept.
   * @default { type: 'auto' }
   */
  storage?: ResultHandlesStorageOptions;
  /**
   * Prefix of every store key (1 to 256 bytes of UTF-8).
   * @default 'result-handles'
   */
  namespace?: string;
  /** Secret folded answers are sealed with: at least 32 bytes of UTF-8. */
  secret?: string;
  /**
   * Let a tool argument name a kept answer instead of carrying it: `{ "$resultHandle": "<handle>", "path"?: "…" }`
   * anywhere in the arguments is replaced, before the tool's input is validated, by the value it names (read for the
   * caller, as `result_query` reads it). `true` for every tool, a list of tool names, or a predicate of the name.
   * @default false
   */
  handleReferences?: HandleReferencesSetting;
  /**
   * Bounds on the references of one call: how many (1 to 1024) and how many bytes of JSON they resolve to, all
   * together (1 to 268435456). Over either, the call fails with INVALID_INPUT naming the limit.
   * @default { maxReferences: 16, maxBytes: 16777216 }
   */
  handleReferenceLimits?: { maxReferences?: number; maxBytes?: number };
}

/** `handleReferences`: every tool (`true`), the tools named, or those a predicate of the tool name picks. */
export type HandleReferencesSetting = boolean | readonly string[] | ((toolName: string) => boolean);

/** The options after checking, every default applied. */
export interface ResolvedResultHandlesOptions {
  thresholdBytes: number;
  ttlSeconds: number;
  preview: { items: number; chars: number };
  foldPolicy?: ResultHandlesFoldPolicy;
  storage: ResultHandlesStorageOptions;
  namespace: string;
  secret?: string;
  handleReferences: HandleReferencesSetting;
  handleReferenceLimits: { maxReferences: number; maxBytes: number };
}

// ─── errors ─────────────────────────────────────────────────────────────────

/**
 * Thrown when the options are invalid. `problems` lists each one; the message names them all.
 *
 * @example
 * try { normalizeOptions({ thresholdBytes: 10 }); } catch (e) { if (e instanceof ResultHandlesConfigurationError) console.error(e.problems); }
 */
export class ResultHandlesConfigurationError extends Error {
  /** Stable code hosts branch on. */
  readonly code = 'RESULT_HANDLES_CONFIGURATION' as const;
  /** Every problem found, one sentence each, naming the option and the allowed range. */
  readonly problems: string[];

  constructor(problems: string[], message: string) {
    super(message);
    this.name = 'ResultHandlesConfigurationError';
    this.problems = problems;
  }
}

// ─── the one check ──────────────────────────────────────────────────────────

/**
 * The options as the engine reads them, in one JSON text: their plain-JSON part, plus each value JSON cannot carry
 * (a function, symbol, bigint, non-finite number, class instance or circular reference) named by its path
 * (`preview.items`, `storage.redis.client`), so the engine's messages can say what was given. `undefined` values
 * are left out, as `JSON.stringify` leaves them. `autoIsMemory`: a browser-like runtime, where `auto` storage is
 * memory.
 */
export function optionsInputJson(options: unknown, autoIsMemory = false): string {
  const jsTypes: Record<string, string> = {};
  const ancestors: object[] = [];
  const plain = (value: unknown, path: string): unknown => {
    const note = (kind: string) => {
      jsTypes[path] = kind;
      return undefined;
    };
    switch (typeof value) {
      case 'function':
      case 'symbol':
      case 'bigint':
        return note(typeof value);
      case 'number':
        return Number.isFinite(value) ? value : note(String(value));
      case 'object': {
        if (value === null) return null;
        if (ancestors.includes(value)) return note('circular');
        const proto = Object.getPrototypeOf(value);
        if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return note('instance');
        ancestors.push(value);
        const child = (key: string) => (path === '' ? key : `${path}.${key}`);
        const copy = Array.isArray(value)
          ? value.map((item, index) => plain(item, child(String(index))) ?? null)
          : Object.fromEntries(
              Object.entries(value)
                .map(([key, item]) => [key, plain(item, child(key))])
                .filter(([, item]) => item !== undefined),
            );
        ancestors.pop();
        return copy;
      }
      default:
        return value;
    }
  };
  const json = plain(options, '');
  return JSON.stringify({ options: json ?? null, jsTypes, autoIsMemory });
}

/** Checked options: what the hosts read, and the native value the store and the engine open with. */
export interface CheckedOptions {
  resolved: ResolvedResultHandlesOptions;
  settings: native.NativeSettings;
}

/**
 * Checks the options once, in the native engine, and applies every default. JS keeps only what JSON cannot
 * carry: the functions (`foldPolicy`, a `handleReferences` predicate) and the caller's own storage object.
 *
 * @throws ResultHandlesConfigurationError naming every problem.
 */
export function checkOptions(options?: ResultHandlesOptions, { autoIsMemory = false } = {}): CheckedOptions {
  const checked = native.checkOptions(optionsInputJson(options, autoIsMemory));
  if (!(checked instanceof native.NativeSettings)) {
    throw new ResultHandlesConfigurationError(checked.problems, checked.message);
  }
  const { hasFoldPolicy, handleReferences, ...resolved } = JSON.parse(checked.resolvedJson ?? '{}') as Omit<
    ResolvedResultHandlesOptions,
    'foldPolicy' | 'handleReferences' | 'secret'
  > & { hasFoldPolicy: boolean; handleReferences: boolean | string[] | 'predicate' };
  const given = options?.storage;
  const sameType = given !== undefined && (given.type ?? 'auto') === (resolved.storage.type ?? 'auto');
  return {
    settings: checked,
    resolved: {
      ...resolved,
      // A predicate stays the caller's function; the engine only checked that it is one.
      handleReferences:
        Array.isArray(handleReferences) || typeof handleReferences === 'boolean'
          ? handleReferences
          : (options?.handleReferences as (toolName: string) => boolean),
      // Keep the caller's own objects (they may hold clients or functions JSON cannot carry), unless the runtime
      // replaced the storage (auto is memory in a browser).
      storage: sameType ? given : resolved.storage,
      ...(options?.secret === undefined ? {} : { secret: options.secret }),
      ...(hasFoldPolicy ? { foldPolicy: options?.foldPolicy } : {}),
    },
  };
}

/**
 * Checks the options (in the native engine) and applies every default.
 *
 * @throws ResultHandlesConfigurationError naming every problem.
 * @example
 * const options = normalizeOptions({ preview: { items: 2 } }); // options.thresholdBytes === 16384
 */
export function normalizeOptions(options?: ResultHandlesOptions): ResolvedResultHandlesOptions {
  return checkOptions(options).resolved;
}
