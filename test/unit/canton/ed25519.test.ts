import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ed25519Verifier, ed25519VerifyOpenSsl, parsePublicKey, SignatureVerifier } from '@ledgerline/canton';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const le = (b: Uint8Array) => b.reduceRight((n, byte) => (n << 8n) | BigInt(byte), 0n);
const toLe = (n: bigint) => Buffer.from(Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n)));

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
  const parsed = parsePublicKey({
    format: 'CRYPTO_KEY_FORMAT_RAW',
    keyData: raw,
    keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  });
  return { privateKey, raw, parsed };
}

const ed = (signature: Buffer) => ({
  format: 'SIGNATURE_FORMAT_CONCAT',
  signature,
  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
});

describe('Ed25519 verifier backends', () => {
  it('libsodium where its prebuilt binary exists (linux-x64, the service image and CI); openssl when asked', () => {
    const backend = new Ed25519Verifier({ backend: 'libsodium' }).backend;
    if (process.platform === 'linux' && process.arch === 'x64') expect(backend).toBe('libsodium');
    else expect(['libsodium', 'openssl']).toContain(backend);
    expect(new Ed25519Verifier().backend).toBe(backend);
    expect(new Ed25519Verifier({ backend: 'openssl' }).backend).toBe('openssl');
  });
});

describe.each(['libsodium', 'openssl'] as const)('Ed25519 verification (%s)', (backend) => {
  const ed25519 = new Ed25519Verifier({ backend });
  const verifier = new SignatureVerifier(ed25519);

  it('agrees with OpenSSL on valid and broken signatures: 200 keys, each a valid signature, a flipped message bit, a flipped signature bit and another key', async () => {
    for (let i = 0; i < 200; i++) {
      const a = keyPair();
      const b = keyPair();
      const msg = randomBytes(i % 2 ? 32 : 1 + (i % 97));
      const sig = sign(null, msg, a.privateKey);
      const badMsg = Buffer.from(msg);
      badMsg[i % badMsg.length] ^= 1 << (i % 8);
      const badSig = Buffer.from(sig);
      badSig[i % 64] ^= 1 << (i % 8);
      const cases: Array<[Buffer, Buffer, ReturnType<typeof keyPair>, boolean]> = [
        [msg, sig, a, true],
        [badMsg, sig, a, false],
        [msg, badSig, a, false],
        [msg, sig, b, false],
      ];
      for (const [m, s, k, expected] of cases) {
        expect(ed25519VerifyOpenSsl(s, m, k.parsed.keyObject)).toBe(expected);
        expect(ed25519.verify(s, m, k.raw, k.parsed.keyObject)).toBe(expected);
        expect(verifier.verify(ed(s), k.parsed, m)).toBe(expected);
        expect(await verifier.verifyAsync(ed(s), k.parsed, m)).toBe(expected);
      }
    }
  });

  it('rejects a non-canonical S (S + L), as OpenSSL does', () => {
    const a = keyPair();
    const msg = randomBytes(32);
    const sig = sign(null, msg, a.privateKey);
    const malleable = Buffer.concat([sig.subarray(0, 32), toLe(le(sig.subarray(32)) + L)]);
    expect(ed25519VerifyOpenSsl(malleable, msg, a.parsed.keyObject)).toBe(false);
    expect(verifier.verify(ed(malleable), a.parsed, msg)).toBe(false);
  });

  it('rejects wrong lengths without throwing', () => {
    const a = keyPair();
    expect(ed25519.verify(Buffer.alloc(63), Buffer.alloc(32), a.raw, a.parsed.keyObject)).toBe(false);
    expect(ed25519.verify(Buffer.alloc(64), Buffer.alloc(32), Buffer.alloc(31), a.parsed.keyObject)).toBe(false);
  });

  it('with libsodium, rejects the small-order forgery (identity key, R = identity, S = 0) that older OpenSSL accepts', () => {
    const identity = Buffer.alloc(32);
    identity[0] = 1;
    const key = parsePublicKey({
      format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      keyData: Buffer.concat([ED25519_SPKI_PREFIX, identity]),
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    });
    const forgery = Buffer.concat([identity, Buffer.alloc(32)]);
    const msg = Buffer.from('any message at all');
    // OpenSSL 3.0 (Node.js 20 and 22) accepts it for any message; the OpenSSL of Node.js 24 rejects small-order points.
    const openSsl = ed25519VerifyOpenSsl(forgery, msg, key.keyObject);
    expect(ed25519VerifyOpenSsl(forgery, Buffer.from('another message'), key.keyObject)).toBe(openSsl);
    expect(verifier.verify(ed(forgery), key, msg)).toBe(ed25519.backend === 'openssl' ? openSsl : false);
  });
});
