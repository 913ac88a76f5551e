import { Injectable } from '@nestjs/common';
import { parsePublicKey } from '@ledgerline/canton';
import { failedToExecute, type PartySigningKeys } from '@ledgerline/domain';
import { ExecuteSubmissionRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';

/** How long a party's looked-up keys are reused. Allocation only adds parties; the window bounds staleness otherwise. */
const TTL_MS = 5_000;

/**
 * Registered signing keys of external parties, parsed once (node KeyObjects) and cached briefly: executing a transaction
 * then costs no key query. Parties without keys are never cached, so a freshly allocated party is seen at once.
 */
@Injectable()
export class SigningKeysCache {
  private readonly repo = new ExecuteSubmissionRepository();
  private readonly cache = new Map<string, { at: number; keys: PartySigningKeys }>();

  constructor(private readonly runtime: LedgerRuntime) {}

  async get(parties: readonly string[]): Promise<Map<string, PartySigningKeys>> {
    const now = Date.now();
    const out = new Map<string, PartySigningKeys>();
    const missing: string[] = [];
    for (const p of parties) {
      const hit = this.cache.get(p);
      if (hit && now - hit.at < TTL_MS) out.set(p, hit.keys);
      else missing.push(p);
    }
    if (missing.length) {
      const rows = await this.repo.signingKeys(this.runtime.db, missing);
      for (const [party, entry] of rows) {
        const keys: PartySigningKeys = {
          threshold: entry.threshold,
          keys: entry.keys.map((k) => {
            try {
              return { fingerprint: k.fingerprint, key: parsePublicKey({ format: k.keyFormat, keyData: k.publicKey, keySpec: k.keySpec }) };
            } catch (e) {
              throw failedToExecute(`The registered signing key ${k.fingerprint} of ${party} cannot be used: ${(e as Error).message}`);
            }
          }),
        };
        if (this.cache.size > 100_000) this.cache.clear();
        this.cache.set(party, { at: now, keys });
        out.set(party, keys);
      }
    }
    return out;
  }
}
