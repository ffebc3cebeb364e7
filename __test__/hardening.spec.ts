// Faults and hostile inputs that must never take the process down or go uncoded (issue 11).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { skipReason } from './setup/skip';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) {
    spawnSync('chattr', ['-R', '-i', dir]); // a child killed mid-fault leaves its files immutable
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs the SQLite fault fixture in a child process: a signal there is an exit status here. */
function runSqliteFault(fault: 'truncate' | 'immutable', walMode: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'rh-sqlite-fault-'));
  dirs.push(dir);
  const child = spawnSync(
    process.execPath,
    [join(__dirname, 'fixtures/sqlite-fault.cjs'), dir, fault, String(walMode)],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const report = child.stdout.trim() ? JSON.parse(child.stdout.trim()) : undefined;
  return { signal: child.signal, status: child.status, stderr: child.stderr, report };
}

/** Whether chattr +i works here (root on a filesystem with inode flags). */
function canMakeImmutable(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'rh-chattr-'));
  dirs.push(dir);
  const probe = join(dir, 'probe');
  spawnSync('touch', [probe]);
  const set = spawnSync('chattr', ['+i', probe]);
  spawnSync('chattr', ['-i', probe]);
  return set.status === 0;
}

// A file SQLite holds open cannot be cut under it on Windows (the handle's locks refuse it): the fault is a POSIX one.
const noTruncation = skipReason(
  'SQLite side files truncated under the store',
  process.platform === 'win32' ? 'Windows refuses to truncate a file another handle holds locked' : undefined,
);
const noChattr = () =>
  skipReason(
    'an immutable SQLite side file',
    canMakeImmutable()
      ? undefined
      : 'chattr +i does not work here (it needs root on a Linux filesystem with inode flags)',
  );

describe('SQLite file faults', () => {
  for (const walMode of [true, false]) {
    it.skipIf(noTruncation)(`a truncated side file (walMode ${walMode}) gives coded errors, not a signal`, () => {
      const { signal, status, stderr, report } = runSqliteFault('truncate', walMode);
      expect({ signal, status, stderr }).toEqual({ signal: null, status: 0, stderr: '' });
      for (const { outcome } of report.steps) {
        expect(outcome).toMatch(/^(ok|RESULT_STORE_WRITE_FAILED|RESULT_STORE_UNAVAILABLE)$/);
      }
    });
  }

  it.skipIf(noChattr())('an immutable side file gives coded errors, not a signal', () => {
    const { signal, status, stderr, report } = runSqliteFault('immutable', true);
    expect({ signal, status, stderr }).toEqual({ signal: null, status: 0, stderr: '' });
    expect(report.faulted.length).toBeGreaterThan(0);
    const saves = report.steps.filter((s: { step: string }) => s.step === 'save').slice(1);
    for (const { outcome } of saves) expect(outcome).toBe('RESULT_STORE_WRITE_FAILED');
    for (const { outcome } of report.steps) expect(outcome).toMatch(/^(ok|RESULT_STORE_\w+)$/);
  });
});

describe('result_query arguments over the wire (MCP SDK adapter, real Client)', () => {
  it('answers a missing or mistyped handle with INVALID_INPUT and a remedy; the listing still requires it', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const { withResultHandles } = await import('../mcp.mjs');
    const server = new McpServer({ name: 'hardening', version: '1.0.0' });
    const handles = withResultHandles(server, { storage: { type: 'memory' } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'hardening', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      const listed = tools.find((t) => t.name === 'result_query')!;
      expect(listed.inputSchema.required).toEqual(['handle']);
      expect(listed.inputSchema.properties?.handle).toMatchObject({ type: 'string' });
      for (const args of [{}, { handle: 42 }, { handle: '' }, { handle: null, path: '$' }]) {
        const result = (await client.callTool({ name: 'result_query', arguments: args })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
          _meta?: { code?: string };
        };
        expect(result.isError, JSON.stringify(args)).toBe(true);
        expect(result._meta?.code, JSON.stringify(args)).toBe('INVALID_INPUT');
        expect(result.content[0].text).toMatch(/handle.*Pass handle exactly as the folded answer gave it/);
      }
    } finally {
      await client.close();
      await handles.close();
    }
  });
});

