// The FrontMCP glue against a test-only fake of the @frontmcp/sdk 1.5.x contract surface
// (__test__/fixtures/frontmcp-sdk, written from shared/docs/frontmcp-contract.md). The real SDK is not installable
// here; frontmcp-sdk.spec.ts runs against it whenever it resolves.
import Module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const require = createRequire(import.meta.url);
const fakePath = fileURLToPath(new URL('./fixtures/frontmcp-sdk/index.js', import.meta.url));
const distDir = fileURLToPath(new URL('../dist/', import.meta.url));

type Resolve = (request: string, ...rest: unknown[]) => string;
const moduleInternals = Module as unknown as { _resolveFilename: Resolve };
const originalResolve = moduleInternals._resolveFilename;

/* eslint-disable @typescript-eslint/no-explicit-any */
let fake: any;
let pkg: any;

beforeAll(() => {
  moduleInternals._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === '@frontmcp/sdk' ? fakePath : originalResolve.call(this, request, ...rest);
  };
  for (const key of Object.keys(require.cache)) if (key.startsWith(distDir)) delete require.cache[key];
  fake = require('@frontmcp/sdk');
  pkg = require('../dist/index.js');
});

afterAll(() => {
  moduleInternals._resolveFilename = originalResolve;
  for (const key of Object.keys(require.cache)) if (key.startsWith(distDir)) delete require.cache[key];
});

const META_KEY = 'frontmcp/result-handle';
const SEED = {
  orders: Array.from({ length: 500 }, (_, i) => ({ id: i, status: i % 2 ? 'shipped' : 'open' })),
  total: 500,
};
const OPTIONS = { thresholdBytes: 4096, preview: { items: 2 }, storage: { type: 'memory' } };

/** Applies a class decorator by hand. Like the real SDK's, the fake's return nothing: keep the class itself. */
function decorate<T>(decorator: (cls: T) => unknown, cls: T): T {
  decorator(cls);
  return cls;
}

function tool(meta: Record<string, unknown>, execute: (this: any, input: any) => unknown) {
  const cls = class extends fake.ToolContext {
    async execute(input: unknown) {
      return execute.call(this, input);
    }
  };
  return decorate(fake.Tool(meta), cls);
}

function tools() {
  return [
    tool({ name: 'orders' }, () => SEED),
    tool({ name: 'small' }, () => ({ ok: true })),
    tool({ name: 'widget', ui: { template: '<div/>' } }, () => SEED),
    tool({ name: 'boom' }, () => {
      throw new Error('boom');
    }),
    tool({ name: 'strict', outputSchema: z.object({ orders: z.array(z.unknown()), total: z.number() }) }, () => SEED),
    tool({ name: 'shape', outputSchema: { orders: z.array(z.unknown()), total: z.number() } }, () => SEED),
    tool({ name: 'open_schema', outputSchema: z.looseObject({}) }, () => SEED),
    tool(
      {
        name: 'openapi',
        rawOutputSchema: { type: 'object', properties: { status: { type: 'number' } }, required: ['status'] },
      },
      () => ({ content: [{ type: 'text', text: JSON.stringify(SEED) }], structuredContent: SEED }),
    ),
    tool({ name: 'remote', rawOutputSchema: { type: 'object' } }, () => ({
      content: [{ type: 'text', text: JSON.stringify(SEED) }],
      structuredContent: SEED,
    })),
    tool({ name: 'calls_internally' }, async function (this: any) {
      // this.callTool's flow, with the caller's full auth info (as in direct/stdio modes), marked internalCall.
      const inner = await this.scope.runFlow('tools:call-tool', {
        request: { method: 'tools/call', params: { name: 'orders', arguments: {} } },
        ctx: { authInfo: this.authInfo, internalCall: true },
      });
      return { innerFolded: inner._meta?.[META_KEY] !== undefined, innerBytes: JSON.stringify(inner).length };
    }),
    tool({ name: 'codecall' }, async function (this: any) {
      // CodeCall-style: the same flow, run with a bare ctx (no internalCall mark), in the same FrontMcpContext.
      const inner = await this.scope.runFlow('tools:call-tool', {
        request: { method: 'tools/call', params: { name: 'orders', arguments: {} } },
        ctx: { authInfo: this.authInfo },
      });
      return { innerFolded: inner._meta?.[META_KEY] !== undefined, padding: 'x'.repeat(5000) };
    }),
  ];
}

