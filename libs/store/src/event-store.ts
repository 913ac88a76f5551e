import { hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql, Kysely, Transaction } from 'kysely';
import { CommittedEvent, isLedgerError, isoMicros, NewEvent, nowMicros, transientFailure, UpdateHeader } from '@ledgerline/domain';
import type { DB } from './schema';
import { isDatabaseUnavailable, prepared } from './database';
import { applyProjections } from './projections/registry';
import { ColumnTypes, RowBuffer } from './projections/row-buffer';
import { rememberDataJson } from './projections/event-json';

/** What a unit of work sees: the open transaction (reads see earlier work of the same batch) and `append`. */
export interface WriteTx {
  readonly db: Transaction<DB>;
  /**
   * Appends events to the log and applies their projections, in order. Call it once, after every check of the work has
   * passed (decide, then append): a work that throws after appending makes the batch re-run its works one by one.
   */
  append(events: NewEvent[]): Promise<CommittedEvent[]>;
}

export type Work<R> = (tx: WriteTx) => Promise<R>;

/** Reads the state of many keyed works at once: one statement for all the works of a batch segment that use it. */
export interface StateLoader<K, S> {
  /** For messages only. */
  readonly name: string;
  /** The state of each key, in the order of `keys`. */
  load(db: Kysely<DB>, keys: readonly K[]): Promise<S[]>;
}

/**
 * A decision over state the store loads for it (decide, then append): the writer groups consecutive keyed works into
 * segments whose works neither change what another one reads nor change the same thing, loads the state of a whole
 * segment with one statement per loader, then runs the decisions one after the other. `reads` and `writes` are conflict
 * keys ('party:…', 'contract:…'): everything the decision depends on, and everything its events change.
 */
export interface KeyedWork<K, S, R> {
  readonly loader: StateLoader<K, S>;
  readonly key: K;
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  decide(state: S, tx: Pick<WriteTx, 'append'>): Promise<R>;
}

export interface EventStoreOptions {
  /** Participant id: mixed into update ids. */
  participantId: string;
  /** Most works committed in one database transaction. */
  maxBatch?: number;
  /**
   * While a batch is committing, how long (ms) the next batch waits before it opens its transaction, so that the works
   * arriving meanwhile join it. 0: it queues for the head lock at once. An idle store starts a work at once either way.
   */
  lingerMs?: number;
  /** Called after each batch (metrics). */
  onBatch?: (info: BatchInfo) => void;
  /** Unexpected errors (logged by the caller). */
  onError?: (err: unknown) => void;
}

interface Pending<R = unknown> {
  work?: Work<R>;
  keyed?: KeyedWork<unknown, unknown, R>;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/** What the writer reports of each batch. */
export interface BatchInfo {
  /** Works in the batch. */
  readonly size: number;
  /** From taking the batch off the queue to its end (including one-by-one re-runs after an aborted batch). */
  readonly durationMs: number;
  /**
   * Where the batch's transaction spent its time; absent when the transaction failed (the batch then failed, or was re-run
   * work by work). Works rejected by their decisions do not fail it.
   */
  readonly phases?: BatchPhases;
}

/** A batch's time, phase by phase (ms); they follow each other and add up to its transaction's duration. */
export interface BatchPhases {
  /** A connection, `BEGIN` and the `ledger_head` lock: includes waiting for the previous batch's `COMMIT`. */
  readonly lock: number;
  /** The keyed works' state loads (one statement per segment and loader). */
  readonly load: number;
  /** The decisions, their events and projection rows, plain works and rows written early. */
  readonly decide: number;
  /** The batch's write statement: building it and its round trip. */
  readonly write: number;
  /** From the write statement's answer to the `COMMIT`'s (the WAL flush). */
  readonly commit: number;
}

export const COMMIT_CHANNEL = 'ledgerline_commits';

class BatchAborted extends Error {
  constructor(readonly reason: unknown) {
    super('batch aborted');
  }
}

/**
 * The single writer of the event log. Works queue up while a batch is committing; the next batch takes all of them
 * (group commit) and runs them in one transaction that first locks the `ledger_head` row: plain works one after the
 * other, keyed works by segments (see KeyedWork). The lock
 * serialises writers across service instances, and offsets are assigned under it, so commit order is offset order and no
 * reader can see offset N+1 before N.
 */
export class EventStore {
  private readonly queue: Pending[] = [];
  private running = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private wake: (() => void) | null = null;
  private lastEmitted = 0;
  readonly events = new EventEmitter();
  private readonly maxBatch: number;
  private readonly lingerMs: number;
  private readonly columnTypes = new ColumnTypes();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly opts: EventStoreOptions,
  ) {
    this.maxBatch = opts.maxBatch ?? 256;
    this.lingerMs = opts.lingerMs ?? 0;
    this.events.setMaxListeners(0);
  }

