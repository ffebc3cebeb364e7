// The fit's JS fast path (lib/host/pipeline.ts) against the engine's exact rule: an answer the core sends
// on without a native call must be one the engine, given the whole CallToolResult, would not fold either; and an
// answer handed over split must fold exactly as the whole result does.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { type OpenedEngine, openEngine, prepareOptions } from '../lib/host/open-engine';
import { HostPipeline } from '../lib/host/pipeline';

const THRESHOLD = 1024;
const OWNER = { session: 'fast-path-session' };
const call = { toolName: 't', fullName: 't', request: {}, owner: OWNER };

let engine: OpenedEngine;
let core: HostPipeline;

beforeAll(async () => {
  const prepared = prepareOptions({ thresholdBytes: THRESHOLD, storage: { type: 'memory' } });
  engine = await openEngine(prepared);
  core = new HostPipeline(async () => engine, { thresholdBytes: THRESHOLD }, { warn: () => {} });
});

afterAll(async () => {
  await core.close();
});

/** Texts near the threshold, including every case whose canonical form can be longer than the text. */
function texts(): string[] {
  const out: string[] = [];
  for (const n of [150, 160, 170, 320, 330, 480, 500, 980, 1000, 1010, 1030]) {
    out.push('a'.repeat(n));
    out.push('"'.repeat(n)); // doubles when quoted
    out.push('\u0001'.repeat(Math.ceil(n / 6))); // six bytes each when quoted
    out.push('é'.repeat(Math.ceil(n / 2)));
    out.push(`x${'\ud83d'.repeat(Math.ceil(n / 3))}`); // lone surrogates: 3 bytes as UTF-8, 6 as JSON
    out.push(JSON.stringify({ a: 'b'.repeat(n) }));
    out.push(JSON.stringify({ a: 'b'.repeat(n) }, null, 8)); // canonical form shorter
    out.push(
      `[${Array(Math.ceil(n / 5))
        .fill('1e20')
        .join(',')}]`,
    ); // canonical form longer: 100000000000000000000
    out.push(
      `{"n":[${Array(Math.ceil(n / 6))
        .fill('1E5')
        .join(',')}]}`,
    );
    out.push(`{${'"k":1,'.repeat(Math.ceil(n / 6))}`); // looks like JSON, is not: measured quoted
    out.push(`[${'"\ud800",'.repeat(Math.ceil(n / 4))}0]`); // JSON holding raw lone surrogates
  }
  return out;
}

/** Every result shape the fast path handles, built around `text`. */
function results(text: string): Array<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const shapes: Array<Record<string, unknown>> = [{ content: [{ type: 'text', text }] }];
  if (parsed !== undefined) shapes.push({ content: [{ type: 'text', text }], structuredContent: parsed });
  shapes.push({ content: [{ type: 'text', text: JSON.stringify(text) }], structuredContent: text });
  shapes.push({ content: [], structuredContent: { text } });
  return shapes;
}

/** The fold rule's size, written from its definition: `Buffer.byteLength(JSON.stringify(answer))`. */
function answerBytes(result: Record<string, unknown>): number {
  if (result.structuredContent !== undefined) return Buffer.byteLength(JSON.stringify(result.structuredContent));
  const text = (result.content as Array<{ text: string }>)[0].text;
  if (/^[ \t\n\r]*[{[]/.test(text)) {
    try {
      return Buffer.byteLength(JSON.stringify(JSON.parse(text)));
    } catch {
      // not JSON: measured as a string
    }
  }
  return Buffer.byteLength(JSON.stringify(text));
}

const isWellFormed = (text: string) => !/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

const folded = (result: unknown) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['frontmcp/result-handle'] !== undefined;

describe('the fit fast path decides as the engine does', () => {
  it('sends on untouched only what the engine would not fold, and folds what it would', async () => {
    let checked = 0;
    for (const text of texts()) {
      for (const result of results(text)) {
        const fitted = await core.fit(result, call);
        const label = JSON.stringify(result).slice(0, 120);
        expect(folded(fitted), label).toBe(answerBytes(result) > THRESHOLD);
        if (!folded(fitted)) expect(fitted).toBe(result);
        // The whole result through the engine agrees wherever it can read it (a raw lone surrogate in a text it
        // cannot: that is what the split hand-over fixes).
        if (isWellFormed(text)) {
          expect(folded(fitted), label).toBe((await engine.prepare(JSON.stringify(result))).kind === 'fold');
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('answers the fast path can bound never reach the engine', async () => {
    const split = vi.spyOn(engine, 'prepareAnswer');
    const whole = vi.spyOn(engine, 'prepare');
    const small = { a: 'b'.repeat(100) };
    const result = { content: [{ type: 'text', text: JSON.stringify(small) }], structuredContent: small };
    expect(await core.fit(result, call)).toBe(result);
    expect(split).not.toHaveBeenCalled();
    expect(whole).not.toHaveBeenCalled();
    split.mockRestore();
    whole.mockRestore();
  });
});
