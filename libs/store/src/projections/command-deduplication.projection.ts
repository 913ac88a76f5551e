import { changeIdOf, parseIsoMicros, TRANSACTION_COMMITTED } from '@ledgerline/domain';
import { projection, type ProjectionRows } from './projection';

const NO_ROWS: ProjectionRows = {};

/**
 * Successful completions of each change (userId, actAs, commandId) of a transaction that carries its submission: what
 * deduplication compares a new submission against (the latest row of the change). A pure function of the committed event.
 *
 * Insert-only and buffered to the end of the batch. The writer does read this table, but never for a change committed in
 * the same batch: a change is registered in flight (InFlightSubmissions) until its batch has committed, so a second
 * submission of it cannot share the batch; other instances' batches are serialized by the ledger-head lock.
 */
export const commandDeduplicationProjection = projection({
  name: 'command-deduplication',
  tables: ['command_deduplication'],
  handles: [TRANSACTION_COMMITTED],
  rows(event) {
    const h = event.update;
    const tx = event.data;
    if (!h || !tx.submission) return NO_ROWS;
    return {
      command_deduplication: [
        {
          change_id: changeIdOf(tx.submission.userId, tx.submission.actAs, tx.commandId),
          completion_offset: h.offset,
          user_id: tx.submission.userId,
          command_id: tx.commandId,
          submission_id: tx.submission.submissionId,
          update_id: h.updateId,
          record_time_micros: parseIsoMicros(h.recordTime).toString(),
        },
      ],
    };
  },
});
