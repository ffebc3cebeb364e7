// ─── The host-neutral core: fit an answer, answer a result_query ───────────────
//
// Both hosts (the FrontMCP plugin and the MCP SDK adapter) map their own call context onto these two entry points.
// Everything that decides lives in the native engine (fit.rs, fold.rs, store.rs, query.rs); this file only orders
// the steps, calls the JS-side pieces a host owns (foldPolicy, output-schema admission) and turns outcomes into
// logs. On the JS thread an answer costs at most one JSON.stringify: an answer whose one text bounds it under the
// threshold is sent on at once (no native call), and a larger one crosses once, as JSON.stringify(structuredContent)
// or its one text, never with the text that repeats it (see `fit`).
import * as native from '../native';
import { type Owner } from './owner';
import { Warnings } from './logger';
import { Stats, STORE_NOT_OPENED, type ResultHandlesStats, type ResultHandlesStoreHealth } from './stats';
import { handOver, type HandOverContext, type SplitAnswer } from './hand-over';

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

/** A CallToolResult split by the host: everything but the answer (see `prepareAnswer`). */
export interface AnswerPartsLike {
  /** The result without `content` and `structuredContent`, as JSON. */
  envelopeJson: string;
  /** `'structured'` or `'text'`. */
  kind: string;
  /** With `'structured'`: the only text, when it is not `===` to the answer. */
  text?: string;
  toolMetaJson?: string;
  session?: string;
  subject?: string;
  /** Fold on one native thread: the host keeps the JS thread busy meanwhile. */
  oneThread?: boolean;
}

/** The native engine as the core uses it. */
export interface EngineLike {
  prepare(resultJson: string, toolMetaJson?: string | null): Promise<FitPlanLike>;
  /**
   * `prepare` for a split result: `answer` crosses once (into `buffer` when one was reserved); with an owner it is
   * sealed while it folds.
   */
  prepareAnswer?(answer: string, parts: AnswerPartsLike, buffer?: unknown): Promise<FitPlanLike>;
  /**
   * Reserves the native buffer an answer of `units` UTF-16 units will be copied into, its pages touched on another
   * thread while this one does other work (the copy then writes into warm memory).
   */
  reserveAnswer?(units: number): unknown;
  /**
   * Whether a text answer (at most a threshold long) certainly passes under the threshold: one native pass over its
   * UTF-16 units, no fold. `repeatsStructured`: it is the only text beside structuredContent; else the text is the
   * answer. `false` means only that `prepare` decides.
   */
  textCertainlyUnderThreshold?(text: string, repeatsStructured: boolean): boolean;
  commit(plan: FitPlanLike, session?: string | null, subject?: string | null): Promise<string>;
  query(argsJson: string, session?: string | null, subject?: string | null): Promise<string>;
  /** The arguments with their handle references resolved (JSON text), or null when they hold none. */
  resolveReferences(argsJson: string, session?: string | null, subject?: string | null): Promise<string | null>;
  /** Whether the store answers now, and its outages. */
  storeHealth?(): ResultHandlesStoreHealth;
  /** Calls `watcher` when a store outage starts and when it ends (not keeping the process alive). */
  watchStore?(watcher: (event: StoreEventLike) => void): void;
  close(): Promise<void>;
}

/** A store outage that starts (`'down'`, with what failed) or ends (`'up'`, with how long it lasted). */
export interface StoreEventLike {
  state: 'up' | 'down';
  cause?: string | null;
  outageMs?: number | null;
}

const STORE_UNAVAILABLE = 'RESULT_STORE_UNAVAILABLE';

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

function splitAnswer(result: Record<string, unknown>): SplitAnswer | undefined {
  const content = result.content;
  if (!Array.isArray(content) || content.length > 1) return undefined;
  let text: string | undefined;
  if (content.length === 1) {
    const block: unknown = content[0];
    if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
    text = block.text;
  }
  const structured = result.structuredContent ?? undefined;
  if (structured === undefined && text === undefined) return undefined;
  return { structured, text };
}

