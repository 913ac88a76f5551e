import { Injectable } from '@nestjs/common';
import {
  authorizeUpdateFormat,
  compileUpdateFormat,
  offsetCheckpoint,
  resolveUpdateFormat,
  resolveUpdateTreesFormat,
  validateUpdatesRequest,
  type Claims,
  type CompiledUpdateFormat,
  type GetUpdatesRequest,
  type InterfaceDirectory,
  type JsGetUpdatesResponse,
  type ReadRange,
  type StoredUpdate,
  type TransactionForm,
  type UpdateFormat,
} from '@ledgerline/domain';
import { CommitNotifier, LedgerUpdatesRepository, LookupCoalescer, type LedgerPosition } from '@ledgerline/store';
import { LedgerRuntime } from '../infrastructure/runtime';
import { InterfaceDirectories } from '../infrastructure/interface-directories';
import { ParticipantIdentity } from '../infrastructure/participant-identity';
import { PageRenderer } from './rendering/page-renderer';
import { projectPage, type StoredUpdateText } from './rendering/render-page';

/** What one stream may read in all (the HTTP lists): payload text bytes, and the error beyond them. */
export interface ByteBudget {
  maxBytes: number;
  tooLarge: () => Error;
}

/** Marks a page cut short by a byte bound: fewer rows than asked for, yet the range goes on. */
export const CUT = Symbol('cut');

const isCut = (rows: unknown[]): boolean => (rows as unknown as Record<symbol, boolean>)[CUT] === true;

/**
 * A source of updates whose payloads are read as text within what is left of the budget (the repository stops a page at
 * the row that crosses it) and parsed here. The rows within the budget are returned, marked CUT when the page stopped at
 * the bound; asking for more after that throws `tooLarge()`. So memory holds at most the budget and one row, and a list
 * that takes what it needs within the budget is answered.
 */
export function budgetedSource(
  budget: ByteBudget,
  read: (after: number, upTo: number, descending: boolean, limit: number, maxBytes: number) => Promise<StoredUpdate[]>,
): StreamSource<StoredUpdate> {
  let used = 0;
  let cut = false;
  return {
    page: async (after, upTo, descending, limit) => {
      if (cut) throw budget.tooLarge();
      const rows = await read(after, upTo, descending, limit, budget.maxBytes - used);
      const out: StoredUpdate[] = [];
      for (const r of rows) {
        const text = r.payload as string;
        const bytes = Buffer.byteLength(text);
        if (used + bytes > budget.maxBytes) {
          cut = true;
          break;
        }
        used += bytes;
        out.push({ ...r, payload: JSON.parse(text) });
      }
      if (!cut) return out;
      if (out.length === 0) throw budget.tooLarge();
      return Object.assign(out, { [CUT]: true });
    },
    bytes: () => 0,
  };
}

/** Returned by `next` when an idle timeout passed without a new element. */
export const IDLE = Symbol('idle');

/** How long one wait for a commit lasts before a tailing stream re-checks whether it was closed. */
const WAIT_SLICE_MS = 2000;

/** Where an offset stream's rows come from: pages of rows by offset (updates, completions). */
export interface StreamSource<R extends { offset: number }> {
  /** The rows in `(after, upTo]`, ascending (or descending), at most `limit`. */
  page(after: number, upTo: number, descending: boolean, limit: number): Promise<R[]>;
  /** Payload text bytes of a row (read-ahead and page sizing; 0 when unknown). */
  bytes(row: R): number;
}

/**
 * How a stream turns stored rows into its elements: objects (the HTTP lists, serialized by Fastify) or JSON text (the
 * WebSocket, rendered by the PageRenderer, possibly on its worker thread, from payloads read as text).
 */
export interface StreamRendering<R, T> {
  /**
   * Read-ahead: at most `pages` pages wait for the consumer; a second one only while those waiting hold fewer than
   * `bytes` of payload text (known for text payloads; JSON payloads count as 0).
   */
  readAhead: { pages: number; bytes: number };
  /**
   * Ascending pages sized by payload bytes instead of a fixed row count: the first page reads at most 100 rows, each
   * later one as many rows (25 to the stream's page size) as should hold about this many bytes at the previous page's
   * bytes per row. Keeps large updates from making large pages. Absent: every page is the stream's page size.
   */
  pageBytes?: number;
  render(rows: R[]): T[] | Promise<T[]>;
  /** The OffsetCheckpoint element at `offset`. */
  checkpoint(offset: number, synchronizerTimes: Array<{ synchronizerId: string; recordTime: string }>): T;
}

