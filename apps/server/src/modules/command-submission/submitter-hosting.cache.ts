import { Injectable } from '@nestjs/common';
import type { SubmitterHosting } from '@ledgerline/domain';
import { CommandSubmissionRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';

/** How long a party's looked-up hosting is reused. A party's hosting never changes once allocated; the window bounds staleness. */
const TTL_MS = 5_000;

/**
 * Which parties are allocated here, and how (local: may submit; external: confirms only), cached briefly: a command
 * submission of known parties then costs no read before the writer. Unknown parties are never cached, so a freshly
 * allocated party is seen at once.
 */
@Injectable()
export class SubmitterHostingCache {
  private readonly repo = new CommandSubmissionRepository();
  private readonly cache = new Map<string, { at: number; hosting: SubmitterHosting }>();

  constructor(private readonly runtime: LedgerRuntime) {}

  /** The hosting of those of `parties` that are allocated here. */
  async get(parties: readonly string[]): Promise<Map<string, SubmitterHosting>> {
    const now = Date.now();
    const out = new Map<string, SubmitterHosting>();
    const missing: string[] = [];
    for (const p of parties) {
      const hit = this.cache.get(p);
      if (hit && now - hit.at < TTL_MS) out.set(p, hit.hosting);
      else missing.push(p);
    }
    if (missing.length) {
      const found = await this.repo.hosting(this.runtime.db, missing);
      if (this.cache.size > 100_000) this.cache.clear();
      for (const [party, hosting] of found) {
        this.cache.set(party, { at: now, hosting });
        out.set(party, hosting);
      }
    }
    return out;
  }
}
