// ─── Types and schemas of the plugin ─────────────────────────────────────────
import { z } from 'zod/v4';

export type {
  ResolvedResultHandlesOptions,
  ResultHandlesFoldPolicy,
  ResultHandlesOptions,
  ResultHandlesPreviewOptions,
  ResultHandlesStorageOptions,
  ResultHandlesStorageType,
} from './result-handles.options';
export type { ResultHandlesConfig } from './host/frontmcp-runtime';
export type { ResultHandlesPluginOptions } from './result-handles.plugin';

/**
 * The folded answer a model sees in `structuredContent` (zod v4): `{ preview, shape, handle }`.
 *
 * @example
 * ```ts
 * const folded = foldedAnswerSchema.safeParse(result.structuredContent);
 * if (folded.success) await callTool('result_query', { handle: folded.data.handle, path: '$.orders', limit: 20 });
 * ```
 */
export const foldedAnswerSchema = z.object({
  /** The same structure with only the first items of every list and the first characters of every string. */
  preview: z.unknown(),
  /** The answer's shape: `{ type: 'object', keys }`, `{ type: 'array', length, items }`, `{ type: 'string', length }`… */
  shape: z.looseObject({}),
  /** The handle `result_query` reads the full answer with. */
  handle: z.string().min(1),
});

/** `{ preview, shape, handle }`. */
export type FoldedAnswer = z.infer<typeof foldedAnswerSchema>;
