import type { Kysely } from 'kysely';
import type { StoredContract, StoredCreatedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';

/** One contract of the `contracts` projection (migration 0003), as prepare needs it to build an exercise. */
export class ContractLookupRepository {
  async get(db: Kysely<DB>, contractId: string): Promise<StoredContract | null> {
    const r = await db.selectFrom('contracts').selectAll().where('contract_id', '=', contractId).executeTakeFirst();
    if (!r) return null;
    return {
      contractId: r.contract_id,
      templateId: r.template_id,
      packageName: r.package_name,
      signatories: r.signatories,
      stakeholders: r.stakeholders,
      status: r.status,
      synchronizerId: r.synchronizer_id,
      createdEvent: r.created_event as StoredCreatedEvent,
    };
  }
}
