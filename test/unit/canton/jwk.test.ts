import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jwkOf, jwkThumbprint, parsePublicKey } from '@ledgerline/canton';

describe('JWKs of signing keys (Canton JceJwks)', () => {
  it('RFC 8037 A.3: the thumbprint of the Ed25519 example key', () => {
    expect(jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });

  it('RFC 7638 3.1: the thumbprint member order does not depend on the given order', () => {
    const rsa = { e: 'AQAB', kty: 'RSA', n: 'x' };
    expect(jwkThumbprint({ n: 'x', kty: 'RSA', e: 'AQAB' })).toBe(jwkThumbprint(rsa));
  });

  it('Ed25519 (raw key): OKP, EdDSA, x the raw key in base64url, kid its thumbprint', () => {
    const raw = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
    const jwk = jwkOf(parsePublicKey({ format: 'RAW', keyData: raw, keySpec: 'EC_CURVE25519' }));
    expect(jwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      alg: 'EdDSA',
      kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
      use: 'sig',
    });
  });

  it.each([
    ['EC_P256', 'prime256v1', 'P-256', 'ES256', 32],
    ['EC_P384', 'secp384r1', 'P-384', 'ES384', 48],
    ['EC_SECP256K1', 'secp256k1', 'secp256k1', 'ES256K', 32],
  ] as const)('%s: EC, %s, x and y of the point', (spec, curve, crv, alg, size) => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    const jwk = jwkOf(parsePublicKey({ format: 'DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: spki, keySpec: spec }));
    const point = publicKey.export({ format: 'jwk' });
    expect(jwk).toEqual({
      kty: 'EC',
      crv,
      x: point.x,
      y: point.y,
      alg,
      kid: jwkThumbprint({ crv, kty: 'EC', x: point.x!, y: point.y! }),
      use: 'sig',
    });
    expect(Buffer.from(jwk.x, 'base64url')).toHaveLength(size);
  });
});