/** A page as read and rendered: how many rows it held and the last row's offset decide where the cursor goes. */
interface RenderedPage<T> {
  /** The row limit the page was read with, and the rows it got (fewer means the range is exhausted, unless CUT). */
  limit: number;
  rows: number;
  /** A full page, or one cut short by a byte bound: the range may go on after it. */
  full: boolean;
  lastOffset: number;
  items: T[];
}

/** An ascending page in the read-ahead pipeline: its rows (read), then its items (rendered). */
interface PipelinedPage<T> {
  after: number;
  upTo: number;
  limit: number;
  /** Once the rows are in: how many, the last one's offset, and whether the range may go on after them. */
  read: { rows: number; lastOffset: number; full: boolean } | null;
  /** Payload text bytes of the rows (0 for JSON payloads). */
  bytes: number;
  page: Promise<RenderedPage<T>>;
}

const ignore = () => undefined;

/** An update stream: an offset stream of stored updates. */
export type UpdateStream<T = JsGetUpdatesResponse> = OffsetStream<StoredUpdate, T>;

/**
 * One offset stream (the update streams: flats, /v2/updates, WebSocket; the completion streams): a pull-based cursor over
 * `(beginExclusive, endInclusive]` of its source's rows. It reads
 * at most its rendering's `readAhead` pages ahead of what the consumer took, so a consumer that stops pulling stops the
 * reads. Bounded streams end at their end;
 * tailing streams (no end) emit an OffsetCheckpoint once they have caught up with the ledger end and then wait, woken by
 * the CommitNotifier (in-process commits and other instances' commits through LISTEN/NOTIFY), never by polling.
 */
export class OffsetStream<R extends { offset: number }, T> {
  private buffer: T[] = [];
  private index = 0;
  /** Ascending: last offset read. Descending: the next offset to read down from. */
  private cursor: number;
  /** Ascending: the end of what may be read now (the range end, or the ledger end while tailing). */
  private bound: number;
  private boundTime: string;
  private checkpointed: number;
  private closed = false;
  private abort: (() => void) | null = null;
  /** Pages read ahead and not yet taken by the consumer, in order. */
  private pipeline: PipelinedPage<T>[] = [];
  /** The page enqueued last (possibly already taken, its rendering awaited): the next read starts after it. */
  private tail: PipelinedPage<T> | null = null;

  constructor(
    private readonly deps: {
      runtime: LedgerRuntime;
      notifier: CommitNotifier;
      repo: LedgerUpdatesRepository;
      synchronizerIds: string[];
    },
    readonly range: ReadRange,
    private readonly source: StreamSource<R>,
    private readonly pageSize: number,
    position: LedgerPosition,
    private readonly rendering: StreamRendering<R, T>,
  ) {
    this.cursor = range.descending ? (range.endInclusive ?? 0) : range.beginExclusive;
    this.bound = range.endInclusive ?? position.ledgerEnd;
    this.boundTime = position.recordTime;
    this.checkpointed = range.beginExclusive;
    this.generation = deps.runtime.maintenance.generation;
  }

  /** The ledger content this stream reads (LedgerMaintenance): a restore or reset under it ends it. */
  private readonly generation: number;

