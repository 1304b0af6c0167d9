import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@weft/devstack';
import { Cluster, Redis } from 'ioredis';
import { waitFor } from './wait-for';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** Master nodes (no replicas); 3 is the fewest `redis-cli --cluster create` accepts. */
  masters?: number;
  redisServer?: string;
  redisCli?: string;
  /** Every node asks for it (`requirepass`, and `masterauth` between nodes). */
  password?: string;
}

export interface TestRedisCluster {
  /** `host:port` of every master, the value of REDIS_CLUSTER_NODES. */
  nodes: string[];
  /** REDIS_CLUSTER_NODES as the apps read it. */
  nodesEnv: string;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of the test's own: `masters` redis-server processes in
 * cluster mode on free loopback ports, their cluster config files in a
 * temporary directory, the 16384 slots spread over them by `redis-cli
 * --cluster create`. Resolves once every slot is served and the cluster
 * reports `cluster_state:ok` on each node; stop() kills them and removes the directory.
 */
export async function startRedisCluster({
  masters = 3,
  redisServer = 'redis-server',
  redisCli = 'redis-cli',
  password,
}: RedisClusterOptions = {}): Promise<TestRedisCluster> {
  const auth = password ? ['--requirepass', password, '--masterauth', password] : [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-redis-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      // Ports taken one after another: a free port is only free until someone listens on it.
      const port = await freePort();
      const nodeDir = path.join(dir, String(port));
      fs.mkdirSync(nodeDir);
      const child = spawn(
        redisServer,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          nodeDir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout',
          '5000',
          ...auth,
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      ports.push(port);
      await waitUntilPings(port, child, password);
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run(
      redisCli,
      [...(password ? ['-a', password, '--no-auth-warning'] : []), '--cluster', 'create', ...nodes].concat([
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]),
      { timeout: 30_000 },
    );
    await waitUntilClusterOk(nodes, password);
    return { nodes, nodesEnv: nodes.join(','), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitUntilPings(port: number, child: ChildProcess, password?: string): Promise<void> {
  const probe = new Redis(port, '127.0.0.1', {
    ...(password ? { password } : {}),
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => 50,
  });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      `redis-server (cluster mode) on port ${port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
        return (await probe.ping()) === 'PONG';
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  } finally {
    probe.disconnect();
  }
}

/** Every node agrees the cluster is up, and a cluster client can write to a slot on each master. */
async function waitUntilClusterOk(nodes: string[], password?: string): Promise<void> {
  for (const node of nodes) {
    const [host, port] = node.split(':');
    const probe = new Redis(Number(port), host!, {
      maxRetriesPerRequest: 0,
      retryStrategy: () => 50,
      ...(password ? { password } : {}),
    });
    probe.on('error', () => undefined);
    try {
      await waitFor(
        `cluster_state:ok on ${node}`,
        async () => /^cluster_state:ok/m.test((await probe.call('CLUSTER', 'INFO')) as string),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
    } finally {
      probe.disconnect();
    }
  }
  const client = new Cluster(
    nodes.map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
    password ? { redisOptions: { password } } : {},
  );
  client.on('error', () => undefined);
  try {
    await waitFor(
      'the cluster to accept writes on every master',
      async () => {
        // Three tags whose slots lie far apart: one per master of a three-master cluster.
        await Promise.all(['{a}', '{b}', '{c}'].map((tag) => client.set(`${tag}:probe`, '1', 'PX', 1000)));
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  } finally {
    client.disconnect();
  }
}
