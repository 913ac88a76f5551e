import type { Kysely, Selectable } from 'kysely';
import type { StoredContract, StoredCreatedEvent } from '@ledgerline/domain';
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

  /** The contracts with these ids that the ledger knows (any status). */
  async getMany(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, StoredContract>> {
    if (ids.length === 0) return new Map();
    const rows = await db.selectFrom('contracts').selectAll().where('contract_id', 'in', [...ids]).execute();
    return new Map(rows.map((r) => [r.contract_id, storedContractOf(r)]));
  }
}
