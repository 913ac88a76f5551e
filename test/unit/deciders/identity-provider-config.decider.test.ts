import { describe, expect, it } from 'vitest';
import { identityProviderStream, MAX_IDENTITY_PROVIDERS, type IdentityProviderConfig } from '@ledgerline/domain';
import { identityProviderConfigDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';

const configs = spec(identityProviderConfigDecider);
const config = (o: Partial<IdentityProviderConfig> = {}): IdentityProviderConfig => ({
  identityProviderId: 'idp1',
  issuer: 'https://issuer.example',
  jwksUrl: 'https://keys.example/jwks',
  audience: '',
  isDeactivated: false,
  ...o,
});
const empty = { byId: null, byIssuer: null, count: 0 };

describe('identity-provider config decider', () => {
  it('create: appends IdentityProviderCreated and answers the config', () => {
    configs
      .given(empty)
      .when({ kind: 'create', config: config() })
      .then(
        [{ type: 'IdentityProviderCreated', stream: identityProviderStream('idp1'), data: { config: config() } }],
        config(),
      );
  });

  it('create: refuses an id or an issuer in use, and one provider too many', () => {
    configs
      .given({ ...empty, byId: config(), count: 1 })
      .when({ kind: 'create', config: config() })
      .rejects('IDP_CONFIG_ALREADY_EXISTS');
    configs
      .given({ ...empty, byIssuer: config({ identityProviderId: 'other' }), count: 1 })
      .when({ kind: 'create', config: config() })
      .rejects('IDP_CONFIG_ISSUER_ALREADY_EXISTS');
    configs
      .given({ ...empty, count: MAX_IDENTITY_PROVIDERS })
      .when({ kind: 'create', config: config() })
      .rejects('TOO_MANY_IDENTITY_PROVIDER_CONFIGS');
  });

  it('update: changes the masked fields only and answers the config afterwards', () => {
    const next = config({ isDeactivated: true });
    configs
      .given({ ...empty, byId: config(), count: 1 })
      .when({
        kind: 'update',
        config: config({ isDeactivated: true, audience: 'ignored' }),
        maskPaths: ['is_deactivated'],
      })
      .then(
        [{ type: 'IdentityProviderUpdated', stream: identityProviderStream('idp1'), data: { config: next } }],
        next,
      );
  });

  it('delete: appends IdentityProviderDeleted; an unknown provider is not found', () => {
    configs
      .given({ ...empty, byId: config(), count: 1 })
      .when({ kind: 'delete', identityProviderId: 'idp1' })
      .then(
        [
          {
            type: 'IdentityProviderDeleted',
            stream: identityProviderStream('idp1'),
            data: { identityProviderId: 'idp1' },
          },
        ],
        null,
      );
    configs.given(empty).when({ kind: 'delete', identityProviderId: 'idp1' }).rejects('IDP_CONFIG_NOT_FOUND');
  });

  it("changes its provider's key and the key every provider change shares (the count and the issuers)", () => {
    expect(conflictKeysOf(identityProviderConfigDecider, { kind: 'create', config: config() })).toEqual({
      reads: ['idp:idp1', 'identity-providers:all', 'idp-issuer:https://issuer.example'],
      writes: ['idp:idp1', 'identity-providers:all', 'idp-issuer:https://issuer.example'],
    });
    expect(
      conflictKeysOf(identityProviderConfigDecider, { kind: 'delete', identityProviderId: 'idp1' }).writes,
    ).toEqual(['idp:idp1', 'identity-providers:all']);
  });
});
