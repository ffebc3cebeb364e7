// ─── Handing one answer to the engine: what a fold costs the JS thread ─────────
//
// The JS thread's share of a fold is one JSON.stringify of structuredContent, one `===` with the text that repeats
// it (which makes V8 flatten the stringify's rope) and one copy of the answer into Rust; for a long text, a proof
// that it repeats structuredContent instead of the first two. This file orders those steps so that they overlap the
// engine's work instead of preceding it, and so that each long step has its own event-loop tick:
// - a long answer's stringify starts a tick of its own (its length told by the text beside it), so that the SDK's
//   work on the call and the early hand-over below do not add to the longest stall, which is the stringify's;
// - a text of 256 K to 2 M characters that looks like JSON.stringify output is handed over in place of the answer
//   before the stringify, so that the engine folds while this thread stringifies, and the plan is kept only when
//   the comparison finds the text `===` to the answer: the same bytes crossed;
// - a text longer than that is proved to repeat structuredContent a piece at a time (`stringified.ts`), never
//   stringifying the whole answer: no rope and no flat copy of it (a lower peak of memory), and the event loop gets
//   a turn every 2 M characters instead of one stall as long as the whole stringify. The answer's native buffer is
//   reserved as the proof starts, so that another thread touches its pages while this one compares; once a quarter
//   of the text is proved it crosses into that warm buffer (src/binding/warm.rs) and the engine folds while the
//   proof goes on;
// - a text that is not proved (an array item or root with a `toJSON`, a text written otherwise) goes the whole way:
//   one stringify, one `===` and a copy, the buffer reserved as the comparison's tick starts. Not before the
//   stringify: on Node 24, whose stringify grows one flat buffer, a buffer touched meanwhile added a copy of the
//   answer to the peak and cost the JS thread more.
import type { AnswerPartsLike, EngineLike, FitPlanLike } from './pipeline';
import { provedStringified } from './stringified';

/** An answer whose `content` is at most one text block: the shapes handed over split. */
export interface SplitAnswer {
  /** `structuredContent` (`undefined` when absent or null). */
  structured: unknown;
  /** The one text block's text. */
  text: string | undefined;
}

/** What `prepare` says of an answer whose size the host measured under the threshold (no native call). */
export const UNDER_THRESHOLD: FitPlanLike = { kind: 'pass', reason: 'under-threshold' };

/** Answers this long are worth giving the event loop a turn between two long steps, and a warm buffer. */
const YIELD_CHARS = 256 * 1024;

/**
 * Texts up to this long are handed over before the stringify, to fold while it runs: on one native thread, and
 * into a cold buffer (a warm one needs a step on this thread to overlap, and up to here its page faults cost less
 * than the fold they let start early). Beyond it the copy before the stringify is cold and long (tried: no faster),
 * so longer answers are proved a piece at a time, or cross after the comparison, into a warm buffer.
 */
const EARLY_CHARS = 2 * 1024 * 1024;

/**
 * Gives the event loop a whole turn: timers and I/O run before this resolves. One `setImmediate` is not enough: set
 * from the timers or poll phase it runs in the same turn's check phase, so a step after it would still delay every
 * timer (a long stringify and the copy after it stalled an interval as one tick); the second, set from the check
 * phase, runs in the next turn.
 */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * The proof that a long text repeats structuredContent gives the event loop a turn every this many characters, where
 * the whole stringify it replaces was one step.
 */
const PROOF_TURN_CHARS = 2 * 1024 * 1024;

/** Where the answer goes once it is a string, and how its size is judged. */
export interface HandOverContext {
  engine: EngineLike & Required<Pick<EngineLike, 'prepareAnswer'>>;
  /** The parts every hand-over sends (envelope, tool `_meta`, owner). */
  parts: Omit<AnswerPartsLike, 'kind' | 'text'>;
  /** Whether a `JSON.stringify` output is certainly no longer than the threshold. */
  certainlyUnder: (json: string) => boolean;
  /** The whole result's way, for a structuredContent `JSON.stringify` does not turn into a string. */
  whole: () => Promise<FitPlanLike>;
}

/**
 * Whether `text` may be `JSON.stringify` output of an object or array, judged from its first two characters (that
 * output has no whitespace between tokens; a pretty-printed text starts `{\n`). Only a bet: the `===` decides.
 */
function looksStringified(text: string): boolean {
  const first = text[0];
  return (first === '{' || first === '[') && text.charCodeAt(1) > 0x20;
}

/** A hand-over whose plan may not be kept: its failure is the comparison's to report, never unhandled. */
function tentative(plan: Promise<FitPlanLike>): Promise<FitPlanLike> {
  plan.catch(() => undefined);
  return plan;
}

