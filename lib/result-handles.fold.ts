// ─── result-handles-native: fold ────────────────────────────────────────────
// Thin typed door to the native fold (src/core/fold.rs): the answer crosses as one string, preview and
// shape come back as JSON text.
import * as native from './native';
import type { ResolvedResultHandlesOptions } from './result-handles.options';

/** How an answer arrives: `JSON.stringify` output, or a tool's text. */
export type AnswerKind = 'json' | 'text';

/**
 * The shape of a folded answer. Nodes whose details were left out carry `truncated: true`; the top node
 * then carries a `note` saying what was shortened.
 */
export type ResultShape =
  | {
      type: 'object';
      keys?: Record<string, ResultShape & { optional?: true }>;
      keyCount?: number;
      truncated?: true;
      note?: string;
    }
  | { type: 'array'; length: number; items?: ResultShape; truncated?: true; note?: string }
  | { type: 'string'; length: number; note?: string }
  | { type: 'number' | 'boolean' | 'null'; note?: string }
  | { anyOf: ResultShape[] }
  | { truncated: true };

/** The fold's decision; the JSON fields stay text until someone needs them parsed. */
export type FoldDecision =
  | { folded: false; bytes: number }
  | { folded: true; bytes: number; previewJson: string; shapeJson: string; canonicalJson?: string };

/**
 * Fold settings from resolved options.
 *
 * @example
 * const settings = foldSettingsOf(normalizeOptions({ thresholdBytes: 4096 }));
 */
export function foldSettingsOf(options: ResolvedResultHandlesOptions): native.FoldSettings {
  return {
    thresholdBytes: options.thresholdBytes,
    previewItems: options.preview.items,
    previewChars: options.preview.chars,
  };
}

function decision(result: native.FoldResult): FoldDecision {
  if (!result.folded) return { folded: false, bytes: result.bytes };
  return {
    folded: true,
    bytes: result.bytes,
    previewJson: result.previewJson ?? 'null',
    shapeJson: result.shapeJson ?? '{}',
    ...(result.canonicalJson === undefined ? {} : { canonicalJson: result.canonicalJson }),
  };
}

/**
 * Measures an answer and folds it when it is larger than `thresholdBytes`, off the JS thread.
 *
 * @example
 * const d = await foldAnswer(JSON.stringify(data), 'json', options);
 * if (d.folded) send(foldedJson(d.previewJson, d.shapeJson, handle));
 */
export async function foldAnswer(
  answer: string,
  kind: AnswerKind,
  options: ResolvedResultHandlesOptions,
): Promise<FoldDecision> {
  return decision(await native.foldAnswer(answer, kind, foldSettingsOf(options)));
}

/** The synchronous twin of {@link foldAnswer}. */
export function foldAnswerSync(answer: string, kind: AnswerKind, options: ResolvedResultHandlesOptions): FoldDecision {
  return decision(native.foldAnswerSync(answer, kind, foldSettingsOf(options)));
}

/** `{"preview":…,"shape":…,"handle":"…"}`: the folded answer the model sees. */
export function foldedJson(previewJson: string, shapeJson: string, handle: string): string {
  return native.foldedJson(previewJson, shapeJson, handle);
}
