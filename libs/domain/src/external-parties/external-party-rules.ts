/**
 * External parties (onboarded as @canton-network/wallet-sdk 1.4.0 does it; Canton 3.5.7 `generateExternalPartyTopology` /
 * `allocateExternalParty` in ApiPartyManagementService, ledger-api-core: platform/apiserver/services/admin/).
 *
 * Ledgerline hosts an external party on this participant only: the onboarding transaction is one `PartyToParticipant`
 * (op ADD_REPLACE, serial 1) naming this participant with CONFIRMATION (or OBSERVATION) permission, participant threshold
 * 1, and the party's signing keys with their threshold (`party_signing_keys`). The party id is `<hint>::<fingerprint of
 * the namespace key>`, the namespace key being one of the signing keys. Allocation verifies signatures over the
 * multi-hash (or over each transaction's own hash) from the namespace key and from every signing key (proof of
 * ownership), then registers the keys. Pure: no I/O; the caller passes the state it read.
 */
import { CryptoKeyFormat, SigningKeySpec, SigningKeyUsage } from '@canton-network/core-ledger-proto';
import {
  buildPartyToParticipantTopology,
  CantonError,
  decodeOnboardingTransaction,
  isSha256MultihashHex,
  isUniqueIdentifier,
  multiHashOf,
  parseUniqueIdentifier,
  validateSignatureFormat,
  validateSigningAlgorithmSpec,
  type DecodedOnboardingTransaction,
  type DecodedSigningPublicKey,
  type SignatureVerifier,
} from '@ledgerline/canton';
import { invalidArgument, invalidField, missingField } from '../errors';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import { TOPOLOGY_TRANSACTION_COMMITTED, type StoredTopologyTransaction } from '../ledger/updates';
import { decideGrantRights, userNotFound, type UserState } from '../users';
import { identityProviderNotFoundArgument, partyAlreadyExists } from '../parties/party-errors';
import { checkSelfAllocationQuota } from '../parties/self-allocation-quota';
import { PARTY_ALLOCATED, partyStream, type PartyAllocatedData } from '../parties/events';
import {
  EXTERNAL_PARTY_ALLOCATED,
  type ExternalPartyAllocatedData,
  type ExternalPartySigningKey,
  type HostingPermission,
  type KeyFormatName,
  type SigningKeySpecName,
} from './events';

/** Where the party is to be hosted: this participant and the synchronizers it is connected to. */
export interface HostingContext {
  participantId: string;
  connectedSynchronizers: readonly string[];
}

export interface PublicKeyRequest {
  format: string;
  keyData: Buffer;
  keySpec: string;
}

export interface GenerateTopologyRequest {
  synchronizer: string;
  partyHint: string;
  publicKey: PublicKeyRequest | undefined;
  localParticipantObservationOnly: boolean;
  confirmationThreshold: number;
  otherConfirmingParticipantUids: string[];
  observingParticipantUids: string[];
}

export interface GeneratedTopology {
  partyId: string;
  publicKeyFingerprint: string;
  /** Versioned (UntypedVersionedMessage v30) topology transactions. */
  topologyTransactions: Buffer[];
  /** 34-byte multihash to sign. */
  multiHash: Buffer;
}

export interface SignatureRequest {
  format: string;
  signature: Buffer;
  signedBy: string;
  signingAlgorithmSpec: string;
}

export interface AllocateExternalPartyRequest {
  synchronizer: string;
  onboardingTransactions: Array<{ transaction: Buffer; signatures: SignatureRequest[] }>;
  multiHashSignatures: SignatureRequest[];
  identityProviderId: string;
}

/** An allocation whose transaction and signatures have been checked; only the ledger state can still refuse it. */
export interface VerifiedAllocation {
  partyId: string;
  permission: HostingPermission;
  keys: ExternalPartySigningKey[];
  threshold: number;
  synchronizerId: string;
  topologyTransactionHash: string;
}

const asInvalid = (e: unknown): never => {
  if (e instanceof CantonError) throw invalidArgument(e.message);
  throw e;
};

/** `synchronizer` must be given, be a synchronizer id, and name a synchronizer this participant is connected to. */
export function validateSynchronizer(field: string, value: string | undefined, ctx: HostingContext): string {
  if (!value) throw missingField(field);
  if (!isUniqueIdentifier(value))
    throw invalidField(field, `Invalid unique identifier \`${value}\`, expected <identifier>::<namespace>`);
  if (!ctx.connectedSynchronizers.includes(value))
    throw invalidArgument(
      `Synchronizer ${value} is not connected to this participant (connected: ${ctx.connectedSynchronizers.join(', ')})`,
    );
  return value;
}

