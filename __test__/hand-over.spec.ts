// How a large answer crosses to the engine (lib/host/hand-over.ts, src/binding/warm.rs): a text that looks like
// JSON.stringify output crosses in place of the answer and its plan is kept only when the text is `===` to the
// answer; a reserved buffer and a fold on one thread change nothing in what is kept. Each case is checked against
// the plain way (structuredContent alone), through the same engine.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { type OpenedEngine, openEngine, prepareOptions } from '../lib/host/open-engine';
import { HostPipeline } from '../lib/host/pipeline';

const THRESHOLD = 16_384;
const OWNER = { session: 'hand-over-session' };
const call = { toolName: 't', fullName: 't', request: {}, owner: OWNER };

let engine: OpenedEngine;
let core: HostPipeline;

beforeAll(async () => {
  engine = await openEngine(prepareOptions({ thresholdBytes: THRESHOLD, storage: { type: 'memory' } }));
  core = new HostPipeline(async () => engine, { thresholdBytes: THRESHOLD }, { warn: () => {} });
});

afterAll(async () => {
  await core.close();
});

/** `{ items: [...] }` whose JSON is about `chars` long, with non-ASCII names. */
function answerOf(chars: number): { items: Array<{ id: number; name: string; price: number }> } {
  const items = Array.from({ length: Math.ceil(chars / 40) }, (_, id) => ({ id, name: `itém ${id}`, price: id / 4 }));
  return { items };
}

type Folded = { structuredContent: { preview: unknown; shape: unknown; handle: string } };

async function fit(result: Record<string, unknown>): Promise<unknown> {
  return core.fit(result, call);
}

/** `items[offset..offset+2]` of a kept answer, read through the engine. */
async function itemsAt(handle: string, offset: number): Promise<unknown> {
  const args = JSON.stringify({ handle, path: '$.items', offset, limit: 2 });
  return (JSON.parse(await engine.query(args, OWNER.session)) as { value: unknown }).value;
}

