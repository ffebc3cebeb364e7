// ─── Handle references in tool arguments (both hosts) ─────────────────────────
//
// With `handleReferences` on, a tool argument may name a kept answer instead of carrying it:
// `{ "$resultHandle": "<handle>", "path"?: "<path>" }`. Before the tool's input is validated, the host hands the
// arguments to the native engine, which reads each referenced answer for the caller (as result_query reads it) and
// gives the arguments back as JSON text with the values in place; they are parsed once here. What is a reference,
// what it names, who may read it and every limit are decided in Rust (src/core/references.rs).
import { type HandleReferencesSetting, RESULT_QUERY_TOOL_NAME } from '../result-handles.options';
import { type Owner } from './owner';
import { codedFailure, type CodedFailure, type EngineLike } from './pipeline';

/** The key that marks a reference (the engine recognises only the exact shape; this is a cheap pre-check). */
const REFERENCE_KEY_JSON = '"$resultHandle"';

/** Resolves the handle references in one host's tool calls. */
export class HandleReferenceResolver {
  private readonly pick: (toolName: string, fullName: string) => boolean;

  constructor(
    setting: HandleReferencesSetting | undefined,
    private readonly engine: () => Promise<EngineLike>,
  ) {
    this.pick = picker(setting);
  }

  /** Whether references are on for any tool (the `result_query` description and guide text say so only then). */
  get on(): boolean {
    return this.pick !== off;
  }

  /** Whether a call of this tool has its references resolved (never `result_query`'s own). */
  enabledFor(toolName: string, fullName = toolName): boolean {
    return toolName !== RESULT_QUERY_TOOL_NAME && this.pick(toolName, fullName);
  }

  /**
   * The arguments with every reference replaced by the value it names, read for `owner`; the same object when
   * they hold none. Rejects with a {@link CodedFailure} (RESULT_HANDLE_NOT_FOUND, RESULT_PATH_NOT_FOUND,
   * INVALID_INPUT naming a limit).
   */
  async resolve(args: unknown, owner: Owner | undefined): Promise<unknown> {
    let argsJson: string | undefined;
    try {
      argsJson = JSON.stringify(args);
    } catch {
      return args; // cycles, BigInt: not JSON, so no reference a client could have sent
    }
    if (argsJson === undefined || !argsJson.includes(REFERENCE_KEY_JSON)) return args;
    try {
      const engine = await this.engine();
      const resolved = await engine.resolveReferences(argsJson, owner?.session ?? null, owner?.subject ?? null);
      return resolved === null ? args : (JSON.parse(resolved) as unknown);
    } catch (error) {
      throw referenceFailure(error);
    }
  }
}

function off(): boolean {
  return false;
}

function picker(setting: HandleReferencesSetting | undefined): (toolName: string, fullName: string) => boolean {
  if (setting === true) return () => true;
  if (Array.isArray(setting) && setting.length > 0) {
    const names = new Set(setting);
    return (toolName, fullName) => names.has(toolName) || names.has(fullName);
  }
  if (typeof setting === 'function') {
    return (toolName) => {
      try {
        return setting(toolName) === true;
      } catch {
        return false; // a throwing predicate leaves the arguments as sent
      }
    };
  }
  return off;
}

function referenceFailure(error: unknown): CodedFailure {
  const failure = codedFailure(error);
  if (failure.code !== 'RESULT_HANDLES_INTERNAL') return failure;
  return { code: failure.code, message: 'Resolving a handle reference failed inside the server. Call the tool again.' };
}
