import { Bytes } from './bytes';
import { HashPurpose } from './hash-purpose';
import { parsePublicKey, ParsedPublicKey, PublicKeyInput } from './keys';
import { sha256Multihash } from './multihash';

/** Canton fingerprint of already-selected key bytes: hex(`12 20 ‖ sha256(int32be(12) ‖ keyBytes)`). */
export function fingerprintOfKeyBytes(keyBytes: Bytes): string {
  return sha256Multihash(HashPurpose.PublicKeyFingerprint, keyBytes).toString('hex');
}

/**
 * Canton key fingerprint (`1220` + 64 hex). Ed25519 hashes the raw 32-byte key even when the key is given
 * as DER SPKI; EC keys hash the key bytes as given (DER SPKI).
 */
export function fingerprint(publicKey: PublicKeyInput | ParsedPublicKey): string {
  const parsed = 'fingerprintBytes' in publicKey ? publicKey : parsePublicKey(publicKey);
  return fingerprintOfKeyBytes(parsed.fingerprintBytes);
}