describe('low-level calls that must refuse, not succeed wrongly', () => {
  it('commits a prepared plan once: a second commit is INVALID_INPUT and keeps nothing more', async () => {
    const { openEngine, prepareOptions } = await import('../lib/host/open-engine');
    const engine = await openEngine(prepareOptions({ thresholdBytes: 1024, storage: { type: 'memory' } }));
    try {
      const structuredContent = { text: 'x'.repeat(5000) };
      const plan = await engine.prepare(
        JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }),
      );
      expect(plan.kind).toBe('fold');
      const folded = JSON.parse(await engine.commit(plan, 'session-a'));
      const handle = folded.structuredContent.handle as string;
      await expect(engine.commit(plan, 'session-b')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      // Session b got no copy of the answer under that handle.
      const args = JSON.stringify({ handle, path: 'text', limit: 3 });
      await expect(engine.query(args, 'session-b')).rejects.toMatchObject({ code: 'RESULT_HANDLE_NOT_FOUND' });
      expect(JSON.parse(await engine.query(args, 'session-a')).value).toBe('xxx');
    } finally {
      await engine.close();
    }
  });

  it('foldedJson refuses a preview or shape that is not JSON instead of returning invalid JSON', async () => {
    const { foldedJson } = await import('./fixtures/fold');
    for (const [preview, shape] of [
      ['{', '{}'],
      ['{}', '{"type":'],
      ['', '{}'],
      ['{} {}', '{}'],
    ]) {
      expect(() => foldedJson(preview, shape, 'h'), `${preview} / ${shape}`).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
    expect(JSON.parse(foldedJson('{"a":1}', '{"type":"object"}', 'h'))).toEqual({
      preview: { a: 1 },
      shape: { type: 'object' },
      handle: 'h',
    });
  });
});

describe('what an operator can see (MCP SDK adapter)', () => {
  async function pair(attach: { connectionSession?: boolean }, options: Record<string, unknown>) {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const { createResultHandles } = await import('../mcp.mjs');
    const { registerTools } = await import('./fixtures/mcp-host.mjs');
    const warnings: string[] = [];
    const handles = createResultHandles(
      { thresholdBytes: 4096, ...options },
      { logger: { warn: (m: string) => warnings.push(m) } },
    );
    const server = new McpServer({ name: 'stats', version: '1.0.0' });
    registerTools(server);
    handles.attach(server, attach);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'stats', version: '1.0.0' });
    await client.connect(clientSide);
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<{
        structuredContent?: Record<string, unknown>;
        _meta?: Record<string, unknown>;
      }>;
    return { handles, client, call, warnings };
  }

  it('warns once per tool when an answer over the threshold cannot fold for lack of a session or caller', async () => {
    const { handles, client, call, warnings } = await pair(
      { connectionSession: false },
      { storage: { type: 'memory' } },
    );
    try {
      for (let i = 0; i < 3; i++) await call('orders');
      await call('orders_text');
      expect(warnings.filter((w) => w.includes('"orders"') && w.includes('no session'))).toHaveLength(1);
      expect(warnings.filter((w) => w.includes('"orders_text"') && w.includes('no session'))).toHaveLength(1);
      expect(handles.stats().passed['no-owner']).toBe(4);
      expect(handles.stats().folded).toBe(0);
    } finally {
      await client.close();
      await handles.close();
    }
  });

  it('counts folds, kept bytes, passes by reason, queries by outcome and store failures', async () => {
    const { handles, client, call, warnings } = await pair(
      { connectionSession: true },
      { storage: { type: 'memory' } },
    );
    try {
      const folded = await call('orders');
      const handle = (folded._meta?.['frontmcp/result-handle'] as { handle: string; bytes: number }).handle;
      await call('result_query', { handle, path: 'total' });
      await call('result_query', { handle, path: '$.nope' });
      await call('result_query', {});
      const stats = handles.stats();
      expect(stats.folded).toBe(1);
      expect(stats.keptBytes).toBe((folded._meta?.['frontmcp/result-handle'] as { bytes: number }).bytes);
      expect(stats.queries).toEqual({ ok: 1, RESULT_PATH_NOT_FOUND: 1, INVALID_INPUT: 1 });
      expect(stats.storeFailures).toEqual({});
      expect(stats.store).toEqual({ state: 'up', outages: 0, outageMs: 0 });
      expect(warnings).toEqual([]);
    } finally {
      await client.close();
      await handles.close();
    }
    const full = await pair({ connectionSession: true }, { storage: { type: 'memory', memory: { maxBytes: 1000 } } });
    try {
      await full.call('orders');
      expect(full.handles.stats()).toMatchObject({
        folded: 0,
        passed: { 'store-failed': 1 },
        storeFailures: { RESULT_STORE_WRITE_FAILED: 1 },
      });
    } finally {
      await full.client.close();
      await full.handles.close();
    }
  });
});
