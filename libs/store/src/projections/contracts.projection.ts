import {
  REASSIGNMENT_COMMITTED,
  TRANSACTION_COMMITTED,
  type StoredReassignment,
  type StoredTransaction,
} from '@ledgerline/domain';
import type { Projection } from './registry';

/**
 * The contracts the ledger knows and where they are: created (acsDelta) contracts become active on the transaction's
 * synchronizer; archived ones become archived; an unassignment puts a contract in flight (on no synchronizer, counter
 * bumped); an assignment makes it active on the target with the unassignment's counter.
 */
export const contractsProjection: Projection = {
  name: 'contracts',
  tables: ['contracts'],
  handles: [TRANSACTION_COMMITTED, REASSIGNMENT_COMMITTED],
  async apply(trx, event) {
    const h = event.update;
    if (!h) return;
    if (event.type === TRANSACTION_COMMITTED) {
      const tx = event.data as StoredTransaction;
      const created = tx.events.flatMap((e) => ('CreatedEvent' in e && e.CreatedEvent.acsDelta ? [e.CreatedEvent] : []));
      if (created.length) {
        await trx
          .insertInto('contracts')
          .values(
            created.map((c) => ({
              contract_id: c.contractId,
              template_id: c.templateId,
              package_name: c.packageName,
              signatories: c.signatories,
              stakeholders: [...new Set([...c.signatories, ...c.observers])],
              status: 'active' as const,
              synchronizer_id: h.synchronizerId,
              created_offset: h.offset,
              created_event: JSON.stringify(c),
            })),
          )
          .execute();
      }
      const archived = tx.events.flatMap((e) => ('ArchivedEvent' in e ? [e.ArchivedEvent.contractId] : []));
      if (archived.length) {
        await trx
          .updateTable('contracts')
          .set({ status: 'archived', synchronizer_id: null, archived_offset: h.offset })
          .where('contract_id', 'in', archived)
          .execute();
      }
      return;
    }
    const r = event.data as StoredReassignment;
    for (const e of r.events) {
      if ('Unassigned' in e) {
        await trx
          .updateTable('contracts')
          .set({ status: 'in_flight', synchronizer_id: null, reassignment_counter: e.Unassigned.reassignmentCounter })
          .where('contract_id', '=', e.Unassigned.contractId)
          .execute();
      } else {
        await trx
          .updateTable('contracts')
          .set({ status: 'active', synchronizer_id: e.Assigned.target, reassignment_counter: e.Assigned.reassignmentCounter })
          .where('contract_id', '=', e.Assigned.createdEvent.contractId)
          .execute();
      }
    }
  },
};
