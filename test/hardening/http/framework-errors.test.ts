import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { wsCollect } from '../../support/ws-client';
import { expectCantonError, JS_CANTON_ERROR_KEYS } from '../../support/canton-error';

/**
 * Every answer the HTTP layers give by themselves — Node's parser and timers, Fastify's router and URL decoding, the
 * WebSocket handshake, the load-shedding while the server closes — is a JsCantonError (or the reference's 400 text/plain
 * decode error), and empty path segments (`//v2/…`, `/v2//…`, a trailing `/`) are ignored as the reference's router
 * ignores them. Requests are written byte for byte on a socket, so that nothing on the client side normalises them.
 */
let ledger: TestLedger;
let token: string;

beforeAll(async () => {
  ledger = await startTestLedger();
  token = await ledger.token();
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: 'reader' },
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => ledger?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` on a fresh connection and parses the first response (the server closes, or the body is complete). */
function rawExchange(baseUrl: string, request: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
    let data = Buffer.alloc(0);
    const parse = (final: boolean): RawAnswer | null => {
      // Interim answers (100 Continue) precede the response.
      while (/^HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n/.test(data.toString('latin1')))
        data = data.subarray(data.toString('latin1').indexOf('\r\n\r\n') + 4);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return null;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      const body = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      const length = headers['content-length'] === undefined ? null : Number(headers['content-length']);
      if (length === null ? !final : body.length < length) return null;
      return {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: body.subarray(0, length ?? body.length).toString('utf8'),
      };
    };
    socket.on('data', (d) => {
      data = Buffer.concat([data, d]);
      const answer = parse(false);
      if (answer) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('close', () => {
      const answer = parse(true);
      if (answer) resolve(answer);
      else
        reject(new Error(`connection closed without a complete response: ${JSON.stringify(data.toString('latin1'))}`));
    });
    socket.on('error', () => undefined);
  });
}

const raw = (request: string | Buffer) => rawExchange(ledger.url, request);
const get = (path: string, headers = '') =>
  raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n${headers}Connection: close\r\n\r\n`);

/** A raw answer that is JSON and a JsCantonError with every key (expectCantonError) and a trace id; returns the body. */
function expectJsCantonError(a: RawAnswer, status: number, code: string): any {
  const label = `${a.status} ${a.headers['content-type']} ${a.body.slice(0, 300)}`;
  expect(a.status, label).toBe(status);
  expect(a.headers['content-type'], label).toMatch(/^application\/json/);
  const body = expectCantonError({ status: a.status, json: JSON.parse(a.body) }, status, code, { everyKey: true });
  expect(body.traceId, label).toMatch(/^[0-9a-f]{32}$/);
  return body;
}