/** The engine's one-pass check of a text answer (see `EngineLike.textCertainlyUnderThreshold`). */
type TextScan = (text: string, repeatsStructured: boolean) => boolean;

/**
 * Whether the answer is certainly no larger than `threshold` bytes, judged from its one text alone, without a
 * fold: the engine's one pass over the text (`scan`, once the engine is open) decides, but for a text of at most
 * `alwaysUnder` units, which the engine says fits whatever it holds (`textUnitsAlwaysUnder`). Anything unsure goes
 * the exact way.
 */
function certainlyUnder(split: SplitAnswer, threshold: number, alwaysUnder: number, scan: TextScan): boolean {
  const text = split.text;
  if (text === undefined || text.length > threshold) return false;
  return text.length <= alwaysUnder || scan(text, split.structured !== undefined);
}

/** Whether a well-formed string is at most `threshold` bytes in UTF-8 (at most 3 bytes per UTF-16 unit). */
function utf8Within(text: string, threshold: number): boolean {
  if (text.length > threshold) return false;
  return text.length * 3 <= threshold || Buffer.byteLength(text) <= threshold;
}

/**
 * The steps of one fit and one query, shared by both hosts.
 *
 * @example
 * ```ts
 * const core = new HostPipeline(() => engine, { foldPolicy }, console);
 * const answer = await core.fit(result, { toolName, fullName: toolName, request, owner: { session } });
 * ```
 */
export class HostPipeline {
  private engine: Promise<EngineLike> | undefined;
  /** The engine once `engine` resolved (read synchronously by the cheap checks). */
  private opened: EngineLike | undefined;
  /** Owner-less calls per tool that could fold, counted until the tool has been warned about. */
  private readonly ownerless = new Map<string, number>();
  private readonly warnings: Warnings;
  private readonly counters = new Stats();
  /** Texts this long or shorter are under the threshold whatever they hold (the engine's rule). */
  private readonly alwaysUnderUnits: number;

  constructor(
    private readonly openEngine: () => Promise<EngineLike>,
    private readonly settings: { foldPolicy?: FoldPolicy; thresholdBytes?: number },
    logger: { warn(message: string): void },
  ) {
    this.warnings = new Warnings(logger);
    const threshold = settings.thresholdBytes;
    this.alwaysUnderUnits = threshold === undefined ? -1 : native.textUnitsAlwaysUnder(threshold);
  }

  /** The engine, opened on first use; a failed open is retried by the next call. */
  ready(): Promise<EngineLike> {
    if (!this.engine) {
      const opening = this.openEngine();
      this.engine = opening;
      opening.then(
        (engine) => {
          if (this.engine !== opening) return;
          this.opened = engine;
          engine.watchStore?.((event) => this.storeEvent(event));
        },
        () => {
          if (this.engine === opening) this.engine = undefined;
        },
      );
    }
    return this.engine;
  }

  /** The engine's one-scan check of a text answer, once the engine is open (a failing check decides nothing). */
  private readonly textScan: TextScan = (text, repeatsStructured) => {
    const check = this.opened?.textCertainlyUnderThreshold;
    if (!check) return false;
    try {
      return check.call(this.opened, text, repeatsStructured);
    } catch {
      return false; // prepare decides, and reports what failed
    }
  };

  /**
   * Returns `result` untouched, or the folded CallToolResult when every fold condition holds. Never throws: any
   * failure sends the answer whole (and a failure to keep it is logged, by code only).
   */
  async fit(result: unknown, call: FitCall): Promise<unknown> {
    return this.passesAtOnce(result) ? result : await this.fitUnsure(result, call);
  }

  /**
   * Whether the cheap checks alone pass `result` untouched (counted as passed): an answer certainly under the
   * threshold. Synchronous, so that a host can send the common answer without a promise more; an answer it does not
   * pass goes to {@link fitUnsure}.
   */
  passesAtOnce(result: unknown): boolean {
    const threshold = this.settings.thresholdBytes;
    if (threshold === undefined || !isObject(result)) return false;
    const split = splitAnswer(result);
    if (!split || !certainlyUnder(split, threshold, this.alwaysUnderUnits, this.textScan)) return false;
    this.counters.passedOne('under-threshold');
    return true;
  }

