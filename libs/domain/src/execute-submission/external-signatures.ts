import type { ParsedPublicKey, SignatureVerifier } from '@ledgerline/canton';
import { failedToExecute } from '../ledger-model/errors';
import type { ValidSignature } from './request-validation';

/** A party's registered signing keys (topology: `party_signing_keys` / `party_signing_thresholds`). */
export interface PartySigningKeys {
  threshold: number;
  keys: ReadonlyArray<{ fingerprint: string; key: ParsedPublicKey }>;
}

/**
 * External-signature verification (Canton's InteractiveSubmission, base: crypto/InteractiveSubmission.scala): every actAs
 * party must have signed; signatures of other parties are
 * ignored; a party must have registered keys, must not send more signatures than it has keys, and must reach its
 * threshold of valid signatures from distinct registered keys over the raw 32-byte hash. Any failure is
 * FAILED_TO_EXECUTE_TRANSACTION with the reference's message. The checks and messages are decided in the order above, as
 * if one after the other.
 *
 * Where: Ed25519 checks go to the verifier's worker thread when the service runs it (LEDGER_ED25519_WORKER, see
 * libs/canton/src/ed25519-worker.ts: under load the event loop is the bottleneck and the second core has room), else
 * they run in place. A lone ECDSA check runs in place; several go to libuv's thread pool (node:crypto's asynchronous
 * verify). Measured on the 2-core target, handing a single check to libuv's pool cost more than it saved: its answer
 * waited for the event loop (2.4–5.3 ms per execution under load, against 0.1–0.7 ms in place).
 */
export async function verifyExternalSignatures(args: {
  actAs: readonly string[];
  signatures: ReadonlyMap<string, readonly ValidSignature[]>;
  keysOf: (party: string) => PartySigningKeys | undefined;
  hash: Uint8Array;
  /** The service's signature verifier (built at start-up). */
  verifier: SignatureVerifier;
}): Promise<void> {
  const unsigned = args.actAs.filter((p) => !args.signatures.get(p)?.length);
  if (unsigned.length)
    throw failedToExecute(`The following actAs parties did not provide an external signature: ${unsigned.join(', ')}`);
  let toVerify = 0;
  for (const party of args.actAs) toVerify += args.signatures.get(party)!.length;
  // Ed25519 goes to the worker thread if it runs; ECDSA goes to libuv's pool only with company.
  const ecdsaInPlace = toVerify === 1;
  const checks = args.actAs.map((party) => {
    const keys = args.keysOf(party);
    const sigs = args.signatures.get(party)!;
    if (!keys || keys.keys.length === 0 || sigs.length > keys.keys.length)
      return { party, keys, sigs, results: [] as boolean[] };
    const byFingerprint = new Map(keys.keys.map((k) => [k.fingerprint, k.key]));
    const results = sigs.map((s) => {
      const key = byFingerprint.get(s.signedBy);
      return key === undefined
        ? false
        : args.verifier.verifyAsync(
            { format: s.format, signature: s.signature, signingAlgorithmSpec: s.signingAlgorithmSpec },
            key,
            args.hash,
            ecdsaInPlace,
          );
    });
    return { party, keys, sigs, results };
  });
  const hex = Buffer.from(args.hash).toString('hex');
  for (const { party, keys, sigs, results } of checks) {
    if (!keys || keys.keys.length === 0) throw failedToExecute(`Could not find party signing keys for ${party}.`);
    if (sigs.length > keys.keys.length) {
      throw failedToExecute(
        `Received ${sigs.length} signatures for ${party}, but the party has only ${keys.keys.length} signing key(s).`,
      );
    }
    const oks = await Promise.all(results);
    const validFrom = new Set<string>();
    let invalid = 0;
    sigs.forEach((s, i) => {
      if (oks[i]) validFrom.add(s.signedBy);
      else invalid += 1;
    });
    if (validFrom.size < keys.threshold) {
      throw failedToExecute(
        `Received ${validFrom.size} valid signatures from distinct keys (${invalid} invalid), but expected at least ${keys.threshold} valid for ${party}. ` +
          `Transaction hash to be signed: ${hex}. Ensure the correct transaction hash is signed with the correct key(s).`,
      );
    }
  }
}
