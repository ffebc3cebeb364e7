// ─── Test services: a real redis-server, a tiny RESP client, an Upstash-protocol REST endpoint ───
// Everything listens on 127.0.0.1 only. The global setup starts one Redis for every suite (inject('redisUrl'));
// suites that stop a server (the outage test) start their own with startRedis().
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, Socket, type AddressInfo } from 'node:net';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:<port>` of the redis-server the global setup started. */
    redisUrl: string;
  }
}

// ─── redis-server ───────────────────────────────────────────────────────────

/** A redis-server child process on a loopback port. */
export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGKILL when `abrupt`, like a crash) and waits for it to exit. */
  stop(abrupt?: boolean): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

/** A port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

function launch(port: number): ChildProcess {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  child.on('error', () => {
    // Reported by waitForPing below (ENOENT when redis-server is not installed).
  });
  return child;
}

async function waitForPing(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const client = await RespClient.connect(port);
      const reply = await client.command('PING');
      client.close();
      if (reply === 'PONG') return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(
    `redis-server did not answer on 127.0.0.1:${port} (is redis-server installed? scripts/test.sh installs it)`,
  );
}

/** Starts a redis-server on a free loopback port and waits until it answers PING. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child = launch(port);
  await waitForPing(port, child);
  const stop = async (abrupt = false): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(abrupt ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop();
      child = launch(port);
      await waitForPing(port, child);
    },
  };
}

// ─── RESP client (just enough for the tests: commands in, replies out) ──────

/** A Redis reply: simple strings as strings, bulk strings as Buffers, errors as Error objects. */
export type RespReply = string | number | Buffer | null | Error | RespReply[];

/** A minimal RESP2 client over one socket; commands are answered in order. */
export class RespClient {
  private buffer = Buffer.alloc(0);
  private readonly waiting: Array<(reply: RespReply) => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      for (;;) {
        const parsed = parseReply(this.buffer, 0);
        if (!parsed) return;
        this.buffer = this.buffer.subarray(parsed.next);
        this.waiting.shift()?.(parsed.reply);
      }
    });
    socket.on('error', () => {
      for (const resolve of this.waiting.splice(0)) resolve(new Error('connection lost'));
    });
  }

  static async connect(port: number): Promise<RespClient> {
    const socket = new Socket();
    socket.connect(port, '127.0.0.1');
    await Promise.race([once(socket, 'connect'), once(socket, 'error').then(([error]) => Promise.reject(error))]);
    return new RespClient(socket);
  }

  /** Sends one command; resolves with the reply (a Redis error reply resolves as an Error). */
  command(...args: Array<string | number | Buffer>): Promise<RespReply> {
    const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
      parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.socket.write(Buffer.concat(parts));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

function parseReply(buffer: Buffer, at: number): { reply: RespReply; next: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const kind = String.fromCharCode(buffer[at]);
  const line = buffer.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (kind) {
    case '+':
      return { reply: line, next };
    case '-':
      return { reply: new Error(line), next };
    case ':':
      return { reply: Number(line), next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { reply: null, next };
      if (buffer.length < next + length + 2) return undefined;
      return { reply: Buffer.from(buffer.subarray(next, next + length)), next: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { reply: null, next };
      const items: RespReply[] = [];
      let cursor = next;
      for (let i = 0; i < count; i += 1) {
        const item = parseReply(buffer, cursor);
        if (!item) return undefined;
        items.push(item.reply);
        cursor = item.next;
      }
      return { reply: items, next: cursor };
    }
    default:
      throw new Error(`unexpected RESP reply type ${JSON.stringify(kind)}`);
  }
}

// ─── Upstash-protocol REST endpoint forwarding to a real Redis ──────────────

/** A local REST endpoint speaking the Upstash protocol, backed by a real Redis. */
export interface RestEndpoint {
  url: string;
  token: string;
  /** Commands received, in order (command names only, pipelined ones too). */
  commands: string[];
  /** HTTP requests received (a pipeline of commands is one). */
  requests: number;
  close(): Promise<void>;
}

function toJson(reply: RespReply): unknown {
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map(toJson);
  return reply;
}

/** Whether `args` is one command as the REST protocol spells it: a non-empty array of strings and numbers. */
const isCommand = (args: unknown): args is Array<string | number> =>
  Array.isArray(args) && args.length > 0 && args.every((a) => ['string', 'number'].includes(typeof a));

/**
 * POST `/` with a JSON array `["SET", key, value, "EX", ttl]` and `Authorization: Bearer <token>`; replies
 * `{ result }`, or `{ error }` with status 400 (command error) or 401 (bad token), as Upstash does. POST `/pipeline`
 * with an array of such commands replies with an array of `{ result }` / `{ error }`, one per command.
 */
export async function startRestEndpoint(redisPort: number, token: string): Promise<RestEndpoint> {
  const client = await RespClient.connect(redisPort);
  const endpoint: RestEndpoint = {
    url: '',
    token,
    commands: [],
    requests: 0,
    async close() {
      server.closeAllConnections();
      server.close();
      client.close();
    },
  };
  const server: Server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.headers.authorization !== `Bearer ${token}`) {
        reply(401, { error: 'Unauthorized' });
        return;
      }
      let args: unknown;
      try {
        args = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        reply(400, { error: 'ERR failed to parse command' });
        return;
      }
      endpoint.requests += 1;
      const run = async (command: Array<string | number>) => {
        endpoint.commands.push(String(command[0]).toUpperCase());
        const result = await client.command(...command);
        return result instanceof Error ? { error: result.message } : { result: toJson(result) };
      };
      if (request.url === '/pipeline') {
        if (!Array.isArray(args) || !args.every(isCommand)) {
          reply(400, { error: 'ERR failed to parse pipeline' });
          return;
        }
        void (async () => {
          const results = [];
          for (const command of args) results.push(await run(command));
          reply(200, results);
        })();
        return;
      }
      if (!isCommand(args)) {
        reply(400, { error: 'ERR failed to parse command' });
        return;
      }
      void run(args).then((outcome) => reply('error' in outcome ? 400 : 200, outcome));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  endpoint.url = `http://127.0.0.1:${port}`;
  return endpoint;
}

// ─── global setup hook ──────────────────────────────────────────────────────

/** Starts the shared Redis, provides its URL, and returns the teardown. */
export async function setupSharedRedis(
  provide: (key: 'redisUrl', value: string) => void,
): Promise<() => Promise<void>> {
  // A Redis the runner provides (the release workflow's service container on Linux).
  const given = process.env.RESULT_HANDLES_TEST_REDIS_URL;
  if (given || noRedisServer) {
    if (!given) console.log(`[skip] the suites that need Redis: ${noRedisServer}`);
    provide('redisUrl', given ?? '');
    return async () => {};
  }
  const server = await startRedis();
  provide('redisUrl', server.url);
  return () => server.stop();
}

// ─── skipping where Redis is not at hand ────────────────────────────────────

/** Why no redis-server can be started here, or `undefined` when one can (it is on the PATH). */
export const noRedisServer: string | undefined = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error
  ? `redis-server is not on the PATH on this ${process.platform} machine (the release workflow provides Redis on Linux only; elsewhere install it to run these)`
  : undefined;

/** Why the shared Redis (`inject('redisUrl')`) is missing, or `undefined` when the global setup provided one. */
export function noSharedRedis(redisUrl: string): string | undefined {
  return redisUrl ? undefined : (noRedisServer ?? 'no Redis was provided');
}
