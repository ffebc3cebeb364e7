// ─── ResultHandlesPlugin: the FrontMCP drop-in ────────────────────────────────
//
// Hooks the `tools:call-tool` flow (FrontMCP 1.5.x):
// - Will('parseInput'): counts tool calls in progress in the request's FrontMcpContext, so that a call made by
//   another tool (CodeCall and other unmarked callers) is known to be nested;
// - Will('execute'): records the owner of each result_query call (the tool's own auth info lacks it over HTTP);
// - Will('fitAnswer') where the SDK has that stage, else Will('finalize'): folds the answer. It runs after
//   applyUI and before the finalize body, on every success path (cache hits too); it replaces
//   `state.rawOutput` with a full CallToolResult, which the finalize body passes through as is.
import { foldStage, type FrontMcpSdk, loadFrontMcpSdk, missingSdkError } from './host/frontmcp-sdk';
import { isZodSchema, jsonSchemaAdmits, zodAdmits } from './host/admission';
import { frontMcpOwner, FrontMcpRuntime, runtimeForScope } from './host/frontmcp-runtime';
import { type Admission, type FoldedAnswer } from './host/pipeline';
import { type ResultHandlesOptions } from './host/open-engine';
import { type ResultHandlesStats } from './host/stats';
import { ResultHandlesConfigToken, ResultHandlesRuntimeToken, ResultHandleStoreToken } from './result-handles.symbols';
import { queryOwners, ResultQueryTool, ResultQueryToolWithReferences } from './tools/result-query.tool';
import { type CodedFailure } from './host/pipeline';

/** FrontMcpContext key of the number of tool calls in progress in one request. */
const DEPTH_KEY = 'result-handles:call-depth';

/** Lowest priority runs first (FrontMCP sorts hooks ascending). */
const FIRST = -1_000_000;
/** The fold runs after every other Will hook of its stage, so it folds what they leave. */
const LAST = 1_000_000;

const SCHEMA_ADVICE =
  'Declare preview, shape and handle in the output schema (for example with .extend(foldedAnswerSchema.partial().shape) and optional original keys), or leave this tool out with foldPolicy.';

/** Flows whose handle references were already looked at (every instance of a scope hooks every flow). */
const referencesSeen = new WeakSet<object>();

/** Whether a flow runs inside another tool call (recorded once per flow, however many instances hook it). */
const nestedFlows = new WeakMap<object, boolean>();
/** Flows whose depth count this glue raised and has not yet lowered. */
const countedFlows = new WeakSet<object>();

interface FlowContextLike {
  state: Record<string, unknown> & { set?: (key: string, value: unknown) => void };
  rawInput?: { request?: unknown; ctx?: { internalCall?: unknown; _skipUI?: unknown } };
  scope?: unknown;
  /** The flow's logger, named for this one call (`CallToolFlow(<tool>)`). */
  logger?: unknown;
  /** The scope's logger (FrontMCP 1.5.x `FlowBase.scopeLogger`). */
  scopeLogger?: unknown;
  tryGetContext?: () => { get(key: string): unknown; set(key: string, value: unknown): void } | undefined;
}

interface ToolEntryLike {
  name: string;
  fullName: string;
  metadata?: { ui?: unknown };
  outputSchema?: unknown;
  rawOutputSchema?: unknown;
  safeParseOutput(raw: unknown): { success: boolean; data?: unknown };
}

