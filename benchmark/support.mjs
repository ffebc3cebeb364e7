// ─── benchmark support: the helpers every benchmark/*.bench.mjs shares ─────────────────────────────────────
// Timing (medians of warm runs), the generated "orders" answers, formatting, and a throwaway redis-server on a
// loopback port. Not a benchmark itself: benchmark/run.mjs only runs files named *.bench.mjs.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// ─── the addon with the bindings the package does not ship ─────────────────────

/**
 * The addon built with the `test-bindings` feature (foldAnswer, queryAnswer, sealRecordSync…), for the benches that
 * time them: `npm run build:bench-bindings` builds it, optimized, into __test__/bindings/ (where the specs find it
 * too; `npm run build:test-bindings` puts a debug build there, which times nothing useful).
 * @example
 * const native = testBindings();
 */
export function testBindings() {
  const path = fileURLToPath(new URL('../__test__/bindings/test-bindings.node', import.meta.url));
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build:bench-bindings\` first.`);
  return createRequire(import.meta.url)(path);
}

// ─── timing ─────────────────────────────────────────────────────────────────

/**
 * The median of a list of durations (for an even count, the upper of the two middle values).
 * @example
 * median([3, 1, 2]); // 2
 */
export function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Times a synchronous `fn`: one warm-up call, then `runs` timed calls; returns the median in ms.
 * @example
 * const ms = time(() => JSON.parse(text), 25);
 */
export function time(fn, runs) {
  fn(); // warm-up
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * Runs each function `runs` times, interleaved (one of each per round), awaiting every call, after `warmups`
 * untimed rounds; returns their medians in ms, in the order given.
 * @example
 * const [nativeMs, jsMs] = await interleaved([() => native.run(), () => js.run()], 11);
 */
export async function interleaved(fns, runs, { warmups = 1 } = {}) {
  for (let w = 0; w < warmups; w++) for (const fn of fns) await fn();
  const samples = fns.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      samples[i].push(performance.now() - start);
    }
  }
  return samples.map(median);
}

/**
 * Times an async (or sync) `fn`: one warm-up call, then `runs` awaited calls; returns the median in ms.
 * @example
 * const ms = await timeAsync(() => native.foldAnswer(json, 'json', settings), 7);
 */
export async function timeAsync(fn, runs) {
  const [ms] = await interleaved([fn], runs);
  return ms;
}

/**
 * CPU time of the JS thread so far, in ms: `process.threadCpuUsage()` (Node ≥ 23.9), else the main thread's
 * schedstat on Linux (updated at context switches and scheduler ticks, so a few ms coarse), else `undefined`. On a
 * shared machine the JS thread's wall-clock busy time (event-loop utilization) also counts the time it waited for a
 * core while other threads ran, so CPU time is the fairer measure of what it spent.
 * @example
 * const before = jsThreadCpuMs();
 */
export function jsThreadCpuMs() {
  if (typeof process.threadCpuUsage === 'function') {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  }
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * JS-thread time `fn` takes: CPU time where it can be read, else event-loop active time. Linux adds a running
 * thread's time to both clocks (schedstat and `getrusage(RUSAGE_THREAD)`, behind `process.threadCpuUsage`) at
 * scheduler ticks and when it sleeps, so a run that ends without the thread sleeping reads up to a tick (a few ms)
 * short: the clock is read after a sleep on both sides of `fn`, so that a bare stringify and a whole call (which
 * sleeps while the engine works) are read alike.
 * @example
 * const { busy } = await jsThreadTime(() => client.callTool({ name: 'orders', arguments: {} }));
 */
export async function jsThreadTime(fn) {
  await sleep(1);
  const cpu = jsThreadCpuMs();
  const elu = performance.eventLoopUtilization();
  const value = await fn();
  await sleep(1);
  const busy = cpu === undefined ? performance.eventLoopUtilization(elu).active : jsThreadCpuMs() - cpu;
  return { busy, value };
}

// ─── data ───────────────────────────────────────────────────────────────────

/**
 * `{ orders, total }` with `orders = [makeOrder(0), makeOrder(1), …]`, stopping once the orders' JSON (one
 * separator byte each) reaches `bytes`. Each benchmark passes its own order shape.
 * @example
 * const { orders, total } = ordersAnswer(1_000_000, (i) => ({ id: i, status: 'open' }));
 */
export function ordersAnswer(bytes, makeOrder) {
  const orders = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const order = makeOrder(i);
    size += JSON.stringify(order).length + 1;
    orders.push(order);
  }
  return { orders, total: orders.length };
}

