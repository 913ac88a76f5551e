import { createHash } from 'node:crypto';
import { Bytes, int32be } from './bytes';

/** Multihash header for SHA-256 with a 32-byte digest. */
export const SHA256_MULTIHASH_PREFIX = Buffer.from([0x12, 0x20]);

/** Raw SHA-256 of `int32be(purpose) ‖ bytes` (32 bytes), i.e. Canton's `Hash.digest(purpose, bytes).unwrap`. */
export function sha256WithPurpose(purpose: number, bytes: Bytes): Buffer {
  return createHash('sha256').update(int32be(purpose)).update(bytes).digest();
}

/** `12 20 ‖ sha256(int32be(purpose) ‖ bytes)`: Canton's `Hash.getCryptographicEvidence` (34 bytes). */
export function sha256Multihash(purpose: number, bytes: Bytes): Buffer {
  return Buffer.concat([SHA256_MULTIHASH_PREFIX, sha256WithPurpose(purpose, bytes)]);
}

/** Wraps a raw 32-byte SHA-256 digest as a 34-byte multihash. */
export function toMultihash(digest32: Bytes): Buffer {
  return Buffer.concat([SHA256_MULTIHASH_PREFIX, digest32]);
}

const MULTIHASH_HEX_RE = /^1220[0-9a-f]{64}$/;

/** True for `1220` followed by 64 lowercase hex characters. */
export function isSha256MultihashHex(s: unknown): s is string {
  return typeof s === 'string' && MULTIHASH_HEX_RE.test(s);
}
