import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { Ed25519Verifier } from './ed25519';
import { parsePublicKey, ParsedPublicKey, PublicKeyInput } from './keys';

export type SignatureFormatName = 'RAW' | 'DER' | 'CONCAT' | 'SYMBOLIC';
export type SigningAlgorithmName = 'ED25519' | 'EC_DSA_SHA_256' | 'EC_DSA_SHA_384';

/** A signature as on the JSON Ledger API; `signature` is bytes or base64. Enum values by name (with or without prefix) or Ledger-API number. */
export interface SignatureInput {
  format: string | number;
  signature: Uint8Array | string;
  signingAlgorithmSpec: string | number;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; reason: string };

const FORMAT_NUMBERS: Record<number, string> = { 0: 'UNSPECIFIED', 1: 'RAW', 2: 'DER', 3: 'CONCAT', 10000: 'SYMBOLIC' };
const ALGO_NUMBERS: Record<number, string> = {
  0: 'UNSPECIFIED',
  1: 'ED25519',
  2: 'EC_DSA_SHA_256',
  3: 'EC_DSA_SHA_384',
  4: 'ML_DSA_65',
};

function fullName(prefix: string, v: string | number, numbers: Record<number, string>): string {
  if (typeof v === 'number') return numbers[v] !== undefined ? prefix + numbers[v] : `Unrecognized(${v})`;
  const s = String(v);
  return s.startsWith(prefix) ? s : prefix + s;
}

/**
 * Validates a Ledger-API `SignatureFormat` (CryptoValidator semantics). `SIGNATURE_FORMAT_UNSPECIFIED` (or empty) →
 * "Signature format must be specified". RAW is accepted (legacy; migrated when verifying).
 */
export function validateSignatureFormat(format: string | number | undefined | null): Validation<SignatureFormatName> {
  const name = fullName('SIGNATURE_FORMAT_', format ?? 0, FORMAT_NUMBERS);
  switch (name) {
    case 'SIGNATURE_FORMAT_RAW':
    case 'SIGNATURE_FORMAT_DER':
    case 'SIGNATURE_FORMAT_CONCAT':
    case 'SIGNATURE_FORMAT_SYMBOLIC':
      return { ok: true, value: name.slice('SIGNATURE_FORMAT_'.length) as SignatureFormatName };
    case 'SIGNATURE_FORMAT_UNSPECIFIED':
    case 'SIGNATURE_FORMAT_':
      return { ok: false, reason: 'Signature format must be specified' };
    default:
      return { ok: false, reason: `Signature format ${name} not supported` };
  }
}

/**
 * Validates a Ledger-API `SigningAlgorithmSpec`: only ED25519, EC_DSA_SHA_256 and EC_DSA_SHA_384 are accepted;
 * anything else (UNSPECIFIED, ML_DSA_65, unknown) → "Signing algorithm spec <name> not supported".
 */
export function validateSigningAlgorithmSpec(
  spec: string | number | undefined | null,
): Validation<SigningAlgorithmName> {
  const name = fullName('SIGNING_ALGORITHM_SPEC_', spec ?? 0, ALGO_NUMBERS);
  switch (name) {
    case 'SIGNING_ALGORITHM_SPEC_ED25519':
    case 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256':
    case 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384':
      return { ok: true, value: name.slice('SIGNING_ALGORITHM_SPEC_'.length) as SigningAlgorithmName };
    default:
      return { ok: false, reason: `Signing algorithm spec ${name} not supported` };
  }
}

/**
 * Migrates a legacy RAW format the way Canton does (`Signature.migrate`): ED25519 → CONCAT, ECDSA → DER
 * (the bytes are unchanged; RAW ECDSA signatures were DER-encoded).
 */
export function effectiveSignatureFormat(format: SignatureFormatName, algo: SigningAlgorithmName): SignatureFormatName {
  if (format !== 'RAW') return format;
  return algo === 'ED25519' ? 'CONCAT' : 'DER';
}

function sigBytes(sig: Uint8Array | string): Buffer | undefined {
  if (typeof sig === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(sig)) return undefined;
    return Buffer.from(sig, 'base64');
  }
  if (sig instanceof Uint8Array) return Buffer.from(sig);
  return undefined;
}

