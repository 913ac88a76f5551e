import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { Ed25519Worker, type Sodium } from './ed25519-worker';

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
export type Ed25519Backend = 'libsodium' | 'openssl';

export interface Ed25519VerifierOptions {
  /** `libsodium` (the default) where its binary loads, else OpenSSL; `openssl` always node:crypto. */
  backend?: Ed25519Backend;
  /**
   * The compiled worker script (see ed25519WorkerScript): `verifyAsync` then checks on that worker thread. Only with
   * libsodium (the worker runs libsodium); without it, or with OpenSSL, every check runs in place.
   */
  workerScript?: string;
}

/** `sodium-native` and its resolved path, or null where its prebuilt binary does not load. */
function loadSodium(): { sodium: Sodium; path: string } | null {
  try {
    const path = require.resolve('sodium-native');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional at run time: a platform without a prebuilt binary falls back to OpenSSL
    const sodium = require(path) as Sodium;
    return typeof sodium.crypto_sign_verify_detached === 'function' ? { sodium, path } : null;
  } catch {
    return null; // no prebuilt binary for this platform: node:crypto does the work
  }
}

/**
 * An Ed25519 verifier, built once at start-up from the configuration and passed to whoever checks signatures. It owns
 * its worker thread, if any: `close` stops it.
 */
export class Ed25519Verifier {
  /** Which implementation verifies the signatures. */
  readonly backend: Ed25519Backend;
  private readonly sodium: Sodium | null;
  private readonly worker: Ed25519Worker | null;

  constructor(options: Ed25519VerifierOptions = {}) {
    const loaded = options.backend === 'openssl' ? null : loadSodium();
    this.sodium = loaded?.sodium ?? null;
    this.backend = loaded ? 'libsodium' : 'openssl';
    const sodium = this.sodium;
    this.worker =
      loaded && sodium && options.workerScript !== undefined
        ? new Ed25519Worker(options.workerScript, loaded.path, (sig, msg, key) => sodiumVerify(sodium, sig, msg, key))
        : null;
  }

  /** Whether `verifyAsync` hands its checks to the worker thread. */
  get workerRunning(): boolean {
    return this.worker?.alive === true;
  }

  /** Verifies a 64-byte Ed25519 signature (R ‖ S) over `message` with a 32-byte public key, in place. Never throws. */
  verify(signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array, keyObject: KeyObject): boolean {
    if (signature.length !== 64 || rawPublicKey.length !== 32) return false;
    if (!this.sodium) return ed25519VerifyOpenSsl(signature, message, keyObject);
    return sodiumVerify(this.sodium, signature, message, rawPublicKey);
  }

  /** `verify` on the worker thread when it runs, else in place. Same answers. */
  verifyAsync(
    signature: Uint8Array,
    message: Uint8Array,
    rawPublicKey: Uint8Array,
    keyObject: KeyObject,
  ): Promise<boolean> {
    if (signature.length !== 64 || rawPublicKey.length !== 32) return Promise.resolve(false);
    if (!this.worker) return Promise.resolve(this.verify(signature, message, rawPublicKey, keyObject));
    return this.worker.verify(signature, message, rawPublicKey);
  }

  /** Stops the worker thread (checks still pending are answered in place; later ones run in place). */
  async close(): Promise<void> {
    await this.worker?.close();
  }
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
