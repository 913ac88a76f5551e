import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CantonError,
  fingerprint,
  parsePublicKey,
  sha256Multihash,
  validateSignatureFormat,
  validateSigningAlgorithmSpec,
  Ed25519Verifier,
  SignatureVerifier,
} from '@ledgerline/canton';
import { ALICE_FINGERPRINT, ed25519FromSeed, SEED_01_20 } from './fixtures';

const verifier = new SignatureVerifier(new Ed25519Verifier());

const alice = ed25519FromSeed(SEED_01_20);
const rawKey = { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: alice.raw, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' };
const spkiKey = {
  format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  keyData: alice.spki.toString('base64'),
  keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
};

describe('multihash and fingerprint', () => {
  it('sha256Multihash = 12 20 ‖ sha256(int32be(purpose) ‖ bytes)', () => {
    const h = sha256Multihash(12, alice.raw);
    expect(h).toHaveLength(34);
    expect(h.toString('hex')).toBe(ALICE_FINGERPRINT);
    expect(sha256Multihash(0, Buffer.alloc(0)).toString('hex')).toBe(
      '1220' + 'df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119', // sha256(00000000)
    );
  });

  it('worked example (seed 01..20): raw pub and fingerprint', () => {
    expect(alice.raw.toString('hex')).toMatch(/^79b5562e.*049664$/);
    expect(fingerprint(rawKey)).toBe(ALICE_FINGERPRINT);
  });

  it('Ed25519 given as DER SPKI has the same fingerprint as the raw key (SPKI stripped)', () => {
    expect(fingerprint(spkiKey)).toBe(ALICE_FINGERPRINT);
    expect(fingerprint({ ...spkiKey, format: 3 })).toBe(ALICE_FINGERPRINT); // Ledger-API enum number
    expect(
      fingerprint({ ...rawKey, keyData: alice.raw.toString('base64'), format: 'RAW', keySpec: 'EC_CURVE25519' }),
    ).toBe(ALICE_FINGERPRINT);
  });

  it('EC P-256 / P-384 fingerprints hash the DER SPKI bytes as given', () => {
    for (const [curve, keySpec] of [
      ['P-256', 'SIGNING_KEY_SPEC_EC_P256'],
      ['P-384', 'SIGNING_KEY_SPEC_EC_P384'],
    ] as const) {
      const { publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
      const der = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
      const fp = fingerprint({ format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: der, keySpec });
      expect(fp).toBe(sha256Multihash(12, der).toString('hex'));
    }
  });

  it('rejects malformed or mismatched keys with clear errors', () => {
    expect(() => parsePublicKey({ ...rawKey, keyData: alice.raw.subarray(1) })).toThrow(/32 bytes/);
    expect(() => parsePublicKey({ ...spkiKey, keyData: Buffer.from('3000', 'hex') })).toThrow(/SubjectPublicKeyInfo/);
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ format: 'der', type: 'spki' });
    expect(() =>
      parsePublicKey({
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: der,
        keySpec: 'SIGNING_KEY_SPEC_EC_P384',
      }),
    ).toThrow(/does not match key spec/);
    expect(() => parsePublicKey({ ...spkiKey, keyData: der })).toThrow(/not Ed25519/);
    expect(() => parsePublicKey({ ...rawKey, format: 'CRYPTO_KEY_FORMAT_UNSPECIFIED' })).toThrow(CantonError);
    expect(() => parsePublicKey({ ...rawKey, keySpec: 'SIGNING_KEY_SPEC_ML_DSA_65' })).toThrow(
      /Unsupported signing key spec/,
    );
  });

  it('raw uncompressed EC points parse to the same key as their SPKI', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    const parsed = parsePublicKey({
      format: 'CRYPTO_KEY_FORMAT_RAW',
      keyData: raw,
      keySpec: 'SIGNING_KEY_SPEC_EC_P256',
    });
    expect(parsed.spki.equals(publicKey.export({ format: 'der', type: 'spki' }) as Buffer)).toBe(true);
  });
});

