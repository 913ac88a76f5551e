/**
 * External party onboarding topology (Canton 3.5.7 `generateExternalPartyTopology` behaviour).
 *
 * One transaction: `TopologyTransaction{op = ADD_REPLACE, serial = 1, mapping = PartyToParticipant{party,
 * threshold, participants, party_signing_keys = 6}}`, wrapped in `UntypedVersionedMessage{data = 1, version = 2}`
 * with version 30. `party_signing_keys` (a `crypto.v30.SigningKeysWithThreshold{keys = 1, threshold = 2}`) and
 * `HostingParticipant.onboarding = 3` are absent from core-ledger-proto 1.7.0: they are written and read here as
 * protobuf-ts unknown fields. Key enums use the crypto **v30** numbering (format DER_X509_SPKI = 4, RAW = 3).
 */
import { BinaryReader, BinaryWriter, UnknownFieldHandler, WireType } from '@protobuf-ts/runtime';
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
import { Bytes } from './bytes';
import { CantonError } from './errors';
import { fingerprint, fingerprintOfKeyBytes } from './fingerprint';
import { HashPurpose } from './hash-purpose';
import { assertValidPartyHint, isUniqueIdentifier } from './ids';
import { parsePublicKey, ParsedPublicKey, PublicKeyInput, SigningKeySpecName } from './keys';
import { sha256Multihash } from './multihash';

/** Protocol version of the versioned wrapper (`HasProtocolVersionedWrapper`, proto version 30). */
export const TOPOLOGY_PROTO_VERSION = 30;
const PARTY_SIGNING_KEYS_FIELD = 6;
const HOSTING_ONBOARDING_FIELD = 3;

export type ParticipantPermissionName = 'SUBMISSION' | 'CONFIRMATION' | 'OBSERVATION';

export interface PartyToParticipantTopologyInput {
  partyHint: string;
  publicKey: PublicKeyInput;
  /** UID of this participant (`name::1220…`, without a `PAR::` prefix). */
  participantUid: string;
  /** 0 means "the number of confirming participants". */
  confirmationThreshold?: number;
  localParticipantObservationOnly?: boolean;
  otherConfirmingParticipantUids?: string[];
  observingParticipantUids?: string[];
}

export interface PartyToParticipantTopology {
  partyId: string;
  publicKeyFingerprint: string;
  /** `UntypedVersionedMessage{data = TopologyTransaction bytes, version = 30}`. */
  transaction: Buffer;
  /** 34-byte multihash, purpose 11, over `transaction`. */
  transactionHash: Buffer;
  /** 34-byte multihash: combined hash (purpose 55) over `[transactionHash]`; what the party signs. */
  multiHash: Buffer;
  threshold: number;
}

/** The crypto v30 `SigningPublicKey` as Canton stores the party key (Ed25519 raw keys are migrated to DER SPKI). */
export function toV30SigningPublicKey(key: ParsedPublicKey): SigningPublicKey {
  const spec: Record<SigningKeySpecName, SigningKeySpec> = {
    EC_CURVE25519: SigningKeySpec.EC_CURVE25519,
    EC_P256: SigningKeySpec.EC_P256,
    EC_P384: SigningKeySpec.EC_P384,
    EC_SECP256K1: SigningKeySpec.EC_SECP256K1,
  };
  let format: CryptoKeyFormat;
  let bytes: Buffer;
  if (key.keySpec === 'EC_CURVE25519') {
    format = CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO;
    bytes = key.format === 'RAW' ? key.spki : key.keyData;
  } else {
    format = key.format === 'RAW' ? CryptoKeyFormat.RAW : CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO;
    bytes = key.keyData;
  }
  return {
    format,
    publicKey: bytes,
    scheme: SigningKeyScheme.UNSPECIFIED,
    // Order as Canton serialises its usage set (insertion order Namespace, ProofOfOwnership, Protocol).
    usage: [SigningKeyUsage.NAMESPACE, SigningKeyUsage.PROOF_OF_OWNERSHIP, SigningKeyUsage.PROTOCOL],
    keySpec: spec[key.keySpec],
  };
}

