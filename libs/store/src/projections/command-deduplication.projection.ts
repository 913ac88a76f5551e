import { changeIdOf, parseIsoMicros, TRANSACTION_COMMITTED, type StoredTransaction } from '@ledgerline/domain';
import type { Projection } from './registry';

/**
 * The last successful completion of each change (userId, actAs, commandId) of a transaction that carries its submission:
 * what deduplication compares a new submission against. A pure function of the committed event (offset, update id and
 * record time come from its header).
 */
export const commandDeduplicationProjection: Projection = {
  name: 'command-deduplication',
  tables: ['command_deduplication'],
  handles: [TRANSACTION_COMMITTED],
  async apply(trx, event) {
    const h = event.update;
    const tx = event.data as StoredTransaction;
    if (!h || !tx.submission) return;
    const row = {
      change_id: changeIdOf(tx.submission.userId, tx.submission.actAs, tx.commandId),
      user_id: tx.submission.userId,
      act_as: [...new Set(tx.submission.actAs)].sort(),
      command_id: tx.commandId,
      submission_id: tx.submission.submissionId,
      completion_offset: h.offset,
      update_id: h.updateId,
      record_time_micros: parseIsoMicros(h.recordTime).toString(),
    };
    await trx
      .insertInto('command_deduplication')
      .values(row)
      .onConflict((oc) =>
        oc.column('change_id').doUpdateSet({
          submission_id: row.submission_id,
          completion_offset: row.completion_offset,
          update_id: row.update_id,
          record_time_micros: row.record_time_micros,
        }),
      )
      .execute();
  },
};
