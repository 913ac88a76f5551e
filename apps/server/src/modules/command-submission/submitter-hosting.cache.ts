import { Injectable } from '@nestjs/common';
import type { SubmitterHosting } from '@ledgerline/domain';
import { CommandSubmissionRepository } from '@ledgerline/store';
import { PartyCache } from '../../infrastructure/party-cache';
import { LedgerRuntime } from '../../infrastructure/runtime';

/** How long a party's looked-up hosting is reused. A party's hosting never changes once allocated; the window bounds staleness. */
const TTL_MS = 5_000;

/**
 * Which parties are allocated here, and how (local: may submit; external: confirms only), cached briefly: a command
 * submission of known parties then costs no read before the writer.
 */
@Injectable()
export class SubmitterHostingCache {
  private readonly cache: PartyCache<SubmitterHosting>;

  constructor(runtime: LedgerRuntime, repo: CommandSubmissionRepository) {
    this.cache = new PartyCache(TTL_MS, (parties) => repo.hosting(runtime.db, parties));
    runtime.maintenance.onReplaced(() => this.cache.clear());
  }

  /** The hosting of those of `parties` that are allocated here. */
  get(parties: readonly string[]): Promise<Map<string, SubmitterHosting>> {
    return this.cache.get(parties);
  }
}
