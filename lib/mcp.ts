// ─── result-handles-native/mcp: adapter for the official MCP TypeScript SDK ─
//
// `createResultHandles(options)` → `{ attach(server), close() }`. `attach` wraps every tool registered on an
// `McpServer` (through `registerTool` or `tool`, before or after attaching) so that a large answer is kept in the
// store and replaced by `{ preview, shape, handle }`, and registers `result_query` on that server. One store serves
// every server it is attached to: the SDK's stateful HTTP pattern builds one `McpServer` per session, and a handle
// reads back only from its own session (and subject).
import { randomUUID } from 'node:crypto';

import { z } from 'zod/v4';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

import { isZodSchema, jsonSchemaAdmits, zodAdmits } from './host/admission';
import { consoleLogger, type ResultHandlesLogger } from './host/logger';
import { NestingGuard } from './host/nesting';
import { type Owner, nonEmpty, ownerOf } from './host/owner';
import { type Admission, type FoldedAnswer, HostPipeline, type CodedFailure } from './host/pipeline';
import { engineOpener, prepareOptions, type ResultHandlesOptions } from './host/open-engine';
import { HandleReferenceResolver } from './host/handle-references';
import { RESULT_QUERY_TOOL_NAME } from './result-handles.options';
import { resultQueryDescription, resultQueryInputShape, resultQueryOutputShape } from './host/result-query.schema';
import { type ResultHandlesStats } from './host/stats';

export { foldable, type FoldableShape } from './host/zod-foldable';
export type { ResultHandlesLogger } from './host/logger';
export type { ResultHandlesOptions } from './host/open-engine';
export type { FoldedAnswer, FoldPolicy } from './host/pipeline';
export { RESULT_HANDLES_METRICS, type ResultHandlesStats, type ResultHandlesStoreHealth } from './host/stats';

const ATTACHED = Symbol.for('result-handles-native/mcp.attached');

const FOLDABLE_ADVICE =
  'Wrap the output schema with foldable() from result-handles-native/mcp to let it carry a folded answer.';

// ─── SDK internals the adapter relies on (guarded) ──────────────────────────

type ToolHandler = (...args: unknown[]) => unknown;

interface RegisteredToolLike {
  handler: unknown;
  enabled?: boolean;
  outputSchema?: unknown;
  _meta?: Record<string, unknown>;
  update(updates: Record<string, unknown>): void;
}

type RequestHandlerLike = (request: { params?: Record<string, unknown> }, extra: RequestExtraLike) => unknown;

interface McpServerLike {
  registerTool(...args: unknown[]): RegisteredToolLike;
  tool(...args: unknown[]): RegisteredToolLike;
  server?: { transport?: object; _requestHandlers?: Map<string, RequestHandlerLike> };
  _registeredTools?: Record<string, RegisteredToolLike>;
  [ATTACHED]?: boolean;
}

interface RequestExtraLike {
  sessionId?: unknown;
  authInfo?: { clientId?: unknown; extra?: Record<string, unknown> };
  _meta?: unknown;
}

/** Options of {@link ResultHandles.attach}. */
export interface AttachOptions {
  /**
   * Treat the server's connection as one session when the transport has no session id. `'auto'` (the default)
   * does so for stdio (`StdioServerTransport`), where one process serves one client; `true` for any transport
   * (for example an in-memory pair); `false` never (then only an authenticated caller's answers fold).
   */
  connectionSession?: 'auto' | boolean;
}

/** Host options of {@link createResultHandles} (the plugin options are the first argument). */
export interface AdapterOptions {
  /** Where warnings go (default: `console.warn` with a `[result-handles]` prefix). */
  logger?: ResultHandlesLogger;
}

/** What {@link createResultHandles} returns. */
export interface ResultHandles {
  /** Wraps the server's tools and registers `result_query` on it. Attaching one server twice throws. */
  attach(server: McpServer, options?: AttachOptions): void;
  /** Opens the store now (it opens on first use otherwise); rejects when it cannot be reached. */
  ready(): Promise<void>;
  /** Disconnects the store. */
  close(): Promise<void>;
  /**
   * Counters since creation: folded, passed whole by reason, kept bytes, queries by outcome, store failures; and the
   * store's state with its outages' count and time.
   */
  stats(): ResultHandlesStats;
}

// ─── Owner mapping ───────────────────────────────────────────────────────────

const connectionIds = new WeakMap<object, string>();

function connectionSession(server: McpServerLike, mode: 'auto' | boolean): string | undefined {
  const transport = server.server?.transport;
  if (!transport || mode === false) return undefined;
  if (mode !== true && transport.constructor?.name !== 'StdioServerTransport') return undefined;
  let id = connectionIds.get(transport);
  if (id === undefined) {
    id = `connection:${randomUUID()}`;
    connectionIds.set(transport, id);
  }
  return id;
}

/**
 * The caller of one request: session = the transport's session id (`extra.sessionId`, verified by the transport),
 * else the connection for stdio; subject = `user:<extra.authInfo.extra.sub>` when the auth layer sets a subject,
 * else `client:<extra.authInfo.clientId>`.
 */
