import { Injectable } from '@nestjs/common';

/**
 * Turns of the event loop for the CPU-heavy part of a request (decode, hash, signature check: about half a millisecond
 * of an executeAndWait).
 *
 * Node runs every I/O callback that is ready in one go. Without turns, a burst of requests does all its heavy work
 * inside those callbacks, and a database reply that arrived with the burst (the writer's lock, its load, its flush, its
 * COMMIT) waits until the whole burst is through: the writer's batches stretch, and every request of the batch waits
 * with them. A request that awaits `take()` resumes in a later turn of the loop instead, one request per turn, and the
 * loop polls I/O between turns: the writer's replies wait for at most one request's work.
 *
 * Measured on the 2-core target (bench:execute, 64 clients): writer batches went from 31-44 ms (34-38 works) to
 * 9-14 ms (9-12 works), and throughput rose by about a fifth (the machine's CPU is then the limit, not the writer).
 */
@Injectable()
export class CpuTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves in a later turn of the event loop: one waiter per turn, in arrival order. */
  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.turn);
      }
    });
  }

  /** Waiters not yet resumed (metrics, tests). */
  get queued(): number {
    return this.waiting.length;
  }

  // A check-phase callback: the resumed request runs its synchronous part in the microtasks right after it; the next
  // waiter is scheduled with setImmediate from here, so it runs in the next turn, after that turn's I/O poll.
  private readonly turn = (): void => {
    this.waiting.shift()?.();
    if (this.waiting.length > 0) setImmediate(this.turn);
    else this.scheduled = false;
  };
}
