-- Projection: command completions, the completion stream's rows. One row per completion offset: an accepted completion
-- at its update's offset (a transaction or reassignment that carries its submission), a rejected one at the offset of its
-- CommandRejected event. `completion` is the Completion as the JSON API renders it, with every actAs party; a request
-- sees it with actAs cut down to its parties. Insert-only; pruning deletes rows at or below the pruning offset.
CREATE TABLE command_completions (
  completion_offset  bigint  PRIMARY KEY,
  user_id            text    NOT NULL,
  act_as             text[]  NOT NULL,
  completion         jsonb   NOT NULL
);
-- A request reads one user's completions in offset order, then keeps those of its parties.
CREATE INDEX command_completions_user_offset ON command_completions (user_id, completion_offset);

-- The completions of the updates committed before this migration, as the projection renders them (completionOf in
-- libs/domain/src/command-completions/completion.ts): accepted ones only, since no CommandRejected event precedes this
-- migration; none at or below the pruning offset. A test checks that this equals the projection's own rows.
INSERT INTO command_completions (completion_offset, user_id, act_as, completion)
SELECT e.ledger_offset, s.user_id, s.act_as, jsonb_build_object(
    'commandId', e.data ->> 'commandId',
    'status', jsonb_build_object('code', 0, 'message', '', 'details', '[]'::jsonb),
    'updateId', e.header ->> 'updateId',
    'userId', s.user_id,
    'actAs', to_jsonb(s.act_as),
    'submissionId', e.data -> 'submission' ->> 'submissionId',
    'deduplicationPeriod', s.deduplication_period,
    'traceContext', NULL,
    'offset', e.ledger_offset,
    'synchronizerTime', jsonb_build_object('synchronizerId', e.header ->> 'synchronizerId', 'recordTime', e.header ->> 'recordTime'),
    'paidTrafficCost', 0,
    'transactionHash', s.transaction_hash)
FROM event_log e
CROSS JOIN LATERAL (
  SELECT
    e.data -> 'submission' ->> 'userId' AS user_id,
    CASE WHEN e.type = 'TransactionCommitted'
      THEN ARRAY(SELECT jsonb_array_elements_text(e.data -> 'submission' -> 'actAs'))
      ELSE ARRAY[e.data -> 'submission' ->> 'submitter'] END AS act_as,
    CASE WHEN e.type = 'TransactionCommitted' THEN COALESCE(e.data -> 'submission' -> 'deduplicationPeriod', '{"Empty": {}}') ELSE '{"Empty": {}}' END
      AS deduplication_period,
    CASE WHEN e.type = 'TransactionCommitted' AND COALESCE(e.data ->> 'externalTransactionHash', '') <> ''
      THEN translate(encode(decode(e.data ->> 'externalTransactionHash', 'hex'), 'base64'), E'\n', '') ELSE '' END AS transaction_hash
) s
WHERE e.type IN ('TransactionCommitted', 'ReassignmentCommitted')
  AND jsonb_typeof(e.data -> 'submission') = 'object'
  AND e.ledger_offset > COALESCE((SELECT pruned_up_to FROM ledger_pruning WHERE id = 1), 0);
