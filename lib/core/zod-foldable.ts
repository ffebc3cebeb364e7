// ─── foldable(): widen an object output schema to admit the folded form ───────
import { z } from 'zod';

/** The keys of the folded form; a widened schema may not already use them. */
export const FOLDED_KEYS = ['preview', 'shape', 'handle'] as const;

type AnyShape = Record<string, z.ZodType>;

/** The widened schema's shape: every original key optional, plus the three folded keys. */
export type FoldableShape<Shape extends AnyShape> = { [K in keyof Shape]: z.ZodOptional<Shape[K]> } & {
  preview: z.ZodOptional<z.ZodUnknown>;
  shape: z.ZodOptional<z.ZodUnknown>;
  handle: z.ZodOptional<z.ZodString>;
};

function isZodObject(value: unknown): value is z.ZodObject<AnyShape> {
  const def = (value as { _zod?: { def?: { type?: unknown } } } | undefined)?._zod?.def;
  return def?.type === 'object' && typeof (value as { shape?: unknown }).shape === 'object';
}

function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false; // async checks: treat the key as required
  }
}

/**
 * Widens an object output schema (a zod v4 `z.object` or a raw shape) so that it also admits the folded form
 * `{ preview, shape, handle }`, and the MCP TypeScript SDK still lists it as an object JSON Schema.
 *
 * Why: a tool's large answer is replaced by `{ preview, shape, handle }`, which the SDK checks against the tool's
 * output schema (and the client against the JSON Schema listed for it). A `z.union` of both forms cannot be used:
 * `McpServer` (1.32) lists no schema for it and then fails every call of the tool. So the widened schema is one
 * object whose keys are all optional (the listed JSON Schema says so), with a refinement that restores the rules on
 * the server side: an answer is either the folded form and nothing else, or has every key the original requires.
 * Each original key keeps its own schema (types, transforms, refinements).
 *
 * @example
 * ```ts
 * import { foldable } from 'result-handles-native/mcp';
 *
 * server.registerTool(
 *   'list_orders',
 *   { outputSchema: foldable(z.object({ orders: z.array(Order), total: z.number() })) },
 *   async () => ({ content: [...], structuredContent: { orders, total } }),
 * );
 * ```
 */
export function foldable<Shape extends AnyShape>(
  schema: z.ZodObject<Shape> | Shape,
): z.ZodObject<FoldableShape<Shape>> {
  const shape: AnyShape = isZodObject(schema) ? schema.shape : (schema as AnyShape);
  for (const key of FOLDED_KEYS) {
    if (Object.prototype.hasOwnProperty.call(shape, key)) {
      throw new TypeError(
        `foldable(): the schema already declares "${key}", which the folded form { preview, shape, handle } uses; ` +
          'rename that key or leave this tool out of folding.',
      );
    }
  }
  const required = Object.keys(shape).filter((key) => !acceptsUndefined(shape[key]));
  const widened: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape)) widened[key] = field.optional();
  widened.preview = z.unknown().optional();
  widened.shape = z.unknown().optional();
  widened.handle = z.string().optional();

  const object = z.object(widened).superRefine((value, ctx) => {
    const record = value as Record<string, unknown>;
    const folded = FOLDED_KEYS.filter((key) => record[key] !== undefined);
    if (folded.length === FOLDED_KEYS.length) {
      for (const key of Object.keys(shape)) {
        if (record[key] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'A folded answer holds only preview, shape, handle.' });
        }
      }
      return;
    }
    if (folded.length > 0) {
      ctx.addIssue({ code: 'custom', message: 'A folded answer holds all of preview, shape and handle.' });
    }
    for (const key of required) {
      if (record[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'Required' });
    }
  });
  return object as unknown as z.ZodObject<FoldableShape<Shape>>;
}
