// ─── result_query (FrontMCP tool) ─────────────────────────────────────────────
//
// Reads part of a kept answer for its owner. The owner is not the tool's own `getAuthInfo()` (over HTTP it has no
// session or user): the plugin's Will('execute') hook records `state.authInfo`'s owner for each result_query call,
// and the tool reads it back. Errors are `PublicMcpError(message, code)` so the code reaches the client in
// `_meta.code`.
import { z } from 'zod/v4';

import { type FrontMcpSdk, loadFrontMcpSdk, missingSdkError } from '../host/frontmcp-sdk';
import { type Owner } from '../host/owner';
import { type FrontMcpRuntime, runtimeForScope } from '../host/frontmcp-runtime';
import { type CodedFailure } from '../host/pipeline';
import {
  RESULT_QUERY_DESCRIPTION,
  RESULT_QUERY_DESCRIPTION_WITH_REFERENCES,
  resultQueryInputShape,
  resultQueryOutputShape,
} from '../host/result-query.schema';
import { RESULT_QUERY_TOOL_NAME } from '../result-handles.options';
import { ResultHandlesRuntimeToken } from '../result-handles.symbols';

/** Owners of result_query calls, keyed by their tool context (filled by the plugin's hook). */
export const queryOwners = new WeakMap<object, Owner | undefined>();

/** The tool's metadata (`@Tool`), shared with the tool listing. */
export const resultQueryToolMetadata = {
  name: RESULT_QUERY_TOOL_NAME,
  description: RESULT_QUERY_DESCRIPTION,
  inputSchema: resultQueryInputShape(z),
  outputSchema: z.object(resultQueryOutputShape(z)),
  annotations: { title: 'Read a kept result', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

interface ToolContextLike {
  scope?: unknown;
  get(token: unknown): unknown;
  fail(error: Error): never;
}

function defineResultQueryTool(sdk: FrontMcpSdk) {
  const Base = sdk.ToolContext as unknown as new (...args: unknown[]) => ToolContextLike;

  /**
   * Reads part of a kept answer: `{ handle, path?, offset?, limit?, page?, fields? }` →
   * `{ path, value, total?, offset?, nextOffset? }`.
   */
  @sdk.Tool(resultQueryToolMetadata)
  class ResultQueryTool extends Base {
    async execute(input: unknown): Promise<unknown> {
      const mine = this.get(ResultHandlesRuntimeToken) as FrontMcpRuntime;
      const runtime = runtimeForScope(this.scope, mine);
      try {
        return JSON.parse(await runtime.core.query(input, queryOwners.get(this))) as unknown;
      } catch (failure) {
        const { code, message } = failure as CodedFailure;
        return this.fail(new sdk.PublicMcpError(message, code));
      }
    }
  }
  /** The same tool, listed with a description that also explains handle references (`handleReferences` on). */
  @sdk.Tool({ ...resultQueryToolMetadata, description: RESULT_QUERY_DESCRIPTION_WITH_REFERENCES })
  class ResultQueryToolWithReferences extends ResultQueryTool {}
  return { ResultQueryTool, ResultQueryToolWithReferences };
}

/** Stand-in exported when `@frontmcp/sdk` is not installed: constructing it says what to install. */
class ResultQueryToolWithoutSdk {
  constructor() {
    throw missingSdkError();
  }
}

const sdk = loadFrontMcpSdk();

const defined = sdk ? defineResultQueryTool(sdk) : undefined;

/** The `result_query` tool class (a FrontMCP `ToolContext`); the plugin registers one per scope. */
export const ResultQueryTool: new (...args: never[]) => object = defined?.ResultQueryTool ?? ResultQueryToolWithoutSdk;

/** `result_query` as listed when `handleReferences` is on (a subclass of {@link ResultQueryTool}). */
export const ResultQueryToolWithReferences: new (...args: never[]) => object =
  defined?.ResultQueryToolWithReferences ?? ResultQueryToolWithoutSdk;
