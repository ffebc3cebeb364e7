// ─── A real Redis Cluster on loopback: redis-server processes in cluster mode, made one with redis-cli ───
// Used by the cluster suite (__test__/store-cluster.spec.ts) and the storage benchmark. By default 3 masters with
// one replica each. A short cluster-node-timeout (1 s) lets a replica take over a killed master within a few
// seconds. Plain JS (no test-runner imports), so the benchmark can use it too.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const NODE_TIMEOUT_MS = 1000;

async function listens(port) {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

/** A port that is free together with its cluster bus port (port + 10000). */
async function clusterPort(taken) {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (!taken.has(port) && (await listens(port)) && (await listens(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
}

/** One command through redis-cli to the node on `port`; its reply as text (lists one item a line). */
export async function ask(port, ...args) {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args.map(String)]);
  return stdout.trim();
}

async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis cluster: ${what} did not happen within ${ms} ms`);
}

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

async function kill(child) {
  if (exited(child)) return;
  const gone = once(child, 'exit');
  child.kill('SIGKILL');
  await gone;
}

/**
 * Starts `masters` masters with `replicas` replicas each, creates the cluster and waits until it serves.
 * Returns `{ nodes: [{ port, url, alive, kill() }], urls, masters(), ownerOf(key), migrateSlotOf(key, toPort),
 * ask(port, ...args), replicated(), stop() }`.
 */
export async function startRedisCluster({ masters = 3, replicas = 1 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rh-cluster-'));
  const children = new Map();
  const stop = async () => {
    await Promise.all([...children.values()].map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set();
    const ports = [];
    for (let i = 0; i < masters * (1 + replicas); i += 1) ports.push(await clusterPort(taken));
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(NODE_TIMEOUT_MS),
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      child.on('error', () => {}); // reported below: the node never answers
      children.set(port, child);
    }
    await until('every node answering PING', async () =>
      (await Promise.all(ports.map((port) => ask(port, 'PING')))).every((reply) => reply === 'PONG'),
    );
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    await until('cluster_state:ok on every node', async () =>
      (await Promise.all(ports.map((port) => ask(port, 'CLUSTER', 'INFO')))).every((info) =>
        info.includes('cluster_state:ok'),
      ),
    );
    await until('every replica linked', async () =>
      (await Promise.all(ports.map((port) => ask(port, 'INFO', 'replication'))))
        .filter((info) => info.includes('role:slave'))
        .every((info) => info.includes('master_link_status:up')),
    );
    const nodes = ports.map((port) => ({
      port,
      url: `redis://127.0.0.1:${port}`,
      get alive() {
        return !exited(children.get(port));
      },
      kill: () => kill(children.get(port)),
    }));
    const live = () => nodes.find((node) => node.alive).port;
    /** Ports of the masters a live node sees serving now. */
    const masterPorts = async () =>
      (await ask(live(), 'CLUSTER', 'NODES'))
        .split('\n')
        .map((line) => line.split(' '))
        .filter(([, , flags = '']) => flags.split(',').includes('master') && !flags.includes('fail'))
        .map(([, address]) => Number(/:(\d+)@/.exec(address)?.[1]));
    /** The master serving `key`'s slot, and the slot. */
    const ownerOf = async (key) => {
      const slot = Number(await ask(live(), 'CLUSTER', 'KEYSLOT', key));
      for (const port of await masterPorts()) {
        if (Number(await ask(port, 'CLUSTER', 'COUNTKEYSINSLOT', slot)) > 0) return { port, slot };
      }
      throw new Error(`no master holds slot ${slot}`);
    };
    /** Moves `key`'s slot (and every key in it) to the master on `toPort`, as a resharding does. */
    const migrateSlotOf = async (key, toPort) => {
      const { port: fromPort, slot } = await ownerOf(key);
      const [fromId, toId] = await Promise.all([ask(fromPort, 'CLUSTER', 'MYID'), ask(toPort, 'CLUSTER', 'MYID')]);
      const expectOk = (reply, step) => {
        if (reply !== 'OK') throw new Error(`slot migration: ${step} answered ${reply}`);
      };
      expectOk(await ask(toPort, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId), 'IMPORTING');
      expectOk(await ask(fromPort, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId), 'MIGRATING');
      const keys = (await ask(fromPort, 'CLUSTER', 'GETKEYSINSLOT', slot, 1000)).split('\n').filter(Boolean);
      expectOk(await ask(fromPort, 'MIGRATE', '127.0.0.1', toPort, '', 0, 5000, 'KEYS', ...keys), 'MIGRATE');
      for (const port of await masterPorts()) {
        expectOk(await ask(port, 'CLUSTER', 'SETSLOT', slot, 'NODE', toId), 'SETSLOT NODE');
      }
    };
    return {
      nodes,
      urls: nodes.map((node) => node.url),
      masters: masterPorts,
      ownerOf,
      migrateSlotOf,
      ask,
      /** Waits until every master's writes have reached its replicas. */
      async replicated() {
        await until('replicas caught up', async () => {
          for (const port of await masterPorts()) {
            const info = await ask(port, 'INFO', 'replication');
            const offset = /master_repl_offset:(\d+)/.exec(info)?.[1];
            const replicas = [...info.matchAll(/slave\d+:.*?offset=(\d+)/g)].map((match) => match[1]);
            if (replicas.length === 0 || replicas.some((replica) => replica !== offset)) return false;
          }
          return true;
        });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
