import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpError, transientFailure, type LedgerError } from '@ledgerline/domain';
import { sendError } from './all-exceptions.filter';
import { toErrorResponse } from './error-response';
import type { RouteCatalog } from './route-catalog';

/**
 * The answers the HTTP framework (Node's HTTP server, Fastify, the WebSocket upgrade) would otherwise give in its own
 * format: each leaves here as a JsCantonError like every other error of the API.
 */
export interface FrameworkErrorContext {
  participant: string;
  logger: Logger;
  /** The trace id of a request that never became a Fastify request (parse errors, upgrade handshakes). */
  traceId(headers: Record<string, string | string[] | undefined>): string;
}

/** Node's parser and timers (Fastify's `clientErrorHandler`): malformed requests, oversized headers, slow requests. */
export function clientErrorOf(err: NodeJS.ErrnoException): LedgerError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpError('REQUEST_TIMEOUT', 'The request was not received completely in time', 408);
    case 'HPE_HEADER_OVERFLOW':
      return httpError(
        'REQUEST_HEADER_FIELDS_TOO_LARGE',
        'The request line and headers exceed the limit of this participant',
        431,
      );
    default:
      return httpError(
        'INVALID_ARGUMENT',
        `Malformed HTTP request: ${err.message}${err.code ? ` (${err.code})` : ''}`,
        400,
      );
  }
}

/** Writes a complete HTTP/1.1 error response on a socket no response object owns, then closes it. */
export function writeRawError(
  socket: Duplex,
  err: LedgerError,
  ctx: FrameworkErrorContext,
  traceId: string,
  headers: Record<string, string> = {},
): void {
  const res = toErrorResponse(err, { traceId, participant: ctx.participant });
  ctx.logger[res.logged.level]({ traceId, status: res.status, reason: res.logged.reason }, 'request failed');
  // A response already under way on this connection (a keep-alive request being answered) cannot be interrupted cleanly.
  const current = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (!socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const head = [
    `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`,
    `content-type: ${withCharset(res.contentType)}`,
    `content-length: ${Buffer.byteLength(res.body)}`,
    'connection: close',
  ];
  for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
  socket.end(`${head.join('\r\n')}\r\n\r\n${res.body}`, () => socket.destroy());
}

export function clientErrorHandler(ctx: FrameworkErrorContext): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    writeRawError(socket, clientErrorOf(err), ctx, ctx.traceId({}));
  };
}

/** Node answers an `Expect` other than `100-continue` with a bare 417 unless the server listens for it. */
export function expectationFailedHandler(
  ctx: FrameworkErrorContext,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const traceId = ctx.traceId(req.headers);
    const out = toErrorResponse(
      httpError('EXPECTATION_FAILED', `Unsupported expectation: ${String(req.headers.expect)}`, 417),
      { traceId, participant: ctx.participant },
    );
    ctx.logger[out.logged.level](
      { traceId, method: req.method, url: req.url, status: out.status, reason: out.logged.reason },
      'request failed',
    );
    res.writeHead(out.status, {
      'content-type': withCharset(out.contentType),
      'content-length': Buffer.byteLength(out.body),
      connection: 'close',
    });
    res.end(out.body);
  };
}

/**
 * ws rejects a malformed handshake (upgrade header, key, version, sub-protocol list, extensions) with a text/html answer
 * unless its server listens for `wsClientError`; the reasons it reports are its own messages.
 */
export function webSocketHandshakeErrorHandler(
  ctx: FrameworkErrorContext,
): (err: Error, socket: Duplex, req: IncomingMessage) => void {
  return (err, socket, req) => {
    const headers: Record<string, string> = {};
    if (/Sec-WebSocket-Version/i.test(err.message)) headers['sec-websocket-version'] = '13, 8';
    const status = err.message === 'Invalid HTTP method' ? 405 : 400;
    if (status === 405) headers.allow = 'GET';
    const code = status === 405 ? 'METHOD_NOT_ALLOWED' : 'INVALID_ARGUMENT';
    writeRawError(
      socket,
      httpError(code, `WebSocket handshake rejected: ${err.message}`, status),
      ctx,
      ctx.traceId(req.headers),
      headers,
    );
  };
}