/** Wraps bytes in `UntypedVersionedMessage{data, version}`. */
export function wrapVersioned(data: Uint8Array, version = TOPOLOGY_PROTO_VERSION): Buffer {
  return Buffer.from(
    new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(data).tag(2, WireType.Varint).int32(version).finish(),
  );
}

/** Unwraps `UntypedVersionedMessage`; throws if `data` is missing. */
export function unwrapVersioned(bytes: Uint8Array): { data: Uint8Array; version: number } {
  let data: Uint8Array | undefined;
  let version = 0;
  try {
    const r = new BinaryReader(bytes);
    while (r.pos < r.len) {
      const [no, wt] = r.tag();
      if (no === 1 && wt === WireType.LengthDelimited) data = r.bytes();
      else if (no === 2 && wt === WireType.Varint) version = r.int32();
      else r.skip(wt);
    }
  } catch {
    throw new CantonError('Invalid versioned topology transaction: not a valid UntypedVersionedMessage');
  }
  if (!data) throw new CantonError('Invalid versioned topology transaction: missing data');
  return { data, version };
}

function encodeSigningKeysWithThreshold(keys: SigningPublicKey[], threshold: number): Uint8Array {
  const w = new BinaryWriter();
  for (const k of keys) w.tag(1, WireType.LengthDelimited).bytes(SigningPublicKey.toBinary(k));
  if (threshold) w.tag(2, WireType.Varint).uint32(threshold);
  return w.finish();
}

/** Multihash (purpose 11) of a versioned topology transaction. */
export function topologyTransactionHash(versionedTransaction: Bytes): Buffer {
  return sha256Multihash(HashPurpose.TopologyTransactionSignature, versionedTransaction);
}

/**
 * Canton's `MultiTransactionSignature.computeCombinedHash`: multihash(purpose 55,
 * int32(n) ‖ for each distinct hash sorted by hex: int32(34) ‖ hash) over 34-byte transaction multihashes.
 */
export function combinedHash(transactionHashes: Bytes[]): Buffer {
  const distinct = new Map<string, Buffer>();
  for (const h of transactionHashes) distinct.set(Buffer.from(h).toString('hex'), Buffer.from(h));
  const sorted = [...distinct.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, h]) => h);
  const parts: Buffer[] = [];
  const n = Buffer.allocUnsafe(4);
  n.writeInt32BE(sorted.length, 0);
  parts.push(n);
  for (const h of sorted) {
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(h.length, 0);
    parts.push(len, h);
  }
  return sha256Multihash(HashPurpose.MultiTopologyTransaction, Buffer.concat(parts));
}

/** multiHash of onboarding transactions (each a versioned topology transaction): combinedHash of their hashes. */
export function multiHashOf(transactions: Bytes[]): Buffer {
  if (transactions.length === 0) throw new CantonError('At least one topology transaction is required');
  return combinedHash(transactions.map(topologyTransactionHash));
}

/**
 * Builds the external-party onboarding transaction exactly as Canton 3.5.7's generate-topology does, with its
 * validations (errors as `CantonError`).
 */
