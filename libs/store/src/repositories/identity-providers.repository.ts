import type { Kysely } from 'kysely';
import type { IdentityProviderConfig, IdentityProvidersState } from '@ledgerline/domain';
import type { DB } from '../schema';

type Row = { id: string; issuer: string; jwks_url: string; audience: string; is_deactivated: boolean };

const toConfig = (r: Row): IdentityProviderConfig => ({
  identityProviderId: r.id,
  issuer: r.issuer,
  jwksUrl: r.jwks_url,
  audience: r.audience,
  isDeactivated: r.is_deactivated,
});

const COLUMNS = ['id', 'issuer', 'jwks_url', 'audience', 'is_deactivated'] as const;

/** Reads of the identity_providers projection. */
export class IdentityProvidersRepository {
  async get(db: Kysely<DB>, id: string): Promise<IdentityProviderConfig | null> {
    const row = await db.selectFrom('identity_providers').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toConfig(row) : null;
  }

  async byIssuer(db: Kysely<DB>, issuer: string): Promise<IdentityProviderConfig | null> {
    const row = await db
      .selectFrom('identity_providers')
      .select(COLUMNS)
      .where('issuer', '=', issuer)
      .executeTakeFirst();
    return row ? toConfig(row) : null;
  }

  async list(db: Kysely<DB>): Promise<IdentityProviderConfig[]> {
    return (await db.selectFrom('identity_providers').select(COLUMNS).orderBy('id').execute()).map(toConfig);
  }

  /** '' (the default provider) always exists. */
  async exists(db: Kysely<DB>, id: string): Promise<boolean> {
    if (id === '') return true;
    return (
      (await db.selectFrom('identity_providers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    );
  }

  /** What a create/update decision needs: the provider by id, the one using `issuer`, and how many exist. */
  async state(db: Kysely<DB>, id: string, issuer: string): Promise<IdentityProvidersState> {
    const all = await this.list(db);
    return {
      byId: all.find((c) => c.identityProviderId === id) ?? null,
      byIssuer: issuer ? (all.find((c) => c.issuer === issuer) ?? null) : null,
      count: all.length,
    };
  }
}