  /** {@link fit} for an answer that {@link passesAtOnce} did not pass. */
  async fitUnsure(result: unknown, call: FitCall): Promise<unknown> {
    if (!isObject(result)) return this.passed(result, 'not-a-call-tool-result');
    const split = splitAnswer(result);
    if (call.owner === undefined) {
      await this.warnIfOwnerlessWouldFold(result, split, call);
      return this.passed(result, 'no-owner');
    }

    let engine: EngineLike;
    let plan: FitPlanLike;
    try {
      engine = await this.ready();
      const prepared = await this.prepare(engine, result, split, call);
      if (prepared === undefined) return this.passed(result, 'not-json');
      plan = prepared;
    } catch (error) {
      this.warnings.once(
        `prepare:${errorCode(error)}`,
        `could not fold an answer of tool "${call.fullName}" (${errorCode(error)}); it was sent whole.`,
      );
      this.counters.failed(errorCode(error));
      return this.passed(result, 'prepare-failed');
    }
    if (plan.reason === 'too-deep-to-query') {
      this.warnings.once(
        `deep:${call.fullName}`,
        `tool "${call.fullName}": an answer over the threshold nests deeper than result_query can read, so it was ` +
          'sent whole.',
      );
    }
    if (plan.kind !== 'fold' || typeof plan.foldedJson !== 'string')
      return this.passed(result, plan.reason ?? 'unknown');

    const policy = this.settings.foldPolicy;
    if (policy) {
      try {
        const answer = this.answerOf(result, plan);
        const context = { bytes: plan.bytes ?? 0, fullName: call.fullName, request: call.request };
        if (!(await policy(call.toolName, answer, context))) return this.passed(result, 'fold-policy');
      } catch {
        this.warnings.once(
          `policy:${call.fullName}`,
          `foldPolicy threw for tool "${call.fullName}"; its answer was sent whole.`,
        );
        return this.passed(result, 'fold-policy-threw');
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
        return this.passed(result, 'output-schema');
      }
    }

    try {
      const folded = await engine.commit(plan, call.owner.session ?? null, call.owner.subject ?? null);
      this.counters.foldedOne(plan.bytes ?? 0);
      return JSON.parse(folded) as unknown;
    } catch (error) {
      // An unreachable store is told once as its outage starts and once as it ends, not on every call.
      if (errorCode(error) !== STORE_UNAVAILABLE) {
        this.warnings.say(
          `could not keep an answer of tool "${call.fullName}" (${errorCode(error)}); it was sent whole.`,
        );
      }
      this.counters.failed(errorCode(error));
      return this.passed(result, 'store-failed');
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
      const answer = await engine.query(argsJson, owner?.session ?? null, owner?.subject ?? null);
      this.counters.queried('ok');
      return answer;
    } catch (error) {
      const failure = codedFailure(error);
      this.counters.queried(failure.code);
      this.counters.failed(errorCode(error));
      throw failure;
    }
  }

  /** What this runtime has done so far (see {@link ResultHandlesStats}). */
  stats(): ResultHandlesStats {
    return this.counters.snapshot(this.opened?.storeHealth?.() ?? STORE_NOT_OPENED);
  }

  /** Says an outage's start and end, each once, whether a call or a background probe found it. */
  private storeEvent(event: StoreEventLike): void {
    if (event.state === 'down') {
      this.warnings.say(
        `the result store stopped answering (${event.cause ?? STORE_UNAVAILABLE}): large answers are sent whole, and ` +
          `result_query and handle references fail with ${STORE_UNAVAILABLE} at once, until it is back ` +
          '(checked in the background, about once a second).',
      );
    } else {
      const seconds = ((event.outageMs ?? 0) / 1000).toFixed(1);
      this.warnings.say(`the result store answers again after ${seconds} s down; large answers fold again.`);
    }
  }