export function buildPartyToParticipantTopology(input: PartyToParticipantTopologyInput): PartyToParticipantTopology {
  const key = parsePublicKey(input.publicKey);
  const fp = fingerprint(key);
  assertValidPartyHint(input.partyHint);
  const partyId = `${input.partyHint}::${fp}`;
  const self = input.participantUid;
  if (!isUniqueIdentifier(self)) throw new CantonError(`Invalid participant uid ${JSON.stringify(self)}`);
  const confirming = input.otherConfirmingParticipantUids ?? [];
  const observing = input.observingParticipantUids ?? [];
  for (const uid of [...confirming, ...observing])
    if (!isUniqueIdentifier(uid)) throw new CantonError(`Invalid participant uid ${JSON.stringify(uid)}`);
  const threshold0 = input.confirmationThreshold ?? 0;
  if (!Number.isInteger(threshold0) || threshold0 < 0)
    throw new CantonError('Negative confirmation threshold observed');
  if (confirming.includes(self))
    throw new CantonError(
      `This participant node (${self}) is also listed in 'otherConfirmingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'otherConfirmingParticipantUids'.`,
    );
  if (observing.includes(self))
    throw new CantonError(
      `This participant node (${self}) is also listed in 'observingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'observingParticipantUids'.`,
    );
  const all = [...confirming, ...observing];
  const dups = [...new Set(all.filter((x, i) => all.indexOf(x) !== i))];
  if (dups.length)
    throw new CantonError(
      `The following participant IDs are referenced multiple times in the request: ${dups.join(', ')}. Please ensure all IDs are referenced only once across 'otherConfirmingParticipantUids' and 'observingParticipantUids' fields.`,
    );
  const available = (input.localParticipantObservationOnly ? 0 : 1) + confirming.length;
  if (threshold0 > available) throw new CantonError('Confirmation threshold exceeds number of confirming participants');
  const threshold = threshold0 === 0 ? available : threshold0;
  if (threshold < 1)
    throw new CantonError('Confirmation threshold must be positive: the party has no confirming participant');

  const p2p = PartyToParticipant.create({
    party: partyId,
    threshold,
    participants: [
      {
        participantUid: self,
        permission: input.localParticipantObservationOnly
          ? Enums_ParticipantPermission.OBSERVATION
          : Enums_ParticipantPermission.CONFIRMATION,
      },
      ...confirming.map((participantUid) => ({ participantUid, permission: Enums_ParticipantPermission.CONFIRMATION })),
      ...observing.map((participantUid) => ({ participantUid, permission: Enums_ParticipantPermission.OBSERVATION })),
    ],
  });
  const keysBytes = encodeSigningKeysWithThreshold([toV30SigningPublicKey(key)], 1);
  UnknownFieldHandler.onRead(
    'com.digitalasset.canton.protocol.v30.PartyToParticipant',
    p2p,
    PARTY_SIGNING_KEYS_FIELD,
    WireType.LengthDelimited,
    new BinaryWriter().bytes(keysBytes).finish(),
  );
  const tt: TopologyTransaction = {
    operation: Enums_TopologyChangeOp.ADD_REPLACE,
    serial: 1,
    mapping: { mapping: { oneofKind: 'partyToParticipant', partyToParticipant: p2p } },
  };
  const transaction = wrapVersioned(TopologyTransaction.toBinary(tt));
  const transactionHash = topologyTransactionHash(transaction);
  return {
    partyId,
    publicKeyFingerprint: fp,
    transaction,
    transactionHash,
    multiHash: combinedHash([transactionHash]),
    threshold,
  };
}

// ------------------------------------------------------------------------------------------------ decoding

export interface DecodedSigningPublicKey {
  /** crypto v30 `CryptoKeyFormat` number (DER_X509_SPKI = 4, RAW = 3). */
  format: CryptoKeyFormat;
  publicKey: Uint8Array;
  keySpec: SigningKeySpec;
  usage: SigningKeyUsage[];
  /** Canton fingerprint of the key, or undefined if the key cannot be parsed. */
  fingerprint?: string;
}

export interface DecodedPartyToParticipant {
  party: string;
  threshold: number;
  participants: Array<{
    participantUid: string;
    permission: ParticipantPermissionName | 'UNSPECIFIED';
    onboarding: boolean;
  }>;
  partySigningKeys?: { keys: DecodedSigningPublicKey[]; threshold: number };
}

export interface DecodedOnboardingTransaction {
  version: number;
  operation: 'ADD_REPLACE' | 'REMOVE' | 'UNSPECIFIED';
  serial: number;
  /** Only set for PartyToParticipant mappings. */
  partyToParticipant?: DecodedPartyToParticipant;
  mappingKind: string | undefined;
  /** Multihash (purpose 11) over the versioned bytes. */
  transactionHash: Buffer;
}

