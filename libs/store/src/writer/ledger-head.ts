import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isoMicros, type CommittedEvent, type NewEvent, type UpdateHeader } from '@ledgerline/domain';
import type { DB } from '../schema';
import { applyProjections } from '../projections/registry';
import { rememberDataJson } from '../projections/event-json';
import type { ProjectionSink } from '../projections/projection';

/** The `ledger_head` row as a transaction reads it under its lock. */
export interface HeadRow {
  seq: number | string;
  ledger_offset: number | string;
  record_time_micros: number | string;
}

/**
 * The ledger head inside one write transaction (which holds the `ledger_head` lock): the last sequence number, offset
 * and record time, advanced by every append. Offsets are assigned under the lock, so commit order is offset order.
 */
export class LedgerHead {
  seq: number;
  offset: number;
  lastMicros: bigint;
  readonly startSeq: number;
  readonly startOffset: number;
  /** The types of the events appended. */
  readonly types = new Set<string>();

  constructor(
    row: HeadRow,
    private readonly participantId: string,
    private readonly clock: () => bigint,
  ) {
    this.seq = this.startSeq = Number(row.seq);
    this.offset = this.startOffset = Number(row.ledger_offset);
    this.lastMicros = BigInt(row.record_time_micros);
  }

  /** Whether anything was appended. */
  get appended(): boolean {
    return this.seq > this.startSeq;
  }

  /** The new ledger end if an update was appended, else 0. */
  get movedEnd(): number {
    return this.offset > this.startOffset ? this.offset : 0;
  }

  /** The record time of the next append: the clock's, but always after the previous one. */
  nextRecordTime(): string {
    let micros = this.clock();
    if (micros <= this.lastMicros) micros = this.lastMicros + 1n;
    this.lastMicros = micros;
    return isoMicros(micros);
  }

  /** Gives `e` the next sequence number and, if it is a ledger update (or takes its own offset), the next offset; an update its id. */
  assign(e: NewEvent, recordedAt: string, dataText: string): CommittedEvent {
    this.types.add(e.type);
    this.seq += 1;
    let header: UpdateHeader | undefined;
    let offset: number | undefined;
    if (e.update || e.ownOffset) offset = this.offset += 1;
    if (e.update)
      header = {
        ...e.update,
        offset: this.offset,
        recordTime: recordedAt,
        updateId: updateIdFor(this.participantId, this.offset, recordedAt, dataText),
      };
    return { seq: this.seq, type: e.type, stream: e.stream, data: e.data, update: header, offset, recordedAt };
  }
}

/**
 * Appends `events` (one record time for all of them): each gets its place in the log, its `event_log` row and its
 * projections go to `sink` (`apply` projections run on `db`), in order.
 */
export async function appendEvents(
  events: readonly NewEvent[],
  head: LedgerHead,
  db: Kysely<DB>,
  sink: ProjectionSink,
): Promise<CommittedEvent[]> {
  const recordedAt = head.nextRecordTime();
  const committed: CommittedEvent[] = [];
  for (const e of events) {
    const dataText = e.dataText ?? JSON.stringify(e.data);
    const ce = head.assign(e, recordedAt, dataText);
    rememberDataJson(ce, dataText);
    const pending = sink.insert('event_log', [
      {
        seq: ce.seq,
        ledger_offset: ce.offset ?? null,
        type: ce.type,
        stream: ce.stream,
        data: dataText,
        header: ce.update ? JSON.stringify(ce.update) : null,
        recorded_at: recordedAt,
      },
    ]);
    if (pending) await pending;
    await applyProjections(db, ce, sink);
    committed.push(ce);
  }
  return committed;
}

/** Canton-form update id: `1220` + SHA-256 over the participant, the offset, the record time and the payload. */
export function updateIdFor(participantId: string, offset: number, recordTime: string, payload: string): string {
  // One-shot hash of the UTF-8 concatenation: the same digest as feeding the parts one by one, without a Hash object.
  return '1220' + hash('sha256', `${participantId}\u0000${offset}\u0000${recordTime}\u0000${payload}`, 'hex');
}
