import { PARTY_ALLOCATED, PARTY_DETAILS_UPDATED } from '@ledgerline/domain';
import { projection, type ProjectionRows } from './projection';

/**
 * party_details: one row per allocated party, written with the batch. PartyDetailsUpdated is a compare-and-increment in
 * the database: the UPDATE only matches the row still at the version the decision read, and the batch fails otherwise
 * (the single writer makes this unreachable; the database enforces it anyway).
 */
export const partiesProjection = projection({
  name: 'parties',
  tables: ['party_details'],
  handles: [PARTY_ALLOCATED, PARTY_DETAILS_UPDATED],
  keys: { party_details: 'party' },
  rows(event): ProjectionRows {
    if (event.type !== PARTY_ALLOCATED) return {};
    const d = event.data;
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
  updates(event) {
    if (event.type !== PARTY_DETAILS_UPDATED) return [];
    const d = event.data;
    return [
      {
        table: 'party_details',
        key: { column: 'party', value: d.party },
        set: { annotations: JSON.stringify(d.annotations), resource_version: d.resourceVersion },
        expect: { column: 'resource_version', value: d.previousResourceVersion },
      },
    ];
  },
});
