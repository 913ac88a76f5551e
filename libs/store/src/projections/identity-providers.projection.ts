import type { CommittedEvent, IdentityProviderConfig } from '@ledgerline/domain';
import type { Projection } from './projection';

/** identity_providers: the current configuration of every identity provider. */
export const identityProvidersProjection: Projection = {
  name: 'identity-providers',
  tables: ['identity_providers'],
  handles: ['IdentityProviderCreated', 'IdentityProviderUpdated', 'IdentityProviderDeleted'],
  async apply(trx, event: CommittedEvent) {
    if (event.type === 'IdentityProviderDeleted') {
      const { identityProviderId } = event.data as { identityProviderId: string };
      await trx.deleteFrom('identity_providers').where('id', '=', identityProviderId).execute();
      return;
    }
    const c = (event.data as { config: IdentityProviderConfig }).config;
    const row = { issuer: c.issuer, jwks_url: c.jwksUrl, audience: c.audience, is_deactivated: c.isDeactivated };
    if (event.type === 'IdentityProviderCreated') {
      await trx.insertInto('identity_providers').values({ id: c.identityProviderId, ...row, created_seq: event.seq }).execute();
    } else {
      await trx.updateTable('identity_providers').set(row).where('id', '=', c.identityProviderId).execute();
    }
  },
};