  private passed(result: unknown, reason: string): unknown {
    this.counters.passedOne(reason);
    return result;
  }

  /**
   * A call with no session and no caller never folds (nobody could read the handle back). Says so once per tool,
   * when such an answer would have folded. Finding that out costs a `prepare`, so for each tool the engine is asked
   * on its 1st, 2nd, 4th, 8th… such call (an answer the cheap checks could not pass) until it has warned, and
   * never after: a tool whose large answers pass for another reason (UI, errors) costs a few prepares, not one a
   * call.
   */
  private async warnIfOwnerlessWouldFold(
    result: Record<string, unknown>,
    split: SplitAnswer | undefined,
    call: FitCall,
  ) {
    const key = `no-owner:${call.fullName}`;
    if (this.warnings.has(key)) return;
    const calls = (this.ownerless.get(call.fullName) ?? 0) + 1;
    this.ownerless.set(call.fullName, calls);
    if ((calls & (calls - 1)) !== 0) return; // not a power of two
    try {
      const plan = await this.prepare(await this.ready(), result, split, call);
      if (plan?.kind !== 'fold') return;
    } catch {
      return; // the store or engine is down: that is warned about where it matters
    }
    this.ownerless.delete(call.fullName);
    this.warnings.once(
      key,
      `tool "${call.fullName}": an answer over the threshold was sent whole because the call has no session and no ` +
        'authenticated caller to keep it for. Serve it over a transport with sessions, authenticate callers, or ' +
        '(MCP SDK adapter) attach with { connectionSession: true } when one connection is one client.',
    );
  }

  /** Closes the store (and forgets the engine). */
  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    this.opened = undefined;
    if (engine) await (await engine.catch(() => undefined))?.close();
  }

  /**
   * Hands the answer to the engine: split (the answer crosses once, the text repeating structuredContent never)
   * when its content is at most one text, else the whole result as JSON. `undefined`: not JSON (cycles, BigInt),
   * or a text that does not repeat structuredContent, so the answer passes whole.
   */
  private async prepare(
    engine: EngineLike,
    result: Record<string, unknown>,
    split: SplitAnswer | undefined,
    call: FitCall,
  ): Promise<FitPlanLike | undefined> {
    let toolMetaJson: string | undefined;
    let envelopeJson: string;
    try {
      if (isObject(call.toolMeta)) toolMetaJson = JSON.stringify(call.toolMeta);
      if (!split || !engine.prepareAnswer) return await engine.prepare(JSON.stringify(result), toolMetaJson ?? null);
      const { content: _content, structuredContent: _structured, ...envelope } = result;
      envelopeJson = JSON.stringify(envelope);
    } catch {
      return undefined; // cycles, BigInt: not JSON, so not ours to fold
    }

    const whole = () => engine.prepare(JSON.stringify(result), toolMetaJson ?? null);
    return handOver(split, {
      engine: engine as HandOverContext['engine'], // prepareAnswer checked above
      parts: {
        envelopeJson,
        toolMetaJson,
        session: call.owner?.session ?? undefined,
        subject: call.owner?.subject ?? undefined,
      },
      certainlyUnder: (json) => this.jsonCertainlyUnder(json),
      whole,
    });
  }

  /** Whether a `JSON.stringify` output (well-formed: it escapes lone surrogates) is no longer than the threshold. */
  private jsonCertainlyUnder(json: string): boolean {
    const threshold = this.settings.thresholdBytes;
    return threshold !== undefined && utf8Within(json, threshold);
  }

  /** The answer `foldPolicy` sees: structuredContent, or the text (parsed when it holds JSON). */
  private answerOf(result: Record<string, unknown>, plan: FitPlanLike): unknown {
    if (plan.answerKind === 'structured') return result.structuredContent;
    const content = Array.isArray(result.content) ? (result.content as Array<{ text?: unknown }>) : [];
    const text = content.find((block) => typeof block?.text === 'string')?.text as string | undefined;
    return plan.answerKind === 'json-text' && text !== undefined ? (JSON.parse(text) as unknown) : text;
  }
}
