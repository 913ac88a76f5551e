import type { Readable } from 'node:stream';
import { errorCodes } from 'fastify';

/**
 * Request bodies. JSON routes get their body parsed before the handler runs (any Content-Type, or none). A route whose
 * config sets `rawBody` (binary uploads) gets the body's stream instead and reads it itself with `readRequestBody`, after
 * authorization: the bytes arrive once, into one buffer, within the same body-size limit (a declared Content-Length over
 * the limit is refused before the route runs, as for JSON routes).
 */
export const RAW_BODY_CONFIG = { rawBody: true } as const;

export const isRawBodyRoute = (config: unknown): boolean =>
  (config as { rawBody?: unknown } | undefined)?.rawBody === true;

/**
 * The client reset or dropped its connection while sending the body (ECONNRESET "aborted" from the request stream).
 * Its own doing, not the server's nor the database's: a 400 nobody will read, logged at info level.
 */
export class RequestBodyAbortedError extends Error {
  readonly statusCode = 400;
  constructor(readonly reason: string) {
    super(`The request body was not received completely: ${reason}`);
  }
}

/**
 * Reads a request body into one buffer (of the declared Content-Length when there is one), refusing more than `limit`
 * bytes and a body whose length differs from its Content-Length, with Fastify's own errors (413, 400).
 */
export function readRequestBody(
  stream: Readable,
  limit: number,
  contentLengthHeader: string | string[] | undefined,
): Promise<Buffer> {
  const declared = typeof contentLengthHeader === 'string' ? Number(contentLengthHeader) : NaN;
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  if (stream.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const known = Number.isInteger(declared) && declared >= 0;
    const whole = known ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (err: Error | null) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      if (err) return reject(err);
      if (known && received !== declared) return reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      resolve(whole ?? Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      if (whole) {
        if (received + chunk.length > whole.length) return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        chunk.copy(whole, received);
      } else chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => done(null);
    const onError = (err: Error & { statusCode?: number; code?: string }) => {
      if (typeof err.statusCode === 'number' && err.statusCode >= 400) return done(err);
      // A stream error without a status is the connection's (reset, aborted): the client's, never the database's.
      done(new RequestBodyAbortedError(err.code ? `${err.code} ${err.message}` : err.message));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}