describe('URL decoding and routing', () => {
  it('a path with malformed percent-encoding is 400 INVALID_ARGUMENT, whatever the method and route', async () => {
    const body = '{"partyDetails":{}}';
    const requests = [
      `PATCH /v2/parties/%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      `GET /v2/parties/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      `GET /v2/users/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      `POST /v2/users% HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      `DELETE /v2/idps/%C0%AF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      `GET /no-such-route/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ];
    for (const r of requests) {
      const e = expectJsCantonError(await raw(r), 400, 'INVALID_ARGUMENT');
      expect(e.cause).toMatch(/^Malformed URL: /);
      expect(e.errorCategory).toBe(8);
    }
  });

  it('a path parameter over the length limit is 414', async () => {
    expectJsCantonError(await get(`/v2/parties/${'a'.repeat(5000)}`), 414, 'URI_TOO_LONG');
  });

  it('an unknown path is 404 NOT_FOUND; a known path with a method it does not serve is 405 with Allow', async () => {
    const nf = expectJsCantonError(await get('/v2/no-such-thing'), 404, 'NOT_FOUND');
    expect([nf.cause, nf.errorCategory]).toEqual(['The requested resource could not be found.', 11]);
    const cases: Array<[string, string, string]> = [
      ['PUT', '/v2/users', 'GET, HEAD, POST'],
      ['DELETE', '/v2/updates', 'GET, HEAD, POST'],
      ['OPTIONS', '/v2/parties/some-party', 'GET, HEAD, PATCH'],
      ['PROPFIND', '/v2/users', 'GET, HEAD, POST'],
      ['GET', '/v2/interactive-submission/prepare', 'POST'],
      ['GET', '/v2/updates/transaction-by-id', 'POST'],
      ['PATCH', '/v2/interactive-submission/executeAndWait', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const a = await raw(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      );
      const e = expectJsCantonError(a, 405, 'METHOD_NOT_ALLOWED');
      expect(a.headers.allow, `${method} ${path}`).toBe(allow);
      expect(e.cause).toBe(`HTTP method not allowed, supported methods: ${allow}`);
    }
  });

  it('empty path segments are ignored: //v2/…, /v2//…, a trailing slash, an absolute-form target', async () => {
    const expected = await get('/v2/users');
    expect(expected.status).toBe(200);
    for (const path of ['//v2/users', '/v2//users', '///v2///users//', '/v2/users/', `http://x//v2/users`]) {
      const a = await get(path);
      expect([a.status, JSON.parse(a.body)], path).toEqual([200, JSON.parse(expected.body)]);
    }
    // Path parameters and query strings are kept; a query's own slashes are not touched.
    const party = (
      await ledger.call('POST', '/v2/parties', {
        partyIdHint: 'slashes',
        synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
      })
    ).json.partyDetails.party;
    const byId = await get(`//v2//parties//${encodeURIComponent(party)}/?x=a//b`);
    expect([byId.status, JSON.parse(byId.body).partyDetails[0].party]).toEqual([200, party]);
    // POST through a controller route and through the direct routes.
    const body = JSON.stringify({ user: { id: 'slash-user' } });
    const created = await raw(
      `POST //v2//users/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(created.status).toBe(200);
    expect((await ledger.call('GET', '/v2/users/slash-user')).status).toBe(200);
    for (const direct of ['//v2/updates/transaction-by-id', '//v2/interactive-submission/executeAndWait/']) {
      const a = await raw(
        `POST ${direct} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]`,
      );
      expect([a.status, a.headers['content-type'], a.body], direct).toEqual([
        400,
        'text/plain; charset=utf-8',
        'Invalid value for: body (Got value with wrong type, expecting object)',
      ]);
    }
  });
});

describe("Node's HTTP parser and server", () => {
  it('requests the parser refuses are 400 INVALID_ARGUMENT', async () => {
    const requests = [
      'FOO /v2/users HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /v2/users HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nConnection: close\r\n\r\n',
      'POST /v2/users HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}',
      'POST /v2/users HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}',
      'POST /v2/users HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{}',
      'POST /v2/users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
      'GET /v2/users HTTP/9.9\r\nHost: x\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    ];
    for (const r of requests)
      expect(expectJsCantonError(await raw(r), 400, 'INVALID_ARGUMENT').cause).toMatch(/^Malformed HTTP request: /);
  });

  it('headers over the limit are 431', async () => {
    expectJsCantonError(
      await get('/v2/users', `X-Big: ${'b'.repeat(20_000)}\r\n`),
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
    );
  });

  it('an HTTP/1.1 request without Host is 400; an HTTP/1.0 one is served', async () => {
    const missing = await raw(`GET /v2/users HTTP/1.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(expectJsCantonError(missing, 400, 'INVALID_ARGUMENT').cause).toBe(
      'Request is missing the required Host header',
    );
    expect((await raw(`GET /v2/users HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`)).status).toBe(200);
  });

  it('an Expect other than 100-continue is 417; 100-continue is honoured', async () => {
    const e = expectJsCantonError(await get('/v2/users', 'Expect: something-else\r\n'), 417, 'EXPECTATION_FAILED');
    expect(e.cause).toBe('Unsupported expectation: something-else');
    expect((await get('/v2/users', 'Expect: 100-continue\r\n')).status).toBe(200);
  });
});

describe('body parsing', () => {
  const post = (headers: string, body: string) =>
    raw(
      `POST /v2/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );

  it('malformed JSON, a wrong JSON type and an empty body are the 400 text/plain decode error', async () => {
    for (const [body, text] of [
      ['{"user": ', /^Invalid value for: body \(Malformed JSON: /],
      ['[]', /^Invalid value for: body \(Got value with wrong type, expecting object\)$/],
      ['', /^Invalid value for: body \(Got value with wrong type, expecting object\)$/],
    ] as const) {
      const a = await post('Content-Type: application/json\r\n', body);
      expect([a.status, a.headers['content-type']], body).toEqual([400, 'text/plain; charset=utf-8']);
      expect(a.body, body).toMatch(text);
    }
  });

  it('a Content-Type that does not parse is 415; any well-formed one is read as JSON', async () => {
    expectJsCantonError(await post('Content-Type: ;;;\r\n', '{}'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const a = await post('Content-Type: text/plain\r\n', '{}');
    expect([a.status, a.body]).toEqual([400, "Invalid value for: body (Missing required field at 'user')"]);
  });
});

describe('WebSocket upgrade', () => {
  const upgrade = (path: string, headers: string) =>
    raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${headers}\r\n`);
  const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
  const AUTH = `Sec-WebSocket-Protocol: daml.ws.auth, jwt.token.${'TOKEN'}\r\n`;

  it('handshakes ws refuses are JsCantonErrors (400), with the versions it speaks', async () => {
    const auth = AUTH.replace('TOKEN', token);
    const version = await upgrade('/v2/updates', `${auth}${KEY}Sec-WebSocket-Version: 12\r\n`);
    expect(expectJsCantonError(version, 400, 'INVALID_ARGUMENT').cause).toBe(
      'WebSocket handshake rejected: Missing or invalid Sec-WebSocket-Version header',
    );
    expect(version.headers['sec-websocket-version']).toBe('13, 8');
    expectJsCantonError(
      await upgrade('/v2/updates/flats', `${auth}Sec-WebSocket-Version: 13\r\n`),
      400,
      'INVALID_ARGUMENT',
    );
    expectJsCantonError(
      await upgrade(
        '/v2/updates',
        `Sec-WebSocket-Protocol: a,,b\r\nAuthorization: Bearer ${token}\r\n${KEY}Sec-WebSocket-Version: 13\r\n`,
      ),
      400,
      'INVALID_ARGUMENT',
    );
    const h2c = await raw(
      `GET /v2/updates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`,
    );
    expect(expectJsCantonError(h2c, 400, 'INVALID_ARGUMENT').cause).toBe(
      'WebSocket handshake rejected: Invalid Upgrade header',
    );
  });

  it('an upgrade to an unknown path, without a token or with a malformed path is answered before any upgrade', async () => {
    const ok = `${KEY}Sec-WebSocket-Version: 13\r\n`;
    expectJsCantonError(await upgrade('/v2/no-such-stream', `${AUTH.replace('TOKEN', token)}${ok}`), 404, 'NOT_FOUND');
    expectJsCantonError(await upgrade('/v2/updates', ok), 401, 'NA');
    expectJsCantonError(await upgrade('/v2/updates/%ZZ', ok), 400, 'INVALID_ARGUMENT');
  });

  it('streams at //v2/updates and /v2//updates/flats/ as at their canonical paths', async () => {
    expect(
      (
        await ledger.call('POST', '/v2/parties', {
          partyIdHint: 'ws-slashes',
          synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
        })
      ).status,
    ).toBe(200);
    const request = {
      beginExclusive: 0,
      endInclusive: await ledgerEndOffset(),
      filter: { filtersForAnyParty: {} },
      verbose: false,
    };
    const reader = await ledger.token('reader');
    const canonical = await wsCollect(ledger.url, '/v2/updates', reader, request);
    expect(canonical.closeCode).toBe(1000);
    expect(canonical.messages.length).toBeGreaterThan(0);
    for (const m of canonical.messages) expect(Object.keys(m)).toEqual(['update']);
    for (const path of ['//v2/updates', '/v2//updates/flats/', '///v2/updates/flats']) {
      const r = await wsCollect(ledger.url, path, reader, request);
      expect({ path, closeCode: r.closeCode, messages: r.messages }).toEqual({
        path,
        closeCode: 1000,
        messages: canonical.messages,
      });
    }
  });
});

async function ledgerEndOffset(): Promise<number> {
  return (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
}

describe('while the server closes', () => {
  it('a request that arrives on an open connection is 503 SERVICE_NOT_RUNNING with Connection: close', async () => {
    const closing = await startTestLedger();
    const admin = await closing.token();
    const { port } = new URL(closing.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let gotContinue: () => void;
    const continued = new Promise<void>((r) => (gotContinue = r));
    socket.on('data', (d) => {
      received += d.toString('latin1');
      if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) gotContinue();
    });
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    try {
      // A request whose body has not been sent keeps the connection busy (100 Continue says it is in flight) …
      socket.write(
        `POST /v2/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n`,
      );
      await continued;
      // … so closing the server keeps it open; its body and a next request then arrive while the server closes.
      const closed = closing.app.close();
      const server = closing.app.getHttpServer();
      for (let i = 0; i < 500 && server.listening; i++) await new Promise((r) => setTimeout(r, 10));
      expect(server.listening).toBe(false);
      socket.write(`{}GET /v2/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\n\r\n`);
      await ended;
      await closed;
    } finally {
      socket.destroy();
      await closing.runtime.close();
    }
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((r) => r.slice(0, 12))).toEqual(['HTTP/1.1 100', 'HTTP/1.1 400', 'HTTP/1.1 503']);
    const last = responses[2];
    expect(last.slice(0, last.indexOf('\r\n\r\n')).toLowerCase()).toContain('connection: close');
    const e = JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4));
    expect(Object.keys(e).sort()).toEqual(JS_CANTON_ERROR_KEYS);
    expect([e.code, e.errorCategory, e.retryInfo]).toEqual(['SERVICE_NOT_RUNNING', 1, '1 second']);
  });
});
