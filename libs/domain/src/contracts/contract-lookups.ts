import { isContractId } from '@ledgerline/canton';
import { invalidField, missingField, notFound } from '../errors';
import type { StoredCreatedEvent, StoredExercisedEvent, StoredTransaction } from '../ledger/updates';
import { storedTemplateKey, type CompiledEventFormat } from '../updates/event-filter';
import { requireReadParty, validateEventFormat, type EventFormat } from '../updates/format';
import {
  renderCreated,
  renderTransaction,
  renderVisibleCreated,
  stakeholdersOf,
  type StoredUpdate,
} from '../updates/projection';

/**
 * Point lookups of one contract: its events (Canton's EventQueryService: the create and the archive, ACS_DELTA
 * visibility) and its payload (ContractService, alpha).
 */

export interface GetEventsByContractIdRequest {
  contractId?: string;
  eventFormat?: EventFormat | null;
}

export interface GetContractRequest {
  contractId?: string;
  queryingParties?: string[] | null;
}

/** V1 (`00` + discriminator + suffix) or V2 (`01…`) contract ids, hex (Daml-LF's ContractId parser). */
const V2_CONTRACT_ID = /^01(?:[0-9a-f]{2}){1,127}$/;

/** `contract_id`: non-empty and a contract id, else MISSING_FIELD / INVALID_FIELD (FieldValidator). */
export function validateContractId(id: string | undefined): string {
  if (!id) throw missingField('contract_id');
  if (!isContractId(id) && !V2_CONTRACT_ID.test(id))
    throw invalidField('contract_id', `cannot parse ContractId ${JSON.stringify(id)}`);
  return id;
}

export const contractEventsNotFound = (contractId: string) =>
  notFound('CONTRACT_EVENTS_NOT_FOUND', 'Contract events not found, or not visible.', [['CONTRACT_ID', contractId]]);

export const contractPayloadNotFound = (contractId: string) =>
  notFound('CONTRACT_PAYLOAD_NOT_FOUND', 'Contract payload not found, or not visible.', [['CONTRACT_ID', contractId]]);

/** The checks of GetEventsByContractId after authorization: the contract id, then the event format. */
export function validateEventsByContractIdRequest(req: GetEventsByContractIdRequest): {
  contractId: string;
  format: EventFormat;
} {
  const contractId = validateContractId(req.contractId);
  if (!req.eventFormat) throw missingField('event_format');
  validateEventFormat(req.eventFormat);
  return { contractId, format: req.eventFormat };
}

/**
 * JsGetEventsByContractIdResponse from the updates that created and archived the contract, rendered as the ACS_DELTA
 * transaction stream renders them for the format: `created` from the creating transaction, `archived` (or null) from
 * the archiving one; both carry the creation's synchronizer, as the reference does. A transient contract (created and
 * archived by one transaction, so absent from ACS_DELTA) is answered too, as Canton answers it from its witnessed
 * events (`EventReaderQueries.fetchContractIdEvents`): the create with `acsDelta: false`, and the consuming exercise as
 * the archive, both shown to the format's parties among the contract's stakeholders. Null when the format does not see
 * the create (or it was pruned).
 */
export function renderContractEvents(
  contractId: string,
  creation: StoredUpdate | null,
  archive: StoredUpdate | null,
  ef: CompiledEventFormat,
) {
  const pick = (u: StoredUpdate | null, kind: 'CreatedEvent' | 'ArchivedEvent') => {
    if (!u || u.kind !== 'Transaction') return null;
    const tx = renderTransaction(u, ef, 'ACS_DELTA');
    const e = tx?.events.find(
      (x) => kind in (x as object) && (x as Record<string, { contractId: string }>)[kind].contractId === contractId,
    );
    return e ? (e as Record<string, unknown>)[kind] : null;
  };
  if (!creation) return null;
  const createdEvent = pick(creation, 'CreatedEvent');
  if (!createdEvent)
    return archive && archive.offset === creation.offset ? renderTransientEvents(contractId, creation, ef) : null;
  const archivedEvent = pick(archive, 'ArchivedEvent');
  return {
    created: { createdEvent, synchronizerId: creation.synchronizerId },
    archived: archivedEvent ? { archivedEvent, synchronizerId: creation.synchronizerId } : null,
  };
}

/** The events of a contract created and consumed by the transaction `u` (see renderContractEvents), or null. */
function renderTransientEvents(contractId: string, u: StoredUpdate, ef: CompiledEventFormat) {
  if (u.kind !== 'Transaction') return null;
  const events = (u.payload as StoredTransaction).events;
  const create = events.find(
    (e): e is { CreatedEvent: StoredCreatedEvent } => 'CreatedEvent' in e && e.CreatedEvent.contractId === contractId,
  )?.CreatedEvent;
  const consume = events.find(
    (e): e is { ExercisedEvent: StoredExercisedEvent } =>
      'ExercisedEvent' in e && e.ExercisedEvent.consuming && e.ExercisedEvent.contractId === contractId,
  )?.ExercisedEvent;
  if (!create || !consume) return null;
  const stakeholders = stakeholdersOf(create);
  const createdEvent = renderVisibleCreated(create, u.offset, ef, stakeholders, false);
  const m = ef.match(stakeholders, storedTemplateKey(create.templateId, create.packageName));
  if (!createdEvent || !m) return null;
  const archivedEvent = {
    offset: u.offset,
    nodeId: consume.nodeId,
    contractId,
    templateId: create.templateId,
    witnessParties: createdEvent.witnessParties,
    packageName: create.packageName,
    implementedInterfaces: m.views ? m.views.map((v) => v.interfaceId) : [],
  };
  return {
    created: { createdEvent, synchronizerId: u.synchronizerId },
    archived: { archivedEvent, synchronizerId: u.synchronizerId },
  };
}

/** The checks of GetContract after authorization: the contract id, then each querying party. */
export function validateContractRequest(req: GetContractRequest): { contractId: string; parties: string[] } {
  const contractId = validateContractId(req.contractId);
  const parties = req.queryingParties ?? [];
  for (const p of parties) requireReadParty(p, 'querying_parties');
  return { contractId, parties };
}

/**
 * contract-by-id's created event (ApiContractService): witnesses = stakeholders ∩ querying parties (all stakeholders
 * when none are given), the blob populated, and the fixed offset 1, node id 0, acsDelta false. Null when no querying
 * party is a stakeholder.
 */
export function renderContractPayload(c: StoredCreatedEvent, parties: readonly string[]) {
  const stakeholders = [...new Set([...c.signatories, ...c.observers])];
  const witnesses = parties.length === 0 ? stakeholders : stakeholders.filter((p) => parties.includes(p));
  if (witnesses.length === 0) return null;
  return { createdEvent: renderCreated({ ...c, nodeId: 0 }, 1, witnesses, true, false) };
}
