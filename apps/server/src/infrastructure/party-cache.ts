/**
 * Per-party values looked up in the database and reused for a short time (`ttlMs`): a request for known parties then costs
 * no read. Parties the lookup does not return are never cached, so a freshly allocated party is seen at once; the window
 * bounds how stale anything else may be.
 */
export class PartyCache<V> {
  private readonly cache = new Map<string, { at: number; value: V }>();

  constructor(
    private readonly ttlMs: number,
    /** The values of those of `parties` that have one. */
    private readonly load: (parties: string[]) => Promise<Map<string, V>>,
  ) {}

  /** Forgets everything (the ledger's content was replaced: restore, reset). */
  clear(): void {
    this.cache.clear();
  }

  async get(parties: readonly string[]): Promise<Map<string, V>> {
    const now = Date.now();
    const out = new Map<string, V>();
    const missing: string[] = [];
    for (const p of parties) {
      const hit = this.cache.get(p);
      if (hit && now - hit.at < this.ttlMs) out.set(p, hit.value);
      else missing.push(p);
    }
    if (missing.length) {
      const found = await this.load(missing);
      if (this.cache.size > 100_000) this.cache.clear();
      for (const [party, value] of found) {
        this.cache.set(party, { at: now, value });
        out.set(party, value);
      }
    }
    return out;
  }
}
