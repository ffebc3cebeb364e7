// The fit's JS fast path (lib/host/pipeline.ts) against the engine's exact rule: an answer the core sends
// on without a native call must be one the engine, given the whole CallToolResult, would not fold either; and an
// answer handed over split must fold exactly as the whole result does.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { type OpenedEngine, openEngine, prepareOptions } from '../lib/host/open-engine';
import { HostPipeline } from '../lib/host/pipeline';
import * as native from '../lib/native';

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

/**
 * JSON texts whose exact size is the threshold, one byte less or one more, written every way that makes the text
 * longer or shorter than its canonical form: escapes, repeated keys, exponents, whitespace, non-ASCII, lone
 * surrogates (raw, escaped, and raw beside an escaped half).
 */
function textsAtTheThreshold(): string[] {
  const out: string[] = [];
  for (const size of [THRESHOLD - 1, THRESHOLD, THRESHOLD + 1]) {
    const pad = (used: number) => 'b'.repeat(size - used);
    out.push(`{"a":"${pad(8)}"}`); // {"a":"…"}: 8 bytes around the pad
    out.push(` {"a" : "${pad(8)}"}\n`);
    out.push(`{"a":"\\u0041${pad(9)}"}`); // an escaped backslash, then text
    out.push(`{"a":"\u0041${pad(9)}"}`); // \u0041 is A: 6 bytes as written, 1 canonical
    out.push(`{"a":1,"a":"${pad(8)}"}`); // the repeated key goes
    out.push(`{"a":"${pad(14)}","n":1e3}`); // 1e3 is 1000: one byte longer canonical
    out.push(`{"a":"${pad(13)}","n":1e3}`);
    out.push(`{"a":"é${pad(10)}"}`);
    out.push(`{"a":"\ud800${pad(14)}"}`); // an escaped lone surrogate stays six bytes
    out.push(`{"a":"\ud800${pad(14)}"}`.replace('\\ud800', '\ud800')); // raw: six bytes canonical, three as UTF-8
    out.push(`{"a":"\ud83d\\ude00${pad(12)}"}`); // a raw half beside an escaped one: one emoji, four bytes
    out.push(`{"a":"${pad(8)}"} x`); // not JSON: measured quoted
    out.push(`x${'\ud800'.repeat(Math.floor(size / 6))}`); // not JSON, lone surrogates: six bytes each quoted
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

  it("the engine's one-pass check passes a text only when its exact size is under the threshold", async () => {
    let certain = 0;
    let checked = 0;
    let beside = 0;
    for (const text of [...texts(), ...textsAtTheThreshold()]) {
      if (text.length > THRESHOLD) continue; // hosts ask only about texts at most a threshold long
      const bytes = answerBytes({ content: [{ type: 'text', text }] });
      const under = native.textCertainlyUnder(text, false, THRESHOLD);
      expect(under && bytes > THRESHOLD, `${text.slice(0, 80)}… measures ${bytes}`).toBe(false);
      if (under) certain += 1;
      checked += 1;
      // Beside structuredContent the text stands for the structuredContent it repeats.
      let structured: unknown;
      try {
        structured = JSON.parse(text);
      } catch {
        continue;
      }
      if (typeof structured !== 'object' || structured === null) continue;
      const structuredBytes = answerBytes({ content: [{ type: 'text', text }], structuredContent: structured });
      const repeatsUnder = native.textCertainlyUnder(text, true, THRESHOLD);
      expect(repeatsUnder && structuredBytes > THRESHOLD, `${text.slice(0, 80)}… beside: ${structuredBytes}`).toBe(
        false,
      );
      if (repeatsUnder) beside += 1;
    }
    expect(checked).toBeGreaterThan(100);
    expect(certain).toBeGreaterThan(checked / 4); // it is not a check that never says yes
    expect(beside).toBeGreaterThan(10);
  });

  it('a text holding a lone surrogate crosses as UTF-16 and is measured and compared as JS reads it', async () => {
    for (const text of textsAtTheThreshold().filter((t) => !isWellFormed(t))) {
      const whole = { content: [{ type: 'text', text }] };
      const plan = await engine.prepareAnswer(text, { envelopeJson: '{}', kind: 'text' });
      expect(plan.kind === 'fold', text.slice(0, 60)).toBe(answerBytes(whole) > THRESHOLD);
      if (plan.kind === 'fold') expect(plan.bytes).toBe(answerBytes(whole));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        continue;
      }
      const answer = JSON.stringify(parsed);
      const repeating = await engine.prepareAnswer(answer, { envelopeJson: '{}', kind: 'structured', text });
      expect(repeating.reason ?? 'fold').toBe(Buffer.byteLength(answer) > THRESHOLD ? 'fold' : 'under-threshold');
      const other = await engine.prepareAnswer(answer, { envelopeJson: '{}', kind: 'structured', text: `${text} ` });
      expect(other.reason, 'a text with a trailing space repeats it too').toBe(repeating.reason);
      const differing = await engine.prepareAnswer(answer, {
        envelopeJson: '{}',
        kind: 'structured',
        text: text.replace('b', 'c'),
      });
      expect(differing.reason).toBe('text-differs');
    }
  });

  it('answers the fast path can bound never reach the engine', async () => {
    const split = vi.spyOn(engine, 'prepareAnswer');
    const whole = vi.spyOn(engine, 'prepare');
    await core.ready();
    const small = { a: 'b'.repeat(100) };
    const result = { content: [{ type: 'text', text: JSON.stringify(small) }], structuredContent: small };
    expect(await core.fit(result, call)).toBe(result);
    // Structured only: its JSON measures it.
    const alone = { content: [], structuredContent: small };
    expect(await core.fit(alone, call)).toBe(alone);
    // A JSON text whose quoted form is over the threshold (every quote doubles) but whose own size is under it: the
    // engine's scan passes it, with no prepare.
    const quotes = JSON.stringify(Array.from({ length: 150 }, (_, i) => `${i}`));
    expect(Buffer.byteLength(JSON.stringify(quotes))).toBeGreaterThan(THRESHOLD);
    const text = { content: [{ type: 'text', text: quotes }] };
    expect(await core.fit(text, call)).toBe(text);
    expect(split).not.toHaveBeenCalled();
    expect(whole).not.toHaveBeenCalled();
    split.mockRestore();
    whole.mockRestore();
  });
});