  private checkGeneration(): void {
    const replaced = this.deps.runtime.maintenance.replacedSince(this.generation);
    if (replaced) throw replaced;
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
  async next(idleMs: number | null): Promise<T | null | typeof IDLE> {
    for (;;) {
      if (this.index < this.buffer.length) return this.buffer[this.index++];
      if (this.closed || this.range.empty) return null;
      this.buffer = [];
      this.index = 0;
      if (this.range.descending) {
        if (this.cursor <= this.range.beginExclusive) return null;
        const page = await this.readPage(this.range.beginExclusive, this.cursor, true);
        this.cursor = page.full ? page.lastOffset - 1 : this.range.beginExclusive;
        this.buffer = page.items;
      } else if (this.cursor < this.bound) {
        // Pages are read ahead of the consumer (see enqueue); a pipeline that does not start at this cursor and end at
        // this bound (the bound moved while tailing) is dropped.
        const head = this.pipeline[0];
        if (!head || head.after !== this.cursor || head.upTo !== this.bound) {
          this.pipeline = [];
          this.tail = null;
          this.enqueue(
            this.cursor,
            this.bound,
            this.rendering.pageBytes ? Math.min(100, this.pageSize) : this.pageSize,
          );
        }
        const page = await this.pipeline.shift()!.page;
        this.cursor = page.full ? page.lastOffset : this.bound;
        this.buffer = page.items;
        if (this.cursor < this.bound) this.topUp();
        else {
          this.pipeline = [];
          this.tail = null;
        }
      } else if (!this.tailing) {
        return null;
      } else if (this.bound > this.checkpointed) {
        // Caught up: everything up to the ledger end has been delivered.
        this.checkpointed = this.bound;
        this.buffer.push(
          this.rendering.checkpoint(
            this.bound,
            this.deps.synchronizerIds.map((synchronizerId) => ({ synchronizerId, recordTime: this.boundTime })),
          ),
        );
      } else {
        const moved = await this.waitForCommit(idleMs);
        if (this.closed) return null;
        if (!moved) {
          if (idleMs !== null) return IDLE;
          continue;
        }
        const pos = await this.deps.repo.position(this.deps.runtime.db);
        if (pos.ledgerEnd > this.bound) {
          this.bound = pos.ledgerEnd;
          this.boundTime = pos.recordTime;
        }
      }
    }
  }

  /**
   * Adds the ascending page after `after` to the read-ahead pipeline. Keyset pages are read one after the other (a page
   * starts after the previous page's last offset), but a page's read starts as soon as the previous page's rows are in,
   * not once they are rendered: reading page n+1 overlaps rendering page n (on the renderer's worker thread) and sending
   * page n−1. At most `readAhead` pages wait for the consumer; a consumer that stops pulling stops the reads.
   */
  private enqueue(after: number, upTo: number, limit: number): void {
    const entry: PipelinedPage<T> = {
      after,
      upTo,
      limit,
      read: null,
      bytes: 0,
      page: null as unknown as Promise<RenderedPage<T>>,
    };
    const rows = this.readRows(after, upTo, false, limit).then((r) => {
      entry.read = {
        rows: r.length,
        lastOffset: r.length ? r[r.length - 1].offset : after,
        full: r.length >= limit || isCut(r),
      };
      for (const u of r) entry.bytes += this.source.bytes(u);
      this.topUp();
      return r;
    });
    entry.page = rows.then(async (r) => ({
      limit,
      rows: r.length,
      full: r.length >= limit || isCut(r),
      lastOffset: r.length ? r[r.length - 1].offset : 0,
      items: r.length ? await this.rendering.render(r) : [],
    }));
    entry.page.catch(ignore);
    this.pipeline.push(entry);
    this.tail = entry;
  }

  /** Starts the next page's read when the last enqueued page's rows are in, it was a full page, and there is room. */
  private topUp(): void {
    const last = this.tail;
    if (this.closed || !last || !last.read || !last.read.full) return;
    const { pages, bytes } = this.rendering.readAhead;
    if (this.pipeline.length >= pages) return;
    if (this.pipeline.length > 0 && this.pipeline.reduce((n, p) => n + p.bytes, 0) >= bytes) return;
    const after = last.read.lastOffset;
    const perRow = last.bytes / Math.max(1, last.read.rows);
    const { pageBytes } = this.rendering;
    const limit =
      pageBytes && perRow > 0 ? Math.max(25, Math.min(this.pageSize, Math.round(pageBytes / perRow))) : this.pageSize;
    if (after < last.upTo) this.enqueue(after, last.upTo, limit);
  }

  private async readRows(after: number, upTo: number, descending: boolean, limit = this.pageSize): Promise<R[]> {
    this.checkGeneration();
    const rows = await this.source.page(after, upTo, descending, limit);
    this.checkGeneration();
    return rows;
  }

  private async readPage(after: number, upTo: number, descending: boolean): Promise<RenderedPage<T>> {
    const rows = await this.readRows(after, upTo, descending);
    const items = rows.length ? await this.rendering.render(rows) : [];
    return {
      limit: this.pageSize,
      rows: rows.length,
      full: rows.length >= this.pageSize || isCut(rows),
      lastOffset: rows.length ? rows[rows.length - 1].offset : 0,
      items,
    };
  }

  private async waitForCommit(idleMs: number | null): Promise<boolean> {
    const { notifier, repo, runtime } = this.deps;
    this.checkGeneration();
    const timeout = idleMs === null ? WAIT_SLICE_MS : Math.max(0, idleMs);
    const aborted = new Promise<boolean>((resolve) => (this.abort = () => resolve(false)));
    // A snapshot, restore or reset ends the wait with its error (the stream must not outlive the ledger it reads).
    let unsubscribe = () => {};
    const interrupted = new Promise<never>((_, reject) => (unsubscribe = runtime.maintenance.onInterrupt(reject)));
    try {
      return await Promise.race([
        notifier.waitBeyond(this.bound, timeout, () => repo.ledgerEnd(runtime.db)),
        aborted,
        interrupted,
      ]);
    } finally {
      unsubscribe();
      this.abort = null;
    }
  }
}

/**
 * Opens update streams: the legacy/updateFormat matrix (Canton's JsUpdateService), authorization
 * (UpdateServiceAuthorization), then the request checks against the ledger end and pruning offset
 * (UpdateServiceRequestValidator).
 */
@Injectable()
export class UpdatesReader {
  /** Transaction-by-id lookups arriving together share one statement (see LookupCoalescer). */
  private readonly updatesById = new LookupCoalescer<string, StoredUpdate>((ids) => this.byUpdateIds(ids));

  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly notifier: CommitNotifier,
    private readonly identity: ParticipantIdentity,
    private readonly renderer: PageRenderer,
    private readonly interfaces: InterfaceDirectories,
    readonly repo: LedgerUpdatesRepository,
  ) {}