function ownerFromExtra(
  extra: RequestExtraLike | undefined,
  server: McpServerLike,
  mode: 'auto' | boolean,
): Owner | undefined {
  const session = nonEmpty(extra?.sessionId) ?? connectionSession(server, mode);
  const auth = extra?.authInfo;
  const sub = nonEmpty(auth?.extra?.sub);
  const clientId = nonEmpty(auth?.clientId);
  const subject = sub !== undefined ? `user:${sub}` : clientId !== undefined ? `client:${clientId}` : undefined;
  return ownerOf(session, subject);
}

// ─── Output-schema admission (the SDK's own view of a schema) ───────────────

type SdkSchemaHelpers = {
  normalizeObjectSchema(schema: unknown): unknown;
  toJsonSchemaCompat(schema: unknown, options: object): object;
};

let sdkHelpers: SdkSchemaHelpers | undefined;

function schemaHelpers(): SdkSchemaHelpers {
  if (!sdkHelpers) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { normalizeObjectSchema } = require('@modelcontextprotocol/sdk/server/zod-compat.js');
    const { toJsonSchemaCompat } = require('@modelcontextprotocol/sdk/server/zod-json-schema-compat.js');
    /* eslint-enable @typescript-eslint/no-require-imports */
    sdkHelpers = { normalizeObjectSchema, toJsonSchemaCompat };
  }
  return sdkHelpers;
}

const listedSchemas = new WeakMap<object, object | null>();

/** The JSON Schema the SDK lists for an output schema (as `tools/list` builds it), or null when it lists none. */
function listedJsonSchema(schema: object): object | null {
  let listed = listedSchemas.get(schema);
  if (listed === undefined) {
    const { normalizeObjectSchema, toJsonSchemaCompat } = schemaHelpers();
    const object = normalizeObjectSchema(schema);
    listed = object ? toJsonSchemaCompat(object, { strictUnions: true, pipeStrategy: 'output' }) : null;
    listedSchemas.set(schema, listed);
  }
  return listed;
}

async function outputSchemaAdmits(schema: unknown, folded: FoldedAnswer): Promise<Admission> {
  if (!isZodSchema(schema)) return { reason: 'its output schema is not a zod schema', advice: FOLDABLE_ADVICE };
  const listed = listedJsonSchema(schema);
  if (listed === null) {
    return { reason: 'the SDK lists no JSON Schema for a non-object output schema', advice: FOLDABLE_ADVICE };
  }
  const byZod = await zodAdmits(schema, folded, FOLDABLE_ADVICE);
  if (byZod !== true) return byZod;
  return jsonSchemaAdmits(listed, folded, FOLDABLE_ADVICE);
}

// ─── Handle references: resolved before the SDK validates a tool's input ─────

/**
 * Wraps the server's `tools/call` handler so that handle references in a call's arguments are resolved before
 * McpServer looks at them: it validates the input against the tool's schema inside that same handler, so this is
 * the one place that runs first on every path (plain calls, task calls, automatic task polling).
 */
function resolveReferencesBeforeValidation(
  server: McpServerLike,
  references: HandleReferenceResolver,
  owner: (extra: RequestExtraLike) => Owner | undefined,
): void {
  const handlers = server.server?._requestHandlers;
  const callTool = handlers?.get('tools/call');
  if (!handlers || typeof callTool !== 'function') {
    throw new Error(
      'handleReferences: this McpServer has no tools/call handler to wrap (an unsupported @modelcontextprotocol/sdk ' +
        'version?); leave handleReferences off or use @modelcontextprotocol/sdk 1.x.',
    );
  }
  handlers.set('tools/call', async (request, extra) => {
    const params = request?.params;
    const name = params?.name;
    const tool = typeof name === 'string' ? server._registeredTools?.[name] : undefined;
    // Unknown and disabled tools get McpServer's own answer, without a store read.
    if (!tool || tool.enabled === false || !references.enabledFor(name as string)) {
      return callTool(request, extra);
    }
    let args: unknown;
    try {
      args = await references.resolve(params?.arguments, owner(extra));
    } catch (failure) {
      return failureResult(failure as CodedFailure);
    }
    return args === params?.arguments
      ? callTool(request, extra)
      : callTool({ ...request, params: { ...params, arguments: args } }, extra);
  });
}

// ─── The adapter ─────────────────────────────────────────────────────────────

function failureResult(failure: CodedFailure): Record<string, unknown> {
  return {
    content: [{ type: 'text', text: `${failure.code}: ${failure.message}` }],
    isError: true,
    _meta: { code: failure.code },
  };
}

/**
 * Creates the result-handles runtime for the MCP TypeScript SDK. Options are checked at once (invalid ones throw
 * `ResultHandlesConfigurationError` naming every problem); the store opens on first use.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { createResultHandles } from 'result-handles-native/mcp';
 *
 * const handles = createResultHandles({ thresholdBytes: 16_384, storage: { type: 'memory' } });
 * function serverForSession() {
 *   const server = new McpServer({ name: 'shop', version: '1.0.0' });
 *   server.registerTool('list_orders', { description: 'All orders' }, listOrders);
 *   handles.attach(server); // before or after registering tools
 *   return server;
 * }
 * ```
 */