describe('a text repeating structuredContent crosses in place of the answer', () => {
  // Below and above the length up to which the text crosses before the stringify.
  it.each([300_000, 2_500_000])(
    'of %i characters: folds and keeps what structuredContent alone does',
    async (chars) => {
      const answer = answerOf(chars);
      const text = JSON.stringify(answer);
      const prepare = vi.spyOn(engine, 'prepareAnswer');
      try {
        const folded = (await fit({ content: [{ type: 'text', text }], structuredContent: answer })) as Folded;
        expect(prepare).toHaveBeenCalledTimes(1);
        expect(prepare.mock.calls[0][0]).toBe(text); // the tool's own text crossed, nothing else
        const plain = (await fit({ content: [], structuredContent: answer })) as Folded;
        expect(folded.structuredContent.preview).toEqual(plain.structuredContent.preview);
        expect(folded.structuredContent.shape).toEqual(plain.structuredContent.shape);
        const last = answer.items.length - 2;
        expect(await itemsAt(folded.structuredContent.handle, last)).toEqual(answer.items.slice(last));
        expect(await itemsAt(folded.structuredContent.handle, 5)).toEqual(answer.items.slice(5, 7));
      } finally {
        prepare.mockRestore();
      }
    },
  );

  it('is not bet on when the answer is certainly under the threshold', async () => {
    const roomy = new HostPipeline(async () => engine, { thresholdBytes: 1_000_000 }, { warn: () => {} });
    // An exponent (`1e+21`) keeps the host's check on the text alone from deciding: the stringify decides.
    const answer = { ...answerOf(300_000), big: 1e21 };
    const result = { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
    const prepare = vi.spyOn(engine, 'prepareAnswer');
    try {
      expect(await roomy.fit(result, call)).toBe(result);
      expect(roomy.stats().passed['under-threshold']).toBe(1);
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
    }
  });

  it('a text that looks stringified but says something else passes whole, as before', async () => {
    const answer = answerOf(300_000);
    const other = { ...answer, items: answer.items.slice(1) };
    const result = { content: [{ type: 'text', text: JSON.stringify(other) }], structuredContent: answer };
    const before = core.stats().passed['text-differs'] ?? 0;
    expect(await fit(result)).toBe(result);
    expect(core.stats().passed['text-differs']).toBe(before + 1);
  });

  it('a text repeating the answer written otherwise (1.50 for 1.5) is compared natively and folds', async () => {
    const answer = answerOf(300_000);
    const text = JSON.stringify(answer).replace(/"price":(\d+)\.5\b/g, '"price":$1.50');
    expect(text).not.toBe(JSON.stringify(answer));
    const folded = (await fit({ content: [{ type: 'text', text }], structuredContent: answer })) as Folded;
    expect(await itemsAt(folded.structuredContent.handle, 2)).toEqual(answer.items.slice(2, 4));
  });
});

describe('a text of more than 2 M characters is proved to repeat structuredContent a piece at a time', () => {
  /**
   * `{ items }` of about `chars` characters whose items are read through a proxy, which notes, at the last item's
   * read, whether an immediate set at the first item's read had run, and how often the engine had been handed an
   * answer.
   */
  function watchedAnswer(chars: number, prepare: { mock: { calls: unknown[] } }) {
    const plain = answerOf(chars).items;
    const seen = { turned: false, turnedBeforeLast: undefined as boolean | undefined, handedBeforeLast: -1 };
    const items = new Proxy(plain, {
      get(target, key, receiver) {
        if (key === '0') setImmediate(() => (seen.turned = true));
        if (key === String(plain.length - 1)) {
          seen.turnedBeforeLast = seen.turned;
          seen.handedBeforeLast = prepare.mock.calls.length;
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    return { plain, items, seen };
  }

  it('never stringifies the whole answer, gives the event loop turns, and folds while it proves', async () => {
    const prepare = vi.spyOn(engine, 'prepareAnswer');
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const { plain, items, seen } = watchedAnswer(4_000_000, prepare);
      const answer = { items };
      const text = JSON.stringify({ items: plain });
      stringify.mockClear();
      const folded = (await fit({ content: [{ type: 'text', text }], structuredContent: answer })) as Folded;
      expect(stringify.mock.calls.some(([value]) => value === answer || value === items)).toBe(false);
      expect(seen.turnedBeforeLast).toBe(true); // the whole stringify read every item in one step
      expect(seen.handedBeforeLast).toBe(1); // the text crossed before the last item was proved
      expect(prepare).toHaveBeenCalledTimes(1);
      expect(prepare.mock.calls[0][0]).toBe(text);
      const last = plain.length - 2;
      expect(await itemsAt(folded.structuredContent.handle, last)).toEqual(plain.slice(last));
    } finally {
      stringify.mockRestore();
      prepare.mockRestore();
    }
  });

  it('a text that differs near its end passes whole, as before, once the whole way has compared it', async () => {
    const prepare = vi.spyOn(engine, 'prepareAnswer');
    try {
      const answer = answerOf(3_000_000);
      const text = JSON.stringify(answer).replace(/"price":[^,}]+\}\]\}$/, '"price":-1}]}');
      expect(text).not.toBe(JSON.stringify(answer));
      const before = core.stats().passed['text-differs'] ?? 0;
      const result = { content: [{ type: 'text', text }], structuredContent: answer };
      expect(await fit(result)).toBe(result);
      expect(core.stats().passed['text-differs']).toBe(before + 1);
      // The text was handed over while the proof ran; the whole way then handed over the answer with the text.
      expect(prepare.mock.calls.map(([json]) => json === text)).toEqual([true, false]);
    } finally {
      prepare.mockRestore();
    }
  });
});

