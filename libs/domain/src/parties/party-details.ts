import type { PartyRecord } from './events';

/** PartyDetails as the API returns it (wire codec renders it). */
export interface PartyDetailsView {
  party: string;
  isLocal: boolean;
  /** '' when no record is visible. */
  resourceVersion: string;
  annotations: Record<string, string>;
  identityProviderId: string;
}

export const fullDetails = (r: PartyRecord): PartyDetailsView => ({
  party: r.party,
  isLocal: r.isLocal,
  resourceVersion: String(r.resourceVersion),
  annotations: r.annotations,
  identityProviderId: r.identityProviderId,
});

/**
 * IDP blinding (Canton's ApiPartyManagementService.blindAndConvertToProto, ledger-api-core: platform/apiserver/services/
 * admin/): a record in the requested provider is shown in full; with the default provider
 * requested, a party elsewhere keeps its `isLocal` but shows no metadata and provider ''; with another provider requested,
 * a party not in it shows `isLocal: false`, no metadata and provider ''.
 */
export function blindPartyDetails(record: PartyRecord, requestedIdp: string): PartyDetailsView {
  if (record.identityProviderId === requestedIdp) return fullDetails(record);
  return {
    party: record.party,
    isLocal: requestedIdp === '' ? record.isLocal : false,
    resourceVersion: '',
    annotations: {},
    identityProviderId: '',
  };
}
