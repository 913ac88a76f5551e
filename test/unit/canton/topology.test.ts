import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildPartyToParticipantTopology,
  CantonError,
  combinedHash,
  decodeOnboardingTransaction,
  multiHashOf,
  sha256Multihash,
  unwrapVersioned,
  Ed25519Verifier,
  SignatureVerifier,
  wrapVersioned,
} from '@ledgerline/canton';
import { ALICE, ALICE_FINGERPRINT, ed25519FromSeed, hex64, SEED_01_20 } from './fixtures';

const verifier = new SignatureVerifier(new Ed25519Verifier());

const alice = ed25519FromSeed(SEED_01_20);
const rawKey = {
  format: 'CRYPTO_KEY_FORMAT_RAW',
  keyData: alice.raw.toString('base64'),
  keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
};
const P1 = `participant1::1220${hex64('participant1')}`;
const P2 = `participant2::1220${hex64('participant2')}`;
const P3 = `participant3::1220${hex64('participant3')}`;

// Minimal independent protobuf encoder for the expected bytes.
const varint = (n: number): Buffer => {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
};
const ld = (field: number, payload: Buffer | string) => {
  const p = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([varint((field << 3) | 2), varint(p.length), p]);
};
const vi = (field: number, n: number) => Buffer.concat([varint(field << 3), varint(n)]);

// Derived vector: alice (seed 01..20) onboarded on P1 with threshold 1.
const ALICE_P1_MULTIHASH = '12206ce8a8e68a477454e2be8962712fc9cf2cdc3b85fc20a8c19008b41612ecdf21';

