import { REASSIGNMENT_COMMITTED, TRANSACTION_COMMITTED } from '@ledgerline/domain';
import { eventLogDataAt } from './event-json';
import { projection, type InsertRow, type KeyedUpdate, type ProjectionRows } from './projection';

const contract = (contractId: string, set: KeyedUpdate<'contracts'>['set']): KeyedUpdate<'contracts'> => ({
  table: 'contracts',
  key: { column: 'contract_id', value: contractId },
  set,
});

/** Closes the contract's open activation (archive or unassignment at `offset`). */
const deactivate = (contractId: string, offset: number): KeyedUpdate<'contract_activations'> => ({
  table: 'contract_activations',
  key: { column: 'open_contract', value: contractId },
  set: { open_contract: null, deactivated_offset: offset },
});

interface Activation {
  offset: number;
  nodeId: number;
  contractId: string;
  synchronizerId: string;
  counter: number;
  workflowId: string;
  stakeholders: readonly string[];
}

function activationRows(
  list: readonly Activation[],
): Pick<ProjectionRows, 'contract_activations' | 'contract_activation_parties'> {
  const activations: InsertRow<'contract_activations'>[] = [];
  const parties: InsertRow<'contract_activation_parties'>[] = [];
  for (const a of list) {
    activations.push({
      activated_offset: a.offset,
      node_id: a.nodeId,
      contract_id: a.contractId,
      synchronizer_id: a.synchronizerId,
      reassignment_counter: a.counter,
      workflow_id: a.workflowId,
      open_contract: a.contractId,
    });
    for (const party of new Set(a.stakeholders)) parties.push({ party, activated_offset: a.offset, node_id: a.nodeId });
  }
  return { contract_activations: activations, contract_activation_parties: parties };
}

/**
 * The contracts the ledger knows and where they are: created (acsDelta) contracts become active on the transaction's
 * synchronizer, transient ones are archived at once; archived ones become archived; an unassignment puts a contract in flight (on no synchronizer, counter
 * bumped); an assignment makes it active on the target with the unassignment's counter. Written with the batch.
 *
 * Beside the current state, the history the active contract set is read from: one `contract_activations` row per
 * activation (create or assignment) on a synchronizer, closed by the contract's next deactivation (archive or
 * unassignment), and its stakeholders in `contract_activation_parties`.
 */
export const contractsProjection = projection({
  name: 'contracts',
  tables: ['contracts', 'contract_activations', 'contract_activation_parties'],
  handles: [TRANSACTION_COMMITTED, REASSIGNMENT_COMMITTED],
  keys: { contracts: 'contract_id', contract_activations: 'open_contract' },
  rows(event): ProjectionRows {
    const h = event.update;
    if (!h) return {};
    if (event.type === REASSIGNMENT_COMMITTED) {
      const r = event.data;
      const assigned = r.events.flatMap((e) => ('Assigned' in e ? [e.Assigned] : []));
      if (assigned.length === 0) return {};
      return activationRows(
        assigned.map((x) => ({
          offset: h.offset,
          nodeId: x.createdEvent.nodeId,
          contractId: x.createdEvent.contractId,
          synchronizerId: x.target,
          counter: x.reassignmentCounter,
          workflowId: r.workflowId,
          stakeholders: x.stakeholders,
        })),
      );
    }
    const tx = event.data;
    const all = tx.events.flatMap((e, i) => ('CreatedEvent' in e ? [{ c: e.CreatedEvent, i }] : []));
    if (all.length === 0) return {};
    const created = all.filter(({ c }) => c.acsDelta);
    return {
      // A transient contract (created and archived by this transaction) is known as archived at this offset: events by
      // contract id answer for it, as Canton's do.
      contracts: all.map(({ c, i }) => ({
        contract_id: c.contractId,
        template_id: c.templateId,
        package_name: c.packageName,
        signatories: c.signatories,
        stakeholders: [...new Set([...c.signatories, ...c.observers])],
        status: c.acsDelta ? 'active' : 'archived',
        synchronizer_id: c.acsDelta ? h.synchronizerId : null,
        created_offset: h.offset,
        archived_offset: c.acsDelta ? null : h.offset,
        // the created event as the event log stores it (extracted there in the writer's statement)
        created_event: eventLogDataAt(event, ['events', String(i), 'CreatedEvent'], () => JSON.stringify(c)),
      })),
      ...activationRows(
        created.map(({ c }) => ({
          offset: h.offset,
          nodeId: c.nodeId,
          contractId: c.contractId,
          synchronizerId: h.synchronizerId,
          counter: 0,
          workflowId: tx.workflowId,
          stakeholders: [...c.signatories, ...c.observers],
        })),
      ),
    };
  },
  updates(event) {
    const h = event.update;
    if (!h) return [];
    if (event.type === TRANSACTION_COMMITTED) {
      const tx = event.data;
      return tx.events.flatMap((e) =>
        'ArchivedEvent' in e
          ? [
              contract(e.ArchivedEvent.contractId, {
                status: 'archived',
                synchronizer_id: null,
                archived_offset: h.offset,
              }),
              deactivate(e.ArchivedEvent.contractId, h.offset),
            ]
          : [],
      );
    }
    const r = event.data;
    return r.events.flatMap((e) =>
      'Unassigned' in e
        ? [
            contract(e.Unassigned.contractId, {
              status: 'in_flight',
              synchronizer_id: null,
              reassignment_counter: e.Unassigned.reassignmentCounter,
            }),
            deactivate(e.Unassigned.contractId, h.offset),
          ]
        : [
            contract(e.Assigned.createdEvent.contractId, {
              status: 'active',
              synchronizer_id: e.Assigned.target,
              reassignment_counter: e.Assigned.reassignmentCounter,
            }),
          ],
    );
  },
});
