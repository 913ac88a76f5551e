import { listLimitExceeded, type Claims } from '@ledgerline/domain';
import type { LedgerError } from '@ledgerline/domain';
import type { StreamAuthorization } from './stream-authorization';
import type { StreamLimiter } from './stream-limiter';
import { IDLE } from './update-stream';

/** What the list variant and the WebSocket consume: a pull-based stream of elements. */
export interface ElementStream<T> {
  /** The next element; null at the end (or once closed); IDLE when `idleMs` passed without one. */
  next(idleMs: number | null): Promise<T | null | typeof IDLE>;
  close(): void;
}

/**
 * The list ("blocking") variant of a stream (Canton's Endpoints, ledger-json-api: json/v2/Endpoints.scala): at most
 * `take` = min(limit, max + 1) elements are collected; more than the maximum is a 413. With `idleMs` the list completes
 * once no element arrived within it, and holds one of the user's stream slots while it waits (StreamLimiter) and is
 * watched like any open stream (StreamAuthorization: a token that expires or rights that change end it with that error);
 * without, it waits for the stream's end.
 */
export async function collectList<T>(
  stream: ElementStream<T>,
  opts: {
    take: number;
    max: number;
    idleMs: number | null;
    limiter: StreamLimiter;
    authorization: StreamAuthorization;
    claims: Claims;
    /** A byte bound counted here, on the elements collected (for streams whose reads do not count their bytes). */
    budget?: { maxBytes: number; size: (e: T) => number; tooLarge: () => Error };
  },
): Promise<T[]> {
  let release: () => void = () => undefined;
  let unwatch: () => void = () => undefined;
  let revoked: LedgerError | null = null;
  if (opts.idleMs !== null) {
    try {
      release = opts.limiter.acquire(opts.claims);
    } catch (e) {
      stream.close();
      throw e;
    }
    unwatch = opts.authorization.watch(opts.claims, (reason) => {
      revoked = reason;
      stream.close();
    });
  }
  const out: T[] = [];
  let bytes = 0;
  try {
    while (out.length < opts.take) {
      const e = await stream.next(opts.idleMs);
      if (e === null || e === IDLE) break;
      if (opts.budget && (bytes += opts.budget.size(e)) > opts.budget.maxBytes) throw opts.budget.tooLarge();
      out.push(e);
    }
  } finally {
    stream.close();
    unwatch();
    release();
  }
  if (revoked) throw revoked;
  if (out.length > opts.max) throw listLimitExceeded(out.length, opts.max);
  return out;
}

/** min(limit ?: max + 1, max + 1): how many elements a list collects. */
export const listTake = (limit: number | undefined, max: number) => Math.min(limit ?? max + 1, max + 1);