/** POST /v2/parties/external/generate-topology: the onboarding transaction and the multi-hash the party signs. */
export function generateExternalPartyTopology(req: GenerateTopologyRequest, ctx: HostingContext): GeneratedTopology {
  validateSynchronizer('synchronizer', req.synchronizer, ctx);
  if (!req.publicKey) throw missingField('public_key');
  const others = [...req.otherConfirmingParticipantUids, ...req.observingParticipantUids];
  // Listing this participant among the others gets Canton's own message (from the builder below).
  if (others.length && !others.includes(ctx.participantId))
    throw invalidArgument(
      `Other hosting participants are not supported: Ledgerline hosts external parties on this participant (${ctx.participantId}) only; ` +
        `otherConfirmingParticipantUids and observingParticipantUids must be empty`,
    );
  try {
    const t = buildPartyToParticipantTopology({
      partyHint: req.partyHint,
      publicKey: req.publicKey,
      participantUid: ctx.participantId,
      confirmationThreshold: req.confirmationThreshold,
      localParticipantObservationOnly: req.localParticipantObservationOnly,
      otherConfirmingParticipantUids: req.otherConfirmingParticipantUids,
      observingParticipantUids: req.observingParticipantUids,
    });
    return {
      partyId: t.partyId,
      publicKeyFingerprint: t.publicKeyFingerprint,
      topologyTransactions: [t.transaction],
      multiHash: t.multiHash,
    };
  } catch (e) {
    return asInvalid(e);
  }
}

// ------------------------------------------------------------------------------------------------ allocation

const KEY_SPEC_NAMES: Partial<Record<number, SigningKeySpecName>> = {
  [SigningKeySpec.EC_CURVE25519]: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  [SigningKeySpec.EC_P256]: 'SIGNING_KEY_SPEC_EC_P256',
  [SigningKeySpec.EC_P384]: 'SIGNING_KEY_SPEC_EC_P384',
  [SigningKeySpec.EC_SECP256K1]: 'SIGNING_KEY_SPEC_EC_SECP256K1',
};
/** crypto v30 key format numbers → Ledger-API names (legacy DER is SPKI, as Canton migrates it). */
const KEY_FORMAT_NAMES: Partial<Record<number, KeyFormatName>> = {
  [CryptoKeyFormat.RAW]: 'CRYPTO_KEY_FORMAT_RAW',
  [CryptoKeyFormat.DER]: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  [CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO]: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
};

function registeredKey(k: DecodedSigningPublicKey, index: number): ExternalPartySigningKey {
  const keySpec = KEY_SPEC_NAMES[k.keySpec];
  const keyFormat = KEY_FORMAT_NAMES[k.format];
  if (!keySpec || !keyFormat || !k.fingerprint)
    throw invalidArgument(
      `Invalid party signing key #${index}: unsupported or malformed public key (key spec ${k.keySpec}, format ${k.format})`,
    );
  if (!k.usage.includes(SigningKeyUsage.PROTOCOL))
    throw invalidArgument(
      `Invalid party signing key ${k.fingerprint}: a party signing key must have the PROTOCOL usage`,
    );
  return { fingerprint: k.fingerprint, keySpec, keyFormat, publicKey: Buffer.from(k.publicKey).toString('base64') };
}

/** Field checks of one signature (CryptoValidator semantics: INVALID_FIELD). */
export function validateSignatureFields(s: SignatureRequest): void {
  const f = validateSignatureFormat(s.format);
  if (!f.ok) throw invalidField('format', f.reason);
  const a = validateSigningAlgorithmSpec(s.signingAlgorithmSpec);
  if (!a.ok) throw invalidField('signing_algorithm_spec', a.reason);
  if (!isSha256MultihashHex(s.signedBy))
    throw invalidField('signed_by', `Invalid fingerprint ${JSON.stringify(s.signedBy)}`);
  if (s.signature.length === 0) throw invalidField('signature', 'Signature must be non-empty');
}

