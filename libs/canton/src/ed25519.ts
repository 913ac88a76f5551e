import { verify as cryptoVerify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 verification. libsodium (`sodium-native`, prebuilt binaries) where it loads, else node:crypto (OpenSSL).
 *
 * Why libsodium: executeAndWait checks one Ed25519 signature per request, and that check was about a fifth of the
 * server's CPU. OpenSSL's Ed25519 uses ref10's 25.5-bit field arithmetic; libsodium's 51-bit code verifies in about half
 * the time (51–57 µs against 113–123 µs on the 2-core target).
 *
 * The two accept the same signatures, with one exception: libsodium rejects signatures whose public key or R is of small
 * order. OpenSSL accepts the degenerate "signature" R = identity, S = 0 under the identity key for any message.
 * Ledgerline uses libsodium, so it rejects that too. An honest key never has small order.
 */
interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

function loadSodium(): Sodium | null {
  if (process.env.LEDGER_ED25519_BACKEND === 'openssl') return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const s = require('sodium-native') as Sodium;
    return typeof s.crypto_sign_verify_detached === 'function' ? s : null;
  } catch {
    return null; // no prebuilt binary for this platform: node:crypto does the work
  }
}

const sodium = loadSodium();

/** Which implementation verifies Ed25519 signatures in this process. */
export const ed25519Backend: 'libsodium' | 'openssl' = sodium ? 'libsodium' : 'openssl';

/** Verifies a 64-byte Ed25519 signature (R ‖ S) over `message` with a 32-byte public key. Never throws. */
export function ed25519Verify(signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array, keyObject: KeyObject): boolean {
  if (signature.length !== 64 || rawPublicKey.length !== 32) return false;
  if (!sodium) return ed25519VerifyOpenSsl(signature, message, keyObject);
  try {
    return sodium.crypto_sign_verify_detached(signature, message, rawPublicKey);
  } catch {
    return false;
  }
}

/** The OpenSSL verification, whatever the backend (tests compare the two). */
export function ed25519VerifyOpenSsl(signature: Uint8Array, message: Uint8Array, keyObject: KeyObject): boolean {
  try {
    return cryptoVerify(null, message, keyObject, signature);
  } catch {
    return false;
  }
}
