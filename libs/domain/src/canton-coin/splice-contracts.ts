import type { StoredCreatedEvent } from '../ledger/updates';

/**
 * Contracts as Splice's Scan and validator APIs render them (`Contract`, `ContractWithState` in Splice's OpenAPI files
 * `scan.yaml` / `scan-proxy.yaml`): the template id `packageId:Module:Entity`, the create argument in the JSON API's
 * Daml-LF encoding (the encoding Splice's `payload` uses), the created-event blob for disclosure, the creation time.
 */
export interface SpliceContract {
  template_id: string;
  contract_id: string;
  payload: unknown;
  created_event_blob: string;
  created_at: string;
}

export interface SpliceContractWithState {
  contract: SpliceContract;
  domain_id?: string;
}

export function spliceContract(event: StoredCreatedEvent): SpliceContract {
  return {
    template_id: event.templateId,
    contract_id: event.contractId,
    payload: event.createArgument,
    created_event_blob: event.createdEventBlob,
    created_at: event.createdAt,
  };
}

export function spliceContractWithState(
  event: StoredCreatedEvent,
  synchronizerId: string | null,
): SpliceContractWithState {
  return synchronizerId === null
    ? { contract: spliceContract(event) }
    : { contract: spliceContract(event), domain_id: synchronizerId };
}
