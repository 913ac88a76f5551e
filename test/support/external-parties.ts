import { seedPartySigningKeys } from '../../testkit/signing-keys';
import type { ExternalParty } from '../../testkit/external-signing';
import type { TestLedger } from './ledger';

/**
 * Registers external parties' Ed25519 keys straight into party_signing_keys / party_signing_thresholds (the tables
 * onboarding fills), so execution tests do not depend on the onboarding endpoints.
 */
export async function registerKeys(
  ledger: TestLedger,
  party: string,
  keys: ExternalParty[],
  threshold = 1,
): Promise<void> {
  await seedPartySigningKeys(
    ledger.runtime.db,
    party,
    keys.map((k) => ({
      fingerprint: k.fingerprint,
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      keyFormat: 'CRYPTO_KEY_FORMAT_RAW',
      publicKey: k.rawPublicKey.toString('base64'),
    })),
    threshold,
  );
}

/** Creates a user with the given rights (wire form kinds, e.g. {CanExecuteAs: party}). */
export async function createUser(
  ledger: TestLedger,
  id: string,
  rights: Array<{ kind: string; party?: string }>,
): Promise<void> {
  const r = await ledger.call('POST', '/v2/users', {
    user: { id, primaryParty: '' },
    rights: rights.map((x) => ({ kind: { [x.kind]: { value: x.party ? { party: x.party } : {} } } })),
  });
  if (r.status !== 200) throw new Error(`createUser ${id}: ${r.status} ${r.text}`);
}

export { ledgerEnd } from './ledger';
