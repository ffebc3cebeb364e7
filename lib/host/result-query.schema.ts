// ─── result_query: its description and schemas, shared by both hosts ──────────
//
// The input schema is deliberately lax on the zod side (every argument `unknown`): the engine checks the arguments
// (in Rust) and answers INVALID_INPUT naming the argument and its range, which a model can act on, where a zod
// failure would surface as a generic "Input validation error". The listed JSON Schema still tells a model each
// argument's type and range (zod v4 `.meta()` is merged into the JSON Schema the SDK lists).
import type { z as zod } from 'zod/v4';
import * as native from '../native';

type Z = typeof zod;

/** What `result_query` is for, as the tool listing says it. */
export const RESULT_QUERY_DESCRIPTION =
  'Read part of a large tool answer that was kept under a handle (a tool answer that shows { preview, shape, handle }). ' +
  'Give the handle and a path from the shape: a dot path (orders.2.note), a JSON pointer (/orders/2/note) or a ' +
  'JSONPath ($.orders[?@.status == "open"]). Lists and strings come in pages: offset and limit, or page; follow ' +
  'nextOffset until it is absent. fields keeps only some keys of an object or of each object in a list.';

/** The description when handle references are on: it also says how to hand a kept answer to another tool. */
export const RESULT_QUERY_DESCRIPTION_WITH_REFERENCES =
  RESULT_QUERY_DESCRIPTION +
  ' To pass a kept answer (or one part of it) to another tool without reading it, put ' +
  '{ "$resultHandle": "<handle>", "path": "<optional path>" } in that tool\'s arguments where the value goes.';

/** `result_query`'s description, mentioning handle references only when they are on. */
export function resultQueryDescription(referencesOn: boolean): string {
  return referencesOn ? RESULT_QUERY_DESCRIPTION_WITH_REFERENCES : RESULT_QUERY_DESCRIPTION;
}

/** The argument shape (a raw shape, as both SDKs take it). */
export function resultQueryInputShape(z: Z) {
  return {
    // `.catch` lets an absent handle through the host's parse (zod marks a catch optional at run time) so the engine
    // answers INVALID_INPUT with a remedy, while the listed JSON Schema still names handle as required (zod reads
    // the declared type under the catch).
    handle: z.unknown().catch(undefined).meta({ type: 'string', description: 'The handle from the folded answer.' }),
    path: z
      .unknown()
      .optional()
      .meta({ type: 'string', description: 'What to read: dot path, JSON pointer or JSONPath. Default $ (all).' }),
    offset: z
      .unknown()
      .optional()
      .meta({ type: 'integer', minimum: 0, description: 'First item (list) or character (string) to read.' }),
    limit: z
      .unknown()
      .optional()
      .meta({
        type: 'integer',
        minimum: 1,
        maximum: native.RESULT_QUERY_MAX_LIMIT,
        description:
          `How many items (default ${native.RESULT_QUERY_DEFAULT_LIST_LIMIT}) or characters ` +
          `(default ${native.RESULT_QUERY_DEFAULT_STRING_LIMIT}) to read.`,
      }),
    page: z
      .unknown()
      .optional()
      .meta({ type: 'integer', minimum: 1, description: 'Page number (from 1) of limit items; not with offset.' }),
    fields: z
      .unknown()
      .optional()
      .meta({
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'Keep only these keys of an object, or of each object in a list.',
      }),
  };
}

/** The answer's shape: `{ path, value, total?, offset?, nextOffset? }`. */
export function resultQueryOutputShape(z: Z) {
  return {
    path: z.string().describe('The normalized path of what was read.'),
    value: z.unknown().describe('The value (a page of it, for lists and strings).'),
    total: z.number().optional().describe('Length of the list or string, or number of matches.'),
    offset: z.number().optional().describe('Where this page starts.'),
    nextOffset: z.number().optional().describe('Where the next page starts; absent at the end.'),
  };
}
