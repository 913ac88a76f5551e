import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, type JWTVerifyGetKey } from 'jose';
import { unauthenticated } from '@ledgerline/domain';

/** An identity provider configuration as the verifier needs it. */
export interface IdentityProviderKeys {
  id: string;
  issuer: string;
  jwksUrl: string;
  audience: string;
  isDeactivated: boolean;
}

export interface IdentityProviderDirectory {
  byIssuer(issuer: string): Promise<IdentityProviderKeys | null>;
}

export const noIdentityProviders: IdentityProviderDirectory = { byIssuer: async () => null };

export interface KeyResolverOptions {
  hmacSecret?: string;
  publicKeyPem?: string;
  jwksUrl?: string;
  identityProviders?: IdentityProviderDirectory;
}

export interface ResolvedKey {
  key: KeyObject;
  /** The identity provider the token belongs to ('' = default). */
  identityProviderId: string;
  /** Audience that provider requires, if any. */
  audience?: string;
}

/**
 * Picks the verification key of a token: an identity provider's JWKS when `iss` names a configured provider, otherwise
 * the participant's own HS256 secret for HMAC tokens, PEM public key or JWKS for RSA and EC tokens. HMAC secrets are never used
 * for asymmetric algorithms and public keys never for HMAC (no algorithm confusion).
 */
export class KeyResolver {
  private readonly secret?: KeyObject;
  private readonly pem?: KeyObject;
  private readonly jwks?: JWTVerifyGetKey;
  private readonly idpJwks = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly opts: KeyResolverOptions) {
    if (opts.hmacSecret) this.secret = createSecretKey(Buffer.from(opts.hmacSecret, 'utf8'));
    if (opts.publicKeyPem) this.pem = createPublicKey(opts.publicKeyPem);
    if (opts.jwksUrl) this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: 5_000 });
  }

  async resolve(token: string): Promise<ResolvedKey> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let payload: ReturnType<typeof decodeJwt>;
    try {
      header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
    } catch {
      throw unauthenticated('Malformed token');
    }
    const alg = header.alg ?? '';
    if (payload.iss && this.opts.identityProviders) {
      const idp = await this.opts.identityProviders.byIssuer(payload.iss);
      if (idp) {
        if (idp.isDeactivated) throw unauthenticated(`Identity provider ${idp.id} is deactivated`);
        const key = await this.fromJwks(this.jwksFor(idp), header, token);
        return { key, identityProviderId: idp.id, audience: idp.audience || undefined };
      }
    }
    if (alg.startsWith('HS')) {
      if (!this.secret) throw unauthenticated('HMAC tokens are not accepted by this participant');
      return { key: this.secret, identityProviderId: '' };
    }
    if (this.pem) return { key: this.pem, identityProviderId: '' };
    if (this.jwks) return { key: await this.fromJwks(this.jwks, header, token), identityProviderId: '' };
    throw unauthenticated(`No key configured for algorithm ${alg}`);
  }

  private jwksFor(idp: IdentityProviderKeys): JWTVerifyGetKey {
    let set = this.idpJwks.get(idp.jwksUrl);
    if (!set) {
      set = createRemoteJWKSet(new URL(idp.jwksUrl), { cooldownDuration: 1_000 });
      this.idpJwks.set(idp.jwksUrl, set);
    }
    return set;
  }

  private async fromJwks(
    jwks: JWTVerifyGetKey,
    header: ReturnType<typeof decodeProtectedHeader>,
    token: string,
  ): Promise<KeyObject> {
    try {
      // a key set picks its key by the header's `alg` and `kid` (the token goes along in its flattened form)
      const [protectedPart, payload = '', signature = ''] = token.split('.');
      const key = await jwks(
        { alg: header.alg ?? '', kid: header.kid },
        { protected: protectedPart, payload, signature },
      );
      return key instanceof Uint8Array ? createSecretKey(key) : (key as unknown as KeyObject);
    } catch (e) {
      throw unauthenticated(`No matching key in JWKS: ${(e as Error).message}`);
    }
  }
}