  /** A validated format compiled, with the interfaces its interface filters need. */
  async compile(format: UpdateFormat, form: TransactionForm = 'flat'): Promise<CompiledUpdateFormat> {
    return compileUpdateFormat(format, await this.interfaces.forFormat(format), form);
  }

  /** The stored update with this id, or null. */
  byUpdateId(updateId: string): Promise<StoredUpdate | null> {
    return this.updatesById.load(updateId);
  }

  /** The stored update at this offset, or null (none there, or pruned). */
  async byOffset(offset: number): Promise<StoredUpdate | null> {
    return this.runtime.reads.lookup(
      async (db) => (await this.repo.byOffsets(db, [offset])).get(offset) ?? null,
      (u) => u === null,
    );
  }

  /** The transaction with this external transaction hash (multihash hex), or null. */
  byTransactionHash(hash: string): Promise<StoredUpdate | null> {
    return this.runtime.reads.lookup(
      (db) => this.repo.byTransactionHash(db, hash),
      (u) => u === null,
    );
  }

  /** A batch of lookups by update id: on a read replica, the ids it does not have yet again on the primary. */
  private async byUpdateIds(ids: string[]): Promise<Map<string, StoredUpdate>> {
    const { reads } = this.runtime;
    if (!reads.hasReplicas) return this.repo.byUpdateIds(this.runtime.db, ids);
    const found = await reads.lookup(
      (db) => this.repo.byUpdateIds(db, ids),
      () => false,
    );
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) for (const [id, u] of await this.repo.byUpdateIds(this.runtime.db, missing)) found.set(id, u);
    return found;
  }

  /** A bounded stream of JsGetUpdatesResponse objects over a range already checked (the updates page). */
  openRange(
    compiled: CompiledUpdateFormat,
    range: ReadRange,
    pageSize: number,
    position: LedgerPosition,
  ): UpdateStream {
    return new OffsetStream(this.streamDeps(), range, this.updateSource(compiled, 'json'), pageSize, position, {
      readAhead: { pages: 0, bytes: 0 },
      render: (rows) => projectPage(rows, compiled),
      checkpoint: offsetCheckpoint,
    });
  }

  /** Ledger end, record time and pruning offset now. */
  position(): Promise<LedgerPosition> {
    return this.repo.position(this.runtime.db);
  }

  get participant(): string {
    return this.identity.participantId;
  }

  /**
   * A stream of JsGetUpdatesResponse objects (the HTTP lists; ListUpdatesHandler sizes its pages); `tree`: the
   * deprecated tree stream's JsGetUpdateTreesResponse. `maxBytes`: what the whole stream may read (payload text bytes);
   * a page that would take it further throws `tooLarge()` (see budgetedSource).
   */
  open(
    claims: Claims,
    req: GetUpdatesRequest,
    pageSize: number,
    form: TransactionForm = 'flat',
    budget?: ByteBudget,
  ): Promise<UpdateStream> {
    return this.openWith(claims, req, pageSize, form, budget ?? 'json', (compiled) => ({
      // No read-ahead: a list's page size covers what it collects (pageSize ≥ its `take` up to 1,000), so a page read
      // ahead would mostly be read for nothing.
      readAhead: { pages: 0, bytes: 0 },
      render: (rows) => projectPage(rows, compiled),
      checkpoint: offsetCheckpoint,
    }));
  }

  /** A stream of JsGetUpdatesResponse (or, `tree`, JsGetUpdateTreesResponse) JSON texts (the WebSocket), rendered by the PageRenderer. */
  openText(
    claims: Claims,
    req: GetUpdatesRequest,
    pageSize: number,
    form: TransactionForm = 'flat',
  ): Promise<UpdateStream<string>> {
    return this.openWith(claims, req, pageSize, form, 'text', (_, format, interfaces) => ({
      // Pages read ahead keep the database, the renderer's thread and the socket busy at once; the byte caps keep the
      // memory of a paused client bounded whatever the size of its updates.
      readAhead: { pages: 4, bytes: 1 << 20 },
      pageBytes: 512 << 10,
      render: (rows) => this.renderer.render(rows as unknown as StoredUpdateText[], format, form, interfaces),
      checkpoint: (offset, times) => JSON.stringify(offsetCheckpoint(offset, times)),
    }));
  }

  /** An offset stream over `range` of another source (the completion streams), with this reader's waiting and checkpoints. */
  stream<R extends { offset: number }, T>(
    range: ReadRange,
    source: StreamSource<R>,
    pageSize: number,
    position: LedgerPosition,
    rendering: StreamRendering<R, T>,
  ): OffsetStream<R, T> {
    return new OffsetStream<R, T>(this.streamDeps(), range, source, pageSize, position, rendering);
  }

  private streamDeps() {
    return {
      runtime: this.runtime,
      notifier: this.notifier,
      repo: this.repo,
      synchronizerIds: this.identity.synchronizers.map((s) => s.id),
    };
  }

  /** The stored updates a compiled format selects, with payloads as JSON or as text, or as JSON within a byte budget. */
  private updateSource(
    compiled: CompiledUpdateFormat,
    payloadAs: 'json' | 'text' | ByteBudget,
  ): StreamSource<StoredUpdate> {
    const { plan } = compiled;
    const { reads } = this.runtime;
    if (typeof payloadAs === 'object')
      return budgetedSource(payloadAs, (after, upTo, descending, limit, maxBytes) =>
        reads.at(upTo, (db) =>
          this.repo.page(db, { parties: plan.parties, kinds: plan.kinds, limit, after, upTo, descending, maxBytes }),
        ),
      );
    return {
      // A page up to `upTo` is read where every offset up to it is visible: a replica that has replayed it, or the primary.
      page: (after, upTo, descending, limit) =>
        reads.at(upTo, (db) =>
          this.repo.page(db, { parties: plan.parties, kinds: plan.kinds, limit, after, upTo, descending, payloadAs }),
        ),
      bytes: (u) => (typeof u.payload === 'string' ? u.payload.length : 0),
    };
  }

  private async openWith<T>(
    claims: Claims,
    req: GetUpdatesRequest,
    pageSize: number,
    form: TransactionForm,
    payloadAs: 'json' | 'text' | ByteBudget,
    rendering: (
      compiled: CompiledUpdateFormat,
      format: UpdateFormat,
      interfaces: InterfaceDirectory,
    ) => StreamRendering<StoredUpdate, T>,
  ): Promise<UpdateStream<T>> {
    const format = form === 'tree' ? resolveUpdateTreesFormat(req) : resolveUpdateFormat(req);
    authorizeUpdateFormat(claims, format);
    const position = await this.repo.position(this.runtime.db);
    const range = validateUpdatesRequest(req, format, position);
    const interfaces = await this.interfaces.forFormat(format);
    const compiled = compileUpdateFormat(format, interfaces, form);
    return new OffsetStream<StoredUpdate, T>(
      this.streamDeps(),
      range,
      this.updateSource(compiled, payloadAs),
      pageSize,
      position,
      rendering(compiled, format, interfaces),
    );
  }
}
