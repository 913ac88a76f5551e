/**
 * Canton's seeds and V1 contract ids (`daml-lf/transaction/…/crypto/Hash.scala` `deriveTransactionSeed`,
 * `deriveNodeSeed`, `deriveContractDiscriminator`; `daml-lf/spec/contract-id.rst`).
 */
import { createHmac } from 'node:crypto';

const int32 = (i: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(i);
  return b;
};
const int64 = (i: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(i);
  return b;
};
const str = (s: string) => {
  const u = Buffer.from(s, 'utf8');
  return Buffer.concat([int32(u.length), u]);
};

/** HMAC-SHA256(submission seed, participant id (length-prefixed UTF-8) ‖ preparation time µs int64 BE). */
export function deriveTransactionSeed(
  submissionSeed: Uint8Array,
  participantId: string,
  preparationTime: bigint,
): Buffer {
  return createHmac('sha256', submissionSeed).update(str(participantId)).update(int64(preparationTime)).digest();
}

/** HMAC-SHA256(parent seed, child index int32 BE). */
export function deriveNodeSeed(parentSeed: Uint8Array, childIndex: number): Buffer {
  return createHmac('sha256', parentSeed).update(int32(childIndex)).digest();
}

/** HMAC-SHA256(node seed, create time µs int64 BE ‖ count int32 BE ‖ each sorted unique stakeholder length-prefixed). */
export function deriveContractDiscriminator(
  nodeSeed: Uint8Array,
  createTime: bigint,
  stakeholders: Iterable<string>,
): Buffer {
  const parties = [...new Set(stakeholders)].sort();
  const h = createHmac('sha256', nodeSeed).update(int64(createTime)).update(int32(parties.length));
  for (const p of parties) h.update(str(p));
  return h.digest();
}

/** A V1 contract id before suffixing: `00` ‖ discriminator (66 hex characters). */
export function contractIdV1(discriminator: Uint8Array): string {
  return '00' + Buffer.from(discriminator).toString('hex');
}
