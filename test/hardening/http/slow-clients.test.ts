import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * Connections from slow, silent or rude clients, over real sockets against the built server: the token is checked
 * before a body is read (a bad or missing one gets its 401 at once), a request that does not arrive within
 * LEDGER_HTTP_REQUEST_TIMEOUT_MS closes its connection (408), answers that take long (WebSockets) are not cut by it,
 * and a client resetting its connection mid-body is the client's doing (info log, 400), not a database outage.
 * Every wait is bounded.
 */
const REQUEST_TIMEOUT_MS = 1500;
let server: ServerProcess;
let token: string;

beforeAll(async () => {
  const { url } = await createTestDatabase();
  server = await startServerProcess({
    DATABASE_URL: url,
    LEDGER_JWT_SECRET: TEST_JWT_SECRET,
    LEDGER_LOG_LEVEL: 'info',
    LEDGER_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
  token = await scopeToken();
});
afterAll(async () => {
  await server?.stop();
});

interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves (with the milliseconds since `opened`) when the server closed the connection. */
  closed: Promise<number>;
}

function connect(): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let data = '';
    const opened = Date.now();
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - opened)));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** Resolves when `ok()` holds; fails after `ms`. */
async function within(ms: number, what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const bounded = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms)),
  ]);

const head = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('the token before the body', () => {
  it('a request without a token gets its 401 before it has sent its (declared 8 MiB) body', async () => {
    const c = await connect();
    c.socket.write(
      head('/v2/users', { 'content-type': 'application/json', 'content-length': String(8 * 1024 * 1024) }),
    );
    c.socket.write('{"user": {"id": "never-read"'.padEnd(4096, ' '));
    await within(5000, 'a 401 while the body is still outstanding', () =>
      / 401 /.test(c.received().split('\r\n')[0] ?? ''),
    );
    expect(c.received()).toContain('"code":"NA"');
    c.socket.destroy();
  });

  it('a bad token with a malformed body is 401, not the body error', async () => {
    for (const authorization of [undefined, 'Bearer not-a-jwt', `Bearer ${token.slice(0, -4)}AAAA`]) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const r = await fetch(`${server.url}/v2/users`, { method: 'POST', headers, body: '{"user": {' });
      expect(r.status, authorization).toBe(401);
      expect(((await r.json()) as { code: string }).code).toBe('NA');
    }
    // With a valid token the body is read, and its error is the decode error.
    const ok = await fetch(`${server.url}/v2/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{"user": {',
    });
    expect(ok.status).toBe(400);
  });

  it('public routes need no token, with or without a body', async () => {
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs/openapi`)).status).toBe(200);
  });
});

describe('request timeout (LEDGER_HTTP_REQUEST_TIMEOUT_MS)', () => {
  it('an authenticated client that stops sending its body is answered 408 and disconnected', async () => {
    const c = await connect();
    c.socket.write(
      head('/v2/users', {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '1000',
      }),
    );
    c.socket.write('{"user": {"id": "slow"');
    const after = await bounded(c.closed, REQUEST_TIMEOUT_MS + 5000, 'the connection to close');
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.received()).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it('a client that never finishes its headers is disconnected', async () => {
    const c = await connect();
    c.socket.write('GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const after = await bounded(c.closed, REQUEST_TIMEOUT_MS + 5000, 'the connection to close');
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  });

  it('a WebSocket outlives the request timeout (it bounds requests, not answers)', async () => {
    const grant = await fetch(`${server.url}/v2/users/participant_admin/rights`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ userId: 'participant_admin', rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }] }),
    });
    expect(grant.status).toBe(200);
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v2/updates`, ['daml.ws.auth', `jwt.token.${token}`]);
    let closedAt: number | null = null;
    const messages: string[] = [];
    ws.on('message', (m) => messages.push(String(m)));
    ws.on('close', () => (closedAt = Date.now()));
    ws.on('error', () => undefined);
    await bounded(new Promise((r) => ws.once('open', r)), 5000, 'the WebSocket to open');
    ws.send(
      JSON.stringify({
        beginExclusive: 0,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersForAnyParty: { cumulative: [] } },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      }),
    );
    await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT_MS * 2 + 1000));
    expect(closedAt, messages.join('\n')).toBeNull();
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('a client resetting its connection mid-body', () => {
  it('is logged at info level as the client’s doing, never as a database outage, and the server carries on', async () => {
    const traceId = 'f'.repeat(16) + '0123456789abcdef';
    const c = await connect();
    c.socket.write(
      head('/v2/users', {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '100000',
        traceparent: `00-${traceId}-b7ad6b7169203331-01`,
      }),
    );
    c.socket.write('{"user": {"id": "reset"'.padEnd(20_000, ' '));
    // Lets the server read part of the body before the reset (there is no signal of what it has read).
    await new Promise((r) => setTimeout(r, 200));
    c.socket.resetAndDestroy();
    const line = () =>
      server
        .streams()
        .stdout.split('\n')
        .find((l) => l.includes(traceId) && l.includes('request failed'));
    await within(5000, 'the log line of the reset request', () => line() !== undefined);
    const logged = JSON.parse(line()!);
    expect(logged.status).toBe(400);
    expect(logged.level).toBe(30);
    expect(server.output()).not.toMatch(/database is unavailable/);
    expect((await fetch(`${server.url}/v2/version`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });
});