  /** Runs `work` inside the next group commit and resolves once its transaction has committed. */
  execute<R>(work: Work<R>): Promise<R> {
    return this.enqueue<R>({ work });
  }

  /** Runs a keyed decision inside the next group commit (see KeyedWork) and resolves once it has committed. */
  decide<K, S, R>(work: KeyedWork<K, S, R>): Promise<R> {
    return this.enqueue<R>({ keyed: work as unknown as KeyedWork<unknown, unknown, R> });
  }

  private enqueue<R>(item: Pick<Pending<R>, 'work' | 'keyed'>): Promise<R> {
    if (this.closed) return Promise.reject(transientFailure('The ledger is shutting down.'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ ...item, resolve, reject } as Pending);
      if (!this.running) void this.drain();
      else this.wake?.();
    });
  }

  /** Appends events that need no decision (convenience over `execute`). */
  append(events: NewEvent[]): Promise<CommittedEvent[]> {
    return this.execute((tx) => tx.append(events));
  }

  /** Stops accepting work and waits for the queued work to commit. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) await this.idle;
  }

  /**
   * Takes batches off the queue. Pipelined: as soon as a batch has done its work and sent its inserts (it is committing),
   * the next batch opens its transaction and queues for the `ledger_head` lock on the server, so it starts the moment the
   * previous one has committed. At most two batches are under way: one committing, one waiting for the lock (which
   * takes its works off the queue once it holds the lock).
   *
   * Under load the next batch first lingers (`lingerMs`) before it opens its transaction: the works that arrive meanwhile
   * join it. A batch's fixed costs (its round trips, statements, event-loop turns and the database's per-statement
   * work) are then shared by more works, which is what a busy CPU needs; an idle store never lingers.
   */
  private async drain(): Promise<void> {
    this.running = true;
    this.idle = new Promise((r) => (this.markIdle = r));
    const inflight = new Set<Promise<void>>();
    try {
      while (this.queue.length > 0 || inflight.size > 0) {
        if (this.queue.length === 0 || inflight.size >= 2) {
          await Promise.race([...inflight, new Promise<void>((r) => (this.wake = r))]);
          this.wake = null;
          continue;
        }
        if (inflight.size > 0 && this.lingerMs > 0 && this.queue.length < this.maxBatch) {
          await new Promise((r) => setTimeout(r, this.lingerMs));
        }
        // The batch takes its works once it holds the head lock, so whatever arrived while the previous batch was
        // committing joins it (bigger batches, shorter waits) instead of waiting for the batch after.
        const batch: Pending[] = [];
        const take = () => {
          if (batch.length === 0) batch.push(...this.queue.splice(0, this.maxBatch));
        };
        let committing!: () => void;
        const reachedCommit = new Promise<void>((r) => (committing = r));
        const done: Promise<void> = this.runIsolating(batch, take, committing).finally(() => inflight.delete(done));
        inflight.add(done);
        await Promise.race([reachedCommit, done]);
      }
    } finally {
      this.running = false;
      this.markIdle();
    }
  }

  private async runIsolating(batch: Pending[], take: () => void, committing: () => void): Promise<void> {
    const started = performance.now();
    let phases: BatchPhases | undefined;
    try {
      phases = await this.runBatch(batch, committing, take);
    } catch (e) {
      take(); // failed before taking its works (no database): they fail with it rather than wait for the next batch
      if (e instanceof BatchAborted && batch.length > 1) {
        // One work broke the transaction: isolate it by committing each work on its own.
        for (const p of batch) await this.runBatch([p]).catch((err) => this.failAll([p], err));
      } else {
        this.failAll(batch, e instanceof BatchAborted ? e.reason : e);
      }
    } finally {
      committing();
    }
    this.opts.onBatch?.({ size: batch.length, durationMs: performance.now() - started, phases });
  }

  private failAll(batch: Pending[], err: unknown): void {
    if (!isLedgerError(err)) this.opts.onError?.(err);
    // A connection lost while COMMIT was under way leaves the outcome unknown (definiteAnswer false): say so.
    const reported = isLedgerError(err)
      ? err
      : isDatabaseUnavailable(err)
        ? transientFailure('The ledger database became unavailable while committing the request; it may or may not have been applied. Retry.')
        : transientFailure('The ledger could not commit the request; it was not applied. Retry.');
    for (const p of batch) p.reject(reported);
  }

  private async runBatch(batch: Pending[], committing: () => void = () => undefined, take?: () => void): Promise<BatchPhases> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let committedEnd = 0;
    let batchTypes = new Set<string>();
    // Phase clocks (performance.now()): start, lock held, write statement started and answered; load time summed.
    const t0 = performance.now();
    let locked = t0;
    let writing = t0;
    let written = t0;
    let loading = 0;
    await this.db.transaction().execute(async (trx) => {
      const head = await prepared(sql<{ seq: number; ledger_offset: number; record_time_micros: number }>`
        SELECT seq, ledger_offset, record_time_micros FROM ledger_head WHERE id = 1 FOR UPDATE`).execute(trx);
      locked = performance.now();
      take?.();
      let seq = Number(head.rows[0].seq);
      let offset = Number(head.rows[0].ledger_offset);
      let lastMicros = BigInt(head.rows[0].record_time_micros);
      const startOffset = offset;
      // event_log rows and the rows of insert-only projections: written once, at the end of the batch.
      const rows = new RowBuffer();
      let appendedAny = false;
      batchTypes = new Set<string>();
      const flushEarly = () => rows.flush(trx, this.columnTypes);

      const run = async (body: (tx: WriteTx) => Promise<unknown>) => {
        let appended = false;
        const tx: WriteTx = {
          db: trx,
          append: async (events) => {
            appended = true;
            appendedAny = true;
            const committed: CommittedEvent[] = [];
            let micros = nowMicros();
            if (micros <= lastMicros) micros = lastMicros + 1n;
            lastMicros = micros;
            const recordedAt = isoMicros(micros);
            for (const e of events) {
              batchTypes.add(e.type);
              seq += 1;
              const dataText = e.dataText ?? JSON.stringify(e.data);
              let header: UpdateHeader | undefined;
              if (e.update) {
                offset += 1;
                header = {
                  ...e.update,
                  offset,
                  recordTime: recordedAt,
                  updateId: updateIdFor(this.opts.participantId, offset, recordedAt, dataText),
                };
              }
              const ce: CommittedEvent = { seq, type: e.type, stream: e.stream, data: e.data, update: header, recordedAt };
              rememberDataJson(ce, dataText);
              rows.add('event_log', [
                {
                  seq,
                  ledger_offset: header?.offset ?? null,
                  type: e.type,
                  stream: e.stream,
                  data: dataText,
                  header: header ? JSON.stringify(header) : null,
                  recorded_at: recordedAt,
                },
              ]);
              await applyProjections(trx, ce, rows, flushEarly);
              committed.push(ce);
            }
            return committed;
          },
        };
        try {
          outcomes.push({ ok: true, value: await body(tx) });
        } catch (error) {
          if (appended || !isLedgerError(error) || batch.length === 1) {
            if (batch.length > 1) throw new BatchAborted(error);
            throw error;
          }
          outcomes.push({ ok: false, error });
        }
      };

      for (let i = 0; i < batch.length; ) {
        const first = batch[i];
        if (!first.keyed) {
          // A plain work reads with SQL: the state rows of earlier works must be in the tables.
          if (rows.hasStateRows) await flushEarly();
          await run(first.work!);
          i++;
          continue;
        }
        const segment = takeSegment(batch, i);
        i += segment.length;
        if (!rows.isEmpty) await flushEarly(); // the loads must see what earlier segments wrote
        const loadStarted = performance.now();
        const states = await loadSegment(trx, segment.map((p) => p.keyed!));
        loading += performance.now() - loadStarted;
        for (let k = 0; k < segment.length; k++) {
          const keyed = segment[k].keyed!;
          await run((tx) => keyed.decide(states[k], tx));
        }
      }

      writing = performance.now();
      if (appendedAny) {
        // One statement (usually): the buffered inserts as CTEs, then the head update, which also wakes the readers of
        // other instances (NOTIFY is delivered at commit).
        const notify = offset > startOffset ? sql` RETURNING pg_notify(${COMMIT_CHANNEL}, ${String(offset)})` : sql` RETURNING 1`;
        const tail = sql`UPDATE ledger_head SET seq = ${seq}, ledger_offset = ${offset}, record_time_micros = ${lastMicros.toString()} WHERE id = 1${notify}`;
        try {
          // The batch's last statement: the connection sends COMMIT behind it (nothing below may fail the batch).
          await rows.flush(trx, this.columnTypes, tail, true);
        } catch (error) {
          if (batch.length > 1) throw new BatchAborted(error);
          throw error;
        }
      }
      committedEnd = offset > startOffset ? offset : 0;
      written = performance.now();
      committing(); // COMMIT follows: the next batch may queue for the lock now
    });
    const ended = performance.now();
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
    if (committedEnd > this.lastEmitted) {
      this.lastEmitted = committedEnd;
      this.events.emit('committed', committedEnd);
    }
    // Which kinds of events this batch committed (caches of derived state, e.g. resolved claims, listen to it).
    if (batchTypes.size > 0) this.events.emit('event-types', batchTypes);
    return { lock: locked - t0, load: loading, decide: writing - locked - loading, write: written - writing, commit: ended - written };
  }
}

