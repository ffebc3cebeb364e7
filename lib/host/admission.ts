// ─── Output-schema admission: may a tool's answer be replaced by the folded form? ─
//
// A client caches each tool's listed output schema and rejects a structuredContent that fails it (MCP TS SDK:
// -32602), and the MCP SDK server checks structuredContent against the tool's zod schema. So a tool's answer is
// folded only when its schema admits `{ preview, shape, handle }`: a zod schema must accept it and keep every one of
// the three keys (z.object strips undeclared keys), and a JSON Schema must validate it. The JSON Schema check uses
// the validator MCP clients use (Ajv, through `@modelcontextprotocol/sdk/validation/ajv`); when that cannot be
// loaded, a JSON Schema is treated as not admitting (the answer goes whole: never a broken client).
import { type Admission, type FoldedAnswer } from './pipeline';
import { FOLDED_KEYS } from './zod-foldable';

type SafeParse = { success: boolean; data?: unknown };
type ZodLike = { safeParse?: (v: unknown) => SafeParse; safeParseAsync?: (v: unknown) => Promise<SafeParse> };
type Validate = (input: unknown) => { valid: boolean };

/** Whether `value` looks like a zod schema (v3 or v4). */
export function isZodSchema(value: unknown): value is ZodLike {
  const v = value as { _zod?: unknown; _def?: unknown; safeParse?: unknown } | undefined;
  return (
    !!v && typeof v === 'object' && (v._zod !== undefined || v._def !== undefined) && typeof v.safeParse === 'function'
  );
}

/** A zod schema admits the folded form when it accepts it and keeps all three keys. */
export async function zodAdmits(schema: ZodLike, folded: FoldedAnswer, advice?: string): Promise<Admission> {
  const parsed = schema.safeParseAsync ? await schema.safeParseAsync(folded) : schema.safeParse!(folded);
  if (!parsed.success) return { reason: 'the zod schema refuses it', advice };
  const data = parsed.data as Record<string, unknown> | undefined;
  const dropped = FOLDED_KEYS.filter((key) => !data || typeof data !== 'object' || !(key in data));
  if (dropped.length > 0) {
    return { reason: `the zod schema does not declare ${dropped.map((k) => `"${k}"`).join(', ')}`, advice };
  }
  return true;
}

let ajvValidator: { getValidator(schema: unknown): Validate } | null | undefined;

function jsonSchemaValidator(): { getValidator(schema: unknown): Validate } | null {
  if (ajvValidator === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv');
      ajvValidator = new AjvJsonSchemaValidator() as { getValidator(schema: unknown): Validate };
    } catch {
      ajvValidator = null;
    }
  }
  return ajvValidator;
}

const compiled = new WeakMap<object, Validate | null>();

/** A JSON Schema admits the folded form when it validates it (compiled once per schema object). */
export function jsonSchemaAdmits(schema: object, folded: FoldedAnswer, advice?: string): Admission {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    const validator = jsonSchemaValidator();
    try {
      validate = validator ? validator.getValidator(schema) : null;
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  if (validate === null) {
    return { reason: 'its JSON Schema could not be checked (install @modelcontextprotocol/sdk for Ajv)', advice };
  }
  return validate(folded).valid ? true : { reason: 'the JSON Schema refuses it', advice };
}
