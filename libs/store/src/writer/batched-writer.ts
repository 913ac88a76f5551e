import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { isLedgerError, nowMicros, type CommittedEvent, type NewLedgerEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { isDatabaseUnavailable, poolOf } from '../database';
import { BatchAborted, BatchRun, type BatchContext, type BatchResult } from './batch-runner';
import { conflictsOf, type Decider } from './decider';
import { BatchWorks, WorkQueue, type PendingWork } from './work-queue';
import {
  failureOfTransaction,
  shuttingDown,
  type BatchPhases,
  type LedgerWriter,
  type Work,
  type WriterOptions,
} from './writer';

/**
 * The writer the service runs by default: group commit (work-queue.ts) of batches of works, each batch one transaction
 * (batch-runner.ts) whose rows are written by one statement before its COMMIT. A batch that one work broke is re-run
 * work by work, so each work gets the outcome it would have had alone.
 */
export class BatchedWriter implements LedgerWriter {
  readonly events = new EventEmitter();
  private readonly queue: WorkQueue;
  private readonly ctx: BatchContext;
  private closed = false;
  private lastEmitted = 0;

  constructor(
    db: Kysely<DB>,
    private readonly opts: WriterOptions,
  ) {
    this.ctx = { pool: poolOf(db), participantId: opts.participantId, clock: opts.clock ?? nowMicros };
    this.queue = new WorkQueue(opts.maxBatch ?? 256, opts.lingerMs ?? 0, (works, committing) =>
      this.runIsolating(works, committing),
    );
    this.events.setMaxListeners(0);
  }

  execute<R>(work: Work<R>): Promise<R> {
    return this.enqueue<R>({ work: work as Work<unknown> });
  }

  decide<C, K, S, R>(decider: Decider<C, K, S, R>, command: C): Promise<R> {
    let key: K;
    let conflicts;
    try {
      key = decider.key(command);
      conflicts = conflictsOf(decider.conflicts, key);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue<R>({
      keyed: { decider: decider as unknown as Decider<unknown, unknown, unknown, unknown>, command, key, conflicts },
    });
  }

  append(events: readonly NewLedgerEvent[]): Promise<CommittedEvent[]> {
    return this.execute((tx) => tx.append(events));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.drained();
  }

  private enqueue<R>(item: Pick<PendingWork, 'work' | 'keyed'>): Promise<R> {
    if (this.closed) return Promise.reject(shuttingDown());
    return new Promise<R>((resolve, reject) =>
      this.queue.push({ ...item, resolve: resolve as (v: unknown) => void, reject }),
    );
  }

  private async runIsolating(works: BatchWorks, committing: () => void): Promise<void> {
    const started = performance.now();
    let phases: BatchPhases | undefined;
    let batch: readonly PendingWork[] = [];
    try {
      const result = await new BatchRun(this.ctx, () => (batch = works.take()), committing).run();
      this.settle(batch, result);
      phases = result.phases;
    } catch (e) {
      batch = works.take(); // failed before taking its works (no database): they fail with it rather than wait
      if (e instanceof BatchAborted && batch.length > 1 && !isDatabaseUnavailable(e.reason)) {
        // One work broke the transaction: isolate it by committing each work on its own. (Not when the database is
        // gone: every work would wait for its own connection attempt to fail.)
        for (const p of batch) await this.runAlone(p);
      } else {
        this.fail(batch, e instanceof BatchAborted ? e.reason : e);
      }
    } finally {
      committing();
    }
    this.opts.onBatch?.({ size: batch.length, durationMs: performance.now() - started, phases });
  }

  private async runAlone(p: PendingWork): Promise<void> {
    try {
      this.settle(
        [p],
        await new BatchRun(
          this.ctx,
          () => [p],
          () => undefined,
        ).run(),
      );
    } catch (err) {
      this.fail([p], err);
    }
  }

  /** Answers the works of a committed batch, then tells the listeners what it committed. */
  private settle(batch: readonly PendingWork[], result: BatchResult): void {
    batch.forEach((p, i) => {
      const o = result.outcomes[i];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
    if (result.end > this.lastEmitted) {
      this.lastEmitted = result.end;
      this.events.emit('committed', result.end);
    }
    // Which kinds of events the batch committed (caches of derived state, e.g. resolved claims, listen to it).
    if (result.types.size > 0) this.events.emit('event-types', result.types);
  }

  private fail(batch: readonly PendingWork[], err: unknown): void {
    if (!isLedgerError(err)) this.opts.onError?.(err);
    const reported = failureOfTransaction(err);
    for (const p of batch) p.reject(reported);
  }
}
