// ─── DI tokens (same names as @frontmcp/plugin-result-handles) ────────────────

/** The plugin's store (a `ResultHandleStore`), for tools that want to keep or read answers themselves. */
export const ResultHandleStoreToken: unique symbol = Symbol('plugin:result-handles:store');

/** The plugin's resolved options (`thresholdBytes`, `ttlSeconds`, `preview`, `namespace`, `storage`). */
export const ResultHandlesConfigToken: unique symbol = Symbol('plugin:result-handles:config');

/** Internal: the plugin instance's runtime (engine + store), read by `result_query`. */
export const ResultHandlesRuntimeToken: unique symbol = Symbol('plugin:result-handles:runtime');
