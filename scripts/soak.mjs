// The fault and load suite (`npm run soak`): a real MCP server (McpServer + Streamable HTTP on loopback, one
// server per session, result-handles attached) driven by real clients, with real Redis and SQLite files, while
// faults are injected. Bounded in time (about two minutes); loopback only; not part of `npm test`.
//
// Phases: concurrent sessions folding and reading back exactly (and trying each other's handles); Redis killed and
// restarted mid-load; Redis frozen (SIGSTOP) mid-load; SQLite side files cut and made immutable mid-load (in a child
// process, so a signal is a finding, not a dead suite); hostile queries beside normal traffic (the other session's
// p99); RSS before, under and after load and close(). Prints what held and what failed; exits 1 when anything failed.
//
//   node scripts/soak.mjs [--only <phase>]     phases: sessions, redis-kill, redis-freeze, sqlite, hostile, rss
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once, setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

import { createResultHandles } from '../mcp.mjs';

const META_KEY = 'frontmcp/result-handle';
const THRESHOLD = 16_384;
const results = [];

function record(phase, check, held, figures = '') {
  results.push({ phase, check, held, figures });
  console.log(`  ${held ? 'HELD  ' : 'FAILED'} ${check}${figures ? `: ${figures}` : ''}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values, q) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (value) => `${value.toFixed(1)} ms`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// ─── the answers ────────────────────────────────────────────────────────────

/** A report of `rows` rows, all derived from `seed`: what a session must read back exactly. */
function report(seed, rows) {
  return {
    seed,
    rows: Array.from({ length: rows }, (_, i) => ({
      i,
      seed,
      label: `row ${i} of ${seed} ${'·'.repeat(i % 13)} é😀`,
      amount: (i * 7919 + seed.length) / 100,
    })),
  };
}

/** About 1 MB: the answer hostile queries run over. */
const BIG = {
  items: Array.from({ length: 8000 }, (_, i) => ({
    id: i,
    note: `${'a'.repeat(40 + (i % 40))} note ${i}`,
    tags: ['x', 'y', String(i % 10)],
    nested: { level: { deeper: { value: i } } },
  })),
};

// ─── the server ─────────────────────────────────────────────────────────────

function registerTools(server) {
  server.registerTool(
    'report',
    { description: 'A report of rows for a seed', inputSchema: { seed: z.string(), rows: z.number() } },
    async ({ seed, rows }) => {
      const data = report(seed, rows);
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  server.registerTool('big', { description: 'About 1 MB' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(BIG) }],
    structuredContent: BIG,
  }));
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** One McpServer per session over Streamable HTTP on 127.0.0.1, all sharing one result-handles runtime. */
async function startHost(options) {
  const warnings = [];
  const handles = createResultHandles(
    { thresholdBytes: THRESHOLD, ...options },
    { logger: { warn: (message) => warnings.push(message) } },
  );
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => sessions.delete(transport.sessionId);
        const server = new McpServer({ name: 'soak', version: '1.0.0' });
        registerTools(server);
        handles.attach(server);
        await server.connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error?.message ?? error));
    }
  });
  httpServer.listen(0, '127.0.0.1');
  await once(httpServer, 'listening');
  const url = new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  return {
    url,
    handles,
    warnings,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      httpServer.closeAllConnections?.();
      await new Promise((resolve) => httpServer.close(resolve));
      await handles.close();
    },
  };
}

async function connect(url) {
  const client = new Client({ name: 'soak', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  // Every fetch adds an abort listener to the transport's one signal until it is collected: thousands of reads on
  // one client would print MaxListenersExceededWarning (noise, not a finding here).
  if (transport._abortController) setMaxListeners(0, transport._abortController.signal);
  return client;
}

async function call(client, name, args = {}, timeoutMs = 60_000) {
  const started = performance.now();
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
    return { ms: performance.now() - started, result };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

/** Reads `$.rows` back page by page; resolves with the rows, or with the first error code met. */
async function readRows(client, handle) {
  const rows = [];
  let offset = 0;
  for (;;) {
    const { result, error } = await call(client, 'result_query', { handle, path: '$.rows', offset, limit: 60 });
    if (error) return { error: String(error.message ?? error) };
    if (result.isError) return { error: result._meta?.code ?? 'uncoded' };
    rows.push(...result.structuredContent.value);
    if (result.structuredContent.nextOffset === undefined) return { rows };
    offset = result.structuredContent.nextOffset;
  }
}

function newTally() {
  return { folded: 0, whole: 0, exact: 0, mismatched: 0, readFailed: 0, callFailed: 0, latencies: [] };
}

/** Resolves once `tally` has seen `folds` folds (the load is running), or after 30 s. */
async function loadRunning(tally, folds) {
  for (let i = 0; i < 600 && tally.folded < folds; i++) await sleep(50);
}

/**
 * `sessions` clients each calling `report` and reading every folded answer back, until `until()` is false or each
 * has made `calls` calls. Counts folds, whole answers, exact read-backs and mismatches, and call latency.
 */
async function drive({ url, sessions, calls, until = () => true, rows = 400, tally = newTally() }) {
  const handlesBySession = [];
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      const client = await connect(url);
      const mine = [];
      handlesBySession[s] = mine;
      try {
        for (let c = 0; c < calls && until(); c++) {
          const seed = `s${s}-c${c}-${randomUUID().slice(0, 8)}`;
          const { ms: took, result, error } = await call(client, 'report', { seed, rows });
          tally.latencies.push(took);
          if (error || result.isError) {
            tally.callFailed += 1;
            continue;
          }
          const expected = report(seed, rows);
          const handle = result._meta?.[META_KEY]?.handle;
          if (!handle) {
            tally.whole += 1;
            if (JSON.stringify(result.structuredContent) !== JSON.stringify(expected)) tally.mismatched += 1;
            continue;
          }
          tally.folded += 1;
          mine.push(handle);
          const read = await readRows(client, handle);
          if (read.error) tally.readFailed += 1;
          else if (JSON.stringify(read.rows) === JSON.stringify(expected.rows)) tally.exact += 1;
          else tally.mismatched += 1;
        }
      } finally {
        await client.close().catch(() => {});
      }
    }),
  );
  return { tally, handlesBySession };
}

// ─── Redis ──────────────────────────────────────────────────────────────────

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

async function startRedis() {
  const port = await freePort();
  const launch = () =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  let child = launch();
  const up = async () => {
    for (let i = 0; i < 100; i++) {
      if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG') return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  };
  await up();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    restart: async () => {
      child = launch();
      await up();
    },
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode === 'SIGKILL') return;
      child.kill('SIGCONT');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

// ─── phases ─────────────────────────────────────────────────────────────────

async function sessionsPhase() {
  console.log('\n[sessions] 20 sessions × 25 folds each (memory store), every fold read back page by page');
  const host = await startHost({ storage: { type: 'memory' } });
  try {
    const started = performance.now();
    const { tally, handlesBySession } = await drive({ url: host.url, sessions: 20, calls: 25 });
    const seconds = (performance.now() - started) / 1000;
    record(
      'sessions',
      'every folded answer read back exactly',
      tally.folded === 500 && tally.exact === 500 && tally.mismatched === 0,
      `${tally.exact}/${tally.folded} exact, ${tally.mismatched} mismatched, ${tally.readFailed} read failures, ` +
        `${tally.whole} whole, ${(tally.folded / seconds).toFixed(0)} folds/s, call p50 ${ms(quantile(tally.latencies, 0.5))} p99 ${ms(quantile(tally.latencies, 0.99))}`,
    );
    // Another session's handles: never readable.
    const intruder = await connect(host.url);
    let leaked = 0;
    let tried = 0;
    for (const [s, handles] of handlesBySession.entries()) {
      for (const handle of handles.slice(0, 5)) {
        tried += 1;
        const { result } = await call(intruder, 'result_query', { handle, path: '$.seed' });
        if (!result?.isError || result._meta?.code !== 'RESULT_HANDLE_NOT_FOUND') leaked += 1;
        void s;
      }
    }
    await intruder.close();
    record('sessions', "no session reads another's handle", leaked === 0, `${leaked}/${tried} cross-session reads`);
    const stats = host.handles.stats();
    record(
      'sessions',
      'stats() agree with what the clients saw',
      stats.folded === tally.folded,
      `folded ${stats.folded}, keptBytes ${stats.keptBytes}, queries ${JSON.stringify(stats.queries)}`,
    );
  } finally {
    await host.close();
  }
}

async function redisOutagePhase(kind) {
  const freeze = kind === 'freeze';
  console.log(
    `\n[redis-${kind}] 8 sessions folding on Redis; Redis ${freeze ? 'frozen (SIGSTOP) for 6 s' : 'killed (SIGKILL), restarted 4 s later'}`,
  );
  const redis = await startRedis();
  const host = await startHost({ storage: { type: 'redis', redis: { url: redis.url } } });
  let running = true;
  let backAt = 0;
  try {
    const tally = newTally();
    const load = drive({ url: host.url, sessions: 8, calls: 10_000, until: () => running, rows: 300, tally });
    await loadRunning(tally, 24);
    if (freeze) redis.freeze();
    else await redis.kill();

    await sleep(freeze ? 6000 : 4000);
    if (freeze) redis.thaw();
    else await redis.restart();
    backAt = performance.now();
    // Recovery: how long until a fresh fold is kept again.
    const probe = await connect(host.url);
    let recoveredMs = NaN;
    for (let i = 0; i < 200; i++) {
      const { result } = await call(probe, 'report', { seed: `probe-${i}`, rows: 300 });
      if (result?._meta?.[META_KEY]) {
        recoveredMs = performance.now() - backAt;
        break;
      }
      await sleep(25);
    }
    await probe.close();
    await sleep(2000);
    running = false;
    await load;
    const maxCall = Math.max(...tally.latencies);
    record(
      `redis-${kind}`,
      'every tool call answered (folded, or whole during the outage)',
      tally.callFailed === 0 && tally.mismatched === 0,
      `${tally.folded} folded, ${tally.whole} whole, ${tally.callFailed} failed, ${tally.mismatched} mismatched`,
    );
    record(
      `redis-${kind}`,
      'no call held longer than 12 s',
      maxCall < 12_000,
      `slowest call ${ms(maxCall)}, p99 ${ms(quantile(tally.latencies, 0.99))}`,
    );
    record(
      `redis-${kind}`,
      'folds again once Redis is back',
      Number.isFinite(recoveredMs),
      `first kept fold ${ms(recoveredMs)} after Redis was back`,
    );
    record(
      `redis-${kind}`,
      'folded answers read back exactly or refused with a code',
      tally.mismatched === 0,
      `${tally.exact} exact, ${tally.readFailed} refused with a code (kept before or during the outage)`,
    );
    const stats = host.handles.stats();
    record(
      `redis-${kind}`,
      'store failures visible in stats()',
      Object.values(stats.storeFailures).reduce((a, b) => a + b, 0) > 0 || tally.whole === 0,
      `storeFailures ${JSON.stringify(stats.storeFailures)}, passed ${JSON.stringify(stats.passed)}`,
    );
  } finally {
    running = false;
    await host.close().catch(() => {});
    await redis.stop();
  }
}

/** SQLite faults run in a child process: the parent sees a signal as an exit status. */
async function sqlitePhase() {
  console.log('\n[sqlite] 4 sessions folding on a SQLite file (WAL); side files cut, then made immutable, mid-load');
  const canChattr = (() => {
    const dir = mkdtempSync(join(tmpdir(), 'rh-soak-chattr-'));
    const probe = join(dir, 'probe');
    spawnSync('touch', [probe]);
    const ok = spawnSync('chattr', ['+i', probe]).status === 0;
    spawnSync('chattr', ['-i', probe]);
    rmSync(dir, { recursive: true, force: true });
    return ok;
  })();
  for (const fault of canChattr ? ['truncate', 'immutable'] : ['truncate']) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--sqlite-child', fault], {
      encoding: 'utf8',
      timeout: 90_000,
    });
    const line = child.stdout.trim().split('\n').pop() ?? '';
    let report;
    try {
      report = JSON.parse(line);
    } catch {
      report = undefined;
    }
    record(
      'sqlite',
      `${fault}: the server process survives`,
      child.status === 0 && child.signal === null && report !== undefined,
      `exit ${child.status}${child.signal ? `, signal ${child.signal}` : ''}`,
    );
    if (report) {
      record(
        'sqlite',
        `${fault}: every tool call answered, failures coded`,
        report.callFailed === 0 && report.mismatched === 0,
        `${report.folded} folded, ${report.whole} whole, ${report.callFailed} failed, storeFailures ${JSON.stringify(report.storeFailures)}`,
      );
    }
  }
  if (!canChattr) record('sqlite', 'immutable: skipped (chattr +i not available here)', true);
}

async function sqliteChild(fault) {
  const dir = mkdtempSync(join(tmpdir(), 'rh-soak-sqlite-'));
  const file = join(dir, 'store.db');
  const host = await startHost({ storage: { type: 'sqlite', sqlite: { path: file } } });
  let running = true;
  const faulted = [];
  try {
    const tally = newTally();
    const load = drive({ url: host.url, sessions: 4, calls: 10_000, until: () => running, rows: 300, tally });
    await loadRunning(tally, 12);
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].filter((f) => existsSync(f))) {
      if (fault === 'truncate' && f !== file) truncateSync(f, 0);
      if (fault === 'immutable') spawnSync('chattr', ['+i', f]);
      faulted.push(f);
    }
    await sleep(3000);
    running = false;
    await load;
    const stats = host.handles.stats();
    process.stdout.write(`${JSON.stringify({ ...tally, latencies: undefined, storeFailures: stats.storeFailures })}\n`);
  } finally {
    for (const f of faulted) spawnSync('chattr', ['-i', f]);
    await host.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

const HOSTILE = [
  `$.items[?match(@.note, 'a{1000}{1000}')]`,
  `$.items[?search(@.note, '${Array.from({ length: 10_000 }, (_, i) => `w${i}`).join('|')}')]`,
  `$..[${Array(20).fill('?count(@..*)>0').join(',')}]`,
  `$..[${Array(40).fill('?count(@..*)>0').join(',')}]`,
];

async function hostilePhase() {
  console.log('\n[hostile] a 1 MB answer; 8 hostile queries at once from one session beside normal reads from another');
  const host = await startHost({ storage: { type: 'memory' } });
  try {
    const normal = await connect(host.url);
    const attacker = await connect(host.url);
    const handleOf = async (client) => (await call(client, 'big')).result._meta[META_KEY].handle;
    const mine = await handleOf(normal);
    const theirs = await handleOf(attacker);
    const normalReads = async (until) => {
      const latencies = [];
      for (let i = 0; until(i); i++) {
        const { ms: took } = await call(normal, 'result_query', { handle: mine, path: `$.items[${i % 8000}].id` });
        latencies.push(took);
      }
      return latencies;
    };
    const quiet = await normalReads((i) => i < 300);
    let attacking = true;
    const hostile = Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const path = HOSTILE[i % HOSTILE.length];
        const { ms: took, result, error } = await call(attacker, 'result_query', { handle: theirs, path }, 40_000);
        return { path: path.slice(0, 40), ms: took, outcome: error ? 'timeout' : (result._meta?.code ?? 'ok') };
      }),
    ).finally(() => {
      attacking = false;
    });
    const busy = await normalReads(() => attacking);
    const outcomes = await hostile;
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    record(
      'hostile',
      'every hostile query finishes or is refused within 1 s',
      slowest < 1000,
      outcomes.map((o) => `${o.outcome} ${ms(o.ms)}`).join('; '),
    );
    record(
      'hostile',
      "the other session's p99 stays under 50 ms",
      quantile(busy, 0.99) < 50,
      `quiet p50 ${ms(quantile(quiet, 0.5))} p99 ${ms(quantile(quiet, 0.99))}; under attack p50 ${ms(quantile(busy, 0.5))} p99 ${ms(quantile(busy, 0.99))} (${busy.length} reads)`,
    );
    await normal.close();
    await attacker.close();
  } finally {
    await host.close();
  }
}

/** Threads of this process (Linux), or NaN. */
function threadCount() {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return NaN;
  }
}

/** Resident bytes, counted page by page (/proc/self/smaps_rollup; VmRSS lags), else memoryUsage().rss. */
function residentBytes() {
  try {
    return Number(/^Rss:\s+(\d+)/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))[1]) * 1024;
  } catch {
    return process.memoryUsage().rss;
  }
}

async function rssPhase() {
  console.log('\n[rss] RSS before, after a 20-session load, and after close()');
  const gc = globalThis.gc ?? (() => {});
  gc();
  const before = residentBytes();
  const host = await startHost({ storage: { type: 'memory' } });
  await drive({ url: host.url, sessions: 20, calls: 15, rows: 1500 });
  const loaded = residentBytes();
  await host.close();
  const threadsLoaded = threadCount();
  gc();
  // Idle worker threads (tokio's blocking pool keeps them 10 s) exit and give back their stacks and arenas.
  const series = [];
  for (let s = 0; s < 20; s += 2) {
    series.push(`${s}s ${mb(residentBytes())}`);
    await sleep(2000);
    gc();
  }
  console.log('    ' + series.join(', '));
  const after = residentBytes();
  record(
    'rss',
    'RSS back near where it started, 20 s after close() (within 1.6×)',
    after < before * 1.6,
    `before ${mb(before)}, after load ${mb(loaded)} (${threadsLoaded} threads), 20 s after close() ${mb(after)} (${threadCount()} threads, ${Object.entries(
      process.memoryUsage(),
    )
      .map(([k, v]) => `${k} ${mb(v)}`)
      .join(', ')})`,
  );
}

// ─── main ───────────────────────────────────────────────────────────────────

const PHASES = {
  sessions: sessionsPhase,
  'redis-kill': () => redisOutagePhase('kill'),
  'redis-freeze': () => redisOutagePhase('freeze'),
  sqlite: sqlitePhase,
  hostile: hostilePhase,
  rss: rssPhase,
};

const args = process.argv.slice(2);
if (args[0] === '--sqlite-child') {
  await sqliteChild(args[1]);
  process.exit(0);
}
const only = args[0] === '--only' ? args[1] : undefined;
const started = performance.now();
console.log(`soak: node ${process.version}, ${new Date().toISOString()}`);
// rss first: a clean baseline before other phases have grown the heap.
for (const name of ['rss', 'sessions', 'redis-kill', 'redis-freeze', 'sqlite', 'hostile']) {
  if (only && only !== name) continue;
  try {
    await PHASES[name]();
  } catch (error) {
    record(name, 'phase ran to the end', false, String(error?.stack ?? error));
  }
}
const failed = results.filter((r) => !r.held);
console.log(
  `\nsoak: ${results.length - failed.length} held, ${failed.length} failed, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
for (const r of failed) console.log(`  FAILED [${r.phase}] ${r.check}: ${r.figures}`);
process.exit(failed.length ? 1 : 0);