function v30KeyFingerprint(k: SigningPublicKey): string | undefined {
  const v30FormatToLedger: Partial<Record<number, string>> = {
    [CryptoKeyFormat.DER]: 'DER',
    [CryptoKeyFormat.RAW]: 'RAW',
    [CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO]: 'DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  };
  const f = v30FormatToLedger[k.format];
  if (!f) return undefined;
  try {
    return fingerprint(parsePublicKey({ format: f, keyData: k.publicKey, keySpec: k.keySpec }));
  } catch {
    return k.keySpec === SigningKeySpec.UNSPECIFIED ? undefined : fingerprintOfKeyBytes(k.publicKey);
  }
}

function decodeSigningKeysWithThreshold(bytes: Uint8Array): { keys: DecodedSigningPublicKey[]; threshold: number } {
  const r = new BinaryReader(bytes);
  const keys: DecodedSigningPublicKey[] = [];
  let threshold = 0;
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1 && wt === WireType.LengthDelimited) {
      const k = SigningPublicKey.fromBinary(r.bytes());
      keys.push({
        format: k.format,
        publicKey: k.publicKey,
        keySpec: k.keySpec,
        usage: k.usage,
        fingerprint: v30KeyFingerprint(k),
      });
    } else if (no === 2 && wt === WireType.Varint) threshold = r.uint32();
    else r.skip(wt);
  }
  return { keys, threshold };
}

function decodePartySigningKeys(f: { wireType: WireType; data: Uint8Array }): {
  keys: DecodedSigningPublicKey[];
  threshold: number;
} {
  if (f.wireType !== WireType.LengthDelimited) throw new CantonError('Invalid party_signing_keys: wrong wire type');
  try {
    return decodeSigningKeysWithThreshold(new BinaryReader(f.data).bytes());
  } catch {
    throw new CantonError('Invalid party_signing_keys: cannot decode SigningKeysWithThreshold');
  }
}

const PERMISSION_NAMES: Record<number, ParticipantPermissionName> = {
  [Enums_ParticipantPermission.SUBMISSION]: 'SUBMISSION',
  [Enums_ParticipantPermission.CONFIRMATION]: 'CONFIRMATION',
  [Enums_ParticipantPermission.OBSERVATION]: 'OBSERVATION',
};

/**
 * Decodes an onboarding transaction as clients send it back (`UntypedVersionedMessage` around a v30
 * `TopologyTransaction`), including `PartyToParticipant.party_signing_keys` and `HostingParticipant.onboarding`.
 */
export function decodeOnboardingTransaction(bytes: Uint8Array): DecodedOnboardingTransaction {
  const { data, version } = unwrapVersioned(bytes);
  let tt: TopologyTransaction;
  try {
    tt = TopologyTransaction.fromBinary(data);
  } catch {
    throw new CantonError('Invalid topology transaction: cannot decode TopologyTransaction');
  }
  const ops: Record<number, DecodedOnboardingTransaction['operation']> = {
    [Enums_TopologyChangeOp.ADD_REPLACE]: 'ADD_REPLACE',
    [Enums_TopologyChangeOp.REMOVE]: 'REMOVE',
  };
  const mapping = tt.mapping?.mapping;
  let partyToParticipant: DecodedPartyToParticipant | undefined;
  if (mapping?.oneofKind === 'partyToParticipant') {
    const p = mapping.partyToParticipant;
    const keysField = UnknownFieldHandler.list(p, PARTY_SIGNING_KEYS_FIELD).pop();
    partyToParticipant = {
      party: p.party,
      threshold: p.threshold,
      participants: p.participants.map((hp) => ({
        participantUid: hp.participantUid,
        permission: PERMISSION_NAMES[hp.permission] ?? 'UNSPECIFIED',
        onboarding: UnknownFieldHandler.list(hp, HOSTING_ONBOARDING_FIELD).length > 0,
      })),
      partySigningKeys: keysField ? decodePartySigningKeys(keysField) : undefined,
    };
  }
  return {
    version,
    operation: ops[tt.operation] ?? 'UNSPECIFIED',
    serial: tt.serial,
    partyToParticipant,
    mappingKind: mapping?.oneofKind,
    transactionHash: topologyTransactionHash(bytes),
  };
}