/** Canton-form update id: `1220` + SHA-256 over the participant, the offset, the record time and the payload. */
export function updateIdFor(participantId: string, offset: number, recordTime: string, payload: string): string {
  // One-shot hash of the UTF-8 concatenation: the same digest as feeding the parts one by one, without a Hash object.
  return '1220' + hash('sha256', `${participantId}\u0000${offset}\u0000${recordTime}\u0000${payload}`, 'hex');
}

/**
 * The longest run of keyed works from `start` in which no work changes what an earlier one of the run reads or changes,
 * nor reads what an earlier one changes: their decisions do not depend on each other, so their state can be loaded at
 * once, before any of them runs.
 */
function takeSegment(batch: readonly Pending[], start: number): Pending[] {
  const reads = new Set<string>();
  const writes = new Set<string>();
  const segment: Pending[] = [];
  for (let i = start; i < batch.length; i++) {
    const w = batch[i].keyed;
    if (!w) break;
    if (segment.length > 0) {
      if (w.writes.some((k) => reads.has(k) || writes.has(k)) || w.reads.some((k) => writes.has(k))) break;
    }
    segment.push(batch[i]);
    for (const k of w.reads) reads.add(k);
    for (const k of w.writes) writes.add(k);
  }
  return segment;
}

/** The state of every work of a segment: one `load` per loader, for all the keys of the works that use it. */
async function loadSegment(trx: Transaction<DB>, works: ReadonlyArray<KeyedWork<unknown, unknown, unknown>>): Promise<unknown[]> {
  const states = new Array<unknown>(works.length);
  const byLoader = new Map<StateLoader<unknown, unknown>, number[]>();
  works.forEach((w, i) => {
    const list = byLoader.get(w.loader);
    if (list) list.push(i);
    else byLoader.set(w.loader, [i]);
  });
  for (const [loader, indexes] of byLoader) {
    const out = await loader.load(trx, indexes.map((i) => works[i].key));
    if (out.length !== indexes.length) throw new Error(`state loader ${loader.name} returned ${out.length} states for ${indexes.length} keys`);
    indexes.forEach((w, j) => (states[w] = out[j]));
  }
  return states;
}
