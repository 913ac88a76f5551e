/**
 * Coalesces point lookups: keys asked for while earlier lookups are running are fetched together by one `fetch` call
 * (one statement, one round trip). A batch is sent at the end of the current turn of the event loop (setImmediate) when
 * fewer than `maxInFlight` batches are running, else as soon as one of them completes; so a lone lookup waits for
 * nothing but the end of its turn, and under load the batches grow instead of the round trips multiplying (the
 * group-commit idea, applied to reads).
 *
 * `fetch` answers the rows it found, keyed; keys it does not answer resolve to null. A failed fetch fails every lookup of
 * its batch. A batch holds at most `maxBatch` distinct keys.
 */
export class LookupCoalescer<K, V> {
  private pending = new Map<K, Array<{ resolve(v: V | null): void; reject(e: unknown): void }>>();
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly opts: { maxBatch?: number; maxInFlight?: number } = {},
  ) {}

  load(key: K): Promise<V | null> {
    return new Promise<V | null>((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) {
        waiters.push({ resolve, reject });
        return;
      }
      this.pending.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.pending.size === 0 || this.inFlight >= (this.opts.maxInFlight ?? 2)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.pending.size === 0 || this.inFlight >= (this.opts.maxInFlight ?? 2)) return;
    const max = this.opts.maxBatch ?? 256;
    let batch = this.pending;
    if (batch.size <= max) this.pending = new Map();
    else {
      batch = new Map();
      for (const [k, w] of this.pending) {
        if (batch.size >= max) break;
        batch.set(k, w);
        this.pending.delete(k);
      }
    }
    this.inFlight++;
    this.fetch([...batch.keys()])
      .then(
        (found) => {
          for (const [key, waiters] of batch) {
            const v = found.get(key) ?? null;
            for (const w of waiters) w.resolve(v);
          }
        },
        (e) => {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(e);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
  }
}
