import type { Pool } from 'pg';
import { isLedgerError, type CommittedEvent, type NewLedgerEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { COLUMN_TYPES } from '../column-types';
import { BufferedSink } from './buffered-sink';
import { appendEvents, LedgerHead, type HeadRow } from './ledger-head';
import { RowBuffer } from './row-buffer';
import { carryOut } from './decider';
import { loadSegment, takeSegment } from './segments';
import { buildWriteStatement, type Param } from './statement-builder';
import type { PendingWork } from './work-queue';
import { WriteConnection } from './write-connection';
import { COMMIT_CHANNEL, type BatchPhases, type WriteTx } from './writer';

/** What every batch needs. */
export interface BatchContext {
  readonly pool: Pool;
  readonly participantId: string;
  readonly clock: () => bigint;
}

/** A work's outcome in its batch: its value, or its decision's rejection. */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** A committed batch. */
export interface BatchResult {
  /** One per work, in order. */
  readonly outcomes: readonly Outcome[];
  readonly phases: BatchPhases;
  /** The new ledger end, or 0 if the batch appended no update. */
  readonly end: number;
  /** The types of the events it appended. */
  readonly types: ReadonlySet<string>;
}

/** One work broke the batch's transaction (it threw after appending, or the write failed): re-run the works one by one. */
export class BatchAborted extends Error {
  constructor(readonly reason: unknown) {
    super('batch aborted');
  }
}

const LOCK_HEAD = 'SELECT seq, ledger_offset, record_time_micros FROM ledger_head WHERE id = 1 FOR UPDATE';

/**
 * One batch of works in one transaction that first locks the `ledger_head` row: the lock serialises writers across
 * service instances, and offsets are assigned under it, so commit order is offset order and no reader can see offset
 * N+1 before N.
 *
 * The works run in queue order: plain works one at a time; keyed works (deciders) by segments (segments.ts), the state of
 * a whole segment loaded with one statement per decider, then their decisions one after the other. Event-log rows and
 * projection rows are buffered (row-buffer.ts) and written by the batch's last statement, together with the head update,
 * then COMMIT; they are written earlier only when something is about to read them
 * (a plain work, a segment's load, an update of a buffered row).
 *
 * A decision that rejects its work (a LedgerError before appending) fails that work alone. Any other failure of a work,
 * or of the write, aborts the batch (BatchAborted) when it holds several works.
 */
export class BatchRun {
  private works: readonly PendingWork[] = [];
  private readonly outcomes: Outcome[] = [];
  private connection!: WriteConnection;
  private head!: LedgerHead;
  private readonly rows = new RowBuffer<DB>();
  private readonly sink = new BufferedSink(this.rows, () => this.writeBuffered());
  // Phase clocks (performance.now()): lock held, write statement started and answered; load time summed.
  private locked = 0;
  private loading = 0;
  private writing = 0;
  private written = 0;

  constructor(
    private readonly ctx: BatchContext,
    /** Takes the batch's works off the queue (called once the batch holds the lock). */
    private readonly take: () => readonly PendingWork[],
    /** Called when the batch's COMMIT is under way: the next batch may queue for the lock. */
    private readonly committing: () => void,
  ) {}

  async run(): Promise<BatchResult> {
    const started = performance.now();
    this.connection = await WriteConnection.open(this.ctx.pool);
    try {
      await this.lockHead();
      this.works = this.take();
      await this.runWorks();
      await this.writeAndCommit();
    } finally {
      await this.connection.release();
    }
    const ended = performance.now();
    return {
      outcomes: this.outcomes,
      phases: {
        lock: this.locked - started,
        load: this.loading,
        decide: this.writing - this.locked - this.loading,
        write: this.written - this.writing,
        commit: ended - this.written,
      },
      end: this.head.movedEnd,
      types: this.head.types,
    };
  }

  private async lockHead(): Promise<void> {
    const { rows } = await this.connection.begin<HeadRow>(LOCK_HEAD, []);
    this.locked = performance.now();
    this.head = new LedgerHead(rows[0], this.ctx.participantId, this.ctx.clock);
  }

  private async runWorks(): Promise<void> {
    for (let i = 0; i < this.works.length;) {
      const first = this.works[i];
      if (!first.keyed) {
        await this.runPlain(first);
        i++;
        continue;
      }
      const segment = takeSegment(this.works, i);
      i += segment.length;
      await this.runSegment(segment);
    }
  }

  /** A plain work reads with SQL: the rows decisions may read must be in their tables first. */
  private async runPlain(p: PendingWork): Promise<void> {
    if (this.rows.hasStateRows) await this.guarded(() => this.writeBuffered());
    await this.runWork(p.work!);
  }

  /** Loads the state of the segment's works (after what earlier segments wrote), then decides them in order. */
  private async runSegment(segment: readonly PendingWork[]): Promise<void> {
    if (!this.rows.isEmpty) await this.guarded(() => this.writeBuffered());
    const loadStarted = performance.now();
    const states = await this.guarded(() => loadSegment(this.connection.db, segment, { ledgerEnd: this.head.offset }));
    this.loading += performance.now() - loadStarted;
    for (let k = 0; k < segment.length; k++) {
      const { decider, command } = segment[k].keyed!;
      await this.runWork((tx) => carryOut(decider.decide(states[k], command), tx.db, (events) => tx.append(events)));
    }
  }

  /** Runs one work and records its outcome; a failure that is not its decision's own rejection aborts the batch. */
  private async runWork(body: (tx: WriteTx) => Promise<unknown>): Promise<void> {
    let appended = false;
    const tx: WriteTx = {
      db: this.connection.db,
      ledgerEnd: () => this.head.offset,
      append: (events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]> => {
        appended = true;
        return appendEvents(events, this.head, this.connection.db, this.sink);
      },
    };
    try {
      this.outcomes.push({ ok: true, value: await body(tx) });
    } catch (error) {
      if (appended || !isLedgerError(error) || this.works.length === 1) throw this.abort(error);
      this.outcomes.push({ ok: false, error });
    }
  }

  /** Writes the buffered rows now (before something reads them). */
  private async writeBuffered(): Promise<void> {
    const statement = buildWriteStatement(this.rows.take(), COLUMN_TYPES);
    if (statement) await this.connection.query(statement.text, statement.values);
  }

  /**
   * The batch's last statement: the buffered rows and the head update, which also wakes the readers of other instances
   * (NOTIFY is delivered at commit); then COMMIT. Nothing after the statement's success may fail the batch:
   * a COMMIT that fails leaves the outcome unknown, and the works are then not re-run.
   */
  private async writeAndCommit(): Promise<void> {
    this.writing = performance.now();
    const markWritten = () => {
      this.written = performance.now();
      this.committing();
    };
    if (!this.head.appended) {
      markWritten();
      await this.connection.commit();
      return;
    }
    const head = this.head;
    const update = (param: Param) =>
      `UPDATE ledger_head SET seq = ${param(head.seq)}, ledger_offset = ${param(head.offset)}, record_time_micros = ${param(head.lastMicros.toString())} WHERE id = 1` +
      (head.movedEnd
        ? ` RETURNING pg_notify(${param(COMMIT_CHANNEL)}, ${param(String(head.offset))})`
        : ' RETURNING 1');
    const statement = buildWriteStatement(this.rows.take(), COLUMN_TYPES, update)!;
    try {
      await this.connection.query(statement.text, statement.values);
    } catch (error) {
      throw this.abort(error);
    }
    markWritten();
    await this.connection.commit();
  }

  /**
   * Runs a step of the batch on behalf of several works (an early write, a segment's load): its failure may be any one
   * work's fault, so it aborts the batch, whose works are then re-run one by one.
   */
  private async guarded<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw this.abort(error);
    }
  }

  private abort(error: unknown): unknown {
    return this.works.length > 1 ? new BatchAborted(error) : error;
  }
}