/**
 * Hands the answer of a split result to the engine and resolves with its plan; `undefined` when it is not JSON
 * (cycles, BigInt), so that it passes whole.
 */
export async function handOver(split: SplitAnswer, context: HandOverContext): Promise<FitPlanLike | undefined> {
  const { engine, parts } = context;
  const { structured, text } = split;
  if (structured === undefined) {
    // Nothing to do on this thread before the copy: no buffer to warm meanwhile.
    return text === undefined ? undefined : engine.prepareAnswer(text, { ...parts, kind: 'text' });
  }

  // A text certainly under the threshold would fold nothing: not worth a bet.
  const bet =
    text !== undefined &&
    text.length > YIELD_CHARS &&
    text.length <= EARLY_CHARS &&
    looksStringified(text) &&
    !context.certainlyUnder(text);
  let early = bet ? handOverText(text, context) : undefined;
  // A long stringify (or proof) starts a turn of its own, so that the SDK's work on this call (and the early
  // hand-over) does not lengthen its stall. Only a long text tells that it will be long: beside a short or no text,
  // no turn is given away.
  if (text !== undefined && text.length > YIELD_CHARS) await yieldToLoop();
  let buffer: unknown;
  if (text !== undefined && text.length > EARLY_CHARS && looksStringified(text)) {
    const proving = await proveWhileHandingOver(structured, text, context);
    if (proving.plan) return proving.plan;
    ({ early, buffer } = proving);
  }
  let answer: string | undefined;
  try {
    answer = JSON.stringify(structured) as string | undefined;
  } catch {
    return undefined;
  }
  if (typeof answer !== 'string') return context.whole();
  // Its size is the UTF-8 length of this JSON (well-formed: JSON.stringify escapes lone surrogates).
  if (context.certainlyUnder(answer)) return UNDER_THRESHOLD;
  // The stringify, the comparison (which flattens V8's rope on Node 20) and the copy get a turn each; the buffer is
  // reserved at the start of the comparison's turn, not at the end of the stringify's.
  if (answer.length > YIELD_CHARS) await yieldToLoop();
  buffer ??= early ? undefined : reserve(engine, answer);
  const repeats = text === undefined || text === answer;
  if (repeats && early) return early;
  if (answer.length > YIELD_CHARS) await yieldToLoop();
  // Not `===`: the text says something else, or repeats the answer written otherwise; compared natively, off this
  // thread (a text holding a lone surrogate crosses as UTF-16).
  return engine.prepareAnswer(answer, { ...parts, kind: 'structured', text: repeats ? undefined : text }, buffer);
}

/** The text handed over as the answer, folded on one native thread while this one is busy (see `tentative`). */
function handOverText(text: string, context: HandOverContext, buffer?: unknown): Promise<FitPlanLike> {
  const options = { ...context.parts, kind: 'structured' as const, oneThread: true };
  return tentative(context.engine.prepareAnswer(text, options, buffer));
}

/** What proving a long text left: the plan when it is proved; else the text's hand-over, if made, and the buffer. */
interface Proving {
  plan?: FitPlanLike | Promise<FitPlanLike>;
  early?: Promise<FitPlanLike>;
  buffer?: unknown;
}

/**
 * Proves that a text longer than {@link EARLY_CHARS} repeats structuredContent, a piece at a time (see
 * `stringified.ts`), giving the event loop a turn every {@link PROOF_TURN_CHARS}. Its buffer is reserved as the
 * proof starts, so that another thread touches its pages meanwhile; the text crosses into it once a quarter of it is
 * proved, and the engine folds while the proof goes on. A failed proof leaves what it started to the whole way.
 */
async function proveWhileHandingOver(structured: unknown, text: string, context: HandOverContext): Promise<Proving> {
  const under = context.certainlyUnder(text);
  let buffer = under ? undefined : reserve(context.engine, text);
  let early: Promise<FitPlanLike> | undefined;
  const handOverOnce = () => {
    if (!under && !early) [early, buffer] = [handOverText(text, context, buffer), undefined];
  };
  const turns = {
    every: PROOF_TURN_CHARS,
    give: async (read: number) => {
      await yieldToLoop();
      if (read >= text.length / 4) handOverOnce();
    },
  };
  if (!(await provedStringified(structured, text, turns))) return { early, buffer };
  if (under) return { plan: UNDER_THRESHOLD };
  handOverOnce();
  return { plan: early };
}

/** A warm buffer for a long answer's copy (see `EngineLike.reserveAnswer`); a short one is copied at once. */
function reserve(engine: EngineLike, answer: string): unknown {
  return answer.length > YIELD_CHARS ? engine.reserveAnswer?.(answer.length) : undefined;
}