const session = (id: string, sub = `anon:${id}`) => ({ sessionId: id, user: { sub }, clientId: sub, token: '' });
const user = (sub: string) => ({ user: { sub }, clientId: sub, token: 't' });

describe('FrontMCP glue (against the contract fake)', () => {
  it('exports what @frontmcp/plugin-result-handles exports', () => {
    for (const name of [
      'default',
      'ResultHandlesPlugin',
      'foldedAnswerSchema',
      'createResultHandleStore',
      'ResultHandleStore',
      'ResultHandleStoreToken',
      'ResultHandlesConfigToken',
      'RESULT_HANDLE_META_KEY',
      'RESULT_QUERY_TOOL_NAME',
      'ResultQueryTool',
      'DEFAULT_MEMORY_MAX_ENTRIES',
      'MIN_THRESHOLD_BYTES',
      'ResultHandlesConfigurationError',
      'BrowserStoreUnavailableError',
    ]) {
      expect(pkg[name], name).toBeDefined();
    }
    expect(pkg.default).toBe(pkg.ResultHandlesPlugin);
    expect(pkg.RESULT_HANDLE_META_KEY).toBe(META_KEY);
    expect(pkg.RESULT_QUERY_TOOL_NAME).toBe('result_query');
    expect(
      pkg.foldedAnswerSchema.safeParse({ preview: {}, shape: { type: 'object', keys: {} }, handle: 'h' }).success,
    ).toBe(true);
  });

  it('validates options in init(), naming every problem', () => {
    let error: any;
    try {
      pkg.ResultHandlesPlugin.init({ thresholdBytes: 10, ttlSeconds: -1, bogus: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(pkg.ResultHandlesConfigurationError);
    expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
    expect(error.problems.length).toBeGreaterThanOrEqual(3);
  });

  it('init() returns the value form of FrontMCP PluginType: name (as the metadata), provide, useValue', () => {
    const record = pkg.ResultHandlesPlugin.init(OPTIONS);
    expect(record.name).toBe('result-handles');
    expect(record.provide).toBe(pkg.ResultHandlesPlugin);
    expect(record.useValue).toBeInstanceOf(pkg.ResultHandlesPlugin);
    expect(record.thresholdBytes).toBe(4096); // the options still ride along, as DynamicPlugin.init spreads them
  });

  it('provides the config and the store through its tokens', async () => {
    const record = pkg.ResultHandlesPlugin.init({ ...OPTIONS, secret: 's'.repeat(40) });
    const byToken = new Map(record.providers.map((p: any) => [p.provide, p]));
    const config: any = (byToken.get(pkg.ResultHandlesConfigToken) as any).useValue;
    expect(config).toMatchObject({ thresholdBytes: 4096, ttlSeconds: 600, preview: { items: 2, chars: 500 } });
    expect(JSON.stringify(config)).not.toContain('sss');
    const store = await (byToken.get(pkg.ResultHandleStoreToken) as any).useFactory();
    expect(store).toBeInstanceOf(pkg.ResultHandleStore);
    const handle = store.newHandle();
    await store.save(handle, { a: 1 }, { session: 's1' });
    expect(await store.read(handle, { session: 's1' })).toEqual({ value: { a: 1 } });
  });

  it('in a browser-like runtime refuses redis and sqlite from init() and picks memory for auto', () => {
    const g = globalThis as Record<string, unknown>;
    for (const enter of [
      () => (g.FRONTMCP_BUILD_TARGET = 'browser'),
      () => Object.assign(g, { window: {}, document: {} }),
    ]) {
      enter();
      try {
        for (const storage of [
          { type: 'redis', redis: { url: 'redis://127.0.0.1:6379' } },
          { type: 'sqlite', sqlite: { path: '/tmp/x.db' } },
        ]) {
          let error: any;
          try {
            pkg.ResultHandlesPlugin.init({ storage });
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(pkg.BrowserStoreUnavailableError);
          expect(error.message).toContain("storage: { type: 'memory' }");
        }
        const record = pkg.ResultHandlesPlugin.init({});
        const config = record.providers.find((p: any) => p.provide === pkg.ResultHandlesConfigToken).useValue;
        expect(config.storage).toEqual({ type: 'memory' });
      } finally {
        delete g.FRONTMCP_BUILD_TARGET;
        delete g.window;
        delete g.document;
      }
    }
    // Outside a browser, auto stays auto (the store resolves it: env, then memory).
    const record = pkg.ResultHandlesPlugin.init({});
    expect(record.providers.find((p: any) => p.provide === pkg.ResultHandlesConfigToken).useValue.storage).toEqual({
      type: 'auto',
    });
  });

  describe('one scope', () => {
    let scope: any;
    beforeAll(() => {
      scope = new fake.FakeScope({ plugins: [pkg.ResultHandlesPlugin.init(OPTIONS)], tools: tools() });
    });

    it('folds a large answer for a session and reads it back with result_query', async () => {
      const result = await scope.callTool('orders', {}, { authInfo: session('s-1') });
      const meta = result._meta[META_KEY];
      expect(meta).toMatchObject({ bytes: Buffer.byteLength(JSON.stringify(SEED)), ttlSeconds: 600 });
      expect(result.structuredContent).toEqual({
        preview: { orders: SEED.orders.slice(0, 2), total: 500 },
        shape: expect.objectContaining({ type: 'object' }),
        handle: meta.handle,
      });
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
      expect(result.content[1].text).toContain('result_query');

      const page = await scope.callTool(
        'result_query',
        { handle: meta.handle, path: '$.orders', offset: 10, limit: 2 },
        { authInfo: session('s-1') },
      );
      expect(page.isError).toBeUndefined();
      expect(page.structuredContent).toMatchObject({ value: SEED.orders.slice(10, 12), total: 500, nextOffset: 12 });
      // The tool is plugin-owned: reachable by its full name too.
      const again = await scope.callTool(
        'result-handles:result_query',
        { handle: meta.handle, path: 'total' },
        { authInfo: session('s-1') },
      );
      expect(again.structuredContent).toMatchObject({ value: 500 });
    });

    it('answers result_query errors as PublicMcpError with the code', async () => {
      const { _meta } = await scope.callTool('orders', {}, { authInfo: session('s-2') });
      const handle = _meta[META_KEY].handle;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ handle }, 'RESULT_HANDLE_NOT_FOUND'], // another session
        [{ handle, path: '$.missing' }, 'RESULT_PATH_NOT_FOUND'],
        [{ handle, path: '$.orders', limit: 100000 }, 'RESULT_SLICE_TOO_LARGE'],
        [{ handle, page: 1, offset: 0 }, 'INVALID_INPUT'],
      ];
      for (const [args, code] of cases) {
        const owner = code === 'RESULT_HANDLE_NOT_FOUND' ? session('s-other') : session('s-2');
        const result = await scope.callTool('result_query', args, { authInfo: owner });
        expect(result.isError, code).toBe(true);
        expect(result._meta.code).toBe(code);
      }
    });

    it('binds to the subject: another user cannot read, the same user can from any session', async () => {
      const result = await scope.callTool('orders', {}, { authInfo: user('alice') });
      const handle = result._meta[META_KEY].handle;
      const bob = await scope.callTool('result_query', { handle }, { authInfo: user('bob') });
      expect(bob._meta.code).toBe('RESULT_HANDLE_NOT_FOUND');
      const alice = await scope.callTool('result_query', { handle, path: 'total' }, { authInfo: user('alice') });
      expect(alice.structuredContent).toMatchObject({ value: 500 });
    });

    it('passes untouched: anonymous stateless calls, small answers, UI tools, failures', async () => {
      for (const authInfo of [
        undefined,
        { sessionId: '__stateless__', user: { sub: 'anon:x' } },
        { user: { sub: 'anon:y' } },
      ]) {
        const result = await scope.callTool('orders', {}, { authInfo });
        expect(result.structuredContent).toEqual(SEED);
      }
      expect((await scope.callTool('small', {}, { authInfo: session('s-3') })).structuredContent).toEqual({ ok: true });
      expect((await scope.callTool('widget', {}, { authInfo: session('s-3') })).structuredContent).toEqual(SEED);
      const failed = await scope.callTool('boom', {}, { authInfo: session('s-3') });
      expect(failed.isError).toBe(true);
    });

    it('leaves nested calls whole (internalCall and unmarked CodeCall-style calls), folds the outer answer', async () => {
      const marked = await scope.callTool('calls_internally', {}, { authInfo: session('s-4') });
      expect(marked.structuredContent).toMatchObject({ innerFolded: false });
      expect(marked.structuredContent.innerBytes).toBeGreaterThan(4096);
      const unmarked = await scope.callTool('codecall', {}, { authInfo: session('s-4') });
      expect(unmarked._meta[META_KEY]).toBeDefined();
      expect(unmarked.structuredContent.preview.innerFolded).toBe(false);
      // The next top-level call in a fresh request folds again.
      expect((await scope.callTool('orders', {}, { authInfo: session('s-4') }))._meta[META_KEY]).toBeDefined();
    });

    it('honours output schemas, warning once per tool', async () => {
      for (const name of ['strict', 'strict', 'shape', 'openapi']) {
        const result = await scope.callTool(name, {}, { authInfo: session('s-5') });
        expect(result._meta?.[META_KEY], name).toBeUndefined();
      }
      for (const name of ['open_schema', 'remote']) {
        const result = await scope.callTool(name, {}, { authInfo: session('s-5') });
        expect(result._meta?.[META_KEY], name).toBeDefined();
      }
      const about = (tool: string) => scope.warnings.filter((w: string) => w.includes(`"${tool}"`));
      expect(about('strict')).toHaveLength(1);
      expect(about('shape')).toHaveLength(1);
      expect(about('openapi')).toHaveLength(1);
      expect(scope.warnings.join('\n')).not.toContain('shipped');
    });

    it("logs through the scope's logger, not the flow logger of whichever tool was called first", async () => {
      // Real SDK: flowCtx.logger is `CallToolFlow(<tool>)`, one per call. A warning about one tool must not carry
      // the name of another tool's flow (the first call's logger used to be kept for every later warning).
      const fresh = new fake.FakeScope({ plugins: [pkg.ResultHandlesPlugin.init({ ...OPTIONS })], tools: tools() });
      await fresh.callTool('orders', {}, { authInfo: session('s-11') });
      await fresh.callTool('strict', {}, { authInfo: session('s-11') });
      const about = fresh.warnings.filter((w: string) => w.includes('"strict"'));
      expect(about).toHaveLength(1);
      expect(about[0]).not.toContain('CallToolFlow(orders)');
      expect(about[0]).toMatch(/^\[ResultHandlesPlugin\] \[result-handles\] /);
    });
  });

  it('folds once when several plugin instances see a call, and one result_query reads every app’s handles', async () => {
    const scope = new fake.FakeScope({
      plugins: [
        pkg.ResultHandlesPlugin.init(OPTIONS),
        pkg.ResultHandlesPlugin.init({ ...OPTIONS, preview: { items: 1 } }),
      ],
      tools: tools(),
    });
    const result = await scope.callTool('orders', {}, { authInfo: session('s-6') });
    expect(result.content).toHaveLength(2);
    expect(result.structuredContent.preview.orders).toHaveLength(2); // the first instance's runtime serves the scope
    const page = await scope.callTool(
      'result_query',
      { handle: result._meta[META_KEY].handle, path: 'total' },
      { authInfo: session('s-6') },
    );
    expect(page.structuredContent).toMatchObject({ value: 500 });
    const ignored = scope.warnings.filter((w: string) => w.includes('different options'));
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toContain('(preview)');
    await scope.callTool('orders', {}, { authInfo: session('s-6') });
    expect(scope.warnings.filter((w: string) => w.includes('different options'))).toHaveLength(1);
  });

  it('warns once, naming options and never values, when a later init() in the scope differs; never for the secret', async () => {
    const secretA = 'a-secret-that-is-long-enough-for-the-rule-0001';
    const secretB = 'b-secret-that-is-long-enough-for-the-rule-0002';
    const differing = new fake.FakeScope({
      plugins: [
        pkg.ResultHandlesPlugin.init({ ...OPTIONS, secret: secretA }),
        pkg.ResultHandlesPlugin.init({ ...OPTIONS, thresholdBytes: 8192, namespace: 'other-ns', secret: secretB }),
      ],
      tools: tools(),
    });
    await differing.callTool('orders', {}, { authInfo: session('s-9') });
    await differing.callTool('orders', {}, { authInfo: session('s-9') });
    const warned = differing.warnings.filter((w: string) => w.includes('different options'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('(thresholdBytes, namespace)');
    for (const value of ['8192', '4096', 'other-ns', secretA, secretB]) expect(warned[0]).not.toContain(value);

    const sameButSecret = new fake.FakeScope({
      plugins: [
        pkg.ResultHandlesPlugin.init({ ...OPTIONS, secret: secretA }),
        pkg.ResultHandlesPlugin.init({ ...OPTIONS, secret: secretB }),
      ],
      tools: tools(),
    });
    await sameButSecret.callTool('orders', {}, { authInfo: session('s-9') });
    expect(sameButSecret.warnings.filter((w: string) => w.includes('different options'))).toEqual([]);
  });

  it('calls foldPolicy(toolName, answer, { bytes, fullName, request }) and honours false and async answers', async () => {
    const calls: Array<{
      toolName: string;
      answer: unknown;
      context: { bytes: number; fullName: string; request: any };
    }> = [];
    const policy = async (toolName: string, answer: unknown, context: any) => {
      calls.push({ toolName, answer, context });
      await new Promise((resolve) => setTimeout(resolve, 1));
      return toolName !== 'declined';
    };
    const TEXT = 'plain text line, not JSON\n'.repeat(400);
    const Billing = decorate(
      fake.Plugin({
        name: 'billing',
        tools: [
          tool({ name: 'structured' }, () => SEED),
          tool({ name: 'json_text' }, () => ({ content: [{ type: 'text', text: JSON.stringify(SEED) }] })),
          tool({ name: 'plain_text' }, () => ({ content: [{ type: 'text', text: TEXT }] })),
          tool({ name: 'declined' }, () => SEED),
        ],
      }),
      class {},
    );
    const scope = new fake.FakeScope({
      plugins: [pkg.ResultHandlesPlugin.init({ ...OPTIONS, foldPolicy: policy }), Billing],
    });
    const expected: Record<string, unknown> = { structured: SEED, json_text: SEED, plain_text: TEXT, declined: SEED };
    for (const name of Object.keys(expected)) {
      const result = await scope.callTool(name, { n: 1 }, { authInfo: session('s-10') });
      const call = calls.at(-1)!;
      expect(call.toolName).toBe(name);
      expect(call.answer).toEqual(expected[name]);
      expect(call.context.bytes).toBe(Buffer.byteLength(JSON.stringify(call.answer)));
      expect(call.context.fullName).toBe(`billing:${name}`);
      expect(call.context.request).toMatchObject({ method: 'tools/call', params: { name, arguments: { n: 1 } } });
      if (name === 'declined') {
        expect(result.structuredContent).toEqual(SEED);
        expect(result._meta?.[META_KEY]).toBeUndefined();
      } else {
        expect(result._meta[META_KEY].handle).toBe(result.structuredContent.handle);
      }
    }
    expect(calls.map((c) => c.toolName)).toEqual(Object.keys(expected));
    expect(typeof calls[2].answer).toBe('string');
  });
});

describe('FrontMCP glue: handle references in tool arguments', () => {
  const received: unknown[] = [];
  const consumer = () => [
    tool({ name: 'orders' }, () => SEED),
    tool({ name: 'upload' }, (input) => {
      received.push(input);
      return { ok: true };
    }),
    tool({ name: 'forwards' }, async function (this: any, input: any) {
      // A tool calling a tool with a reference it was handed: nested calls are left as they are.
      const inner = await this.scope.runFlow('tools:call-tool', {
        request: { method: 'tools/call', params: { name: 'upload', arguments: input } },
        ctx: { authInfo: this.authInfo, internalCall: true },
      });
      return { inner: inner.structuredContent };
    }),
  ];
  const scopeWith = (options: Record<string, unknown>) =>
    new fake.FakeScope({ plugins: [pkg.ResultHandlesPlugin.init({ ...OPTIONS, ...options })], tools: consumer() });
  const fold = async (scope: any, owner: unknown) =>
    (await scope.callTool('orders', {}, { authInfo: owner }))._meta[META_KEY].handle as string;

  it('hands the tool the value, read for the same caller only', async () => {
    const scope = scopeWith({ handleReferences: (name: string) => name === 'upload' });
    const handle = await fold(scope, session('r-1'));
    const args = { rows: { $resultHandle: handle, path: 'orders' }, all: [{ $resultHandle: handle }] };
    const result = await scope.callTool('upload', args, { authInfo: session('r-1') });
    expect(result.isError).toBeFalsy();
    expect(received.at(-1)).toEqual({ rows: SEED.orders, all: [SEED] });

    const foreign = await scope.callTool('upload', args, { authInfo: session('r-2') });
    expect(foreign).toMatchObject({ isError: true, _meta: { code: 'RESULT_HANDLE_NOT_FOUND' } });
    const unknown = await scope.callTool('result_query', { handle }, { authInfo: session('r-2') });
    expect(foreign.content).toEqual(unknown.content);
    const missing = await scope.callTool(
      'upload',
      { rows: { $resultHandle: handle, path: 'nope' } },
      { authInfo: session('r-1') },
    );
    expect(missing._meta.code).toBe('RESULT_PATH_NOT_FOUND');

    const nested = await scope.callTool('forwards', { $resultHandle: handle }, { authInfo: session('r-1') });
    expect(nested.isError).toBeFalsy();
    expect(received.at(-1)).toEqual({ $resultHandle: handle });
  });

  it('lists result_query with the references sentence, and the guide says it, only when on', async () => {
    const on = scopeWith({ handleReferences: true });
    const off = scopeWith({});
    const description = (scope: any) =>
      scope.tools.find((t: any) => t.name === 'result_query').metadata.description as string;
    expect(description(on)).toContain('$resultHandle');
    expect(description(off)).not.toContain('$resultHandle');
    const guide = async (scope: any) =>
      (await scope.callTool('orders', {}, { authInfo: session('r-3') })).content[1].text as string;
    expect(await guide(on)).toContain('"$resultHandle"');
    expect(await guide(off)).not.toContain('$resultHandle');

    const handle = await fold(off, session('r-3'));
    await off.callTool('upload', { rows: { $resultHandle: handle } }, { authInfo: session('r-3') });
    expect(received.at(-1)).toEqual({ rows: { $resultHandle: handle } });
  });

  it('refuses bad handleReferences settings in init()', () => {
    expect(() => pkg.ResultHandlesPlugin.init({ handleReferences: 'all' })).toThrow(/handleReferences: must be/);
    expect(() => pkg.ResultHandlesPlugin.init({ handleReferenceLimits: { maxReferences: 0 } })).toThrow(
      /handleReferenceLimits.maxReferences/,
    );
  });
});
