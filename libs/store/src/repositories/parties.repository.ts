import type { Kysely } from 'kysely';
import type { PartyRecord } from '@ledgerline/domain';
import type { DB } from '../schema';

/** A party_details row as read (annotations parsed). */
export type PartyRow = {
  party: string;
  is_local: boolean;
  identity_provider_id: string;
  annotations: Record<string, string>;
  resource_version: number;
  synchronizer_id: string;
};

export const partyRecordOf = (r: PartyRow): PartyRecord => ({
  party: r.party,
  isLocal: r.is_local,
  identityProviderId: r.identity_provider_id,
  annotations: r.annotations,
  resourceVersion: Number(r.resource_version),
  synchronizerId: r.synchronizer_id,
});

const COLUMNS = [
  'party',
  'is_local',
  'identity_provider_id',
  'annotations',
  'resource_version',
  'synchronizer_id',
] as const;

/** Reads of the party_details projection. Works with the pool or inside a write transaction. */
export class PartiesRepository {
  async get(db: Kysely<DB>, party: string): Promise<PartyRecord | null> {
    const row = await db.selectFrom('party_details').select(COLUMNS).where('party', '=', party).executeTakeFirst();
    return row ? partyRecordOf(row as PartyRow) : null;
  }

  /** The records of the given parties that exist (unknown ones are simply absent), in party order. */
  async getMany(db: Kysely<DB>, parties: readonly string[]): Promise<PartyRecord[]> {
    if (parties.length === 0) return [];
    const rows = await db
      .selectFrom('party_details')
      .select(COLUMNS)
      .where('party', 'in', [...new Set(parties)])
      .orderBy('party')
      .execute();
    return rows.map((r) => partyRecordOf(r as PartyRow));
  }

  /** Page of parties ordered by id after `afterParty`; `contains` filters on a substring of the party id. */
  async list(db: Kysely<DB>, opts: { afterParty: string; limit: number; contains?: string }): Promise<PartyRecord[]> {
    let q = db
      .selectFrom('party_details')
      .select(COLUMNS)
      .where('party', '>', opts.afterParty)
      .orderBy('party')
      .limit(opts.limit);
    if (opts.contains) q = q.where('party', 'like', `%${opts.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const rows = await q.execute();
    return rows.map((r) => partyRecordOf(r as PartyRow));
  }
}
