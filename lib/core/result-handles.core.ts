// ─── The host-neutral core: fit an answer, answer a result_query ───────────────
//
// Both hosts (the FrontMCP plugin and the MCP SDK adapter) map their own call context onto these two entry points.
// Everything that decides lives in the native engine (fit.rs, fold.rs, store.rs, query.rs); this file only orders
// the steps, calls the JS-side pieces a host owns (foldPolicy, output-schema admission) and turns outcomes into
// logs. It never reads, measures or rewrites an answer itself.
import * as native from '../native';
import { type Owner } from './owner';
import { Warnings } from './logger';

/** `{ preview, shape, handle }`: what a model sees in place of a large answer. */
export interface FoldedAnswer {
  preview: unknown;
  shape: unknown;
  handle: string;
}

/** What the engine decided about one answer (a native object: the kept answer stays on the Rust side). */
export interface FitPlanLike {
  /** `'pass'`: send untouched (see `reason`); `'fold'`: a candidate over the threshold. */
  readonly kind: string;
  /** Why it passes: `is-error`, `ui-answer`, `under-threshold`… (stable kebab-case names). */
  readonly reason?: string | null;
  /** Byte length of the answer's JSON (`Buffer.byteLength(JSON.stringify(answer))`). */
  readonly bytes?: number | null;
  /** `{"preview":…,"shape":…,"handle":…}` when `kind` is `'fold'`. */
  readonly foldedJson?: string | null;
  /** `'structured'` (structuredContent), `'json-text'` (a text holding JSON) or `'text'` (any other text). */
  readonly answerKind?: string | null;
}

/** The native engine as the core uses it. */
export interface EngineLike {
  prepare(resultJson: string, toolMetaJson?: string | null): Promise<FitPlanLike>;
  commit(plan: FitPlanLike, session?: string | null, subject?: string | null): Promise<string>;
  query(argsJson: string, session?: string | null, subject?: string | null): Promise<string>;
  /** The arguments with their handle references resolved (JSON text), or null when they hold none. */
  resolveReferences(argsJson: string, session?: string | null, subject?: string | null): Promise<string | null>;
  close(): Promise<void>;
}

/** `foldPolicy(toolName, answer, { bytes, fullName, request })`: return false to send an answer whole. */
export type FoldPolicy = (
  toolName: string,
  answer: unknown,
  context: { bytes: number; fullName: string; request: unknown },
) => boolean | Promise<boolean>;

/** Whether a tool's output schema admits the folded form: `true`, or why not and what the author can do. */
export type Admission = true | { reason: string; advice?: string };

/** One tool call, as a host maps it. */
export interface FitCall {
  /** The tool's name as the client called it. */
  toolName: string;
  /** The host's full name of the tool (FrontMCP `owner:name`; the MCP adapter uses the name). */
  fullName: string;
  /** The request, as handed to `foldPolicy`. */
  request: unknown;
  /** The caller; `undefined` means a stateless anonymous call, which passes untouched. */
  owner: Owner | undefined;
  /** The tool definition's `_meta` (UI tools are recognized from it). */
  toolMeta?: unknown;
  /** Checks that the tool's output schema admits the folded structuredContent. */
  admits?: (folded: FoldedAnswer) => Admission | Promise<Admission>;
}

/** A coded failure of `result_query` (RESULT_HANDLE_NOT_FOUND, RESULT_PATH_NOT_FOUND, …). */
export interface CodedFailure {
  code: string;
  message: string;
  remedy?: string;
}

/** Codes a caller can cause; anything else is reported as an internal fault with a generic message. */
const PUBLIC_CODES: ReadonlySet<string> = new Set(native.queryPublicErrorCodes());

