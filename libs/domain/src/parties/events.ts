import type { NewEvent } from '../ledger/events';
import type { StoredTopologyTransaction, TOPOLOGY_TRANSACTION_COMMITTED } from '../ledger/updates';

/** A party's participant-local record, as the `party_details` projection keeps it. */
export interface PartyRecord {
  party: string;
  /** Hosted on this participant (true for every party allocated here). */
  isLocal: boolean;
  /** '' = the default identity provider. */
  identityProviderId: string;
  annotations: Record<string, string>;
  /** Starts at 0; +1 on every successful update (a no-op included). */
  resourceVersion: number;
  synchronizerId: string;
}

export interface PartyAllocatedData {
  party: string;
  isLocal: boolean;
  identityProviderId: string;
  annotations: Record<string, string>;
  synchronizerId: string;
  participantId: string;
}

export interface PartyDetailsUpdatedData {
  party: string;
  /** The annotations after the merge (the whole map, so the projection needs no read). */
  annotations: Record<string, string>;
  /** The version the decision was made on; the projection's UPDATE matches it (compare-and-increment). */
  previousResourceVersion: number;
  resourceVersion: number;
}

export const PARTY_ALLOCATED = 'PartyAllocated';
export const PARTY_DETAILS_UPDATED = 'PartyDetailsUpdated';

export type PartyEvent =
  | NewEvent<typeof PARTY_ALLOCATED, PartyAllocatedData>
  | NewEvent<typeof PARTY_DETAILS_UPDATED, PartyDetailsUpdatedData>
  | NewEvent<typeof TOPOLOGY_TRANSACTION_COMMITTED, StoredTopologyTransaction>;

export const partyStream = (party: string) => `party:${party}`;

/** Evolve: the record after an event (the projection does the same in SQL). */
export function evolveParty(record: PartyRecord | null, e: PartyEvent): PartyRecord | null {
  switch (e.type) {
    case PARTY_ALLOCATED:
      return {
        party: e.data.party,
        isLocal: e.data.isLocal,
        identityProviderId: e.data.identityProviderId,
        annotations: e.data.annotations,
        resourceVersion: 0,
        synchronizerId: e.data.synchronizerId,
      };
    case PARTY_DETAILS_UPDATED:
      return record ? { ...record, annotations: e.data.annotations, resourceVersion: e.data.resourceVersion } : record;
    default:
      return record;
  }
}
