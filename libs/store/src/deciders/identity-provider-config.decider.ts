import type { Kysely } from 'kysely';
import {
  decideCreateIdentityProvider,
  decideDeleteIdentityProvider,
  decideUpdateIdentityProvider,
  type IdentityProviderConfig,
  type IdentityProvidersState,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** A change of the identity-provider configs: create, update (the fields of `maskPaths`) or delete. */
export type ChangeIdentityProviderConfig =
  | { kind: 'create'; config: IdentityProviderConfig }
  | { kind: 'update'; config: IdentityProviderConfig; maskPaths: string[] }
  | { kind: 'delete'; identityProviderId: string };

/** The config by id, and the one using `issuer` ('' for none). */
export interface IdentityProviderConfigKey {
  identityProviderId: string;
  issuer: string;
}

const idps = repositories.identityProviders;

/**
 * The identity-provider config service: `decideCreateIdentityProvider`, `decideUpdateIdentityProvider`,
 * `decideDeleteIdentityProvider` on the configs by id and issuer and their count. The count and the issuers are state of
 * every config, so these changes never share a run ('identity-providers:all'); each also changes its provider's key,
 * which the decisions that check a provider exists read. The answer: the config as it is afterwards (null: deleted).
 */
export const identityProviderConfigDecider: Decider<
  ChangeIdentityProviderConfig,
  IdentityProviderConfigKey,
  IdentityProvidersState,
  IdentityProviderConfig | null
> = {
  name: 'identity-provider-config',
  key: (c) =>
    c.kind === 'delete'
      ? { identityProviderId: c.identityProviderId, issuer: '' }
      : { identityProviderId: c.config.identityProviderId, issuer: c.config.issuer },
  conflicts: {
    identityProviderId: [changes('idp'), changes('identity-providers', () => 'all')],
    issuer: changes('idp-issuer', (issuer: string) => issuer || []),
  },
  load: (db: Kysely<DB>, keys) => keyByKey(keys, (k) => idps.state(db, k.identityProviderId, k.issuer)),
  decide(state, c) {
    switch (c.kind) {
      case 'create':
        return decision(decideCreateIdentityProvider(state, c.config), c.config);
      case 'update': {
        const { events, config } = decideUpdateIdentityProvider(state, c.config, c.maskPaths);
        return decision(events, config);
      }
      case 'delete':
        return decision(decideDeleteIdentityProvider(state, c.identityProviderId), null);
    }
  },
};