/** The code and public text of a failure thrown by the engine. */
export function codedFailure(error: unknown): CodedFailure {
  const e = error as { code?: unknown; message?: unknown; remedy?: unknown } | undefined;
  if (e && typeof e.code === 'string' && PUBLIC_CODES.has(e.code) && typeof e.message === 'string') {
    return { code: e.code, message: e.message, remedy: typeof e.remedy === 'string' ? e.remedy : undefined };
  }
  return {
    code: 'RESULT_HANDLES_INTERNAL',
    message: 'result_query failed inside the server. Call the original tool again.',
  };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'an unexpected error';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The steps of one fit and one query, shared by both hosts.
 *
 * @example
 * ```ts
 * const core = new ResultHandlesCore(() => engine, { foldPolicy }, console);
 * const answer = await core.fit(result, { toolName, fullName: toolName, request, owner: { session } });
 * ```
 */
export class ResultHandlesCore {
  private engine: Promise<EngineLike> | undefined;
  private readonly warnings: Warnings;

  constructor(
    private readonly openEngine: () => Promise<EngineLike>,
    private readonly settings: { foldPolicy?: FoldPolicy },
    logger: { warn(message: string): void },
  ) {
    this.warnings = new Warnings(logger);
  }

  /** The engine, opened on first use; a failed open is retried by the next call. */
  ready(): Promise<EngineLike> {
    if (!this.engine) {
      const opening = this.openEngine();
      this.engine = opening;
      opening.catch(() => {
        if (this.engine === opening) this.engine = undefined;
      });
    }
    return this.engine;
  }

  /**
   * Returns `result` untouched, or the folded CallToolResult when every fold condition holds. Never throws: any
   * failure sends the answer whole (and a failure to keep it is logged, by code only).
   */
  async fit(result: unknown, call: FitCall): Promise<unknown> {
    if (call.owner === undefined || !isObject(result)) return result;
    let resultJson: string;
    let toolMetaJson: string | null = null;
    try {
      resultJson = JSON.stringify(result);
      if (isObject(call.toolMeta)) toolMetaJson = JSON.stringify(call.toolMeta);
    } catch {
      return result; // cycles, BigInt: not JSON, so not ours to fold
    }

    let engine: EngineLike;
    let plan: FitPlanLike;
    try {
      engine = await this.ready();
      plan = await engine.prepare(resultJson, toolMetaJson);
    } catch (error) {
      this.warnings.once(
        `prepare:${errorCode(error)}`,
        `could not fold an answer of tool "${call.fullName}" (${errorCode(error)}); it was sent whole.`,
      );
      return result;
    }
    if (plan.reason === 'too-deep-to-query') {
      this.warnings.once(
        `deep:${call.fullName}`,
        `tool "${call.fullName}": an answer over the threshold nests deeper than result_query can read, so it was ` +
          'sent whole.',
      );
    }
    if (plan.kind !== 'fold' || typeof plan.foldedJson !== 'string') return result;

    const policy = this.settings.foldPolicy;
    if (policy) {
      try {
        const answer = this.answerOf(result, plan);
        const context = { bytes: plan.bytes ?? 0, fullName: call.fullName, request: call.request };
        if (!(await policy(call.toolName, answer, context))) return result;
      } catch {
        this.warnings.once(
          `policy:${call.fullName}`,
          `foldPolicy threw for tool "${call.fullName}"; its answer was sent whole.`,
        );
        return result;
      }
    }

    if (call.admits) {
      const folded = JSON.parse(plan.foldedJson) as FoldedAnswer;
      let admission: Admission;
      try {
        admission = await call.admits(folded);
      } catch {
        admission = { reason: 'checking the schema threw' };
      }
      if (admission !== true) {
        this.warnings.once(
          `schema:${call.fullName}`,
          `tool "${call.fullName}": its output schema does not admit the folded form { preview, shape, handle } ` +
            `(${admission.reason}), so its large answers are sent whole.` +
            (admission.advice ? ` ${admission.advice}` : ''),
        );
        return result;
      }
    }

    try {
      const folded = await engine.commit(plan, call.owner.session ?? null, call.owner.subject ?? null);
      return JSON.parse(folded) as unknown;
    } catch (error) {
      this.warnings.say(
        `could not keep an answer of tool "${call.fullName}" (${errorCode(error)}); it was sent whole.`,
      );
      return result;
    }
  }

  /**
   * Runs `result_query` for `owner`: the store read and the query happen in one native call. Resolves with the
   * answer's JSON text (`{ path, value, total?, offset?, nextOffset? }`); rejects with a {@link CodedFailure}.
   */
  async query(args: unknown, owner: Owner | undefined): Promise<string> {
    try {
      const engine = await this.ready();
      const argsJson = JSON.stringify(args ?? {});
      return await engine.query(argsJson, owner?.session ?? null, owner?.subject ?? null);
    } catch (error) {
      throw codedFailure(error);
    }
  }

  /** Closes the store (and forgets the engine). */
  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await (await engine.catch(() => undefined))?.close();
  }

  /** The answer `foldPolicy` sees: structuredContent, or the text (parsed when it holds JSON). */
  private answerOf(result: Record<string, unknown>, plan: FitPlanLike): unknown {
    if (plan.answerKind === 'structured') return result.structuredContent;
    const content = Array.isArray(result.content) ? (result.content as Array<{ text?: unknown }>) : [];
    const text = content.find((block) => typeof block?.text === 'string')?.text as string | undefined;
    return plan.answerKind === 'json-text' && text !== undefined ? (JSON.parse(text) as unknown) : text;
  }
}
