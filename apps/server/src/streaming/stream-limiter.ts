import { Injectable } from '@nestjs/common';
import { maximumNumberOfStreams, type Claims } from '@ledgerline/domain';
import { LedgerRuntime } from '../infrastructure/runtime';

/**
 * Per-user count of open update streams (LEDGER_MAX_STREAMS_PER_USER). A "client" is the authenticated user: every
 * WebSocket on /v2/updates or /v2/updates/flats and every open-ended HTTP update list (no end offset, or an explicit
 * stream_idle_timeout_ms) holds one slot while it runs. One more is MAXIMUM_NUMBER_OF_STREAMS (429). Counted per
 * instance: each server process enforces the limit on the streams it serves.
 */
@Injectable()
export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(private readonly runtime: LedgerRuntime) {}

  /** Takes a slot for the caller or throws MAXIMUM_NUMBER_OF_STREAMS; the returned function gives the slot back (once). */
  acquire(claims: Claims): () => void {
    const max = this.runtime.config.maxStreamsPerUser;
    const key = claims.userId;
    const n = this.open.get(key) ?? 0;
    if (n >= max) throw maximumNumberOfStreams(key, max);
    this.open.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  /** Streams `userId` holds open now (for tests and metrics). */
  count(userId: string): number {
    return this.open.get(userId) ?? 0;
  }
}
