import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponse, RawHttpConnection, serialiseRequest } from '../../../bench/lib/raw-http';

describe("bench harness: the load generator's raw HTTP/1.1 connection", () => {
  let server: Server;
  let port: number;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (req.url === '/echo') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
        } else if (req.url === '/chunked') {
          res.writeHead(409); // no Content-Length: Node sends the body chunked
          res.write('first,');
          setTimeout(() => res.end('second'), 5);
        } else if (req.url === '/hang-up') {
          req.socket.destroy();
        } else if (req.url === '/never') {
          // no answer
        } else {
          res.writeHead(404, { 'content-length': '0' });
          res.end();
        }
      });
    });
    server.on('connection', (s) => {
      connections++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  const request = (path: string, body = '') =>
    serialiseRequest(
      'POST',
      path,
      { host: '127.0.0.1', 'content-type': 'application/json', authorization: 'Bearer t' },
      Buffer.from(body),
    );

  it('sends prepared requests one after another on one keep-alive connection and reads status and body', async () => {
    const before = connections;
    const conn = new RawHttpConnection('127.0.0.1', port);
    for (let i = 0; i < 20; i++) {
      const body = JSON.stringify({ i, pad: 'x'.repeat(i * 500) });
      const r = await conn.send(request('/echo', body));
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body.toString('utf8'))).toEqual({ method: 'POST', auth: 'Bearer t', body });
    }
    expect(connections - before).toBe(1);
    const chunked = await conn.send(request('/chunked'));
    expect(chunked).toMatchObject({ status: 409 });
    expect(chunked.body.toString()).toBe('first,second');
    expect((await conn.send(request('/missing'))).status).toBe(404);
    expect(connections - before).toBe(1);
    // one request at a time, even while the connection is still opening
    const fresh = new RawHttpConnection('127.0.0.1', port);
    const first = fresh.send(request('/echo', '{}'));
    await expect(fresh.send(request('/echo', '{}'))).rejects.toThrow(/one request at a time/);
    expect((await first).status).toBe(200);
    fresh.close();
    conn.close();
  });

  it('a connection the server drops fails the waiting request; the next request opens a new connection', async () => {
    const conn = new RawHttpConnection('127.0.0.1', port);
    await expect(conn.send(request('/hang-up'))).rejects.toThrow(/closed|reset/i);
    const r = await conn.send(request('/echo', '{}'));
    expect(r.status).toBe(200);
    conn.close();
  });

  it('a request without an answer fails after the timeout; close() while connecting fails the waiting request', async () => {
    const slow = new RawHttpConnection('127.0.0.1', port, 100);
    await expect(slow.send(request('/never'))).rejects.toThrow(/no answer within 100 ms/);
    expect((await slow.send(request('/echo', '{}'))).status).toBe(200);
    slow.close();
    const early = new RawHttpConnection('127.0.0.1', port);
    const waiting = early.send(request('/echo', '{}'));
    early.close();
    await expect(waiting).rejects.toThrow(/closed/);
    expect((await early.send(request('/echo', '{}'))).status).toBe(200);
    early.close();
  });

  it('a refused connection is an error, not a hang', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(new RawHttpConnection('127.0.0.1', freePort).send(request('/echo'))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('parseResponse: waits for the whole response, in any split; rejects what it cannot delimit', () => {
    const whole = Buffer.from('HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello');
    for (let cut = 0; cut < whole.length; cut++) expect(parseResponse(whole.subarray(0, cut))).toBeUndefined();
    expect(parseResponse(whole)).toEqual({ response: { status: 201, body: Buffer.from('hello') }, used: whole.length });
    const chunked = Buffer.from(
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\n',
    );
    for (let cut = 0; cut < chunked.length; cut++) expect(parseResponse(chunked.subarray(0, cut))).toBeUndefined();
    expect(parseResponse(chunked)?.response.body.toString()).toBe('abc0123456789');
    const both = Buffer.from(
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    );
    expect(parseResponse(both)).toEqual({ response: { status: 200, body: Buffer.from('ok') }, used: both.length });
    expect(() => parseResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(/not an HTTP/);
    expect(() => parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody'))).toThrow(
      /neither Content-Length nor chunked/,
    );
    expect(parseResponse(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'))?.response).toEqual({
      status: 204,
      body: Buffer.alloc(0),
    });
  });

  it('serialiseRequest: request line, headers, Content-Length in bytes, body', () => {
    const r = serialiseRequest('POST', '/p', { host: 'h' }, Buffer.from('ü'));
    expect(r.toString('utf8')).toBe('POST /p HTTP/1.1\r\nhost: h\r\ncontent-length: 2\r\n\r\nü');
  });
});
