import { Injectable } from '@nestjs/common';
import {
  authorizeUpdateFormat,
  compileUpdateFormat,
  offsetCheckpoint,
  projectUpdate,
  resolveUpdateFormat,
  validateUpdatesRequest,
  type Claims,
  type CompiledUpdateFormat,
  type GetUpdatesRequest,
  type JsGetUpdatesResponse,
  type ReadRange,
  type StoredUpdate,
} from '@ledgerline/domain';
import { CommitNotifier, LedgerUpdatesRepository, LookupCoalescer, type LedgerPosition } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';

/** Returned by `next` when an idle timeout passed without a new element. */
export const IDLE = Symbol('idle');

/** How long one wait for a commit lasts before a tailing stream re-checks whether it was closed. */
const WAIT_SLICE_MS = 2000;

/**
 * One update stream (flats, /v2/updates, WebSocket): a pull-based cursor over `(beginExclusive, endInclusive]`. It reads a
 * page only when its buffer is empty, so a consumer that stops pulling stops the reads. Bounded streams end at their end;
 * tailing streams (no end) emit an OffsetCheckpoint once they have caught up with the ledger end and then wait, woken by
 * the CommitNotifier (in-process commits and other instances' commits through LISTEN/NOTIFY), never by polling.
 */
export class UpdateStream {
  private buffer: JsGetUpdatesResponse[] = [];
  private index = 0;
  /** Ascending: last offset read. Descending: the next offset to read down from. */
  private cursor: number;
  /** Ascending: the end of what may be read now (the range end, or the ledger end while tailing). */
  private bound: number;
  private boundTime: string;
  private checkpointed: number;
  private closed = false;
  private abort: (() => void) | null = null;
  private ahead: { after: number; upTo: number; rows: ReturnType<LedgerUpdatesRepository['page']> } | null = null;

  constructor(
    private readonly deps: { runtime: LedgerRuntime; notifier: CommitNotifier; repo: LedgerUpdatesRepository; synchronizerIds: string[] },
    readonly range: ReadRange,
    private readonly format: CompiledUpdateFormat,
    private readonly pageSize: number,
    position: LedgerPosition,
  ) {
    this.cursor = range.descending ? (range.endInclusive ?? 0) : range.beginExclusive;
    this.bound = range.endInclusive ?? position.ledgerEnd;
    this.boundTime = position.recordTime;
    this.checkpointed = range.beginExclusive;
  }

  get tailing(): boolean {
    return this.range.endInclusive === null;
  }

  close(): void {
    this.closed = true;
    this.abort?.();
  }

  /**
   * The next element; null at the end of a bounded stream (or once closed); IDLE when `idleMs` passed while waiting for a
   * commit. `idleMs` null waits as long as it takes.
   */
  async next(idleMs: number | null): Promise<JsGetUpdatesResponse | null | typeof IDLE> {
    for (;;) {
      if (this.index < this.buffer.length) return this.buffer[this.index++];
      if (this.closed || this.range.empty) return null;
      this.buffer = [];
      this.index = 0;
      const { db } = this.deps.runtime;
      const base = { parties: this.format.plan.parties, kinds: this.format.plan.kinds, limit: this.pageSize };
      if (this.range.descending) {
        if (this.cursor <= this.range.beginExclusive) return null;
        const rows = await this.deps.repo.page(db, { ...base, after: this.range.beginExclusive, upTo: this.cursor, descending: true });
        this.cursor = rows.length < this.pageSize ? this.range.beginExclusive : rows[rows.length - 1].offset - 1;
        this.fill(rows);
      } else if (this.cursor < this.bound) {
        // The page read ahead while the previous one was being consumed (if it covers this cursor), else read now.
        const ahead = this.ahead?.after === this.cursor && this.ahead.upTo === this.bound ? this.ahead.rows : null;
        this.ahead = null;
        const rows = await (ahead ?? this.deps.repo.page(db, { ...base, after: this.cursor, upTo: this.bound, descending: false }));
        this.cursor = rows.length < this.pageSize ? this.bound : rows[rows.length - 1].offset;
        this.fill(rows);
        if (this.cursor < this.bound) {
          // Read one page ahead (at most two pages are ever held): the database works while the consumer drains this one.
          const after = this.cursor;
          const upTo = this.bound;
          const next = this.deps.repo.page(db, { ...base, after, upTo, descending: false });
          next.catch(() => undefined);
          this.ahead = { after, upTo, rows: next };
        }
      } else if (!this.tailing) {
        return null;
      } else if (this.bound > this.checkpointed) {
        // Caught up: everything up to the ledger end has been delivered.
        this.checkpointed = this.bound;
        this.buffer.push(offsetCheckpoint(this.bound, this.deps.synchronizerIds.map((synchronizerId) => ({ synchronizerId, recordTime: this.boundTime }))));
      } else {
        const moved = await this.waitForCommit(idleMs);
        if (this.closed) return null;
        if (!moved) {
          if (idleMs !== null) return IDLE;
          continue;
        }
        const pos = await this.deps.repo.position(db);
        if (pos.ledgerEnd > this.bound) {
          this.bound = pos.ledgerEnd;
          this.boundTime = pos.recordTime;
        }
      }
    }
  }

  private fill(rows: Awaited<ReturnType<LedgerUpdatesRepository['page']>>): void {
    for (const r of rows) {
      const e = projectUpdate(r, this.format);
      if (e) this.buffer.push(e);
    }
  }

  private async waitForCommit(idleMs: number | null): Promise<boolean> {
    const { notifier, repo, runtime } = this.deps;
    const timeout = idleMs === null ? WAIT_SLICE_MS : Math.max(0, idleMs);
    const aborted = new Promise<boolean>((resolve) => (this.abort = () => resolve(false)));
    try {
      return await Promise.race([notifier.waitBeyond(this.bound, timeout, () => repo.ledgerEnd(runtime.db)), aborted]);
    } finally {
      this.abort = null;
    }
  }
}

/**
 * Opens update streams: the legacy/updateFormat matrix (§C.2), authorization (§G.2), then the request checks against
 * the ledger end and pruning offset (§C.3).
 */
@Injectable()
export class UpdatesReader {
  readonly repo = new LedgerUpdatesRepository();
  /** Transaction-by-id lookups arriving together share one statement (see LookupCoalescer). */
  private readonly updatesById = new LookupCoalescer<string, StoredUpdate>((ids) => this.repo.byUpdateIds(this.runtime.db, ids));

  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly notifier: CommitNotifier,
    private readonly identity: ParticipantIdentity,
  ) {}

  /** The stored update with this id, or null. */
  byUpdateId(updateId: string): Promise<StoredUpdate | null> {
    return this.updatesById.load(updateId);
  }

  async open(claims: Claims, req: GetUpdatesRequest, pageSize: number): Promise<UpdateStream> {
    const format = resolveUpdateFormat(req);
    authorizeUpdateFormat(claims, format);
    const position = await this.repo.position(this.runtime.db);
    const range = validateUpdatesRequest(req, format, position);
    return new UpdateStream(
      { runtime: this.runtime, notifier: this.notifier, repo: this.repo, synchronizerIds: this.identity.synchronizers.map((s) => s.id) },
      range,
      compileUpdateFormat(format),
      pageSize,
      position,
    );
  }
}