describe('calls with no owner', () => {
  it('ask the engine whether they would fold on the 1st, 2nd, 4th, 8th… call of a tool until it warned', async () => {
    const warnings: string[] = [];
    const ownerless = new HostPipeline(
      async () => engine,
      { thresholdBytes: THRESHOLD },
      {
        warn: (message) => warnings.push(message),
      },
    );
    const prepare = vi.spyOn(engine, 'prepareAnswer');
    try {
      const big = { a: 'b'.repeat(2 * THRESHOLD) };
      // Over the threshold, but an error: it passes whatever the owner, so nothing to warn about.
      const error = { content: [{ type: 'text', text: JSON.stringify(big) }], structuredContent: big, isError: true };
      const noOwner = { ...call, owner: undefined };
      for (let i = 0; i < 16; i++) expect(await ownerless.fit(error, noOwner)).toBe(error);
      expect(prepare).toHaveBeenCalledTimes(5);
      expect(warnings).toEqual([]);
      // The 32nd call would fold: it warns, and no call asks again.
      const foldable = { content: [{ type: 'text', text: JSON.stringify(big) }], structuredContent: big };
      for (let i = 0; i < 16; i++) expect(await ownerless.fit(foldable, noOwner)).toBe(foldable);
      expect(prepare).toHaveBeenCalledTimes(6);
      expect(warnings).toHaveLength(1);
      for (let i = 0; i < 40; i++) await ownerless.fit(foldable, noOwner);
      expect(prepare).toHaveBeenCalledTimes(6);
    } finally {
      prepare.mockRestore();
    }
  });
});

describe('a large answer crossing off the JS thread', () => {
  it('folds, keeps and reads back exactly, non-ASCII and a real U+FFFD included', async () => {
    const ascii = JSON.stringify({ items: Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `item ${i}` })) });
    // V8 writes a lone surrogate as U+FFFD into UTF-8: a real one must not be taken for a lone surrogate.
    const wide = ascii.replace('item 7', 'itém 7').replace('item 8', 'item 8 \u0141 \ufffd');
    for (const answer of [ascii, wide]) {
      const plan = await engine.prepareAnswer(answer, { envelopeJson: '{}', kind: 'structured' });
      expect(plan.kind).toBe('fold');
      expect(plan.bytes).toBe(Buffer.byteLength(answer));
      await engine.commit(plan, OWNER.session, null);
      const { handle } = JSON.parse(plan.foldedJson!) as { handle: string };
      const read = JSON.parse(
        await engine.query(JSON.stringify({ handle, path: '$.items', offset: 7, limit: 2 }), OWNER.session),
      ) as { value: unknown };
      expect(read.value).toEqual((JSON.parse(answer) as { items: unknown[] }).items.slice(7, 9));
    }
  });
});