/** What a signature check needs once the inputs are validated: an Ed25519 check, or node:crypto's verify arguments. */
type VerifyCall =
  | { ed25519: { key: ParsedPublicKey; signature: Buffer } }
  | [algorithm: string, key: { key: KeyObject; dsaEncoding: 'der' }, signature: Buffer];

/** The verify call for a signature under Canton's rules, or false if the combination can never verify. */
function verifyCall(
  signature: SignatureInput,
  publicKey: PublicKeyInput | ParsedPublicKey,
  message: Uint8Array,
): VerifyCall | false {
  try {
    if (signature == null || publicKey == null || !(message instanceof Uint8Array)) return false;
    const fmt = validateSignatureFormat(signature.format);
    const algo = validateSigningAlgorithmSpec(signature.signingAlgorithmSpec);
    if (!fmt.ok || !algo.ok) return false;
    const key = 'keyObject' in publicKey ? publicKey : parsePublicKey(publicKey);
    const format = effectiveSignatureFormat(fmt.value, algo.value);
    const bytes = sigBytes(signature.signature);
    if (!bytes || bytes.length === 0) return false;
    switch (algo.value) {
      case 'ED25519':
        if (key.keySpec !== 'EC_CURVE25519' || format !== 'CONCAT' || bytes.length !== 64 || !key.raw) return false;
        return { ed25519: { key, signature: bytes } };
      case 'EC_DSA_SHA_256':
        if ((key.keySpec !== 'EC_P256' && key.keySpec !== 'EC_SECP256K1') || format !== 'DER') return false;
        return ['sha256', { key: key.keyObject, dsaEncoding: 'der' }, bytes];
      case 'EC_DSA_SHA_384':
        if (key.keySpec !== 'EC_P384' || format !== 'DER') return false;
        return ['sha384', { key: key.keyObject, dsaEncoding: 'der' }, bytes];
    }
  } catch {
    return false;
  }
  return false;
}

/**
 * Checks signatures under Canton's rules:
 * - ED25519 (key spec EC_CURVE25519): CONCAT (r‖s, 64 bytes); RAW is migrated to CONCAT.
 * - EC_DSA_SHA_256 (P-256 or secp256k1), EC_DSA_SHA_384 (P-384): DER; RAW is migrated to DER.
 * Ed25519 goes to the Ed25519Verifier it is built with (the service builds one at start-up, from its configuration);
 * ECDSA to node:crypto.
 */
export class SignatureVerifier {
  constructor(readonly ed25519: Ed25519Verifier) {}

  /** Verifies `signature` over `message` with `publicKey`, in place. False (never throws) on any malformed input, unsupported combination or bad signature. */
  verify(signature: SignatureInput, publicKey: PublicKeyInput | ParsedPublicKey, message: Uint8Array): boolean {
    const call = verifyCall(signature, publicKey, message);
    if (!call) return false;
    if ('ed25519' in call)
      return this.ed25519.verify(call.ed25519.signature, message, call.ed25519.key.raw!, call.ed25519.key.keyObject);
    return verifyEcdsa(call, message);
  }

  /**
   * `verify` off the event loop where that pays: Ed25519 on the verifier's worker thread when it runs (else in place),
   * ECDSA on libuv's thread pool (node:crypto's asynchronous verify) unless `ecdsaInPlace`. The same rules and answers.
   */
  verifyAsync(
    signature: SignatureInput,
    publicKey: PublicKeyInput | ParsedPublicKey,
    message: Uint8Array,
    ecdsaInPlace = false,
  ): Promise<boolean> {
    const call = verifyCall(signature, publicKey, message);
    if (!call) return Promise.resolve(false);
    if ('ed25519' in call)
      return this.ed25519.verifyAsync(
        call.ed25519.signature,
        message,
        call.ed25519.key.raw!,
        call.ed25519.key.keyObject,
      );
    if (ecdsaInPlace) return Promise.resolve(verifyEcdsa(call, message));
    return new Promise((resolve) => {
      try {
        cryptoVerify(call[0], message, call[1], call[2], (err, ok) => resolve(!err && ok));
      } catch {
        resolve(false);
      }
    });
  }
}

function verifyEcdsa(call: Exclude<VerifyCall, { ed25519: unknown }>, message: Uint8Array): boolean {
  try {
    return cryptoVerify(call[0], message, call[1], call[2]);
  } catch {
    return false;
  }
}
