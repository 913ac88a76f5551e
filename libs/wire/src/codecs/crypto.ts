import { bodyDecodeError } from '../decode-error';

/**
 * Ledger-API crypto enums and bytes as the JSON API decodes them (Canton's JsSchema, ledger-json-api: json/v2/): enums by
 * proto name (an unknown name is a decode error listing the supported values), bytes as standard base64.
 */
export const CRYPTO_KEY_FORMATS = [
  'CRYPTO_KEY_FORMAT_UNSPECIFIED',
  'CRYPTO_KEY_FORMAT_DER',
  'CRYPTO_KEY_FORMAT_RAW',
  'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  'CRYPTO_KEY_FORMAT_SYMBOLIC',
] as const;
export const SIGNING_KEY_SPECS = [
  'SIGNING_KEY_SPEC_UNSPECIFIED',
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
  'SIGNING_KEY_SPEC_ML_DSA_65',
] as const;
export const SIGNATURE_FORMATS = [
  'SIGNATURE_FORMAT_UNSPECIFIED',
  'SIGNATURE_FORMAT_RAW',
  'SIGNATURE_FORMAT_DER',
  'SIGNATURE_FORMAT_CONCAT',
  'SIGNATURE_FORMAT_SYMBOLIC',
] as const;
export const SIGNING_ALGORITHM_SPECS = [
  'SIGNING_ALGORITHM_SPEC_UNSPECIFIED',
  'SIGNING_ALGORITHM_SPEC_ED25519',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
  'SIGNING_ALGORITHM_SPEC_ML_DSA_65',
] as const;

/** A proto enum given by name; `undefined` gives `fallback` (the proto default). */
export function enumFromJs(value: unknown, allowed: readonly string[], at: string, fallback = allowed[0]): string {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed.includes(value) || value === 'UNRECOGNIZED')) return value;
  throw bodyDecodeError(`Unrecognized enum value ${String(value)}. Supported values: [${allowed.join(', ')}]`, at);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64 (padding optional); anything else is a decode error. */
export function bytesFromJs(value: unknown, at: string): Buffer {
  if (value === undefined || value === null) return Buffer.alloc(0);
  if (typeof value !== 'string') throw bodyDecodeError('Got value with wrong type, expecting string', at);
  const stripped = value.replace(/=+$/, '');
  if (!BASE64.test(value) || stripped.length % 4 === 1)
    throw bodyDecodeError(`The string is not a valid Base64: ${value.slice(0, 64)}`, at);
  return Buffer.from(value, 'base64');
}

export const signatureSchema = {
  type: 'object',
  required: ['format', 'signature', 'signedBy', 'signingAlgorithmSpec'],
  properties: {
    format: { type: 'string' },
    signature: { type: 'string' },
    signedBy: { type: 'string' },
    signingAlgorithmSpec: { type: 'string' },
  },
} as const;

export const signingPublicKeySchema = {
  type: 'object',
  required: ['format', 'keyData', 'keySpec'],
  properties: { format: { type: 'string' }, keyData: { type: 'string' }, keySpec: { type: 'string' } },
} as const;

export interface DecodedSignature {
  format: string;
  signature: Buffer;
  signedBy: string;
  signingAlgorithmSpec: string;
}

/** A Ledger-API `Signature` (validated by `signatureSchema`). */
export function signatureFromJs(s: Record<string, unknown>, at: string): DecodedSignature {
  return {
    format: enumFromJs(s.format, SIGNATURE_FORMATS, `${at}.format`),
    signature: bytesFromJs(s.signature, `${at}.signature`),
    signedBy: String(s.signedBy ?? ''),
    signingAlgorithmSpec: enumFromJs(s.signingAlgorithmSpec, SIGNING_ALGORITHM_SPECS, `${at}.signingAlgorithmSpec`),
  };
}

/** A Ledger-API `SigningPublicKey` (validated by `signingPublicKeySchema`). */
export function signingPublicKeyFromJs(
  k: Record<string, unknown>,
  at: string,
): { format: string; keyData: Buffer; keySpec: string } {
  return {
    format: enumFromJs(k.format, CRYPTO_KEY_FORMATS, `${at}.format`),
    keyData: bytesFromJs(k.keyData, `${at}.keyData`),
    keySpec: enumFromJs(k.keySpec, SIGNING_KEY_SPECS, `${at}.keySpec`),
  };
}
