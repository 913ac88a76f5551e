import { sql, type Kysely } from 'kysely';
import { decideUpdateUser, type UserRecord, type UserUpdateState, type ValidatedUserUpdate } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';
import { changes, decision, reads, type Decider } from '../writer';

/** Which user a PATCH changes, and the identity provider it names. */
export interface UserUpdateKey {
  userId: string;
  identityProviderId: string;
}

interface UserRow {
  id: string;
  primary_party: string;
  is_deactivated: boolean;
  annotations: Record<string, string>;
  identity_provider_id: string;
  primary_party_authentication: boolean;
  resource_version: number | string;
}

/**
 * PATCH /v2/users/{user-id}: the user (with its resource version) and whether the named identity provider exists, then
 * `decideUpdateUser`. Updates of one user are decided one after the other, so of two updates naming the same resource
 * version exactly one succeeds.
 */
export const userUpdateDecider: Decider<ValidatedUserUpdate, UserUpdateKey, UserUpdateState, UserRecord & { resourceVersion: number }> = {
  name: 'user-update',
  key: (request) => ({ userId: request.id, identityProviderId: request.identityProviderId }),
  conflicts: {
    userId: changes('user'),
    identityProviderId: reads('idp'),
  },
  async load(db: Kysely<DB>, keys: readonly UserUpdateKey[]): Promise<UserUpdateState[]> {
    const { rows } = await prepared(sql<{ record: UserRow | null; idp_exists: boolean }>`
      SELECT (SELECT to_jsonb(u) FROM users u WHERE u.id = k.id) AS record,
             (k.idp = '' OR EXISTS (SELECT 1 FROM identity_providers i WHERE i.id = k.idp)) AS idp_exists
      FROM unnest(${keys.map((k) => k.userId)}::text[], ${keys.map((k) => k.identityProviderId)}::text[]) WITH ORDINALITY AS k(id, idp, n)
      ORDER BY k.n`).execute(db);
    return rows.map((r) => ({
      identityProviderExists: r.idp_exists,
      user: r.record
        ? {
            id: r.record.id,
            primaryParty: r.record.primary_party,
            isDeactivated: r.record.is_deactivated,
            annotations: r.record.annotations,
            identityProviderId: r.record.identity_provider_id,
            primaryPartyAuthentication: r.record.primary_party_authentication,
            resourceVersion: Number(r.record.resource_version),
          }
        : null,
    }));
  },
  decide(state, request) {
    const { events, user } = decideUpdateUser(state, request);
    return decision(events, user);
  },
};
