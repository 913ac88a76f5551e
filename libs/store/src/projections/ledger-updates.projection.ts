import { eventLogData } from './event-json';
import type { ProjectionRows, WildcardProjection } from './projection';

/**
 * Every event that is a ledger update becomes a row of `ledger_updates` (header + payload) and one row per party that
 * may see it in `ledger_update_parties`, whatever its type: the read side serves updates from here. Insert-only and never
 * read by write decisions, so its rows are buffered and written once per batch.
 */
const NO_ROWS: ProjectionRows = {};

export const ledgerUpdatesProjection: WildcardProjection = {
  name: 'ledger-updates',
  tables: ['ledger_update_parties', 'ledger_updates'],
  handles: '*',
  rows(event) {
    const h = event.update;
    if (!h) return NO_ROWS;
    return {
      ledger_updates: [
        {
          ledger_offset: h.offset,
          update_id: h.updateId,
          kind: h.kind,
          synchronizer_id: h.synchronizerId,
          record_time: h.recordTime,
          command_id: h.commandId ?? null,
          seq: event.seq,
          payload: eventLogData(event),
        },
      ],
      ledger_update_parties: [...new Set(h.parties)].map((party) => ({ party, ledger_offset: h.offset })),
    };
  },
};
