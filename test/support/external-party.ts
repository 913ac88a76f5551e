import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { TestLedger } from './ledger';

/** An Ed25519 key pair as wallets hold it: raw 32-byte public key, node KeyObject for signing. */
export interface TestKey {
  privateKey: KeyObject;
  rawPublicKey: Buffer;
  spki: Buffer;
}

export function ed25519Key(seed?: Buffer): TestKey {
  const privateKey = seed
    ? createPrivateKey({
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
        format: 'der',
        type: 'pkcs8',
      })
    : generateKeyPairSync('ed25519').privateKey;
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }) as Buffer;
  return { privateKey, rawPublicKey: spki.subarray(12), spki };
}

export const rawPublicKeyJs = (k: TestKey) => ({
  format: 'CRYPTO_KEY_FORMAT_RAW',
  keyData: k.rawPublicKey.toString('base64'),
  keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
});

/** Ed25519 signature in the Ledger-API JSON form. */
export function ed25519Signature(k: TestKey, message: Buffer, signedBy: string) {
  return {
    format: 'SIGNATURE_FORMAT_CONCAT',
    signature: sign(null, message, k.privateKey).toString('base64'),
    signedBy,
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  };
}

export { ledgerEnd } from './ledger';

/** What these helpers need of a ledger: its API, called as its admin. */
type AdminApi = Pick<TestLedger, 'call'>;

export async function defaultSynchronizer(ledger: AdminApi): Promise<string> {
  return (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers[0].synchronizerId;
}

/** generate-topology → sign the multi-hash → allocate, as a wallet does; returns the party id. */
export async function onboardExternalParty(
  ledger: AdminApi,
  hint: string,
  key: TestKey = ed25519Key(),
): Promise<{ partyId: string; key: TestKey; fingerprint: string }> {
  const synchronizer = await defaultSynchronizer(ledger);
  const gen = await ledger.call('POST', '/v2/parties/external/generate-topology', {
    synchronizer,
    partyHint: hint,
    publicKey: rawPublicKeyJs(key),
  });
  if (gen.status !== 200) throw new Error(`generate-topology: ${gen.status} ${gen.text}`);
  const { partyId, publicKeyFingerprint, topologyTransactions, multiHash } = gen.json;
  const alloc = await ledger.call('POST', '/v2/parties/external/allocate', {
    synchronizer,
    onboardingTransactions: topologyTransactions.map((transaction: string) => ({ transaction })),
    multiHashSignatures: [ed25519Signature(key, Buffer.from(multiHash, 'base64'), publicKeyFingerprint)],
  });
  if (alloc.status !== 200) throw new Error(`allocate: ${alloc.status} ${alloc.text}`);
  return { partyId, key, fingerprint: publicKeyFingerprint };
}