/** Checks that a decoded onboarding transaction is the one this participant would accept, returning its parts. */
function checkPartyToParticipant(tx: DecodedOnboardingTransaction, ctx: HostingContext) {
  const p2p = tx.partyToParticipant;
  if (!p2p)
    throw invalidArgument(
      `Unsupported onboarding transaction ${tx.mappingKind ?? '(no mapping)'}: Ledgerline accepts exactly one PartyToParticipant transaction carrying the party's signing keys`,
    );
  if (tx.operation !== 'ADD_REPLACE')
    throw invalidArgument(`The PartyToParticipant transaction must be an ADD_REPLACE, got ${tx.operation}`);
  if (tx.serial !== 1)
    throw invalidArgument(`The PartyToParticipant transaction of a new party must have serial 1, got ${tx.serial}`);
  const uid = parseUniqueIdentifier(p2p.party);
  if (!uid)
    throw invalidArgument(`Invalid party id ${JSON.stringify(p2p.party)} in the PartyToParticipant transaction`);
  if (p2p.participants.length !== 1 || p2p.participants[0].participantUid !== ctx.participantId)
    throw invalidArgument(
      `The party must be hosted on this participant (${ctx.participantId}) and on no other; the transaction names ${
        p2p.participants.map((p) => p.participantUid).join(', ') || 'no participant'
      }`,
    );
  const perm = p2p.participants[0].permission;
  // This participant is the only host, so it must confirm (an observing-only host leaves the party without confirmer).
  if (perm !== 'CONFIRMATION')
    throw invalidArgument(
      `This participant is the party's only host and must have CONFIRMATION permission, got ${perm}`,
    );
  if (p2p.threshold !== 1)
    throw invalidArgument(`The participant confirmation threshold must be 1, got ${p2p.threshold}`);
  const sk = p2p.partySigningKeys;
  if (!sk || sk.keys.length === 0)
    throw invalidArgument(
      'The PartyToParticipant transaction carries no party signing keys (party_signing_keys is required)',
    );
  const keys = sk.keys.map(registeredKey);
  const fps = keys.map((k) => k.fingerprint);
  if (new Set(fps).size !== fps.length) throw invalidArgument('The party signing keys contain the same key twice');
  if (sk.threshold < 1 || sk.threshold > keys.length)
    throw invalidArgument(
      `The party signing threshold must be between 1 and the number of keys (${keys.length}), got ${sk.threshold}`,
    );
  if (!fps.includes(uid.namespace))
    throw invalidArgument(
      `The namespace of party ${p2p.party} (${uid.namespace}) is not the fingerprint of one of its signing keys; separate namespace delegations are not supported`,
    );
  return {
    partyId: p2p.party,
    namespace: uid.namespace,
    permission: `PARTICIPANT_PERMISSION_${perm}` as HostingPermission,
    keys,
    threshold: sk.threshold,
  };
}

/**
 * Decodes and checks the onboarding transaction and its signatures (the stateless part of allocate). Every key of the
 * party (and so its namespace key) must have signed, either the multi-hash of all onboarding transactions or the
 * transaction's own hash; a signature that does not verify, or by a key the transaction does not register, is refused.
 */
export function verifyExternalPartyAllocation(
  req: AllocateExternalPartyRequest,
  ctx: HostingContext,
  verifier: SignatureVerifier,
): VerifiedAllocation {
  const synchronizerId = validateSynchronizer('synchronizer', req.synchronizer, ctx);
  if (req.onboardingTransactions.length === 0) throw missingField('onboarding_transactions');
  for (const s of req.multiHashSignatures) validateSignatureFields(s);
  for (const t of req.onboardingTransactions) for (const s of t.signatures) validateSignatureFields(s);

  const decoded = req.onboardingTransactions.map((t, i) => {
    if (t.transaction.length === 0) throw missingField(`onboarding_transactions[${i}].transaction`);
    try {
      return decodeOnboardingTransaction(t.transaction);
    } catch (e) {
      return asInvalid(e);
    }
  });
  if (decoded.length !== 1)
    throw invalidArgument(
      `Expected exactly one onboarding transaction (a PartyToParticipant with the party's signing keys), got ${decoded.length}`,
    );
  const tx = decoded[0];
  const checked = checkPartyToParticipant(tx, ctx);

  const multiHash = multiHashOf(req.onboardingTransactions.map((t) => t.transaction));
  const byFingerprint = new Map(checked.keys.map((k) => [k.fingerprint, k]));
  const signedBy = new Set<string>();
  const verify = (s: SignatureRequest, message: Buffer, what: string) => {
    const key = byFingerprint.get(s.signedBy);
    if (!key)
      throw invalidArgument(
        `The signature by ${s.signedBy} is not from a signing key of party ${checked.partyId} (keys: ${[...byFingerprint.keys()].join(', ')})`,
      );
    const ok = verifier.verify(
      { format: s.format, signature: s.signature, signingAlgorithmSpec: s.signingAlgorithmSpec },
      { format: key.keyFormat, keyData: key.publicKey, keySpec: key.keySpec },
      message,
    );
    if (!ok) throw invalidArgument(`Invalid signature by ${s.signedBy} over the ${what} ${message.toString('hex')}`);
    signedBy.add(s.signedBy);
  };
  for (const s of req.multiHashSignatures) verify(s, multiHash, 'multi-hash');
  for (const s of req.onboardingTransactions[0].signatures) verify(s, tx.transactionHash, 'transaction hash');
  const missing = checked.keys.map((k) => k.fingerprint).filter((fp) => !signedBy.has(fp));
  if (missing.length)
    throw invalidArgument(
      `The onboarding transaction of party ${checked.partyId} is not fully authorized: missing valid signatures of ${missing.join(', ')} over the multi-hash ${multiHash.toString('hex')}`,
    );
  return {
    partyId: checked.partyId,
    permission: checked.permission,
    keys: checked.keys,
    threshold: checked.threshold,
    synchronizerId,
    topologyTransactionHash: tx.transactionHash.toString('hex'),
  };
}

