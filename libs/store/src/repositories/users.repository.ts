import type { Kysely, Selectable } from 'kysely';
import type { Right, UserRecord, UserState } from '@ledgerline/domain';
import type { DB } from '../schema';

export interface StoredUser extends UserRecord {
  resourceVersion: number;
}

/** What a token's user is allowed, as stored: its identity provider, whether it is deactivated, and its rights. */
export interface StoredUserClaims {
  identityProviderId: string;
  isDeactivated: boolean;
  rights: Right[];
}

export const rightFromRow = (kind: string, party: string): Right => (party ? { kind, party } : { kind }) as Right;

/** Reads of the users projection. Works with the pool or inside a write transaction. */
/** A `users` row as the domain's user record. */
export const userFromRow = (
  row: Omit<Selectable<DB['users']>, 'created_seq' | 'resource_version'> & { resource_version: number | string },
): StoredUser => ({
  id: row.id,
  primaryParty: row.primary_party,
  isDeactivated: row.is_deactivated,
  annotations: row.annotations,
  identityProviderId: row.identity_provider_id,
  primaryPartyAuthentication: row.primary_party_authentication,
  resourceVersion: Number(row.resource_version),
});

export class UsersRepository {
  async get(db: Kysely<DB>, id: string): Promise<StoredUser | null> {
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? userFromRow(row) : null;
  }

  async rights(db: Kysely<DB>, id: string): Promise<Right[]> {
    const rows = await db
      .selectFrom('user_rights')
      .select(['kind', 'party'])
      .where('user_id', '=', id)
      .orderBy('kind')
      .orderBy('party')
      .execute();
    return rows.map((r) => rightFromRow(r.kind, r.party));
  }

  async state(db: Kysely<DB>, id: string): Promise<UserState> {
    const user = await this.get(db, id);
    return { user, rights: user ? await this.rights(db, id) : [] };
  }

  /** The claims of user `id` in one query (authentication reads them per token user), or null if there is no such user. */
  async claimsOf(db: Kysely<DB>, id: string): Promise<StoredUserClaims | null> {
    const rows = await db
      .selectFrom('users as u')
      .leftJoin('user_rights as r', 'r.user_id', 'u.id')
      .select(['u.is_deactivated', 'u.identity_provider_id', 'r.kind', 'r.party'])
      .where('u.id', '=', id)
      .execute();
    if (rows.length === 0) return null;
    return {
      identityProviderId: rows[0].identity_provider_id,
      isDeactivated: rows[0].is_deactivated,
      rights: rows.flatMap((r) => (r.kind === null ? [] : [rightFromRow(r.kind, r.party ?? '')])),
    };
  }

  /**
   * What an open stream's authorization rests on, read afresh (no cache): the user's claims, and whether its identity
   * provider is deactivated (the default identity provider never is).
   */
  async streamAuthorizationOf(
    db: Kysely<DB>,
    id: string,
  ): Promise<(StoredUserClaims & { identityProviderDeactivated: boolean }) | null> {
    const user = await this.claimsOf(db, id);
    if (!user) return null;
    const idp =
      user.identityProviderId === ''
        ? undefined
        : await db
            .selectFrom('identity_providers')
            .select('is_deactivated')
            .where('id', '=', user.identityProviderId)
            .executeTakeFirst();
    return { ...user, identityProviderDeactivated: idp?.is_deactivated ?? false };
  }

  /** Page of users ordered by id, after `afterId`, optionally within one identity provider. */
  async list(
    db: Kysely<DB>,
    opts: { afterId: string; limit: number; identityProviderId?: string },
  ): Promise<StoredUser[]> {
    let q = db.selectFrom('users').select('id').where('id', '>', opts.afterId).orderBy('id').limit(opts.limit);
    if (opts.identityProviderId !== undefined) q = q.where('identity_provider_id', '=', opts.identityProviderId);
    const ids = await q.execute();
    const users = await Promise.all(ids.map((r) => this.get(db, r.id)));
    return users.filter((u): u is StoredUser => u !== null);
  }
}
