import { createPublicKey, KeyObject } from 'node:crypto';
import { CantonError } from './errors';

/**
 * Public keys as they arrive on the JSON Ledger API (`SigningPublicKey{format, keyData, keySpec}`).
 *
 * - `format` / `keySpec`: enum names (`CRYPTO_KEY_FORMAT_RAW`, `SIGNING_KEY_SPEC_EC_CURVE25519`, with or
 *   without the prefix) or the **Ledger-API** enum numbers (crypto.proto: DER = 1, RAW = 2,
 *   DER_X509_SUBJECT_PUBLIC_KEY_INFO = 3; key specs 1..4). These are NOT the Canton crypto v30 numbers.
 * - `keyData`: bytes, or a base64 string as in JSON.
 */
export interface PublicKeyInput {
  format: string | number;
  keyData: Uint8Array | string;
  keySpec: string | number;
}

export type KeyFormat = 'RAW' | 'DER' | 'DER_X509_SUBJECT_PUBLIC_KEY_INFO';
export type SigningKeySpecName = 'EC_CURVE25519' | 'EC_P256' | 'EC_P384' | 'EC_SECP256K1';

export interface ParsedPublicKey {
  keySpec: SigningKeySpecName;
  /** The node:crypto public key, usable with `crypto.verify`. */
  keyObject: KeyObject;
  /** The format the key was given in (DER is treated as DER X.509 SPKI, as Canton migrates it). */
  format: KeyFormat;
  /** The key bytes as given. */
  keyData: Buffer;
  /** The X.509 SubjectPublicKeyInfo DER encoding (canonical re-encoding for Ed25519). */
  spki: Buffer;
  /** Ed25519 only: the raw 32-byte key. */
  raw?: Buffer;
  /** The bytes hashed for the Canton fingerprint (raw 32 bytes for Ed25519, the key bytes as given otherwise). */
  fingerprintBytes: Buffer;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const LEDGER_API_FORMAT_NUMBERS: Record<number, KeyFormat> = {
  1: 'DER',
  2: 'RAW',
  3: 'DER_X509_SUBJECT_PUBLIC_KEY_INFO',
};
const KEY_SPEC_NUMBERS: Record<number, SigningKeySpecName> = {
  1: 'EC_CURVE25519',
  2: 'EC_P256',
  3: 'EC_P384',
  4: 'EC_SECP256K1',
};
const CURVE_OF_SPEC: Record<
  Exclude<SigningKeySpecName, 'EC_CURVE25519'>,
  { node: string; jwk: string; size: number }
> = {
  EC_P256: { node: 'prime256v1', jwk: 'P-256', size: 32 },
  EC_P384: { node: 'secp384r1', jwk: 'P-384', size: 48 },
  EC_SECP256K1: { node: 'secp256k1', jwk: 'secp256k1', size: 32 },
};

/** Normalises a key format name/number to `RAW` | `DER` | `DER_X509_SUBJECT_PUBLIC_KEY_INFO`. */
export function normalizeKeyFormat(format: string | number): KeyFormat {
  if (typeof format === 'number') {
    const f = LEDGER_API_FORMAT_NUMBERS[format];
    if (!f) throw new CantonError(`Unsupported public key format ${format}`);
    return f;
  }
  const name = String(format).replace(/^CRYPTO_KEY_FORMAT_/, '');
  if (name === 'RAW' || name === 'DER' || name === 'DER_X509_SUBJECT_PUBLIC_KEY_INFO') return name;
  if (name === 'UNSPECIFIED' || name === '') throw new CantonError('Public key format must be specified');
  throw new CantonError(`Unsupported public key format ${format}`);
}

/** Normalises a signing key spec name/number to e.g. `EC_CURVE25519`. */
export function normalizeKeySpec(spec: string | number): SigningKeySpecName {
  if (typeof spec === 'number') {
    const s = KEY_SPEC_NUMBERS[spec];
    if (!s) throw new CantonError(`Unsupported signing key spec ${spec}`);
    return s;
  }
  const name = String(spec).replace(/^SIGNING_KEY_SPEC_/, '');
  if (name === 'EC_CURVE25519' || name === 'EC_P256' || name === 'EC_P384' || name === 'EC_SECP256K1') return name;
  if (name === 'UNSPECIFIED' || name === '') throw new CantonError('Signing key spec must be specified');
  throw new CantonError(`Unsupported signing key spec ${spec}`);
}

function keyBytes(keyData: Uint8Array | string): Buffer {
  if (typeof keyData === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(keyData)) throw new CantonError('Public key data is not valid base64');
    return Buffer.from(keyData, 'base64');
  }
  return Buffer.from(keyData);
}

