import { randomFillSync } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { DecodeError } from '@ledgerline/wire';
import type { HttpMetrics } from '../infrastructure/metrics';

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
 * Fastify-level behaviour that real clients need: JSON bodies accepted whatever the Content-Type (core-ledger-client sends
 * none), framework errors rendered like ours, and metrics per route.
 */
export function configureFastify(app: FastifyInstance, opts: { participant: string; logger: Logger; metrics: HttpMetrics }): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req: FastifyRequest, body: string | Buffer, done: (e: Error | null, v?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new DecodeError('body', `Malformed JSON: ${(e as Error).message}`));
    }
  });
  app.addHook('onResponse', (req, reply, done) => {
    opts.metrics.observe(req.method, req.routeOptions?.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
