// ─── Options → native engine (both hosts) ─────────────────────────────────────
import * as native from '../native';
import { checkOptions, type ResolvedResultHandlesOptions, type ResultHandlesOptions } from '../result-handles.options';
import { BrowserStoreUnavailableError, ResultHandleStore } from '../result-handle.store';
import { type EngineLike, type FoldPolicy } from './pipeline';

export type { ResultHandlesOptions } from '../result-handles.options';

/** Storage types that need a server runtime (a TCP socket or a file). */
const SERVER_ONLY_STORAGE = new Set(['redis', 'sqlite']);

/**
 * Whether this looks like a browser-like runtime: a DOM (`window` + `document`), an edge runtime (`EdgeRuntime`),
 * or a FrontMCP browser build (`FRONTMCP_BUILD_TARGET === 'browser'`, global or env).
 */
export function isBrowserLikeRuntime(): boolean {
  const g = globalThis as Record<string, unknown>;
  if (typeof g.window === 'object' && g.window !== null && typeof g.document === 'object') return true;
  if (g.EdgeRuntime !== undefined) return true;
  const target =
    g.FRONTMCP_BUILD_TARGET ?? (typeof process === 'object' ? process.env?.FRONTMCP_BUILD_TARGET : undefined);
  return target === 'browser';
}

/** Checked options, ready to open an engine. */
export interface PreparedOptions {
  resolved: ResolvedResultHandlesOptions;
  foldPolicy?: FoldPolicy;
  /** The storage config the store opens (after the browser rule). */
  storage: Record<string, unknown>;
  /** Its `type`. */
  storageType: string;
  /** The checked options as the native store and engine take them. */
  settings: native.NativeSettings;
}

/**
 * Validates the options at once (`ResultHandlesConfigurationError` naming every problem). With `browserAware`, a
 * browser-like runtime refuses `redis`/`sqlite` storage (`BrowserStoreUnavailableError`) and turns `auto` into
 * memory.
 */
export function prepareOptions(options: ResultHandlesOptions = {}, { browserAware = false } = {}): PreparedOptions {
  const browser = browserAware && isBrowserLikeRuntime();
  const { resolved, settings } = checkOptions(options, { autoIsMemory: browser });
  const storage = { ...(resolved.storage as Record<string, unknown>) };
  const storageType = typeof storage.type === 'string' ? storage.type : 'auto';
  if (browser && SERVER_ONLY_STORAGE.has(storageType)) throw new BrowserStoreUnavailableError(storageType);
  return { resolved, foldPolicy: resolved.foldPolicy as FoldPolicy | undefined, storage, storageType, settings };
}

/** The engine and the store it keeps answers in. */
export interface OpenedEngine extends EngineLike {
  /** The same native store, as the public `ResultHandleStore` API. */
  readonly store: ResultHandleStore;
}

/** Opens the store and an engine over it (async: the store may connect to a server). */
export async function openEngine(prepared: PreparedOptions): Promise<OpenedEngine> {
  const { resolved, settings } = prepared;
  const nativeStore = await native.NativeHandleStore.openChecked(settings);
  const engine = native.ResultHandlesEngine.create(settings, nativeStore);
  const store = new ResultHandleStore(nativeStore, nativeStore.ttlSeconds);
  // A whole result whose JSON has at most `thresholdBytes` UTF-16 units (several content blocks, say) has at most
  // that many bytes' worth of content to inspect and almost always passes: checking it on the JS thread is cheaper
  // than a hop to the thread pool. Anything longer may fold (preview, shape, measuring), so it runs off the JS thread,
  // as does every split answer (the cheap checks pass most short ones before any native call).
  const inlineChars = resolved.thresholdBytes;
  return {
    store,
    prepare: async (resultJson, toolMetaJson) =>
      resultJson.length <= inlineChars
        ? engine.prepareSync(resultJson, toolMetaJson ?? undefined)
        : engine.prepare(resultJson, toolMetaJson ?? undefined),
    prepareAnswer: (answer, parts, buffer) =>
      engine.prepareAnswer(answer, parts, buffer as native.AnswerBuffer | undefined),
    reserveAnswer: (units) => engine.reserveAnswer(units),
    textCertainlyUnderThreshold: (text, repeatsStructured) =>
      native.textCertainlyUnder(text, repeatsStructured, resolved.thresholdBytes),
    commit: (plan, session, subject) =>
      engine.commit(plan as native.FitPlan, session ?? undefined, subject ?? undefined),
    query: (argsJson, session, subject) => engine.query(argsJson, session ?? undefined, subject ?? undefined),
    resolveReferences: (argsJson, session, subject) =>
      engine.resolveReferences(argsJson, session ?? undefined, subject ?? undefined),
    storeHealth: () => engine.storeHealth(),
    watchStore: (watcher) => engine.watchStore(watcher),
    close: () => engine.close(),
  };
}

/** A function that opens the engine (the core calls it on first use). */
export function engineOpener(prepared: PreparedOptions): () => Promise<OpenedEngine> {
  return () => openEngine(prepared);
}