function requestContext(flowCtx: FlowContextLike) {
  try {
    const context = flowCtx.tryGetContext?.();
    return context && typeof context.get === 'function' && typeof context.set === 'function' ? context : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The logger warnings go to: a child of the scope's logger named for the plugin. Not the flow's own logger: the
 * runtime keeps the first logger offered, and a flow's logger is named for one call of one tool, so a later warning
 * about another tool would carry the wrong name. Falls back to the flow's logger where there is no scope logger.
 */
function pluginLogger(flowCtx: FlowContextLike): unknown {
  const scopeLogger = flowCtx.scopeLogger as { child?: (name: string) => unknown } | undefined;
  if (scopeLogger && typeof scopeLogger.child === 'function') {
    try {
      return scopeLogger.child('ResultHandlesPlugin');
    } catch {
      return scopeLogger;
    }
  }
  return scopeLogger ?? flowCtx.logger;
}

function isRawShape(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.values(value).every(isZodSchema)
  );
}

/** Whether the tool's output schema admits `{ preview, shape, handle }` (see docs/hosts.md). */
async function frontMcpAdmits(tool: ToolEntryLike, folded: FoldedAnswer): Promise<Admission> {
  if (typeof tool.rawOutputSchema === 'object' && tool.rawOutputSchema !== null) {
    return jsonSchemaAdmits(tool.rawOutputSchema, folded, SCHEMA_ADVICE); // OpenAPI / remote tools
  }
  const descriptor = tool.outputSchema;
  if (isZodSchema(descriptor)) return zodAdmits(descriptor, folded, SCHEMA_ADVICE);
  if (isRawShape(descriptor)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { z } = require('zod/v4') as typeof import('zod/v4');
    return zodAdmits(z.object(descriptor as Record<string, import('zod/v4').ZodType>), folded, SCHEMA_ADVICE);
  }
  return true; // no schema, or a literal one ('string', 'image'…) that lists no JSON Schema
}

/** Options accepted by `ResultHandlesPlugin.init` (the plugin options; see docs). */
export type ResultHandlesPluginOptions = ResultHandlesOptions;

/** The plugin's name: its `@Plugin` metadata and the record `init()` returns say the same. */
const PLUGIN_NAME = 'result-handles';

/**
 * What `ResultHandlesPlugin.init()` returns: the value form of FrontMCP's `PluginType` (`{ provide, useValue }` with
 * the plugin metadata's required `name`), the shape `DynamicPlugin.init` returns. Declared here, not imported from
 * `@frontmcp/sdk`, so that the package's types compile without the SDK; it is assignable to `PluginType` because it
 * matches that member structurally (the SDK's own providers and the options ride along at run time).
 */
export interface ResultHandlesPluginRecord {
  /** The plugin's name, as in its `@Plugin` metadata (FrontMCP's `PluginMetadata` requires it). */
  readonly name: string;
  /** The plugin class (FrontMCP's DI token for the plugin). */
  readonly provide: ResultHandlesPluginClass;
  /** The plugin instance these options built. */
  readonly useValue: object;
}

/** The plugin class as this package exports it. */
export interface ResultHandlesPluginClass {
  /** Validates the options at once and returns the plugin record to list in `plugins`. */
  init(options?: ResultHandlesPluginOptions): ResultHandlesPluginRecord;
  /**
   * The counters of the plugin made by `init(options)` (the same options object): folded, passed whole by
   * reason, kept bytes, queries by outcome, store failures. `undefined` before `init(options)`.
   */
  stats(options: ResultHandlesPluginOptions): ResultHandlesStats | undefined;
  new (options?: ResultHandlesPluginOptions): { stats(): ResultHandlesStats };
}

const runtimesByOptions = new WeakMap<object, FrontMcpRuntime>();

/** One runtime per `init(options)` call: `dynamicProviders(opts)` and `new Plugin(opts)` get the same object. */
function runtimeFor(options: ResultHandlesPluginOptions): FrontMcpRuntime {
  let runtime = runtimesByOptions.get(options);
  if (!runtime) {
    runtime = new FrontMcpRuntime(options);
    runtimesByOptions.set(options, runtime);
  }
  return runtime;
}

function definePlugin(sdk: FrontMcpSdk): ResultHandlesPluginClass {
  const stage = foldStage(sdk);
  const Base = sdk.DynamicPlugin as unknown as {
    new (...args: unknown[]): object;
    init(options: unknown): Omit<ResultHandlesPluginRecord, 'name'>;
  };

  /**
   * Keeps large tool answers out of the model's context: an answer over `thresholdBytes` is sealed in the store,
   * bound to its caller, and replaced by `{ preview, shape, handle }`; `result_query` reads the rest.
   *
   * @example
   * ```ts
   * @FrontMcp({ plugins: [ResultHandlesPlugin.init({ thresholdBytes: 16_384, storage: { type: 'redis', redis: { url } } })] })
   * class Server {}
   * ```
   */
  @sdk.Plugin({
    name: PLUGIN_NAME,
    description: 'Keeps large tool answers out of the model context and serves them in parts through result_query',
    tools: [ResultQueryTool],
  })
  class ResultHandlesPlugin extends Base {
    static dynamicProviders = (options: ResultHandlesPluginOptions = {}) => {
      const runtime = runtimeFor(options);
      return [
        { name: 'result-handles:config', provide: ResultHandlesConfigToken, useValue: runtime.config() },
        { name: 'result-handles:runtime', provide: ResultHandlesRuntimeToken, useValue: runtime },
        {
          name: 'result-handles:store',
          provide: ResultHandleStoreToken,
          inject: () => [] as const,
          useFactory: () => runtime.store(),
        },
      ];
    };

    static override init(options: ResultHandlesPluginOptions = {}): ResultHandlesPluginRecord {
      const runtime = runtimeFor(options); // validates now: invalid options throw ResultHandlesConfigurationError
      // The record's keys override the @Plugin metadata (contract §1). The same name changes nothing there, and it is
      // what makes the record a `PluginType` for the compiler; result_query is listed with the description that
      // explains handle references only when they are on.
      const record = { ...super.init(options), name: PLUGIN_NAME };
      if (!runtime.references.on) return record;
      const withReferences = { ...record, tools: [ResultQueryToolWithReferences] };
      return withReferences;
    }

    static stats(options: ResultHandlesPluginOptions): ResultHandlesStats | undefined {
      return runtimesByOptions.get(options)?.core.stats();
    }

    readonly runtime: FrontMcpRuntime;

    constructor(options: ResultHandlesPluginOptions = {}) {
      super();
      this.runtime = runtimeFor(options);
    }

    /** This plugin's counters (see {@link ResultHandlesStats}). */
    stats(): ResultHandlesStats {
      return this.runtime.core.stats();
    }

    @sdk.ToolHook.Will('parseInput', { priority: FIRST })
    async enterCall(flowCtx: FlowContextLike): Promise<void> {
      if (nestedFlows.has(flowCtx)) return;
      const context = requestContext(flowCtx);
      const depth = Number(context?.get(DEPTH_KEY) ?? 0) || 0;
      nestedFlows.set(flowCtx, depth > 0);
      if (context) {
        context.set(DEPTH_KEY, depth + 1);
        countedFlows.add(flowCtx);
      }
    }

    /**
     * Resolves handle references in the call's arguments (when `handleReferences` is on for this tool) after the
     * tool is found and before its context is built, so the tool's input validation sees the values and the tool
     * never sees a handle. Nested calls (a tool calling a tool) are left as they are. A failure ends the call with
     * the code result_query would give.
     */
    @sdk.ToolHook.Will('createToolCallContext', { priority: FIRST })
    async resolveHandleReferences(flowCtx: FlowContextLike): Promise<void> {
      if (referencesSeen.has(flowCtx)) return;
      referencesSeen.add(flowCtx);
      const state = flowCtx.state;
      const tool = state.tool as ToolEntryLike | undefined;
      const input = state.input as { arguments?: unknown } | undefined;
      const marks = flowCtx.rawInput?.ctx;
      if (!tool || !input || marks?.internalCall === true || nestedFlows.get(flowCtx) === true) return;
      const runtime = runtimeForScope(flowCtx.scope, this.runtime, () => pluginLogger(flowCtx));
      if (!runtime.references.enabledFor(tool.name, tool.fullName)) return;
      let args: unknown;
      try {
        args = await runtime.references.resolve(input.arguments, frontMcpOwner(state.authInfo));
      } catch (failure) {
        const { code, message } = failure as CodedFailure;
        throw new sdk.PublicMcpError(message, code);
      }
      if (args === input.arguments) return;
      const resolved = { ...input, arguments: args };
      if (typeof state.set === 'function') state.set('input', resolved);
      else state.input = resolved;
    }

    @sdk.ToolHook.Will('execute', { priority: FIRST })
    async recordQueryOwner(flowCtx: FlowContextLike): Promise<void> {
      const toolContext = flowCtx.state.toolContext;
      if (toolContext instanceof ResultQueryTool) queryOwners.set(toolContext, frontMcpOwner(flowCtx.state.authInfo));
    }

    @sdk.ToolHook.Will(stage, { priority: LAST })
    async fitAnswer(flowCtx: FlowContextLike): Promise<void> {
      if (countedFlows.has(flowCtx)) {
        countedFlows.delete(flowCtx);
        const context = requestContext(flowCtx);
        if (context) context.set(DEPTH_KEY, Math.max(0, (Number(context.get(DEPTH_KEY)) || 1) - 1));
      }
      const state = flowCtx.state;
      const raw = state.rawOutput;
      const tool = state.tool as ToolEntryLike | undefined;
      if (raw === undefined || !tool || typeof tool.safeParseOutput !== 'function') return; // the tool failed
      if (state.toolContext instanceof ResultQueryTool) return; // never fold result_query's own answers
      if (tool.metadata?.ui) return; // UI tools: finalize rebuilds their content from the unfolded value
      const marks = flowCtx.rawInput?.ctx;
      if (marks?.internalCall === true || marks?._skipUI === true || nestedFlows.get(flowCtx) === true) return;
      const owner = frontMcpOwner(state.authInfo);
      if (!owner) return; // stateless anonymous call

      const parsed = tool.safeParseOutput(raw);
      if (!parsed.success) return; // the finalize body reports it
      const runtime = runtimeForScope(flowCtx.scope, this.runtime, () => pluginLogger(flowCtx));
      if (!runtime.hasLogger) runtime.useLogger(pluginLogger(flowCtx));
      const fitted = await runtime.core.fit(parsed.data, {
        toolName: tool.name,
        fullName: tool.fullName,
        request: flowCtx.rawInput?.request,
        owner,
        admits: (folded) => frontMcpAdmits(tool, folded),
      });
      if (fitted !== parsed.data) state.rawOutput = fitted;
    }
  }
  return ResultHandlesPlugin as unknown as ResultHandlesPluginClass;
}

/** Stand-in exported when `@frontmcp/sdk` is not installed: `init()` says what to install. */
class ResultHandlesPluginWithoutSdk {
  static init(): never {
    throw missingSdkError();
  }

  static stats(): undefined {
    return undefined;
  }

  constructor() {
    throw missingSdkError();
  }
}

const sdk = loadFrontMcpSdk();

/** The FrontMCP plugin: `ResultHandlesPlugin.init(options)` in `@FrontMcp({ plugins })` or `@App({ plugins })`. */
export const ResultHandlesPlugin: ResultHandlesPluginClass = sdk
  ? definePlugin(sdk)
  : (ResultHandlesPluginWithoutSdk as unknown as ResultHandlesPluginClass);

export default ResultHandlesPlugin;
