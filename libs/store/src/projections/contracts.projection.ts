import {
  REASSIGNMENT_COMMITTED,
  TRANSACTION_COMMITTED,
  type CommittedEvent,
  type StoredReassignment,
  type StoredTransaction,
} from '@ledgerline/domain';
import { eventLogDataAt } from './event-json';
import type { KeyedUpdate, Projection, ProjectionRows } from './projection';

const contract = (contractId: string, set: KeyedUpdate<'contracts'>['set']): KeyedUpdate<'contracts'> => ({ table: 'contracts', key: { column: 'contract_id', value: contractId }, set });

/**
 * The contracts the ledger knows and where they are: created (acsDelta) contracts become active on the transaction's
 * synchronizer; archived ones become archived; an unassignment puts a contract in flight (on no synchronizer, counter
 * bumped); an assignment makes it active on the target with the unassignment's counter. Written with the batch.
 */
export const contractsProjection: Projection = {
  name: 'contracts',
  tables: ['contracts'],
  handles: [TRANSACTION_COMMITTED, REASSIGNMENT_COMMITTED],
  keys: { contracts: 'contract_id' },
  rows(event: CommittedEvent): ProjectionRows {
    const h = event.update;
    if (!h || event.type !== TRANSACTION_COMMITTED) return {};
    const tx = event.data as StoredTransaction;
    const created = tx.events.flatMap((e, i) => ('CreatedEvent' in e && e.CreatedEvent.acsDelta ? [{ c: e.CreatedEvent, i }] : []));
    if (created.length === 0) return {};
    return {
      contracts: created.map(({ c, i }) => ({
        contract_id: c.contractId,
        template_id: c.templateId,
        package_name: c.packageName,
        signatories: c.signatories,
        stakeholders: [...new Set([...c.signatories, ...c.observers])],
        status: 'active',
        synchronizer_id: h.synchronizerId,
        created_offset: h.offset,
        // the created event as the event log stores it (extracted there in the writer's statement)
        created_event: eventLogDataAt(event, ['events', String(i), 'CreatedEvent'], () => JSON.stringify(c)),
      })),
    };
  },
  updates(event: CommittedEvent) {
    const h = event.update;
    if (!h) return [];
    if (event.type === TRANSACTION_COMMITTED) {
      const tx = event.data as StoredTransaction;
      return tx.events.flatMap((e) =>
        'ArchivedEvent' in e ? [contract(e.ArchivedEvent.contractId, { status: 'archived', synchronizer_id: null, archived_offset: h.offset })] : [],
      );
    }
    const r = event.data as StoredReassignment;
    return r.events.map((e) =>
      'Unassigned' in e
        ? contract(e.Unassigned.contractId, { status: 'in_flight', synchronizer_id: null, reassignment_counter: e.Unassigned.reassignmentCounter })
        : contract(e.Assigned.createdEvent.contractId, { status: 'active', synchronizer_id: e.Assigned.target, reassignment_counter: e.Assigned.reassignmentCounter }),
    );
  },
};