describe('external party topology', () => {
  const topo = buildPartyToParticipantTopology({
    partyHint: 'alice',
    publicKey: rawKey,
    participantUid: P1,
    confirmationThreshold: 1,
  });

  it('party id and fingerprint', () => {
    expect(topo.partyId).toBe(ALICE);
    expect(topo.publicKeyFingerprint).toBe(ALICE_FINGERPRINT);
  });

  it('transaction bytes match the v30 layout field by field (keys as DER SPKI, usages 1,5,4, version 30)', () => {
    const signingPublicKey = Buffer.concat([vi(2, 4), ld(3, alice.spki), ld(5, Buffer.from([1, 5, 4])), vi(6, 1)]);
    const keysWithThreshold = Buffer.concat([ld(1, signingPublicKey), vi(2, 1)]);
    const hosting = Buffer.concat([ld(1, P1), vi(2, 2)]);
    const p2p = Buffer.concat([ld(1, ALICE), vi(2, 1), ld(3, hosting), ld(6, keysWithThreshold)]);
    const tt = Buffer.concat([vi(1, 1), vi(2, 1), ld(3, ld(9, p2p))]);
    const versioned = Buffer.concat([ld(1, tt), vi(2, 30)]);
    expect(topo.transaction.toString('hex')).toBe(versioned.toString('hex'));
    expect(topo.transactionHash.equals(sha256Multihash(11, versioned))).toBe(true);
    const pre = Buffer.concat([Buffer.from('00000001', 'hex'), Buffer.from('00000022', 'hex'), topo.transactionHash]);
    expect(topo.multiHash.equals(sha256Multihash(55, pre))).toBe(true);
    expect(topo.multiHash).toHaveLength(34);
    expect(topo.multiHash.toString('hex')).toBe(ALICE_P1_MULTIHASH);
  });

  it('multiHash agrees with wallet-sdk (sdk.utils.hash.topologyTransaction)', async () => {
    const { SDK } = (await import('@canton-network/wallet-sdk')) as any;
    const sdk = SDK.createOffline({ logAdapter: 'pino' });
    const b64 = await sdk.utils.hash.topologyTransaction([topo.transaction.toString('base64')]);
    expect(Buffer.from(b64, 'base64').toString('hex')).toBe(topo.multiHash.toString('hex'));
    const other = buildPartyToParticipantTopology({
      partyHint: 'bob',
      publicKey: rawKey,
      participantUid: P1,
    }).transaction;
    const both = await sdk.utils.hash.topologyTransaction([
      other.toString('base64'),
      topo.transaction.toString('base64'),
    ]);
    expect(Buffer.from(both, 'base64').equals(multiHashOf([topo.transaction, other]))).toBe(true);
    expect(multiHashOf([topo.transaction, other]).equals(multiHashOf([other, topo.transaction]))).toBe(true);
  });

  it('the party signs the 34-byte multiHash; the server verifies it with the decoded key', () => {
    const sig = sign(null, topo.multiHash, alice.privateKey);
    const decoded = decodeOnboardingTransaction(topo.transaction);
    const k = decoded.partyToParticipant!.partySigningKeys!.keys[0];
    expect(k.fingerprint).toBe(ALICE_FINGERPRINT);
    const key = {
      format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      keyData: k.publicKey,
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    };
    const s = {
      format: 'SIGNATURE_FORMAT_CONCAT',
      signature: sig,
      signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
    };
    expect(verifier.verify(s, key, multiHashOf([topo.transaction]))).toBe(true);
    expect(verifier.verify(s, key, topo.transactionHash)).toBe(false);
  });

  it('decodeOnboardingTransaction unwraps and decodes PartyToParticipant including party_signing_keys', () => {
    const d = decodeOnboardingTransaction(topo.transaction);
    expect(d.version).toBe(30);
    expect(d.operation).toBe('ADD_REPLACE');
    expect(d.serial).toBe(1);
    expect(d.mappingKind).toBe('partyToParticipant');
    expect(d.transactionHash.equals(topo.transactionHash)).toBe(true);
    expect(d.partyToParticipant).toEqual({
      party: ALICE,
      threshold: 1,
      participants: [{ participantUid: P1, permission: 'CONFIRMATION', onboarding: false }],
      partySigningKeys: {
        threshold: 1,
        keys: [
          {
            format: 4,
            publicKey: expect.any(Uint8Array),
            keySpec: 1,
            usage: [1, 5, 4],
            fingerprint: ALICE_FINGERPRINT,
          },
        ],
      },
    });
    expect(Buffer.from(d.partyToParticipant!.partySigningKeys!.keys[0].publicKey).equals(alice.spki)).toBe(true);
    expect(() => decodeOnboardingTransaction(Buffer.from('ff', 'hex'))).toThrow(/UntypedVersionedMessage|versioned/);
    expect(() => decodeOnboardingTransaction(wrapVersioned(Buffer.alloc(0)).subarray(2))).toThrow(/missing data/);
  });

  it('Ed25519 key given as DER SPKI yields the same transaction as the raw key', () => {
    const spki = buildPartyToParticipantTopology({
      partyHint: 'alice',
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: alice.spki,
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      },
      participantUid: P1,
      confirmationThreshold: 1,
    });
    expect(spki.transaction.equals(topo.transaction)).toBe(true);
  });

  it('multi-hosting: threshold 0 → number of confirmers; other confirmers and observers; observation-only local', () => {
    const t = buildPartyToParticipantTopology({
      partyHint: 'multi',
      publicKey: rawKey,
      participantUid: P1,
      confirmationThreshold: 0,
      otherConfirmingParticipantUids: [P2],
      observingParticipantUids: [P3],
    });
    const d = decodeOnboardingTransaction(t.transaction).partyToParticipant!;
    expect(d.threshold).toBe(2);
    expect(d.participants.map((p) => [p.participantUid, p.permission])).toEqual([
      [P1, 'CONFIRMATION'],
      [P2, 'CONFIRMATION'],
      [P3, 'OBSERVATION'],
    ]);
    const obs = buildPartyToParticipantTopology({
      partyHint: 'o',
      publicKey: rawKey,
      participantUid: P1,
      localParticipantObservationOnly: true,
      otherConfirmingParticipantUids: [P2],
    });
    const od = decodeOnboardingTransaction(obs.transaction).partyToParticipant!;
    expect(od.threshold).toBe(1);
    expect(od.participants[0].permission).toBe('OBSERVATION');
  });

  it('ECDSA P-256 party keys are stored as DER SPKI with key spec P256', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
    const t = buildPartyToParticipantTopology({
      partyHint: 'ec',
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: der,
        keySpec: 'SIGNING_KEY_SPEC_EC_P256',
      },
      participantUid: P1,
    });
    const k = decodeOnboardingTransaction(t.transaction).partyToParticipant!.partySigningKeys!.keys[0];
    expect([k.format, k.keySpec]).toEqual([4, 2]);
    expect(Buffer.from(k.publicKey).equals(der)).toBe(true);
    expect(t.partyId).toBe(`ec::${sha256Multihash(12, der).toString('hex')}`);
  });

  it('validates hints, thresholds and participant lists with clear messages', () => {
    const base = { publicKey: rawKey, participantUid: P1 };
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: '' })).toThrow('Party hint is empty');
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'a::b' })).toThrow(/must not contain '::'/);
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'bad/char' })).toThrow(/non expected character/);
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'x'.repeat(186) })).toThrow(/too long/);
    expect(buildPartyToParticipantTopology({ ...base, partyHint: 'x'.repeat(185) }).partyId).toHaveLength(185 + 2 + 68);
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'a', confirmationThreshold: -1 })).toThrow(
      /Negative/,
    );
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'a', confirmationThreshold: 2 })).toThrow(
      /exceeds number of confirming participants/,
    );
    expect(() =>
      buildPartyToParticipantTopology({ ...base, partyHint: 'a', otherConfirmingParticipantUids: [P1] }),
    ).toThrow(/also listed in 'otherConfirmingParticipantUids'/);
    expect(() =>
      buildPartyToParticipantTopology({
        ...base,
        partyHint: 'a',
        otherConfirmingParticipantUids: [P2],
        observingParticipantUids: [P2],
      }),
    ).toThrow(/referenced multiple times/);
    expect(() =>
      buildPartyToParticipantTopology({ ...base, partyHint: 'a', localParticipantObservationOnly: true }),
    ).toThrow(/positive/);
    expect(() => buildPartyToParticipantTopology({ ...base, partyHint: 'a', participantUid: 'nope' })).toThrow(
      /Invalid participant uid/,
    );
  });

  it('decoding arbitrary bytes either succeeds or throws a CantonError', () => {
    const bytes = [...topo.transaction];
    fc.assert(
      fc.property(
        fc.nat({ max: bytes.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        fc.uint8Array({ maxLength: 40 }),
        (i, b, junk) => {
          const mutated = Buffer.from(bytes);
          mutated[i] = b;
          for (const input of [
            mutated,
            Buffer.from(junk),
            Buffer.concat([mutated.subarray(0, i), Buffer.from(junk)]),
          ]) {
            try {
              decodeOnboardingTransaction(input);
            } catch (e) {
              expect(e).toBeInstanceOf(CantonError);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('versioned wrapper and combined hash helpers', () => {
    const w = wrapVersioned(Buffer.from('abc'));
    expect(w.toString('hex')).toBe('0a03616263101e');
    expect(unwrapVersioned(w)).toEqual({ data: expect.any(Uint8Array), version: 30 });
    // combined hash is order-insensitive and de-duplicates
    const a = sha256Multihash(11, Buffer.from('a'));
    const b = sha256Multihash(11, Buffer.from('b'));
    expect(combinedHash([a, b]).equals(combinedHash([b, a, b]))).toBe(true);
    expect(() => multiHashOf([])).toThrow(/At least one/);
  });
});