// ─── formatting ─────────────────────────────────────────────────────────────

/**
 * `value` with `digits` decimals, padded on the left to `width` characters.
 * @example
 * fixed(3.14159, 2, 8); // '    3.14'
 */
export const fixed = (value, digits, width = 0) => value.toFixed(digits).padStart(width);

/**
 * A duration in ms as text: `fixed(ms, digits, width)` followed by ' ms'.
 * @example
 * formatMs(1.5); // '1.50 ms'
 * formatMs(1.5, 2, 9); // '     1.50 ms'
 */
export const formatMs = (ms, digits = 2, width = 0) => `${fixed(ms, digits, width)} ms`;

// ─── a throwaway redis-server on loopback ───────────────────────────────────

/**
 * A free TCP port on 127.0.0.1 (the OS picks one; the listener is closed before returning).
 * @example
 * const port = await freePort();
 */
export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Whether a Redis server on 127.0.0.1:`port` answers PING with PONG. */
async function pongs(port) {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    socket.write('*1\r\n$4\r\nPING\r\n');
    const [reply] = await once(socket, 'data', { signal: AbortSignal.timeout(1000) });
    return reply.toString('latin1').startsWith('+PONG');
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/**
 * Starts `redis-server` (no persistence) on a free 127.0.0.1 port and waits, up to 10 s, until it answers PING.
 * Returns `{ port, url, stop }` (`await stop()` ends the server), or `null` when redis-server is not installed or
 * did not start.
 * @example
 * const redis = await startRedis();
 * if (redis) { useRedisAt(redis.url); await redis.stop(); }
 */
export async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  let spawnFailed = false;
  child.once('error', () => (spawnFailed = true));
  const running = () => !spawnFailed && child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  for (let i = 0; i < 200 && running(); i++) {
    if (await pongs(port)) return { port, url: `redis://127.0.0.1:${port}`, stop };
    await sleep(50);
  }
  if (running()) child.kill('SIGKILL');
  return null;
}

// ─── Redis: a plain RESP client ─────────────────────────────────────────────

/**
 * A plain RESP client over one connected socket (bulk strings as Buffers, errors as Error values, other replies as
 * their line); the baseline's Redis client, and the storage benchmark's Upstash-protocol endpoint's.
 * @example
 * const resp = new Resp(socket); await resp.command('SET', key, value);
 */
export class Resp {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.waiting = [];
    socket.on('data', (chunk) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      for (;;) {
        const parsed = this.parse();
        if (!parsed) return;
        this.waiting.shift()(parsed);
      }
    });
  }
  parse() {
    const end = this.buf.indexOf('\r\n');
    if (end < 0) return undefined;
    const kind = String.fromCharCode(this.buf[0]);
    const line = this.buf.toString('latin1', 1, end);
    if (kind === '$') {
      const len = Number(line);
      if (len < 0) {
        this.buf = this.buf.subarray(end + 2);
        return { value: null };
      }
      if (this.buf.length < end + 2 + len + 2) return undefined;
      const value = this.buf.subarray(end + 2, end + 2 + len);
      this.buf = this.buf.subarray(end + 4 + len);
      return { value };
    }
    this.buf = this.buf.subarray(end + 2);
    return { value: kind === '-' ? new Error(line) : line };
  }
  command(...args) {
    const parts = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const b = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
      parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
    }
    return new Promise((resolve) => {
      this.waiting.push((r) => resolve(r.value));
      this.socket.write(Buffer.concat(parts));
    });
  }
}