function importSpki(der: Buffer): KeyObject {
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new CantonError('Public key is not a valid DER X.509 SubjectPublicKeyInfo');
  }
}

/**
 * Parses a signing public key given in RAW or DER(-SPKI) form into a node KeyObject plus the byte
 * representations Canton uses. Throws `CantonError` with a clear message on malformed or unsupported keys.
 */
export function parsePublicKey(input: PublicKeyInput): ParsedPublicKey {
  if (input == null || typeof input !== 'object') throw new CantonError('Public key must be specified');
  const format = normalizeKeyFormat(input.format);
  const keySpec = normalizeKeySpec(input.keySpec);
  const data = keyBytes(input.keyData);
  if (data.length === 0) throw new CantonError('Public key data is empty');

  if (keySpec === 'EC_CURVE25519') {
    let raw: Buffer;
    let keyObject: KeyObject;
    if (format === 'RAW') {
      if (data.length !== 32) throw new CantonError(`Ed25519 raw public key must be 32 bytes, got ${data.length}`);
      raw = data;
      keyObject = importSpki(Buffer.concat([ED25519_SPKI_PREFIX, raw]));
    } else {
      keyObject = importSpki(data);
      if (keyObject.asymmetricKeyType !== 'ed25519')
        throw new CantonError(`Public key is a ${keyObject.asymmetricKeyType} key, not Ed25519`);
      raw = (keyObject.export({ format: 'der', type: 'spki' }) as Buffer).subarray(ED25519_SPKI_PREFIX.length);
    }
    const spki = Buffer.concat([ED25519_SPKI_PREFIX, raw]);
    return { keySpec, keyObject, format, keyData: data, spki, raw, fingerprintBytes: raw };
  }

  const curve = CURVE_OF_SPEC[keySpec];
  let keyObject: KeyObject;
  if (format === 'RAW') {
    // Uncompressed SEC1 point 04 ‖ X ‖ Y.
    if (data.length !== 1 + 2 * curve.size || data[0] !== 0x04)
      throw new CantonError(`Raw ${keySpec} public key must be an uncompressed point of ${1 + 2 * curve.size} bytes`);
    const x = data.subarray(1, 1 + curve.size).toString('base64url');
    const y = data.subarray(1 + curve.size).toString('base64url');
    try {
      keyObject = createPublicKey({ key: { kty: 'EC', crv: curve.jwk, x, y }, format: 'jwk' });
    } catch {
      throw new CantonError(`Raw ${keySpec} public key is not a valid curve point`);
    }
  } else {
    keyObject = importSpki(data);
  }
  const details = keyObject.asymmetricKeyDetails;
  if (keyObject.asymmetricKeyType !== 'ec' || details?.namedCurve !== curve.node)
    throw new CantonError(`Public key does not match key spec ${keySpec}`);
  const spki = keyObject.export({ format: 'der', type: 'spki' }) as Buffer;
  return { keySpec, keyObject, format, keyData: data, spki, fingerprintBytes: data };
}

/** Builds a raw Ed25519 `PublicKeyInput` from 32 raw bytes (convenience for tests and callers). */
export function ed25519PublicKey(raw: Uint8Array): PublicKeyInput {
  return { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.from(raw), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' };
}