export function createResultHandles(options: ResultHandlesOptions = {}, adapter: AdapterOptions = {}): ResultHandles {
  const prepared = prepareOptions(options);
  const logger = adapter.logger ?? consoleLogger;
  const core = new HostPipeline(
    engineOpener(prepared),
    { foldPolicy: prepared.foldPolicy, thresholdBytes: prepared.resolved.thresholdBytes },
    logger,
  );
  const guard = new NestingGuard();
  const references = new HandleReferenceResolver(prepared.resolved.handleReferences, () => core.ready());

  function wrapTool(
    server: McpServerLike,
    initialName: string,
    registered: RegisteredToolLike,
    mode: 'auto' | boolean,
  ) {
    let name = initialName;
    const wrapHandler = (handler: unknown): unknown => {
      if (typeof handler !== 'function') return handler; // task handlers ({ createTask, … }) are left alone
      const original = handler as ToolHandler;
      return async function resultHandlesTool(this: unknown, ...callArgs: unknown[]) {
        const extra = callArgs[callArgs.length - 1] as RequestExtraLike | undefined;
        if (guard.nested(extra)) return original.apply(this, callArgs);
        let result: unknown;
        guard.enter(extra);
        try {
          result = await original.apply(this, callArgs);
        } finally {
          guard.leave(extra);
        }
        if (core.passesAtOnce(result)) return result;
        const args = callArgs.length > 1 ? callArgs[0] : undefined;
        const schema = registered.outputSchema;
        return await core.fitUnsure(result, {
          toolName: name,
          fullName: name,
          request: { method: 'tools/call', params: { name, arguments: args, _meta: extra?._meta } },
          owner: ownerFromExtra(extra, server, mode),
          toolMeta: registered._meta,
          admits: schema ? (folded) => outputSchemaAdmits(schema, folded) : undefined,
        });
      };
    };
    registered.handler = wrapHandler(registered.handler);
    const update = registered.update.bind(registered);
    registered.update = (updates: Record<string, unknown>) => {
      if (typeof updates.name === 'string') name = updates.name;
      const next = updates.callback === undefined ? updates : { ...updates, callback: wrapHandler(updates.callback) };
      update(next);
    };
  }

  return {
    attach(server: McpServer, attachOptions: AttachOptions = {}): void {
      const target = server as unknown as McpServerLike;
      if (typeof target?.registerTool !== 'function' || typeof target.tool !== 'function') {
        throw new TypeError('attach() expects an McpServer from @modelcontextprotocol/sdk/server/mcp.js.');
      }
      if (target[ATTACHED]) throw new Error('result-handles is already attached to this McpServer.');
      const mode = attachOptions.connectionSession ?? 'auto';

      for (const [name, registered] of Object.entries(target._registeredTools ?? {})) {
        if (name !== RESULT_QUERY_TOOL_NAME) wrapTool(target, name, registered, mode);
      }
      const registerTool = target.registerTool.bind(target);
      const tool = target.tool.bind(target);
      target.registerTool = (...args: unknown[]) => {
        const registered = registerTool(...args);
        wrapTool(target, args[0] as string, registered, mode);
        return registered;
      };
      target.tool = (...args: unknown[]) => {
        const registered = tool(...args);
        wrapTool(target, args[0] as string, registered, mode);
        return registered;
      };
      target[ATTACHED] = true;

      registerTool(
        RESULT_QUERY_TOOL_NAME,
        {
          title: 'Read a kept result',
          description: resultQueryDescription(references.on),
          inputSchema: resultQueryInputShape(z),
          outputSchema: resultQueryOutputShape(z),
          annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        },
        async (args: unknown, extra: RequestExtraLike) => {
          try {
            const answer = await core.query(args, ownerFromExtra(extra, target, mode));
            return { content: [{ type: 'text', text: answer }], structuredContent: JSON.parse(answer) as unknown };
          } catch (failure) {
            return failureResult(failure as CodedFailure);
          }
        },
      );
      if (references.on) {
        resolveReferencesBeforeValidation(target, references, (extra) => ownerFromExtra(extra, target, mode));
      }
    },
    async ready(): Promise<void> {
      await core.ready();
    },
    close(): Promise<void> {
      return core.close();
    },
    stats: () => core.stats(),
  };
}

/**
 * One-server shorthand: `createResultHandles(options)` attached to `server`.
 *
 * @example
 * ```ts
 * const server = new McpServer({ name: 'shop', version: '1.0.0' });
 * const handles = withResultHandles(server, { storage: { type: 'memory' } });
 * await server.connect(new StdioServerTransport()); // stdio: the connection is the session
 * ```
 */
export function withResultHandles(
  server: McpServer,
  options: ResultHandlesOptions = {},
  adapter: AdapterOptions & AttachOptions = {},
): ResultHandles {
  const handles = createResultHandles(options, adapter);
  handles.attach(server, adapter);
  return handles;
}
