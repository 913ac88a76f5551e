import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { Ed25519Worker } from './ed25519-worker';

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
  return sodiumVerify(sodium, signature, message, rawPublicKey);
}

let worker: Ed25519Worker | null = null;
let workerUsers = 0;

/**
 * Moves the Ed25519 checks of `ed25519VerifyAsync` to a worker thread until the returned release function has been
 * called by every user (runtimes of one process share the thread). Without libsodium it does nothing: the worker runs
 * libsodium.
 */
export function useEd25519Worker(): () => void {
  if (!sodium) return () => undefined;
  workerUsers += 1;
  const s = sodium;
  worker ??= new Ed25519Worker(require.resolve('sodium-native'), (sig, msg, key) => sodiumVerify(s, sig, msg, key));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    workerUsers -= 1;
    if (workerUsers === 0 && worker) {
      void worker.close();
      worker = null;
    }
  };
}

/** Whether `ed25519VerifyAsync` hands its checks to the worker thread. */
export const ed25519WorkerRunning = (): boolean => worker?.alive === true;

/** `ed25519Verify` on the worker thread when it runs (see useEd25519Worker), else in place. Same answers. */
export function ed25519VerifyAsync(signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array, keyObject: KeyObject): Promise<boolean> {
  if (signature.length !== 64 || rawPublicKey.length !== 32) return Promise.resolve(false);
  if (!worker) return Promise.resolve(ed25519Verify(signature, message, rawPublicKey, keyObject));
  return worker.verify(signature, message, rawPublicKey);
}

function sodiumVerify(s: Sodium, signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array): boolean {
  try {
    return s.crypto_sign_verify_detached(signature, message, rawPublicKey);
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
