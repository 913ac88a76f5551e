/**
 * Identifier helpers: update ids, reassignment ids, contract ids, party/participant/synchronizer ids.
 */
import { createHash } from 'node:crypto';
import { Bytes, hexToBytes, int64be } from './bytes';
import { CantonError } from './errors';
import { fingerprint, fingerprintOfKeyBytes } from './fingerprint';
import { HashPurpose } from './hash-purpose';
import { ParsedPublicKey, PublicKeyInput } from './keys';
import { isSha256MultihashHex, sha256Multihash } from './multihash';
import type { Validation } from './signatures';

const seedBytes = (seed: Bytes | string): Buffer =>
  typeof seed === 'string' ? Buffer.from(seed, 'utf8') : Buffer.from(seed);

// ------------------------------------------------------------------------------------------- update ids

/**
 * Deterministic update id: hex of the SHA-256 multihash (`1220` + 64 lowercase hex) of `seed` (a string is
 * taken as UTF-8). The purpose defaults to `MerkleTreeInnerNode` (3), the purpose of a Canton transaction's root hash.
 */
export function updateId(seed: Bytes | string, purpose: number = HashPurpose.MerkleTreeInnerNode): string {
  return sha256Multihash(purpose, seedBytes(seed)).toString('hex');
}

/** `1220` + 64 lowercase hex characters. */
export function isUpdateId(s: unknown): s is string {
  return isSha256MultihashHex(s);
}

// ------------------------------------------------------------------------------------- reassignment ids

export interface ReassignmentIdInput {
  source: string;
  target: string;
  /** Unassignment timestamp in microseconds since the epoch. */
  unassignmentTimestampMicros: bigint | number | string;
  contracts: ReadonlyArray<{ contractId: string; reassignmentCounter: bigint | number | string }>;
}

/**
 * Deterministic reassignment id, as Canton's `ReassignmentId.V0`: hex of `0x00` ‖ multihash(purpose 57,
 * string(source) ‖ string(target) ‖ int64(ts µs) ‖ for each contract sorted by id: string(cid) ‖ int64(counter)),
 * where string = int32 length ‖ UTF-8. The result is `001220` + 64 hex.
 */
export function reassignmentId(input: ReassignmentIdInput): string {
  const parts: Buffer[] = [];
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(b.length, 0);
    parts.push(len, b);
  };
  str(input.source);
  str(input.target);
  parts.push(int64be(input.unassignmentTimestampMicros, 'unassignment timestamp'));
  const byId = new Map<string, bigint | number | string>();
  for (const c of input.contracts) byId.set(c.contractId, c.reassignmentCounter); // a map, as in Canton
  const sorted = [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [cid, counter] of sorted) {
    str(cid);
    parts.push(int64be(counter, 'reassignment counter'));
  }
  return '00' + sha256Multihash(HashPurpose.ReassignmentId, Buffer.concat(parts)).toString('hex');
}

const REASSIGNMENT_ID_RE = /^001220[0-9a-f]{64}$/;

/** `00` (version) + `1220` + 64 lowercase hex characters. */
export function isReassignmentId(s: unknown): s is string {
  return typeof s === 'string' && REASSIGNMENT_ID_RE.test(s);
}

// ----------------------------------------------------------------------------------------- contract ids

/** Maximum suffix length of a V1 contract id, in bytes. */
export const CONTRACT_ID_MAX_SUFFIX_BYTES = 94;
const CONTRACT_ID_RE = /^00[0-9a-f]{64}(?:[0-9a-f]{2}){0,94}$/;

/** Deterministic 32-byte discriminator: SHA-256 of `seed` (UTF-8 if a string). */
export function contractIdDiscriminator(seed: Bytes | string): Buffer {
  return createHash('sha256').update(seedBytes(seed)).digest();
}

/**
 * Builds a V1 contract id: `00` ‖ 32-byte discriminator ‖ optional suffix (≤ 94 bytes), lowercase hex.
 * `discriminator` may be 32 bytes or 64 hex characters.
 */
export function makeContractId(discriminator: Bytes | string, suffix: Bytes | string = Buffer.alloc(0)): string {
  const d = typeof discriminator === 'string' ? hexToBytes(discriminator, 'discriminator') : Buffer.from(discriminator);
  if (d.length !== 32) throw new CantonError(`Contract id discriminator must be 32 bytes, got ${d.length}`);
  const s = typeof suffix === 'string' ? hexToBytes(suffix, 'contract id suffix') : Buffer.from(suffix);
  if (s.length > CONTRACT_ID_MAX_SUFFIX_BYTES)
    throw new CantonError(`Contract id suffix must be at most ${CONTRACT_ID_MAX_SUFFIX_BYTES} bytes, got ${s.length}`);
  return '00' + d.toString('hex') + s.toString('hex');
}

