/**
 * Canton `HashPurpose` ids used by this library (prefix of every Canton hash as a 4-byte big-endian int).
 */
export const HashPurpose = {
  MerkleTreeInnerNode: 3,
  TopologyTransactionSignature: 11,
  PublicKeyFingerprint: 12,
  Unicum: 29,
  PreparedSubmission: 48,
  MultiTopologyTransaction: 55,
  ReassignmentId: 57,
} as const;
