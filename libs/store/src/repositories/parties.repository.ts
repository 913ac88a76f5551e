import { sql, type Kysely, type Transaction } from 'kysely';
import type { PartyRecord, PartyUpdateState } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { StateLoader } from '../event-store';
import { prepared } from '../database';

type Row = {
  party: string;
  is_local: boolean;
  identity_provider_id: string;
  annotations: Record<string, string>;
  resource_version: number;
  synchronizer_id: string;
};

const toRecord = (r: Row): PartyRecord => ({
  party: r.party,
  isLocal: r.is_local,
  identityProviderId: r.identity_provider_id,
  annotations: r.annotations,
  resourceVersion: Number(r.resource_version),
  synchronizerId: r.synchronizer_id,
});

const COLUMNS = ['party', 'is_local', 'identity_provider_id', 'annotations', 'resource_version', 'synchronizer_id'] as const;

/** Reads of the party_details projection. Works with the pool or inside a write transaction. */
export class PartiesRepository {
  async get(db: Kysely<DB>, party: string): Promise<PartyRecord | null> {
    const row = await db.selectFrom('party_details').select(COLUMNS).where('party', '=', party).executeTakeFirst();
    return row ? toRecord(row as Row) : null;
  }

  /** The records of the given parties that exist (unknown ones are simply absent), in party order. */
  async getMany(db: Kysely<DB>, parties: readonly string[]): Promise<PartyRecord[]> {
    if (parties.length === 0) return [];
    const rows = await db.selectFrom('party_details').select(COLUMNS).where('party', 'in', [...new Set(parties)]).orderBy('party').execute();
    return rows.map((r) => toRecord(r as Row));
  }

  /** Page of parties ordered by id after `afterParty`; `contains` filters on a substring of the party id. */
  async list(db: Kysely<DB>, opts: { afterParty: string; limit: number; contains?: string }): Promise<PartyRecord[]> {
    let q = db.selectFrom('party_details').select(COLUMNS).where('party', '>', opts.afterParty).orderBy('party').limit(opts.limit);
    if (opts.contains) q = q.where('party', 'like', `%${opts.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const rows = await q.execute();
    return rows.map((r) => toRecord(r as Row));
  }
}

/** Which party a PATCH changes, and the identity provider it names. */
export interface PartyUpdateKey {
  party: string;
  identityProviderId: string;
}

/**
 * What PATCH /v2/parties/{party} decides on (the party's record and whether the named identity provider exists), for many
 * requests in one statement.
 */
export const partyUpdateStateLoader: StateLoader<PartyUpdateKey, PartyUpdateState> = {
  name: 'party-update',
  async load(db: Transaction<DB>, keys: readonly PartyUpdateKey[]): Promise<PartyUpdateState[]> {
    const { rows } = await prepared(sql<{ record: Row | null; idp_exists: boolean }>`
      SELECT (SELECT to_jsonb(p) FROM party_details p WHERE p.party = k.party) AS record,
             (k.idp = '' OR EXISTS (SELECT 1 FROM identity_providers i WHERE i.id = k.idp)) AS idp_exists
      FROM unnest(${keys.map((k) => k.party)}::text[], ${keys.map((k) => k.identityProviderId)}::text[]) WITH ORDINALITY AS k(party, idp, n)
      ORDER BY k.n`).execute(db);
    return rows.map((r) => ({ record: r.record ? toRecord(r.record) : null, identityProviderExists: r.idp_exists }));
  },
};