/**
 * Fastify's not-found handler: a path that no route serves is 404 NOT_FOUND; a path served for other methods only is
 * 405 METHOD_NOT_ALLOWED with an `Allow` header (the reference's router answers 405 for a method mismatch).
 */
export function routeMissHandler(
  catalog: RouteCatalog,
  ctx: Pick<FrameworkErrorContext, 'participant' | 'logger'>,
): (req: FastifyRequest, reply: FastifyReply) => void {
  return (req, reply) => {
    const allowed = catalog.methodsAt(pathOf(req.url));
    if (allowed.length === 0) {
      sendError(
        reply,
        req,
        httpError('NOT_FOUND', 'The requested resource could not be found.', 404),
        ctx.participant,
        ctx.logger,
      );
      return;
    }
    void reply.header('allow', allowed.join(', '));
    sendError(
      reply,
      req,
      httpError('METHOD_NOT_ALLOWED', `HTTP method not allowed, supported methods: ${allowed.join(', ')}`, 405),
      ctx.participant,
      ctx.logger,
    );
  };
}

/**
 * Requests Node would answer by itself or Fastify would load-shed without a JsCantonError: an HTTP/1.1 request without a
 * Host header (RFC 9112 §3.2: 400), and any request that arrives while the server closes (503, retry elsewhere).
 */
export function requestGuard(ctx: Pick<FrameworkErrorContext, 'participant' | 'logger'>): {
  onRequest: (req: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  closing: () => void;
} {
  let closing = false;
  return {
    closing: () => {
      closing = true;
    },
    onRequest: (req, reply, done) => {
      if (closing) {
        void reply.header('connection', 'close');
        return sendError(
          reply,
          req,
          transientFailure('The service is shutting down. Retry.'),
          ctx.participant,
          ctx.logger,
        );
      }
      const raw = req.raw;
      if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
        void reply.header('connection', 'close');
        return sendError(
          reply,
          req,
          httpError('INVALID_ARGUMENT', 'Request is missing the required Host header', 400),
          ctx.participant,
          ctx.logger,
        );
      }
      done();
    },
  };
}

/**
 * The request target without its empty path segments: `//v2/updates`, `/v2//updates` and `/v2/updates/` all name
 * `/v2/updates`, as they do for the reference's router (some clients join a base URL ending in `/` with a path starting
 * with `/`). The query string is kept as it is; an absolute-form target (`http://host/path`) keeps its scheme and host.
 */
export function withoutEmptySegments(url: string): string {
  let start = 0;
  if (url.charCodeAt(0) !== 47 /* / */) {
    const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(url);
    if (!m) return url;
    start = m[0].length;
  }
  let end = url.indexOf('?', start);
  if (end === -1) end = url.length;
  // Every request passes here: the usual target (no `//`, no trailing `/`) is returned without allocating.
  if (end - start <= 1) return url;
  const doubled = url.indexOf('//', start);
  if ((doubled === -1 || doubled + 1 >= end) && url.charCodeAt(end - 1) !== 47 /* / */) return url;
  const path = url.slice(start, end);
  const canonical = `/${path
    .split('/')
    .filter((s) => s !== '')
    .join('/')}`;
  return url.slice(0, start) + canonical + url.slice(end);
}

/** As Fastify labels the JSON it sends. */
function withCharset(contentType: string): string {
  return contentType.includes('charset') ? contentType : `${contentType}; charset=utf-8`;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  const target = q === -1 ? url : url.slice(0, q);
  return target.charCodeAt(0) === 47 ? target : target.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*/, '') || '/';
}
