// ─── result-handles-native: main entry (FrontMCP drop-in) ───────────────────
//
// Same exports as @frontmcp/plugin-result-handles. Importing this entry never needs @frontmcp/sdk: without it,
// ResultHandlesPlugin.init() throws an error saying to install it, and everything else works.
import * as native from './native';
import { ResultHandlesPlugin } from './result-handles.plugin';

export default ResultHandlesPlugin;
export { ResultHandlesPlugin };
export type { ResultHandlesPluginClass, ResultHandlesPluginRecord } from './result-handles.plugin';
export { foldedAnswerSchema } from './result-handles.types';
export type {
  FoldedAnswer,
  ResolvedResultHandlesOptions,
  ResultHandlesConfig,
  ResultHandlesFoldPolicy,
  ResultHandlesOptions,
  ResultHandlesPluginOptions,
  ResultHandlesPreviewOptions,
  ResultHandlesStorageOptions,
  ResultHandlesStorageType,
} from './result-handles.types';
export {
  createResultHandleStore,
  ResultHandleStore,
  BrowserStoreUnavailableError,
  ResultHandleStoreError,
} from './result-handle.store';
export type {
  CreateResultHandleStoreOptions,
  ResultHandleOwner,
  ResultHandleStorage,
  ResultHandleStorageConfig,
  ResultHandleStoreOptions,
} from './result-handle.store';
export { ResultHandleStoreToken, ResultHandlesConfigToken } from './result-handles.symbols';
export {
  DEFAULT_MEMORY_MAX_ENTRIES,
  MIN_THRESHOLD_BYTES,
  RESULT_HANDLE_META_KEY,
  RESULT_QUERY_TOOL_NAME,
  ResultHandlesConfigurationError,
  normalizeOptions,
} from './result-handles.options';
export { ResultQueryTool } from './tools/result-query.tool';
export { RESULT_HANDLES_METRICS } from './host/stats';
export type { ResultHandlesStats, ResultHandlesStoreHealth } from './host/stats';

/** Version of the native engine this package loaded. */
export const ENGINE_VERSION: string = native.engineVersion();
