// ─── foldable(): widen an object output schema to admit the folded form ───────
import { z } from 'zod/v4';

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

/** A zod v4 schema (zod 4, or zod 3.25+ through `zod/v4`): the kind `foldable()` can widen. */
function isZodV4Schema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** A zod 3 schema (`import { z } from 'zod'` on zod 3.x). */
function isZodV3Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value);
}

function unsupportedSchema(message: string): TypeError {
  return Object.assign(new TypeError(`foldable(): ${message}`), { code: 'FOLDABLE_UNSUPPORTED_SCHEMA' });
}

/** The object shape to widen, or a clear error for anything else (a union, an array, a zod 3 schema…). */
function objectShape(schema: unknown): AnyShape {
  if (isZodObject(schema)) return schema.shape;
  if (isZodV3Schema(schema)) {
    throw unsupportedSchema(
      'this is a zod 3 schema. With zod 3.25 or later, build the output schema with `import { z } from "zod/v4"` ' +
        '(the MCP SDK accepts those too); with zod 4, `import { z } from "zod"`.',
    );
  }
  if (isZodV4Schema(schema)) {
    const kind = String((schema as { _zod: { def?: { type?: unknown } } })._zod.def?.type ?? 'unknown');
    throw unsupportedSchema(
      `it takes a z.object(...) or a raw shape of zod schemas, not a ${kind} schema. ` +
        'McpServer lists only object output schemas (a union lists none and then fails every call): wrap the object ' +
        'the tool answers with, or give the tool no output schema.',
    );
  }
  const isRawShape =
    typeof schema === 'object' &&
    schema !== null &&
    !Array.isArray(schema) &&
    Object.values(schema).every(isZodV4Schema);
  if (!isRawShape) {
    throw unsupportedSchema('it takes a z.object(...) or a raw shape (an object whose values are zod schemas).');
  }
  return schema as AnyShape;
}

function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false; // async checks: treat the key as required
  }
}

/**
 * Widens an object output schema (a zod v4 `z.object` or a raw shape; on zod 3.25+ build it from `zod/v4`) so that it also admits the folded form
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
  const shape = objectShape(schema);
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