describe('the event loop turns a long answer gives', () => {
  /**
   * `{ items }` whose stringify records whether an immediate set now (before the call) ran first: `true` when the
   * stringify had a turn of its own.
   */
  function answerNoticingTurns(items: ReturnType<typeof answerOf>['items']) {
    let timerRan = false;
    let ranFirst: boolean | undefined;
    setImmediate(() => {
      timerRan = true;
    });
    const answer = {
      items,
      toJSON() {
        ranFirst ??= timerRan;
        return { items };
      },
    };
    return { answer, timerRanFirst: () => ranFirst };
  }

  // A long stringify must not share its turn with the SDK's work on the call: a timer due before it runs first.
  it.each([300_000, 2_500_000])('of %i characters: the stringify starts a turn of its own', async (chars) => {
    const items = answerOf(chars).items;
    const text = JSON.stringify({ items });
    const { answer, timerRanFirst } = answerNoticingTurns(items);
    const folded = (await fit({ content: [{ type: 'text', text }], structuredContent: answer })) as Folded;
    expect(timerRanFirst()).toBe(true);
    expect(await itemsAt(folded.structuredContent.handle, 3)).toEqual(items.slice(3, 5));
  });

  it('a short answer is stringified without giving its turn away', async () => {
    const items = answerOf(20_000).items;
    const { answer, timerRanFirst } = answerNoticingTurns(items);
    await fit({ content: [{ type: 'text', text: JSON.stringify({ items }) }], structuredContent: answer });
    expect(timerRanFirst()).toBe(false);
  });
});

describe('the native hand-over', () => {
  const answer = JSON.stringify(answerOf(600_000));
  const parts = { envelopeJson: '{}', kind: 'structured', session: OWNER.session };

  async function keptItems(plan: Awaited<ReturnType<OpenedEngine['prepareAnswer']>>): Promise<unknown> {
    expect(plan.kind).toBe('fold');
    expect(plan.bytes).toBe(Buffer.byteLength(answer));
    await engine.commit(plan, OWNER.session, null);
    const { handle } = JSON.parse(plan.foldedJson!) as { handle: string };
    return itemsAt(handle, 14_000);
  }

  it('copies into a reserved buffer, one too small, or one already used, and keeps the same answer', async () => {
    const expected = await keptItems(await engine.prepareAnswer(answer, parts));
    const buffer = engine.reserveAnswer!(answer.length);
    expect(await keptItems(await engine.prepareAnswer(answer, parts, buffer))).toEqual(expected);
    expect(await keptItems(await engine.prepareAnswer(answer, parts, buffer))).toEqual(expected); // taken: a fresh one
    const small = engine.reserveAnswer!(10);
    expect(await keptItems(await engine.prepareAnswer(answer, parts, small))).toEqual(expected);
    const absurd = engine.reserveAnswer!(2 ** 32 - 1); // not a length: capped at V8's longest string
    expect(await keptItems(await engine.prepareAnswer(answer, parts, absurd))).toEqual(expected);
    expect(expected).toEqual((JSON.parse(answer) as { items: unknown[] }).items.slice(14_000, 14_002));
  });

  it('folds on one thread as on two', async () => {
    const two = await engine.prepareAnswer(answer, parts);
    const one = await engine.prepareAnswer(answer, { ...parts, oneThread: true });
    const strip = (json: string | null | undefined) => JSON.stringify({ ...JSON.parse(json!), handle: undefined });
    expect(strip(one.foldedJson)).toBe(strip(two.foldedJson));
    expect(await keptItems(one)).toEqual(await keptItems(two));
  });
});

describe('a text alone', () => {
  // Its path index is built beside the fold when the text looks like JSON.stringify output, and kept only when the
  // fold finds the text to be its own canonical form; the kept answer is that canonical form either way.
  const answer = answerOf(600_000);
  const canonical = JSON.stringify(answer);
  it.each([
    ['its own canonical form', canonical],
    ['pretty-printed', JSON.stringify(answer, null, 1)],
    ['looking canonical but not (1.0 spelled out)', `{"pad":1.0,${canonical.slice(1)}`],
  ])('%s: keeps the canonical form and reads it through its index', async (_, text) => {
    const plan = await engine.prepareAnswer(text, { envelopeJson: '{}', kind: 'text', session: OWNER.session });
    expect(plan.kind).toBe('fold');
    await engine.commit(plan, OWNER.session, null);
    const { handle } = JSON.parse(plan.foldedJson!) as { handle: string };
    expect(await itemsAt(handle, 14_000)).toEqual(answer.items.slice(14_000, 14_002));
    if (text.startsWith('{"pad"')) {
      const pad = JSON.parse(await engine.query(JSON.stringify({ handle, path: '$.pad' }), OWNER.session));
      expect(pad.value).toBe(1);
    }
  });
});
