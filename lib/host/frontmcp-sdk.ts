// ─── @frontmcp/sdk as an optional peer ────────────────────────────────────────
//
// The package's main entry must import fine without @frontmcp/sdk (MCP SDK users never install it). The SDK is
// required once, at load; when it is missing, the FrontMCP exports exist but `ResultHandlesPlugin.init` (and the
// tool) throw {@link missingSdkError}. Only the parts of the 1.5.x surface the glue touches are typed here (see
// docs/hosts.md for the contract they follow).

/** A decorator factory result, legacy (experimentalDecorators) form. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Decorator = (...args: any[]) => any;

/** What the glue uses from `@frontmcp/sdk` 1.5.x. */
export interface FrontMcpSdk {
  DynamicPlugin: new (...args: unknown[]) => object;
  Plugin: (metadata: Record<string, unknown>) => Decorator;
  Tool: (metadata: Record<string, unknown>) => Decorator;
  ToolContext: new (...args: unknown[]) => object;
  ToolHook: { Will: (stage: string, options?: { priority?: number }) => Decorator };
  PublicMcpError: new (message: string, code?: string, statusCode?: number) => Error;
  /** The call-tool flow class, when exported (checked for a `fitAnswer` stage). */
  CallToolFlow?: { prototype?: Record<string, unknown> };
}

/** The error `ResultHandlesPlugin.init` throws when `@frontmcp/sdk` is not installed. */
export function missingSdkError(): Error {
  const error = new Error(
    'ResultHandlesPlugin needs @frontmcp/sdk (>=1.5 <2), which is not installed. Install it next to this package ' +
      '(npm install @frontmcp/sdk), or use the MCP TypeScript SDK adapter from result-handles-native/mcp.',
  );
  (error as Error & { code: string }).code = 'FRONTMCP_SDK_MISSING';
  return error;
}

function isModuleNotFound(error: unknown, name: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  return (
    (e?.code === 'MODULE_NOT_FOUND' || e?.code === 'ERR_MODULE_NOT_FOUND') &&
    typeof e.message === 'string' &&
    e.message.includes(name)
  );
}

/** `@frontmcp/sdk` when it resolves, else `undefined`. A broken install (any other load error) is rethrown. */
export function loadFrontMcpSdk(): FrontMcpSdk | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sdk = require('@frontmcp/sdk') as FrontMcpSdk;
    return sdk && typeof sdk.DynamicPlugin === 'function' ? sdk : undefined;
  } catch (error) {
    if (isModuleNotFound(error, '@frontmcp/sdk')) return undefined;
    throw error;
  }
}

/** The `tools:call-tool` stage the fold hook attaches to: `fitAnswer` where the SDK has one, else `finalize`. */
export function foldStage(sdk: FrontMcpSdk): 'fitAnswer' | 'finalize' {
  return typeof sdk.CallToolFlow?.prototype?.fitAnswer === 'function' ? 'fitAnswer' : 'finalize';
}
