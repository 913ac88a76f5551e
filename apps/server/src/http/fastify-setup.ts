import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { authenticateBeforeBody, isPublicRouteConfig } from '@ledgerline/auth';
import { DecodeError, assertStorableJson } from '@ledgerline/wire';
import type { HttpMetrics } from '../infrastructure/metrics';
import { sendError } from './all-exceptions.filter';
import {
  clientErrorHandler,
  expectationFailedHandler,
  requestGuard,
  routeMissHandler,
  withoutEmptySegments,
  type FrameworkErrorContext,
} from './framework-errors';
import type { RouteCatalog } from './route-catalog';
import { isRawBodyRoute, readRequestBody } from './request-body';

/**
 * Random bytes for fresh trace ids, drawn from the CSPRNG 4 KiB at a time: one `randomBytes(16)` per request was ~3 % of
 * the server's CPU on the hot read path (an allocation and a call into OpenSSL each time).
 */
const traceIdPool = Buffer.alloc(4096);
let traceIdPoolAt = traceIdPool.length;

function freshTraceId(): string {
  if (traceIdPoolAt + 16 > traceIdPool.length) {
    randomFillSync(traceIdPool);
    traceIdPoolAt = 0;
  }
  const id = traceIdPool.toString('hex', traceIdPoolAt, traceIdPoolAt + 16);
  traceIdPoolAt += 16;
  return id;
}

/** W3C trace id: taken from an incoming `traceparent`, else fresh. */
export function traceIdOf(headers: Record<string, string | string[] | undefined>): string {
  const tp = headers.traceparent;
  const m = typeof tp === 'string' ? /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(tp) : null;
  return m ? m[1] : freshTraceId();
}

/**
 * The Fastify server options that shape what reaches a route and how the framework's own rejections are answered: empty
 * path segments ignored (`//v2/updates` is `/v2/updates`), a malformed URL, an over-long path parameter, a request Node's
 * parser refuses (bad syntax, oversized headers, timeouts) and a request without a Host header all leave as JsCantonError.
 */
export function fastifyServerOptions(opts: { participant: string; logger: Logger; requestTimeoutMs: number }) {
  const ctx: FrameworkErrorContext = { participant: opts.participant, logger: opts.logger, traceId: traceIdOf };
  return {
    // A request (headers and body) must arrive within requestTimeoutMs, or the connection closes with a 408: a slow
    // client cannot hold a connection and its buffers indefinitely. Answers (streams, long lists) are not bounded by it.
    requestTimeout: opts.requestTimeoutMs,
    rewriteUrl: (req: IncomingMessage) => withoutEmptySegments(req.url ?? '/'),
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) =>
      sendError(reply, req, err, opts.participant, opts.logger),
    clientErrorHandler: clientErrorHandler(ctx),
    // Node would answer a missing Host header with an empty 400 by itself; requestGuard answers it instead.
    http: {
      requireHostHeader: false,
      requestTimeout: opts.requestTimeoutMs,
      headersTimeout: Math.min(60_000, opts.requestTimeoutMs),
      // How often Node looks for requests past their time (its default, 30 s, would let a short timeout run long).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(opts.requestTimeoutMs / 4))),
    },
    // Fastify's own 503 while closing is not a JsCantonError; requestGuard answers those requests instead.
    return503OnClosing: false,
  };
}

/**
 * Fastify-level behaviour that real clients need: JSON bodies accepted whatever the Content-Type (core-ledger-client
 * sends none), binary uploads read by their routes (request-body.ts; wallet-sdk sends its DAR without a Content-Type),
 * framework errors rendered like ours (unknown routes and methods, unsupported expectations, requests during shutdown),
 * and metrics per route. Runs before Nest registers its routes.
 */
export function configureFastify(
  app: FastifyInstance,
  opts: { participant: string; logger: Logger; metrics: HttpMetrics; catalog: RouteCatalog; bodyLimit: number },
): void {
  const ctx: FrameworkErrorContext = { participant: opts.participant, logger: opts.logger, traceId: traceIdOf };
  const guard = requestGuard(ctx);
  app.addHook('onRequest', guard.onRequest);
  // The token before the body: a request without a valid token is answered (401) before its body is read or parsed.
  // Public routes (health, metrics, docs, the explorer's files) and unknown routes (404/405) need none.
  app.addHook('preParsing', async (req: FastifyRequest) => {
    if (req.routeOptions.url === undefined || isPublicRouteConfig(req.routeOptions.config)) return;
    await authenticateBeforeBody(req);
  });
  app.addHook('preClose', (done) => {
    guard.closing();
    done();
  });
  app.setNotFoundHandler(routeMissHandler(opts.catalog, ctx));
  app.server.on('checkExpectation', expectationFailedHandler(ctx));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    (req: FastifyRequest, payload: IncomingMessage, done: (e: Error | null, v?: unknown) => void) => {
      // No route serves the request (404/405 follow): its body is never read.
      if (req.routeOptions.url === undefined) return done(null, undefined);
      const limit = req.routeOptions.bodyLimit ?? opts.bodyLimit;
      if (isRawBodyRoute(req.routeOptions.config)) {
        // A declared length over the limit is refused at once, as for every other route; the rest is read by the route.
        return Number(req.headers['content-length']) > limit
          ? done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
          : done(null, payload);
      }
      readRequestBody(payload, limit, req.headers['content-length']).then((bytes) => {
        const text = bytes.toString('utf8');
        if (text.trim() === '') return done(null, undefined);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (e) {
          return done(new DecodeError('body', `Malformed JSON: ${(e as Error).message}`));
        }
        try {
          assertStorableJson(text, body);
        } catch (e) {
          return done(e as Error);
        }
        done(null, body);
      }, done);
    },
  );
  app.addHook('onResponse', (req, reply, done) => {
    opts.metrics.observe(req.method, req.routeOptions?.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
