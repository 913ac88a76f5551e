import { Injectable } from '@nestjs/common';
import { parsePublicKey } from '@ledgerline/canton';
import { failedToExecute, type PartySigningKeys } from '@ledgerline/domain';
import { PartySigningKeysRepository } from '@ledgerline/store';
import { PartyCache } from '../../infrastructure/party-cache';
import { LedgerRuntime } from '../../infrastructure/runtime';

/** How long a party's looked-up keys are reused. Allocation only adds parties; the window bounds staleness otherwise. */
const TTL_MS = 5_000;

/**
 * Registered signing keys of external parties, parsed once (node KeyObjects) and cached briefly: executing a transaction
 * then costs no key query.
 */
@Injectable()
export class SigningKeysCache {
  private readonly cache: PartyCache<PartySigningKeys>;

  constructor(runtime: LedgerRuntime, repo: PartySigningKeysRepository) {
    this.cache = new PartyCache(TTL_MS, async (parties) => {
      const out = new Map<string, PartySigningKeys>();
      for (const [party, entry] of await repo.signingKeys(runtime.db, parties)) {
        out.set(party, {
          threshold: entry.threshold,
          keys: entry.keys.map((k) => {
            try {
              return {
                fingerprint: k.fingerprint,
                key: parsePublicKey({ format: k.keyFormat, keyData: k.publicKey, keySpec: k.keySpec }),
              };
            } catch (e) {
              throw failedToExecute(
                `The registered signing key ${k.fingerprint} of ${party} cannot be used: ${(e as Error).message}`,
              );
            }
          }),
        });
      }
      return out;
    });
    runtime.maintenance.onReplaced(() => this.cache.clear());
  }

  get(parties: readonly string[]): Promise<Map<string, PartySigningKeys>> {
    return this.cache.get(parties);
  }
}
