import { IDENTITY_PROVIDER_CREATED, IDENTITY_PROVIDER_DELETED, IDENTITY_PROVIDER_UPDATED } from '@ledgerline/domain';
import { projection } from './projection';

/** identity_providers: the current configuration of every identity provider. */
export const identityProvidersProjection = projection({
  name: 'identity-providers',
  tables: ['identity_providers'],
  handles: [IDENTITY_PROVIDER_CREATED, IDENTITY_PROVIDER_UPDATED, IDENTITY_PROVIDER_DELETED],
  async apply(trx, event) {
    if (event.type === IDENTITY_PROVIDER_DELETED) {
      const { identityProviderId } = event.data;
      await trx.deleteFrom('identity_providers').where('id', '=', identityProviderId).execute();
      return;
    }
    const c = event.data.config;
    const row = { issuer: c.issuer, jwks_url: c.jwksUrl, audience: c.audience, is_deactivated: c.isDeactivated };
    if (event.type === IDENTITY_PROVIDER_CREATED) {
      await trx
        .insertInto('identity_providers')
        .values({ id: c.identityProviderId, ...row, created_seq: event.seq })
        .execute();
    } else {
      await trx.updateTable('identity_providers').set(row).where('id', '=', c.identityProviderId).execute();
    }
  },
});