/** What the allocation needs to know about the ledger. */
export interface ExternalPartyState {
  /** The party id is already allocated here (party_details holds local and external parties). */
  partyExists: boolean;
  identityProviderExists: boolean;
  /** The user named by `userId` (null when none was named). */
  user: UserState | null;
}

export interface ExternalPartyAllocationOptions {
  identityProviderId: string;
  /** '' = grant no rights. */
  userId: string;
  /** For a caller allowed only because it allocates for itself: the self-allocation quota (absent or null = no limit). */
  selfAllocationQuota?: number | null;
}

/**
 * The events of a verified allocation, in one commit: 'PartyAllocated' (party_details, so the party endpoints serve it),
 * 'ExternalPartyAllocated' (its signing keys and threshold), the ledger-visible topology transaction, and CanActAs for
 * `userId` if one was named.
 */
export function decideAllocateExternalParty(
  state: ExternalPartyState,
  v: VerifiedAllocation,
  ctx: HostingContext,
  opts: ExternalPartyAllocationOptions,
): NewLedgerEvent[] {
  if (!state.identityProviderExists) throw identityProviderNotFoundArgument(opts.identityProviderId);
  if (opts.userId !== '' && (!state.user?.user || state.user.user.identityProviderId !== opts.identityProviderId))
    throw userNotFound(opts.userId);
  if (opts.userId !== '') checkSelfAllocationQuota(state.user, opts.selfAllocationQuota ?? null);
  if (state.partyExists) throw partyAlreadyExists(v.partyId);
  const allocated: PartyAllocatedData = {
    party: v.partyId,
    isLocal: true,
    identityProviderId: opts.identityProviderId,
    annotations: {},
    synchronizerId: v.synchronizerId,
    participantId: ctx.participantId,
  };
  const data: ExternalPartyAllocatedData = {
    partyId: v.partyId,
    participantId: ctx.participantId,
    permission: v.permission,
    synchronizerId: v.synchronizerId,
    identityProviderId: opts.identityProviderId,
    keys: v.keys,
    threshold: v.threshold,
    topologyTransactionHash: v.topologyTransactionHash,
  };
  const topology: StoredTopologyTransaction = {
    events: [
      {
        ParticipantAuthorizationAdded: {
          partyId: v.partyId,
          participantId: ctx.participantId,
          participantPermission: v.permission,
        },
      },
    ],
  };
  const events: NewLedgerEvent[] = [
    { type: PARTY_ALLOCATED, stream: partyStream(v.partyId), data: allocated },
    { type: EXTERNAL_PARTY_ALLOCATED, stream: partyStream(v.partyId), data },
    {
      type: TOPOLOGY_TRANSACTION_COMMITTED,
      stream: partyStream(v.partyId),
      data: topology,
      update: { kind: 'TopologyTransaction', synchronizerId: v.synchronizerId, parties: [v.partyId] },
    },
  ];
  if (opts.userId !== '')
    events.push(...decideGrantRights(state.user!, opts.userId, [{ kind: 'CanActAs', party: v.partyId }]).events);
  return events;
}
