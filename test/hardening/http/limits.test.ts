import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { StreamLimiter } from '@ledgerline/server/streaming/stream-limiter';
import { startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * Resource limits, each lowered so that its edge is cheap to reach:
 *  - LEDGER_MAX_BODY_BYTES (16 KiB): every operation with a request body answers 413 REQUEST_TOO_LARGE and changes nothing;
 *  - LEDGER_WS_MAX_MESSAGE_BYTES (2 KiB): a larger WebSocket message gets a REQUEST_TOO_LARGE frame and close 1009 with a reason;
 *  - LEDGER_MAX_STREAMS_PER_USER (2): WebSockets and open-ended update lists of one user share the limit; one more is
 *    MAXIMUM_NUMBER_OF_STREAMS (HTTP 429, or a frame and close 1013 on a WebSocket); other users are unaffected;
 *  - LEDGER_HTTP_LIST_MAX_ELEMENTS (3): the 413 edges of /v2/updates/flats are covered in test/e2e/updates/reading-the-ledger.test.ts
 *    ("limit and the 413 edges"); here: the same limit on POST /v2/updates and on open-ended lists, and WebSockets exempt.
 * Memory under paused WebSocket readers: test/hardening/updates/stream-memory.test.ts.
 */
const BODY_MAX = 16 * 1024;
const WS_MAX = 2048;
const STREAMS = 2;
const LIST_MAX = 3;

let ledger: TestLedger;
let sync: string;

beforeAll(async () => {
  ledger = await startTestLedger({
    LEDGER_MAX_BODY_BYTES: String(BODY_MAX),
    LEDGER_WS_MAX_MESSAGE_BYTES: String(WS_MAX),
    LEDGER_MAX_STREAMS_PER_USER: String(STREAMS),
    LEDGER_HTTP_LIST_MAX_ELEMENTS: String(LIST_MAX),
    LEDGER_STREAM_IDLE_TIMEOUT_MS: '200',
  });
  sync = ledger.runtime.identity.defaultSynchronizer.id;
  const reader = [{ kind: { CanReadAsAnyParty: { value: {} } } }];
  for (const id of ['reader', 'other-reader'])
    expect((await ledger.call('POST', '/v2/users', { user: { id }, rights: reader })).status).toBe(200);
  // Five party allocations: five topology updates (offsets 1…5), more than the list maximum.
  for (let i = 0; i < 5; i++)
    expect(
      (await ledger.call('POST', '/v2/parties', { partyIdHint: `limits-${i}`, synchronizerId: sync })).status,
    ).toBe(200);
});
afterAll(async () => ledger?.close());

const limiter = () => ledger.app.get(StreamLimiter);
/** Waits (up to 5 s) for a condition on server state that follows a client action asynchronously (a socket's close). */
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};
/** A GET with a JSON body, as the admin. */
async function getWithBody(path: string, body: string): Promise<{ status: number; json: any }> {
  const token = await ledger.token();
  return new Promise((resolve, reject) => {
    const req = http.request(
      ledger.url + path,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const ledgerEnd = async () => (await ledger.call('GET', '/v2/state/ledger-end')).json.offset as number;
const anyParty = { filter: { filtersForAnyParty: {} }, verbose: false };

describe('request body size (LEDGER_MAX_BODY_BYTES)', () => {
  it('every operation with a request body answers 413 REQUEST_TOO_LARGE above the limit and changes nothing', async () => {
    const doc = (await ledger.call('GET', '/docs/openapi', undefined, { as: null })).json;
    const ops: Array<[string, string]> = [];
    for (const [path, byMethod] of Object.entries<Record<string, { requestBody?: unknown }>>(doc.paths)) {
      for (const [method, op] of Object.entries(byMethod))
        if (op.requestBody) ops.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x')]);
    }
    expect(ops.length).toBeGreaterThanOrEqual(15);
    const before = await ledgerEnd();
    const big = JSON.stringify({ pad: 'y'.repeat(BODY_MAX) });
    for (const [method, path] of ops) {
      // fetch sends no body with a GET (GET /v2/state/active-contracts-page takes one): node's http client does.
      const r =
        method === 'GET' ? await getWithBody(path, big) : await ledger.call(method, path, undefined, { raw: big });
      expect(r.status, `${method} ${path}`).toBe(413);
      expect(r.json, `${method} ${path}`).toMatchObject({
        code: 'REQUEST_TOO_LARGE',
        errorCategory: 8,
        definiteAnswer: false,
      });
      expect(r.json.cause).toMatch(/exceeds the limit/);
    }
    // Just under the limit the body is read and judged on its content (here: a decode error, not a 413).
    const under = await ledger.call('POST', '/v2/users', undefined, {
      raw: JSON.stringify({ pad: 'y'.repeat(BODY_MAX - 100) }),
    });
    expect(under.status).toBe(400);
    expect(under.text).toBe("Invalid value for: body (Missing required field at 'user')");
    expect(await ledgerEnd()).toBe(before);
  });

  it('a chunked body (no Content-Length) is cut off at the limit with the same 413', async () => {
    const token = await ledger.token();
    const { port } = new URL(ledger.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/v2/users',
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"user":{"id":"chunky"},"pad":"');
      for (let i = 0; i < 8; i++) req.write('z'.repeat(4096));
      req.end('"}');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe('REQUEST_TOO_LARGE');
    expect((await ledger.call('GET', '/v2/users/chunky')).status).toBe(404);
  });
});

interface WsOutcome {
  messages: any[];
  code: number;
  reason: string;
}

/** Opens a WebSocket as `user`, sends `payload`; resolves at close with the frames received and the close code/reason. */
function wsSession(
  path: string,
  token: string,
  payload: string | null,
  opts: { onOpen?: (ws: WebSocket) => void } = {},
): { ws: WebSocket; done: Promise<WsOutcome>; first: Promise<void> } {
  const ws = new WebSocket(ledger.url.replace(/^http/, 'ws') + path, ['daml.ws.auth', `jwt.token.${token}`]);
  const messages: any[] = [];
  let gotFirst: () => void;
  const first = new Promise<void>((r) => (gotFirst = r));
  ws.on('open', () => {
    if (payload !== null) ws.send(payload);
    opts.onOpen?.(ws);
  });
  ws.on('message', (d) => {
    messages.push(JSON.parse(d.toString()));
    gotFirst();
  });
  const done = new Promise<WsOutcome>((resolve, reject) => {
    ws.on('close', (code, reason) => resolve({ messages, code, reason: reason.toString() }));
    ws.on('error', reject);
  });
  return { ws, done, first };
}

describe('WebSocket message size (LEDGER_WS_MAX_MESSAGE_BYTES)', () => {
  it('a message over the limit gets a REQUEST_TOO_LARGE frame and close 1009 with a reason; one under it streams', async () => {
    const token = await ledger.token('reader');
    const tooBig = JSON.stringify({ beginExclusive: 0, endInclusive: 2, ...anyParty, pad: 'p'.repeat(WS_MAX) });
    for (const path of ['/v2/updates', '/v2/updates/flats']) {
      const out = await wsSession(path, token, tooBig).done;
      expect(out.code).toBe(1009);
      expect(out.reason).toBe(`Message too large (limit ${WS_MAX} bytes)`);
      expect(out.messages).toHaveLength(1);
      expect(out.messages[0]).toMatchObject({ code: 'REQUEST_TOO_LARGE', errorCategory: 8 });
      expect(out.messages[0].cause).toContain(`${WS_MAX} bytes`);
    }
    // Under the limit: streamed as usual.
    const fits = JSON.stringify({ beginExclusive: 0, endInclusive: 2, ...anyParty });
    const ok = await wsSession('/v2/updates/flats', token, fits).done;
    expect(ok.code).toBe(1000);
    expect(ok.messages.map((m) => Object.keys(m.update)[0])).toEqual(['TopologyTransaction', 'TopologyTransaction']);
    // The stream slot of a rejected socket is given back.
    await until(() => limiter().count('reader') === 0);
  });
});

describe('concurrent streams per user (LEDGER_MAX_STREAMS_PER_USER)', () => {
  const tail = JSON.stringify({ beginExclusive: 0, ...anyParty });

  it('WebSockets and open-ended lists share the limit; one more is MAXIMUM_NUMBER_OF_STREAMS (429 / close 1013)', async () => {
    const token = await ledger.token('reader');
    const a = wsSession('/v2/updates', token, tail);
    const b = wsSession('/v2/updates/flats', token, tail);
    await Promise.all([a.first, b.first]);
    expect(limiter().count('reader')).toBe(2);

    const third = await wsSession('/v2/updates', token, tail).done;
    expect(third.code).toBe(1013);
    expect(third.reason).toBe('Maximum number of streams reached');
    expect(third.messages).toHaveLength(1);
    expect(third.messages[0]).toMatchObject({
      code: 'MAXIMUM_NUMBER_OF_STREAMS',
      errorCategory: 2,
      grpcCodeValue: 10,
      retryInfo: '1 second',
    });

    for (const path of ['/v2/updates/flats', '/v2/updates']) {
      const r = await ledger.call('POST', path, { beginExclusive: 0, ...anyParty }, { as: 'reader' });
      expect(r.status).toBe(429);
      expect(r.json).toMatchObject({
        code: 'MAXIMUM_NUMBER_OF_STREAMS',
        cause: "The number of open streams of user 'reader' has reached the maximum (2). Close a stream, then retry.",
        errorCategory: 2,
        retryInfo: '1 second',
      });
      expect(r.json.context).toMatchObject({ user_id: 'reader', max_streams: '2' });
      // A bounded list is not a stream: it is answered.
      expect(
        (await ledger.call('POST', path, { beginExclusive: 0, endInclusive: 2, ...anyParty }, { as: 'reader' })).status,
      ).toBe(200);
    }
    // Another user is not affected.
    expect(
      (
        await ledger.call(
          'POST',
          '/v2/updates/flats?limit=3',
          { beginExclusive: 0, ...anyParty },
          { as: 'other-reader' },
        )
      ).status,
    ).toBe(200);

    // Closing a stream frees its slot.
    a.ws.close();
    await a.done;
    await until(() => limiter().count('reader') === 1);
    expect(
      (await ledger.call('POST', '/v2/updates/flats?limit=3', { beginExclusive: 0, ...anyParty }, { as: 'reader' }))
        .status,
    ).toBe(200);
    b.ws.close();
    await b.done;
    await until(() => limiter().count('reader') === 0);
  });

  it('an open-ended HTTP list holds a slot while it waits, and gives it back when it answers', async () => {
    const token = await ledger.token('reader');
    const ws = wsSession('/v2/updates', token, tail);
    await ws.first;
    // Waits up to 20 s for one new update: holds the second slot meanwhile.
    const pending = ledger.call(
      'POST',
      '/v2/updates/flats?stream_idle_timeout_ms=20000&limit=1',
      { beginExclusive: 5, ...anyParty },
      { as: 'reader' },
    );
    await until(() => limiter().count('reader') === 2);
    const refused = await wsSession('/v2/updates/flats', token, tail).done;
    expect(refused.code).toBe(1013);
    expect(refused.messages[0].code).toBe('MAXIMUM_NUMBER_OF_STREAMS');
    // A commit ends its wait (the one update it asked for); then the slot is free again.
    expect((await ledger.call('POST', '/v2/parties', { partyIdHint: 'wake-up', synchronizerId: sync })).status).toBe(
      200,
    );
    const answered = await pending;
    expect(answered.status).toBe(200);
    expect(answered.json).toHaveLength(1);
    expect(limiter().count('reader')).toBe(1);
    ws.ws.close();
    await ws.done;
    await until(() => limiter().count('reader') === 0);
  });

  it('an HTTP list rejected before it starts (bad request) takes no slot', async () => {
    const r = await ledger.call('POST', '/v2/updates/flats', { beginExclusive: -1, ...anyParty }, { as: 'reader' });
    expect(r.status).toBe(400);
    expect(limiter().count('reader')).toBe(0);
  });
});

describe('list maximum (LEDGER_HTTP_LIST_MAX_ELEMENTS; flats edges in test/e2e/updates/reading-the-ledger.test.ts)', () => {
  it('POST /v2/updates and open-ended lists answer 413 JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED; WebSockets are not lists', async () => {
    const end = await ledgerEnd();
    expect(end).toBeGreaterThan(LIST_MAX);
    const bounded = await ledger.call(
      'POST',
      '/v2/updates',
      { beginExclusive: 0, endInclusive: end, ...anyParty },
      { as: 'reader' },
    );
    expect(bounded.status).toBe(413);
    expect(bounded.json).toMatchObject({
      code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      cause: `The number of matching elements (${LIST_MAX + 1}) is greater than the node limit (${LIST_MAX}).`,
      errorCategory: 2,
      definiteAnswer: false,
    });
    const open = await ledger.call('POST', '/v2/updates/flats', { beginExclusive: 0, ...anyParty }, { as: 'reader' });
    expect(open.status).toBe(413);
    expect(open.json.code).toBe('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
    // Exactly the maximum is answered.
    expect(
      (
        await ledger.call(
          'POST',
          '/v2/updates',
          { beginExclusive: 0, endInclusive: LIST_MAX, ...anyParty },
          { as: 'reader' },
        )
      ).json,
    ).toHaveLength(LIST_MAX);
    // The same range over a WebSocket streams every element.
    const ws = await wsSession(
      '/v2/updates',
      await ledger.token('reader'),
      JSON.stringify({ beginExclusive: 0, endInclusive: end, ...anyParty }),
    ).done;
    expect(ws.code).toBe(1000);
    expect(ws.messages).toHaveLength(end);
  });
});
