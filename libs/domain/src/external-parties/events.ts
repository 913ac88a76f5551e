/**
 * Events of external-party onboarding (POST /v2/parties/external/allocate).
 *
 * One allocation appends, in one work: 'ExternalPartyAllocated' (the party's signing keys and threshold; projected into
 * party_signing_keys / party_signing_thresholds, which executeAndWait verifies submissions against) and a ledger-visible
 * 'TopologyTransactionCommitted' update (ParticipantAuthorizationAdded for this participant).
 */
export const EXTERNAL_PARTY_ALLOCATED = 'ExternalPartyAllocated';

export type SigningKeySpecName =
  | 'SIGNING_KEY_SPEC_EC_CURVE25519'
  | 'SIGNING_KEY_SPEC_EC_P256'
  | 'SIGNING_KEY_SPEC_EC_P384'
  | 'SIGNING_KEY_SPEC_EC_SECP256K1';

export type KeyFormatName = 'CRYPTO_KEY_FORMAT_RAW' | 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO';

/** A registered signing key of an external party, in Ledger-API naming (what `parsePublicKey` of libs/canton accepts). */
export interface ExternalPartySigningKey {
  /** Canton fingerprint `1220…` (the `signedBy` of signatures made with it). */
  fingerprint: string;
  keySpec: SigningKeySpecName;
  keyFormat: KeyFormatName;
  /** Base64 of the key bytes as registered in the topology transaction. */
  publicKey: string;
}

export type HostingPermission = 'PARTICIPANT_PERMISSION_CONFIRMATION' | 'PARTICIPANT_PERMISSION_OBSERVATION';

export interface ExternalPartyAllocatedData {
  partyId: string;
  participantId: string;
  permission: HostingPermission;
  synchronizerId: string;
  identityProviderId: string;
  /** Keys in the order of the topology transaction. */
  keys: ExternalPartySigningKey[];
  /** Distinct valid signatures a submission of this party needs. */
  threshold: number;
  /** Hex of the 34-byte multihash of the onboarding transaction (purpose 11). */
  topologyTransactionHash: string;
}

export interface ExternalPartyAllocatedEvent {
  type: typeof EXTERNAL_PARTY_ALLOCATED;
  stream: string;
  data: ExternalPartyAllocatedData;
}
