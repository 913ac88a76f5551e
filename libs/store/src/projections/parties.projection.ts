import type { CommittedEvent, PartyAllocatedData, PartyDetailsUpdatedData } from '@ledgerline/domain';
import type { Projection, ProjectionRows } from './projection';

/**
 * party_details: one row per allocated party, written with the batch. PartyDetailsUpdated is a compare-and-increment in
 * the database: the UPDATE only matches the row still at the version the decision read, and the batch fails otherwise
 * (the single writer makes this unreachable; the database enforces it anyway).
 */
export const partiesProjection: Projection = {
  name: 'parties',
  tables: ['party_details'],
  handles: ['PartyAllocated', 'PartyDetailsUpdated'],
  keys: { party_details: 'party' },
  rows(event: CommittedEvent): ProjectionRows {
    if (event.type !== 'PartyAllocated') return {};
    const d = event.data as PartyAllocatedData;
    return {
      party_details: [
        {
          party: d.party,
          is_local: d.isLocal,
          identity_provider_id: d.identityProviderId,
          annotations: JSON.stringify(d.annotations),
          resource_version: 0,
          synchronizer_id: d.synchronizerId,
          allocated_seq: event.seq,
        },
      ],
    };
  },
  updates(event: CommittedEvent) {
    if (event.type !== 'PartyDetailsUpdated') return [];
    const d = event.data as PartyDetailsUpdatedData;
    return [
      {
        table: 'party_details',
        key: { column: 'party', value: d.party },
        set: { annotations: JSON.stringify(d.annotations), resource_version: d.resourceVersion },
        expect: { column: 'resource_version', value: d.previousResourceVersion },
      },
    ];
  },
};
