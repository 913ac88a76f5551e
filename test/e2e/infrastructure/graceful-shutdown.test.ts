import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { callJson, ensureBuilt, scopeToken, startServerProcess } from '../../support/server-process';

/**
 * SIGTERM while appends are in flight: the server stops accepting, lets them commit and answer, closes the pool and exits 0.
 * To hold appends in flight for sure, the test itself locks the `ledger_head` row (as another writer instance would) until
 * after the signal. Every step waits for what it needs to see (a lock wait in pg_stat_activity, the requests read by the
 * server, the shutdown log line, the port closed); the time limits only bound a failure.
 */
beforeAll(() => ensureBuilt());

/** Polls `check` every 25 ms until it holds; fails with `what` after `timeoutMs`. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface InFlightPost {
  /** The client's port, once the whole request has been handed to the kernel. */
  sent: Promise<number>;
  response: Promise<{ status: number; body: string }>;
  settled: boolean;
}

/** A POST on a connection of its own, so that the kernel's queues for it tell how far the request got. */
function postOnOwnConnection(url: string, path: string, token: string, body: unknown): InFlightPost {
  const data = JSON.stringify(body);
  const req = http.request(url + path, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(data),
    },
  });
  const post: InFlightPost = { settled: false } as InFlightPost;
  post.sent = new Promise((resolve, reject) => {
    req.once('error', reject);
    req.end(data, () => resolve((req.socket as net.Socket).localPort!));
  });
  post.response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.once('end', () => resolve({ status: res.statusCode!, body: text }));
    });
  }).finally(() => (post.settled = true));
  return post;
}

/** Send and receive queue lengths of the IPv4 TCP sockets, by "localPort>remotePort" (Linux: /proc/net/tcp). */
function tcpQueues(): Map<string, { tx: number; rx: number }> {
  const out = new Map<string, { tx: number; rx: number }>();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    const port = (addr: string) => parseInt(addr.split(':')[1], 16);
    const [tx, rx] = f[4].split(':').map((h) => parseInt(h, 16));
    out.set(`${port(f[1])}>${port(f[2])}`, { tx, rx });
  }
  return out;
}

/**
 * Every request was read by the server process: its bytes left the client (nothing unacknowledged in the client's send
 * queue) and nothing waits in the server side's receive queue, so Node has parsed it and the request counts as in flight.
 */
function allReadByServer(serverPort: number, clientPorts: number[]): boolean {
  const q = tcpQueues();
  return clientPorts.every((p) => q.get(`${p}>${serverPort}`)?.tx === 0 && q.get(`${serverPort}>${p}`)?.rx === 0);
}

/** True once nothing listens on the port any more. */
function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM during in-flight appends: they complete with 200, then the process exits 0 and the writes are kept', async () => {
    const { url } = await createTestDatabase();
    const env = { DATABASE_URL: url, LEDGER_JWT_SECRET: TEST_JWT_SECRET };
    const server = await startServerProcess({ ...env, LEDGER_LOG_LEVEL: 'info' });
    const token = await scopeToken();

    const blocker = new Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM ledger_head WHERE id = 1 FOR UPDATE');
    const blockerPid = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    // Watched from a connection of its own: inside the blocker's transaction, pg_stat_activity would stay the snapshot
    // its first read took.
    const watcher = new Client({ connectionString: url });
    await watcher.connect();

    const ids = Array.from({ length: 20 }, (_, i) => `graceful-${i}`);
    const posts = ids.map((id) => postOnOwnConnection(server.url, '/v2/users', token, { user: { id } }));
    // The server's writer waits for our lock, with the other requests queued behind it.
    await until('the server to wait for the ledger_head lock', async () => {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`,
        [blockerPid],
      );
      return rows[0].n > 0;
    });
    await watcher.end();
    const clientPorts = await Promise.all(posts.map((p) => p.sent));
    await until('the server to read all 20 requests', () => allReadByServer(server.port, clientPorts));

    server.proc.kill('SIGTERM');
    const alive = () => {
      if (server.proc.exitCode !== null || server.proc.signalCode !== null)
        throw new Error(`the server exited while its requests were in flight:\n${server.output()}`);
    };
    await until('the shutdown log line', () => {
      alive();
      return server.output().includes('shutting down: no new requests');
    });
    await until('the port to close', () => {
      alive();
      return portClosed(server.port);
    });
    // No longer accepting, yet still alive and finishing its in-flight work, which our lock holds back.
    expect(server.proc.exitCode).toBeNull();
    expect(server.proc.signalCode).toBeNull();
    expect(posts.filter((p) => p.settled)).toEqual([]);
    await blocker.query('COMMIT');
    await blocker.end();

    const results = await Promise.all(posts.map((p) => p.response));
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(await server.exited).toBe(0);

    const again = await startServerProcess(env);
    try {
      for (const id of ids) expect((await callJson(again.url, 'GET', `/v2/users/${id}`, token)).status, id).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
