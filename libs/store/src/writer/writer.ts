import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import {
  isLedgerError,
  transientFailure,
  type CommittedEvent,
  type LedgerError,
  type NewLedgerEvent,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { isDatabaseUnavailable } from '../database';
import type { Decider } from './decider';

/** What a unit of work sees: its transaction (reads see earlier works of the same transaction) and `append`. */
export interface WriteTx {
  /** The transaction's statements. The writer begins and ends the transaction: `db.transaction()` fails. */
  readonly db: Kysely<DB>;
  /**
   * The ledger end as this work sees it: with every update appended before it in its transaction (the `ledger_head` row
   * itself is written when the transaction ends).
   */
  ledgerEnd(): number;
  /**
   * Appends events to the log and applies their projections, in order. Call it once, after every check of the work has
   * passed (decide, then append): a work that throws after appending fails, and in the batched writer makes its batch
   * re-run its works one by one.
   */
  append(events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]>;
}

export type Work<R> = (tx: WriteTx) => Promise<R>;

/**
 * The single writer of the event log, as the rest of the service uses it. Two implementations: the batched writer
 * (group commit, the default) and the reference writer (one transaction per work); they commit the same events with the
 * same offsets and projections for the same works in the same order (test/integration/store/writer-differential.test.ts).
 *
 * Events: 'committed' (the new ledger end, after a commit that moved it) and 'event-types' (the set of event types a
 * commit wrote).
 */
export interface LedgerWriter {
  /** Loads the decider's state for `command`, decides and appends, and resolves once committed: how the service writes. */
  decide<C, K, S, R>(decider: Decider<C, K, S, R>, command: C): Promise<R>;
  /** Runs `work` in a write transaction and resolves once that has committed (tests and benchmarks: failure injection). */
  execute<R>(work: Work<R>): Promise<R>;
  /** Appends events that need no decision (tests and benchmarks: seeding). */
  append(events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]>;
  /** Stops accepting work and waits for the queued work to commit. */
  close(): Promise<void>;
  readonly events: EventEmitter;
}

export type WriterKind = 'batched' | 'reference';

export interface WriterOptions {
  /** Participant id: mixed into update ids. */
  participantId: string;
  /** Which writer (default 'batched'). */
  writer?: WriterKind;
  /** The record-time clock, µs since the epoch (default: the wall clock). Record times never go backwards. */
  clock?: () => bigint;
  /** Batched writer: most works committed in one database transaction. */
  maxBatch?: number;
  /**
   * Batched writer: while a batch is committing, how long (ms) the next batch waits before it opens its transaction, so
   * that the works arriving meanwhile join it. 0: it queues for the head lock at once. An idle writer starts a work at
   * once either way.
   */
  lingerMs?: number;
  /** Called after each transaction (metrics). */
  onBatch?: (info: BatchInfo) => void;
  /** Unexpected errors (logged by the caller). */
  onError?: (err: unknown) => void;
}

/** What the writer reports of each transaction. */
export interface BatchInfo {
  /** Works in it. */
  readonly size: number;
  /** From taking the works off the queue to the end (including one-by-one re-runs after an aborted batch). */
  readonly durationMs: number;
  /**
   * Where the batched writer's transaction spent its time; absent when the transaction failed (the batch then failed, or
   * was re-run work by work), and from the reference writer. Works rejected by their decisions do not fail it.
   */
  readonly phases?: BatchPhases;
}

/** A batch's time, phase by phase (ms); they follow each other and add up to its transaction's duration. */
export interface BatchPhases {
  /** A connection, `BEGIN` and the `ledger_head` lock: includes waiting for the previous batch's `COMMIT`. */
  readonly lock: number;
  /** The keyed works' state loads (one statement per segment and decider). */
  readonly load: number;
  /** The decisions, their events and projection rows, plain works and rows written early. */
  readonly decide: number;
  /** The batch's write statement: building it and its round trip. */
  readonly write: number;
  /** From the write statement's answer to the `COMMIT`'s (the WAL flush). */
  readonly commit: number;
}

/** The NOTIFY channel a commit that moved the ledger end signals on (payload: the new end). */
export const COMMIT_CHANNEL = 'ledgerline_commits';

/**
 * What a work's caller is told when its transaction failed for a reason other than its own decision. A connection lost
 * while COMMIT was under way leaves the outcome unknown (definiteAnswer false): it says so.
 */
export function failureOfTransaction(err: unknown): LedgerError {
  if (isLedgerError(err)) return err;
  return isDatabaseUnavailable(err)
    ? transientFailure(
        'The ledger database became unavailable while committing the request; it may or may not have been applied. Retry.',
      )
    : transientFailure('The ledger could not commit the request; it was not applied. Retry.');
}

/** The rejection of work offered to a closed writer. */
export const shuttingDown = (): LedgerError => transientFailure('The ledger is shutting down.');
