import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, sign } from 'node:crypto';
import { BinaryWriter, UnknownFieldHandler, WireType } from '@protobuf-ts/runtime';
import {
  CryptoKeyFormat,
  Enums_ParticipantPermission,
  Enums_TopologyChangeOp,
  PartyToParticipant,
  SigningKeyScheme,
  SigningKeySpec,
  SigningKeyUsage,
  SigningPublicKey,
  TopologyTransaction,
} from '@canton-network/core-ledger-proto';
import { Ed25519Verifier, fingerprint, multiHashOf, SignatureVerifier, wrapVersioned } from '@ledgerline/canton';
import { verifyExternalPartyAllocation, type HostingContext } from '@ledgerline/domain';

const verifier = new SignatureVerifier(new Ed25519Verifier());
const ctx: HostingContext = {
  participantId: `participant1::1220${'aa'.repeat(32)}`,
  connectedSynchronizers: [`global::1220${'bb'.repeat(32)}`],
};

function key() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
  return {
    privateKey,
    spki,
    fp: fingerprint({
      format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      keyData: spki,
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    }),
  };
}

/** A client-built PartyToParticipant with several signing keys (field 6 written as an unknown field, as Canton lays it out). */
function multiKeyTransaction(keys: ReturnType<typeof key>[], threshold: number, party: string): Buffer {
  const p2p = PartyToParticipant.create({
    party,
    threshold: 1,
    participants: [{ participantUid: ctx.participantId, permission: Enums_ParticipantPermission.CONFIRMATION }],
  });
  const w = new BinaryWriter();
  for (const k of keys)
    w.tag(1, WireType.LengthDelimited).bytes(
      SigningPublicKey.toBinary({
        format: CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO,
        publicKey: k.spki,
        scheme: SigningKeyScheme.UNSPECIFIED,
        usage: [SigningKeyUsage.NAMESPACE, SigningKeyUsage.PROOF_OF_OWNERSHIP, SigningKeyUsage.PROTOCOL],
        keySpec: SigningKeySpec.EC_CURVE25519,
      }),
    );
  w.tag(2, WireType.Varint).uint32(threshold);
  UnknownFieldHandler.onRead(
    'com.digitalasset.canton.protocol.v30.PartyToParticipant',
    p2p,
    6,
    WireType.LengthDelimited,
    new BinaryWriter().bytes(w.finish()).finish(),
  );
  return wrapVersioned(
    TopologyTransaction.toBinary({
      operation: Enums_TopologyChangeOp.ADD_REPLACE,
      serial: 1,
      mapping: { mapping: { oneofKind: 'partyToParticipant', partyToParticipant: p2p } },
    }),
  );
}

const sig = (k: ReturnType<typeof key>, msg: Buffer) => ({
  format: 'SIGNATURE_FORMAT_CONCAT',
  signature: sign(null, msg, k.privateKey),
  signedBy: k.fp,
  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
});

describe('allocation of a client-built multi-key party', () => {
  it('registers every key with the threshold when every key signed; one missing signature refuses it', () => {
    const [k1, k2, k3] = [key(), key(), key()];
    const party = `treasury::${k1.fp}`;
    const tx = multiKeyTransaction([k1, k2, k3], 2, party);
    const mh = multiHashOf([tx]);
    const v = verifyExternalPartyAllocation(
      {
        synchronizer: ctx.connectedSynchronizers[0],
        onboardingTransactions: [{ transaction: tx, signatures: [] }],
        multiHashSignatures: [sig(k1, mh), sig(k2, mh), sig(k3, mh)],
        identityProviderId: '',
      },
      ctx,
      verifier,
    );
    expect(v).toMatchObject({ partyId: party, threshold: 2, permission: 'PARTICIPANT_PERMISSION_CONFIRMATION' });
    expect(v.keys.map((k) => k.fingerprint)).toEqual([k1.fp, k2.fp, k3.fp]);
    expect(() =>
      verifyExternalPartyAllocation(
        {
          synchronizer: ctx.connectedSynchronizers[0],
          onboardingTransactions: [{ transaction: tx, signatures: [] }],
          multiHashSignatures: [sig(k1, mh), sig(k2, mh)],
          identityProviderId: '',
        },
        ctx,
        verifier,
      ),
    ).toThrow(new RegExp(`not fully authorized: missing valid signatures of ${k3.fp}`));
  });

  it('refuses a namespace that is none of the keys, and a threshold above the number of keys', () => {
    const [k1, k2] = [key(), key()];
    for (const [tx, msg] of [
      [multiKeyTransaction([k1], 1, `x::${k2.fp}`), /is not the fingerprint of one of its signing keys/],
      [
        multiKeyTransaction([k1, k2], 3, `x::${k1.fp}`),
        /threshold must be between 1 and the number of keys \(2\), got 3/,
      ],
    ] as const) {
      const mh = multiHashOf([tx]);
      expect(() =>
        verifyExternalPartyAllocation(
          {
            synchronizer: ctx.connectedSynchronizers[0],
            onboardingTransactions: [{ transaction: tx, signatures: [] }],
            multiHashSignatures: [sig(k1, mh), sig(k2, mh)],
            identityProviderId: '',
          },
          ctx,
          verifier,
        ),
      ).toThrow(msg);
    }
  });
});
