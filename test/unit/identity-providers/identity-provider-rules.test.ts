import { describe, expect, it } from 'vitest';
import {
  decideCreateIdentityProvider,
  decideDeleteIdentityProvider,
  decideMoveUserIdentityProvider,
  decideUpdateIdentityProvider,
  isLedgerError,
  MAX_IDENTITY_PROVIDERS,
  type IdentityProviderConfig,
  type IdentityProvidersState,
  type LedgerError,
} from '@ledgerline/domain';

function thrown(f: () => unknown): LedgerError {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return e;
    throw e;
  }
  throw new Error('expected a LedgerError');
}

const cfg = (over: Partial<IdentityProviderConfig> = {}): IdentityProviderConfig => ({
  identityProviderId: 'idp-a',
  isDeactivated: false,
  issuer: 'https://issuer-a.example',
  jwksUrl: 'https://issuer-a.example/jwks',
  audience: '',
  ...over,
});
const empty: IdentityProvidersState = { byId: null, byIssuer: null, count: 0 };

describe('identity provider rules', () => {
  it('create: required fields, URL syntax, duplicates by id and issuer, limit', () => {
    expect(decideCreateIdentityProvider(empty, cfg())).toEqual([
      { type: 'IdentityProviderCreated', stream: 'idp:idp-a', data: { config: cfg() } },
    ]);
    expect(thrown(() => decideCreateIdentityProvider(empty, cfg({ identityProviderId: '' }))).code).toBe(
      'MISSING_FIELD',
    );
    expect(thrown(() => decideCreateIdentityProvider(empty, cfg({ identityProviderId: 'bad!' }))).code).toBe(
      'INVALID_FIELD',
    );
    expect(thrown(() => decideCreateIdentityProvider(empty, cfg({ issuer: '' }))).context.field_name).toBe('issuer');
    expect(thrown(() => decideCreateIdentityProvider(empty, cfg({ jwksUrl: '' }))).code).toBe('MISSING_FIELD');
    expect(thrown(() => decideCreateIdentityProvider(empty, cfg({ jwksUrl: 'not a url' }))).code).toBe('INVALID_FIELD');
    const dup = thrown(() => decideCreateIdentityProvider({ ...empty, byId: cfg() }, cfg()));
    expect([dup.code, dup.httpStatus]).toEqual(['IDP_CONFIG_ALREADY_EXISTS', 409]);
    expect(
      thrown(() => decideCreateIdentityProvider({ ...empty, byIssuer: cfg({ identityProviderId: 'x' }) }, cfg())).code,
    ).toBe('IDP_CONFIG_ISSUER_ALREADY_EXISTS');
    expect(thrown(() => decideCreateIdentityProvider({ ...empty, count: MAX_IDENTITY_PROVIDERS }, cfg())).code).toBe(
      'TOO_MANY_IDENTITY_PROVIDER_CONFIGS',
    );
  });

  it('update by mask: only masked fields change; empty issuer/jwks keep theirs; mask problems are INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST', () => {
    const state = { ...empty, byId: cfg(), count: 1 };
    const r = decideUpdateIdentityProvider(state, cfg({ isDeactivated: true, audience: 'aud', issuer: '' }), [
      'is_deactivated',
      'issuer',
    ]);
    expect(r.config).toEqual(cfg({ isDeactivated: true }));
    expect(decideUpdateIdentityProvider(state, cfg({ audience: 'aud' }), ['audience']).config.audience).toBe('aud');
    const bad = thrown(() => decideUpdateIdentityProvider(state, cfg(), ['jwksUrl']));
    expect(bad.code).toBe('INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST');
    expect(bad.causeText).toBe(
      "Update operation for identity provider config 'idp-a' failed due to: The update path: 'jwksUrl' points to an unknown field.",
    );
    expect(thrown(() => decideUpdateIdentityProvider(state, cfg(), [])).causeText).toMatch(
      /The update mask contains no entries/,
    );
    const nf = thrown(() => decideUpdateIdentityProvider(empty, cfg(), ['audience']));
    expect([nf.code, nf.causeText]).toEqual([
      'IDP_CONFIG_NOT_FOUND',
      'Updating identity provider config failed for unknown identity provider id="idp-a"',
    ]);
    const clash = { ...state, byIssuer: cfg({ identityProviderId: 'idp-b', issuer: 'https://b' }) };
    expect(thrown(() => decideUpdateIdentityProvider(clash, cfg({ issuer: 'https://b' }), ['issuer'])).code).toBe(
      'IDP_CONFIG_ISSUER_ALREADY_EXISTS',
    );
  });

  it('delete: unknown → IDP_CONFIG_NOT_FOUND', () => {
    expect(decideDeleteIdentityProvider({ ...empty, byId: cfg() }, 'idp-a')[0].type).toBe('IdentityProviderDeleted');
    expect(thrown(() => decideDeleteIdentityProvider(empty, 'idp-a')).httpStatus).toBe(404);
  });

  it('moving a user: user must be in the source provider; both providers must exist', () => {
    const user = { id: 'u', identityProviderId: '' };
    expect(
      decideMoveUserIdentityProvider(
        { user, sourceExists: true, targetExists: true },
        { userId: 'u', source: '', target: 'idp-a' },
      )[0].data,
    ).toEqual({
      userId: 'u',
      identityProviderId: 'idp-a',
    });
    expect(
      thrown(() =>
        decideMoveUserIdentityProvider(
          { user, sourceExists: true, targetExists: true },
          { userId: 'u', source: 'idp-a', target: '' },
        ),
      ).code,
    ).toBe('USER_NOT_FOUND');
    expect(
      thrown(() =>
        decideMoveUserIdentityProvider(
          { user, sourceExists: true, targetExists: false },
          { userId: 'u', source: '', target: 'idp-x' },
        ),
      ).code,
    ).toBe('INVALID_ARGUMENT');
  });
});