describe('signature verification', () => {
  const msg = Buffer.from('5925941af28998ef3a847c7a7d07e39a3e3cb7a3ed6782a06bc39a5a3ba1f1cc', 'hex');
  const edSig = sign(null, msg, alice.privateKey);
  const ed = {
    format: 'SIGNATURE_FORMAT_CONCAT',
    signature: edSig,
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  };

  it('Ed25519 CONCAT verifies with raw or SPKI key; RAW format is migrated to CONCAT; base64 accepted', () => {
    expect(verifier.verify(ed, rawKey, msg)).toBe(true);
    expect(verifier.verify(ed, spkiKey, msg)).toBe(true);
    expect(verifier.verify({ ...ed, format: 'SIGNATURE_FORMAT_RAW' }, rawKey, msg)).toBe(true);
    expect(verifier.verify({ ...ed, signature: edSig.toString('base64') }, rawKey, msg)).toBe(true);
    expect(verifier.verify({ ...ed, format: 3, signingAlgorithmSpec: 1 }, rawKey, msg)).toBe(true);
  });

  it('agrees with core-signing-lib (tweetnacl) signatures', async () => {
    const lib: any = await import('@canton-network/core-signing-lib');
    const nacl = Buffer.concat([SEED_01_20, alice.raw]).toString('base64');
    const sigB64 = lib.signTransactionHash(msg.toString('base64'), nacl);
    expect(Buffer.from(sigB64, 'base64').equals(edSig)).toBe(true);
    expect(verifier.verify({ ...ed, signature: sigB64 }, rawKey, msg)).toBe(true);
  });

  it('the asynchronous verification (thread pool) answers as the synchronous one, ECDSA included', async () => {
    const flipped = Buffer.from(edSig);
    flipped[3] ^= 1;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ecKey = {
      format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      keyData: ec.publicKey.export({ format: 'der', type: 'spki' }),
      keySpec: 'SIGNING_KEY_SPEC_EC_P256',
    };
    const ecSig = {
      format: 'SIGNATURE_FORMAT_DER',
      signature: sign('sha256', msg, ec.privateKey),
      signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    };
    const cases: Array<
      [Parameters<SignatureVerifier['verify']>[0], Parameters<SignatureVerifier['verify']>[1], boolean]
    > = [
      [ed, rawKey, true],
      [{ ...ed, signature: flipped }, rawKey, false],
      [{ ...ed, format: 'SIGNATURE_FORMAT_DER' }, rawKey, false],
      [{ ...ed, signature: 'not base64!' }, rawKey, false],
      [ecSig, ecKey, true],
      [{ ...ecSig, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384' }, ecKey, false],
    ];
    for (const [sig, key, expected] of cases) {
      expect(verifier.verify(sig, key, msg)).toBe(expected);
      expect(await verifier.verifyAsync(sig, key, msg)).toBe(expected);
    }
  });

  it('rejects tampered signatures, messages and keys, and wrong formats, without throwing', () => {
    const flipped = Buffer.from(edSig);
    flipped[10] ^= 1;
    expect(verifier.verify({ ...ed, signature: flipped }, rawKey, msg)).toBe(false);
    const msg2 = Buffer.from(msg);
    msg2[0] ^= 0x80;
    expect(verifier.verify(ed, rawKey, msg2)).toBe(false);
    const other = ed25519FromSeed(Buffer.alloc(32, 7));
    expect(verifier.verify(ed, { ...rawKey, keyData: other.raw }, msg)).toBe(false);
    expect(verifier.verify({ ...ed, format: 'SIGNATURE_FORMAT_DER' }, rawKey, msg)).toBe(false);
    expect(verifier.verify({ ...ed, format: 'SIGNATURE_FORMAT_UNSPECIFIED' }, rawKey, msg)).toBe(false);
    expect(verifier.verify({ ...ed, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256' }, rawKey, msg)).toBe(
      false,
    );
    expect(verifier.verify({ ...ed, signature: edSig.subarray(0, 63) }, rawKey, msg)).toBe(false);
    expect(verifier.verify({ ...ed, signature: '!!not base64!!' }, rawKey, msg)).toBe(false);
    expect(verifier.verify(ed, { ...rawKey, keyData: Buffer.alloc(3) }, msg)).toBe(false);
  });

  it('never throws on arbitrary garbage', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (a, b, c) => {
        expect(typeof verifier.verify(a as any, b as any, c as any)).toBe('boolean');
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (sig) => {
        expect(verifier.verify({ ...ed, signature: sig }, rawKey, msg)).toBe(false);
      }),
    );
  });

  it('ECDSA P-256/SHA-256 and P-384/SHA-384 with DER signatures (RAW treated as DER)', () => {
    for (const [curve, keySpec, algo, digest] of [
      ['P-256', 'SIGNING_KEY_SPEC_EC_P256', 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256', 'sha256'],
      ['P-384', 'SIGNING_KEY_SPEC_EC_P384', 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384', 'sha384'],
    ] as const) {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
      const key = {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: publicKey.export({ format: 'der', type: 'spki' }),
        keySpec,
      };
      const der = sign(digest, msg, { key: privateKey, dsaEncoding: 'der' });
      const s = { format: 'SIGNATURE_FORMAT_DER', signature: der, signingAlgorithmSpec: algo };
      expect(verifier.verify(s, key, msg)).toBe(true);
      expect(verifier.verify({ ...s, format: 'SIGNATURE_FORMAT_RAW' }, key, msg)).toBe(true);
      expect(verifier.verify({ ...s, format: 'SIGNATURE_FORMAT_CONCAT' }, key, msg)).toBe(false);
      const p1363 = sign(digest, msg, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(verifier.verify({ ...s, signature: p1363 }, key, msg)).toBe(false);
      const tampered = Buffer.from(der);
      tampered[tampered.length - 1] ^= 1;
      expect(verifier.verify({ ...s, signature: tampered }, key, msg)).toBe(false);
      // wrong algorithm for the curve
      const otherAlgo = algo.endsWith('256')
        ? 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384'
        : 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256';
      expect(verifier.verify({ ...s, signingAlgorithmSpec: otherAlgo }, key, msg)).toBe(false);
    }
  });

  it('enum validators give Canton-style reasons', () => {
    expect(validateSignatureFormat('SIGNATURE_FORMAT_UNSPECIFIED')).toEqual({
      ok: false,
      reason: 'Signature format must be specified',
    });
    expect(validateSignatureFormat(undefined)).toEqual({ ok: false, reason: 'Signature format must be specified' });
    expect(validateSignatureFormat('SIGNATURE_FORMAT_CONCAT')).toEqual({ ok: true, value: 'CONCAT' });
    expect(validateSigningAlgorithmSpec('SIGNING_ALGORITHM_SPEC_ML_DSA_65')).toEqual({
      ok: false,
      reason: 'Signing algorithm spec SIGNING_ALGORITHM_SPEC_ML_DSA_65 not supported',
    });
    expect(validateSigningAlgorithmSpec('SIGNING_ALGORITHM_SPEC_UNSPECIFIED').ok).toBe(false);
    expect(validateSigningAlgorithmSpec(99)).toEqual({
      ok: false,
      reason: 'Signing algorithm spec Unrecognized(99) not supported',
    });
    expect(validateSigningAlgorithmSpec('SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384')).toEqual({
      ok: true,
      value: 'EC_DSA_SHA_384',
    });
  });
});
