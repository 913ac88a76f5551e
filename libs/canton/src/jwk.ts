/**
 * JSON Web Keys (RFC 7517) of signing public keys, as Canton 3.5.10 builds them for its JOSE service
 * (`base/…/crypto/provider/jce/JceJwks.scala`): Ed25519 as an OKP key (RFC 8037, `EdDSA`), P-256 / P-384 / secp256k1 as
 * EC keys (`ES256`, `ES384`, `ES256K`, RFC 8812), `use: "sig"`, and `kid` the key's JWK thumbprint (RFC 7638: SHA-256 of the
 * required members as compact JSON in lexicographic order, base64url).
 */
import { createHash } from 'node:crypto';
import type { ParsedPublicKey, SigningKeySpecName } from './keys';

export interface Jwk {
  kty: 'OKP' | 'EC';
  crv: string;
  x: string;
  y?: string;
  alg: string;
  kid: string;
  use: 'sig';
}

const ALG: Record<SigningKeySpecName, string> = {
  EC_CURVE25519: 'EdDSA',
  EC_P256: 'ES256',
  EC_P384: 'ES384',
  EC_SECP256K1: 'ES256K',
};

/** The JWK thumbprint (RFC 7638) of the required members. */
export function jwkThumbprint(members: Record<string, string>): string {
  const canonical = `{${Object.keys(members)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(members[k])}`)
    .join(',')}}`;
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** The JWK of a parsed signing public key. */
export function jwkOf(key: ParsedPublicKey): Jwk {
  const exported = key.keyObject.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y?: string };
  const members: Record<string, string> =
    key.keySpec === 'EC_CURVE25519'
      ? { crv: 'Ed25519', kty: 'OKP', x: exported.x }
      : { crv: exported.crv, kty: 'EC', x: exported.x, y: exported.y! };
  return {
    ...(members as Pick<Jwk, 'kty' | 'crv' | 'x' | 'y'>),
    alg: ALG[key.keySpec],
    kid: jwkThumbprint(members),
    use: 'sig',
  };
}
