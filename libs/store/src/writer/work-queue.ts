import type { Conflicts, Decider } from './decider';
import type { Work } from './writer';

/** A decider's command, with its key and conflict keys (computed when it is queued, outside the ledger lock). */
export interface KeyedCall {
  readonly decider: Decider<unknown, unknown, unknown, unknown>;
  readonly command: unknown;
  readonly key: unknown;
  readonly conflicts: Conflicts;
}

/** A queued unit of work: a plain work or a decider's command, and its caller's promise. */
export interface PendingWork {
  readonly work?: Work<unknown>;
  readonly keyed?: KeyedCall;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The works of one batch: taken off the queue once, when the batch is ready for them. */
export class BatchWorks {
  private works: PendingWork[] | null = null;

  constructor(
    private readonly queue: PendingWork[],
    private readonly max: number,
  ) {}

  take(): PendingWork[] {
    return (this.works ??= this.queue.splice(0, this.max));
  }
}

/**
 * Runs one batch: takes its works with `works.take()` once it holds the ledger lock, calls `committing` when its COMMIT
 * is under way (at the latest when it ends), and never rejects.
 */
export type BatchRunner = (works: BatchWorks, committing: () => void) => Promise<void>;

/**
 * Group commit. Works queue up while a batch is committing; the next batch takes all of them (up to `maxBatch`).
 * Pipelined: as soon as a batch's COMMIT is under way, the next batch opens its transaction and queues for the
 * `ledger_head` lock on the server, so it starts the moment the previous one has committed. At most two batches are under
 * way: one committing, one waiting for the lock (which takes its works off the queue once it holds the lock, so whatever
 * arrived meanwhile joins it).
 *
 * Under load the next batch first lingers (`lingerMs`) before it opens its transaction: the works that arrive meanwhile
 * join it. A batch's fixed costs (its round trips, statements, event-loop turns and the database's per-statement work)
 * are then shared by more works, which is what a busy CPU needs; an idle writer never lingers.
 */
export class WorkQueue {
  private readonly queue: PendingWork[] = [];
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private wake: (() => void) | null = null;

  constructor(
    private readonly maxBatch: number,
    private readonly lingerMs: number,
    private readonly runBatch: BatchRunner,
  ) {}

  push(item: PendingWork): void {
    this.queue.push(item);
    if (!this.running) void this.drain();
    else this.wake?.();
  }

  /** Resolves once every queued work has been run. */
  drained(): Promise<void> {
    return this.running ? this.idle : Promise.resolve();
  }

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
        let committing!: () => void;
        const reachedCommit = new Promise<void>((r) => (committing = r));
        const done: Promise<void> = this.runBatch(new BatchWorks(this.queue, this.maxBatch), committing).finally(() =>
          inflight.delete(done),
        );
        inflight.add(done);
        await Promise.race([reachedCommit, done]);
      }
    } finally {
      this.running = false;
      this.markIdle();
    }
  }
}
