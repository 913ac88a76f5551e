import { COMMAND_REJECTED, completionOf, REASSIGNMENT_COMMITTED, TRANSACTION_COMMITTED } from '@ledgerline/domain';
import { projection, type ProjectionRows } from './projection';

const NO_ROWS: ProjectionRows = {};

/**
 * Command completions (`completionOf`): accepted ones from the updates that carry their submission, rejected ones from
 * CommandRejected events. Insert-only and never read by write decisions, so its rows are buffered to the end of the batch.
 */
export const commandCompletionsProjection = projection({
  name: 'command-completions',
  tables: ['command_completions'],
  handles: [TRANSACTION_COMMITTED, REASSIGNMENT_COMMITTED, COMMAND_REJECTED],
  rows(event) {
    const c = completionOf(event);
    if (!c) return NO_ROWS;
    return {
      command_completions: [
        { completion_offset: c.offset, user_id: c.userId, act_as: c.actAs, completion: JSON.stringify(c) },
      ],
    };
  },
});
