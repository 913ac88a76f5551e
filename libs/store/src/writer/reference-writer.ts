import { EventEmitter } from 'node:events';
import { sql, type Kysely } from 'kysely';
import { isLedgerError, nowMicros, type CommittedEvent, type NewLedgerEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { carryOut, type Decider } from './decider';
import { DirectSink } from './direct-sink';
import { appendEvents, LedgerHead } from './ledger-head';
import {
  COMMIT_CHANNEL,
  failureOfTransaction,
  shuttingDown,
  type LedgerWriter,
  type Work,
  type WriteTx,
  type WriterOptions,
} from './writer';

/**
 * The plain writer: one database transaction per work, in arrival order, with plain Kysely statements; each transaction
 * locks the `ledger_head` row, runs the work (a decider: loads its state, decides), writes the events and their
 * projections at once, moves the head and commits. No batching, no buffered rows, no pipelining: the definition the
 * batched writer is checked against (test/integration/store/writer-differential.test.ts). LEDGER_WRITER=reference.
 */
export class ReferenceWriter implements LedgerWriter {
  readonly events = new EventEmitter();
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private lastEmitted = 0;
  private readonly clock: () => bigint;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly opts: WriterOptions,
  ) {
    this.clock = opts.clock ?? nowMicros;
    this.events.setMaxListeners(0);
  }

  execute<R>(work: Work<R>): Promise<R> {
    if (this.closed) return Promise.reject(shuttingDown());
    const result = this.tail.then(() => this.run(work));
    this.tail = result.catch(() => undefined);
    return result;
  }

  decide<C, K, S, R>(decider: Decider<C, K, S, R>, command: C): Promise<R> {
    let key: K;
    try {
      key = decider.key(command);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.execute(async (tx) => {
      const [state] = await decider.load(tx.db, [key], { ledgerEnd: tx.ledgerEnd() });
      return carryOut(decider.decide(state, command), tx.db, (events) => tx.append(events));
    });
  }

  append(events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]> {
    return this.execute((tx) => tx.append(events));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
  }

  private async run<R>(work: Work<R>): Promise<R> {
    const started = performance.now();
    let head: LedgerHead | undefined;
    let value: R;
    try {
      value = await this.db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('ledger_head')
          .select(['seq', 'ledger_offset', 'record_time_micros'])
          .where('id', '=', 1)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const h = (head = new LedgerHead(row, this.opts.participantId, this.clock));
        const sink = new DirectSink(trx);
        const tx: WriteTx = {
          db: trx,
          ledgerEnd: () => h.offset,
          append: (events) => appendEvents(events, h, trx, sink),
        };
        const result = await work(tx);
        if (h.appended) {
          await trx
            .updateTable('ledger_head')
            .set({ seq: h.seq, ledger_offset: h.offset, record_time_micros: h.lastMicros.toString() })
            .where('id', '=', 1)
            .execute();
          if (h.movedEnd) await sql`SELECT pg_notify(${COMMIT_CHANNEL}, ${String(h.offset)})`.execute(trx);
        }
        return result;
      });
    } catch (e) {
      if (isLedgerError(e)) throw e;
      this.opts.onError?.(e);
      throw failureOfTransaction(e);
    } finally {
      this.opts.onBatch?.({ size: 1, durationMs: performance.now() - started });
    }
    const { movedEnd, types } = head!;
    if (movedEnd > this.lastEmitted) {
      this.lastEmitted = movedEnd;
      this.events.emit('committed', movedEnd);
    }
    if (types.size > 0) this.events.emit('event-types', types);
    return value;
  }
}
