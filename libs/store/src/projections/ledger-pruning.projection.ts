import { sql } from 'kysely';
import { LEDGER_PRUNED } from '@ledgerline/domain';
import { projection } from './projection';

/**
 * 'LedgerPruned' moves the pruning offset and removes the ledger-update rows at or below it that are no longer needed:
 * every update there goes, except the transactions that created a contract which is still not archived (active or in
 * flight), so that the contracts the ledger still holds stay readable by update id. Each pruning re-examines the kept
 * rows, so a creation is dropped once its contract is archived and the ledger is pruned past it again. Contract
 * activations closed at or below the offset go too: no active contract set at or above it contains them; and so do the
 * command completions at or below it. The event log itself keeps everything, so a rebuild replays the same deletions.
 */
export const ledgerPruningProjection = projection({
  name: 'ledger-pruning',
  tables: ['ledger_pruning'],
  handles: [LEDGER_PRUNED],
  needsBufferedRows: true,
  async apply(trx, event) {
    const upTo = event.data.prunedUpTo;
    await sql`
      INSERT INTO ledger_pruning (id, pruned_up_to) VALUES (1, ${upTo})
      ON CONFLICT (id) DO UPDATE SET pruned_up_to = GREATEST(ledger_pruning.pruned_up_to, EXCLUDED.pruned_up_to)`.execute(
      trx,
    );
    // Each statement's cost follows the rows at or below the offset, not the tables' size (pruning runs in steps, see
    // pruning.ts): a transaction's created contracts are found through its own payload and the contracts' key, the
    // party rows through the deleted updates (`= ANY (ARRAY(…))`: an index scan, whatever the estimate of the range),
    // the closed activations through the activation key (a deactivation never precedes its activation).
    await sql`
      WITH gone AS (
        DELETE FROM ledger_updates u
        WHERE u.ledger_offset <= ${upTo}
          AND NOT (u.kind = 'Transaction' AND EXISTS (
            SELECT 1 FROM jsonb_array_elements(u.payload->'events') e
            JOIN contracts c ON c.contract_id = e->'CreatedEvent'->>'contractId'
            WHERE c.created_offset = u.ledger_offset AND c.status <> 'archived'))
        RETURNING u.ledger_offset)
      DELETE FROM ledger_update_parties p WHERE p.ledger_offset = ANY (ARRAY(SELECT ledger_offset FROM gone))`.execute(
      trx,
    );
    await sql`
      WITH closed AS (
        DELETE FROM contract_activations a WHERE a.activated_offset <= ${upTo} AND a.deactivated_offset <= ${upTo}
        RETURNING a.activated_offset, a.node_id, a.contract_id)
      DELETE FROM contract_activation_parties p USING closed c, contracts k
      WHERE k.contract_id = c.contract_id AND p.party = ANY(k.stakeholders) AND p.activated_offset = c.activated_offset AND p.node_id = c.node_id`.execute(
      trx,
    );
    await sql`DELETE FROM command_completions WHERE completion_offset <= ${upTo}`.execute(trx);
  },
});
