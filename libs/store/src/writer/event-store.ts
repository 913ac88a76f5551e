import type { Kysely } from 'kysely';
import type { CommittedEvent, NewLedgerEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { BatchedWriter } from './batched-writer';
import type { Decider } from './decider';
import { ReferenceWriter } from './reference-writer';
import type { LedgerWriter, Work, WriterKind, WriterOptions } from './writer';

/**
 * The writer of the event log as the service holds it (and injects it): the batched writer, or the reference writer
 * with `writer: 'reference'` (LEDGER_WRITER). `db` must come from `openDatabase`.
 */
export class EventStore implements LedgerWriter {
  readonly kind: WriterKind;
  private readonly writer: LedgerWriter;

  constructor(db: Kysely<DB>, opts: WriterOptions) {
    this.kind = opts.writer ?? 'batched';
    this.writer = this.kind === 'reference' ? new ReferenceWriter(db, opts) : new BatchedWriter(db, opts);
  }

  get events() {
    return this.writer.events;
  }

  execute<R>(work: Work<R>): Promise<R> {
    return this.writer.execute(work);
  }

  decide<C, K, S, R>(decider: Decider<C, K, S, R>, command: C): Promise<R> {
    return this.writer.decide(decider, command);
  }

  append(events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]> {
    return this.writer.append(events);
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
