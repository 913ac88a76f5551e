import type { Kysely, Selectable } from 'kysely';
import type { ContractLocation, StoredContract, StoredCreatedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';

const storedContractOf = (r: Selectable<DB['contracts']>): StoredContract => ({
  contractId: r.contract_id,
  templateId: r.template_id,
  packageName: r.package_name,
  signatories: r.signatories,
  stakeholders: r.stakeholders,
  status: r.status,
  synchronizerId: r.synchronizer_id,
  createdEvent: r.created_event as StoredCreatedEvent,
});

/** Contracts of the `contracts` projection (migration 0003), as the transaction builder needs them to exercise them. */
export class ContractLookupRepository {
  async get(db: Kysely<DB>, contractId: string): Promise<StoredContract | null> {
    const r = await db.selectFrom('contracts').selectAll().where('contract_id', '=', contractId).executeTakeFirst();
    return r ? storedContractOf(r) : null;
  }

  /**
   * Where the ledger has these contracts now, for routing: the status and synchronizer (an archived contract's: that of
   * the update that archived it); unknown ones are absent.
   */
  async locations(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, ContractLocation>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('contracts as c')
      .leftJoin('ledger_updates as u', (j) => j.on('c.status', '=', 'archived').onRef('u.ledger_offset', '=', 'c.archived_offset'))
      .select(['c.contract_id', 'c.status', 'c.synchronizer_id', 'u.synchronizer_id as archived_on'])
      .where('c.contract_id', 'in', [...ids])
      .execute();
    return new Map(rows.map((r) => [r.contract_id, { status: r.status, synchronizerId: r.synchronizer_id ?? r.archived_on }]));
  }

  /** The contracts with these ids that the ledger knows (any status). */
  async getMany(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, StoredContract>> {
    if (ids.length === 0) return new Map();
    const rows = await db.selectFrom('contracts').selectAll().where('contract_id', 'in', [...ids]).execute();
    return new Map(rows.map((r) => [r.contract_id, storedContractOf(r)]));
  }
}
