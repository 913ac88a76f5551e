import type { CommittedEvent, PartyAllocatedData, PartyDetailsUpdatedData } from '@ledgerline/domain';
import type { Projection } from './registry';

/**
 * party_details: one row per allocated party. PartyDetailsUpdated is a compare-and-increment in the database: the UPDATE
 * only matches the row still at the version the decision read, and fails the work otherwise (the single writer makes this
 * unreachable; the database enforces it anyway).
 */
export const partiesProjection: Projection = {
  name: 'parties',
  tables: ['party_details'],
  handles: ['PartyAllocated', 'PartyDetailsUpdated'],
  async apply(trx, event: CommittedEvent) {
    if (event.type === 'PartyAllocated') {
      const d = event.data as PartyAllocatedData;
      await trx
        .insertInto('party_details')
        .values({
          party: d.party,
          is_local: d.isLocal,
          identity_provider_id: d.identityProviderId,
          annotations: JSON.stringify(d.annotations),
          resource_version: 0,
          synchronizer_id: d.synchronizerId,
          allocated_seq: event.seq,
        })
        .execute();
      return;
    }
    const d = event.data as PartyDetailsUpdatedData;
    const res = await trx
      .updateTable('party_details')
      .set({ annotations: JSON.stringify(d.annotations), resource_version: d.resourceVersion })
      .where('party', '=', d.party)
      .where('resource_version', '=', d.previousResourceVersion)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      throw new Error(`party_details compare-and-increment failed for ${d.party}: expected version ${d.previousResourceVersion}`);
    }
  },
};