/** Shorthand: a contract id whose discriminator is sha256(seed). */
export function contractIdFromSeed(seed: Bytes | string, suffix?: Bytes | string): string {
  return makeContractId(contractIdDiscriminator(seed), suffix);
}

export function isContractId(s: unknown): s is string {
  return typeof s === 'string' && CONTRACT_ID_RE.test(s);
}

export function parseContractId(s: string): { discriminator: Buffer; suffix: Buffer } {
  if (!isContractId(s)) throw new CantonError(`Invalid contract id ${JSON.stringify(s)}`);
  return { discriminator: Buffer.from(s.slice(2, 66), 'hex'), suffix: Buffer.from(s.slice(66), 'hex') };
}

// ---------------------------------------------------------------------------- party / participant / synchronizer

export const MAX_IDENTIFIER_LENGTH = 185;
const ID_CHARS_RE = /^[a-zA-Z0-9:\-_ ]*$/;

/**
 * Validates a party hint (the identifier part of a party id): non-empty, only `[a-zA-Z0-9:-_ ]`, no `::`,
 * at most 185 characters.
 */
export function validatePartyHint(hint: unknown): Validation<string> {
  if (typeof hint !== 'string' || hint.length === 0) return { ok: false, reason: 'Party hint is empty' };
  if (!ID_CHARS_RE.test(hint))
    return {
      ok: false,
      reason: `Party hint ${JSON.stringify(hint)} contains a non expected character: only letters, digits, ':', '-', '_' and ' ' are allowed`,
    };
  if (hint.includes('::')) return { ok: false, reason: `Party hint ${JSON.stringify(hint)} must not contain '::'` };
  if (hint.length > MAX_IDENTIFIER_LENGTH)
    return {
      ok: false,
      reason: `Party hint is too long: ${hint.length} characters, at most ${MAX_IDENTIFIER_LENGTH} allowed`,
    };
  return { ok: true, value: hint };
}

export function assertValidPartyHint(hint: unknown): string {
  const v = validatePartyHint(hint);
  if (!v.ok) throw new CantonError(v.reason);
  return v.value;
}

/** Splits `identifier::namespace` (namespace = `1220` + 64 hex) or returns undefined. */
export function parseUniqueIdentifier(s: unknown): { identifier: string; namespace: string } | undefined {
  if (typeof s !== 'string') return undefined;
  const i = s.indexOf('::');
  if (i <= 0) return undefined;
  const identifier = s.slice(0, i);
  const namespace = s.slice(i + 2);
  if (!validatePartyHint(identifier).ok || !isSha256MultihashHex(namespace)) return undefined;
  return { identifier, namespace };
}

/** `identifier::1220<64 hex>` with a valid identifier (also the syntax of participant UIDs and synchronizer ids). */
export function isUniqueIdentifier(s: unknown): s is string {
  return parseUniqueIdentifier(s) !== undefined;
}

/** Party id syntax: `hint::1220<64 hex>`. */
export function isPartyId(s: unknown): s is string {
  return isUniqueIdentifier(s);
}

/** `<name>::<fingerprint of publicKey>`. */
export function participantIdFromKey(name: string, publicKey: PublicKeyInput | ParsedPublicKey): string {
  assertValidPartyHint(name);
  return `${name}::${fingerprint(publicKey)}`;
}

/** `<hint>::<fingerprint of publicKey>` (the party id of an external party). */
export function partyIdFromKey(hint: string, publicKey: PublicKeyInput | ParsedPublicKey): string {
  assertValidPartyHint(hint);
  return `${hint}::${fingerprint(publicKey)}`;
}

/**
 * Deterministic synchronizer id `alias::1220…`. The namespace is the fingerprint of `seedKey` when it is a public
 * key, otherwise the fingerprint-style hash (purpose 12) of the seed bytes (UTF-8 if a string).
 */
export function synchronizerId(alias: string, seedKey: PublicKeyInput | ParsedPublicKey | Bytes | string): string {
  assertValidPartyHint(alias);
  const ns =
    typeof seedKey === 'string' || seedKey instanceof Uint8Array
      ? fingerprintOfKeyBytes(seedBytes(seedKey))
      : fingerprint(seedKey);
  return `${alias}::${ns}`;
}
