-- Projection: the activations of contracts on synchronizers, for the active contract set at any unpruned offset.
-- One row per activation event: a create (counter 0) or an assignment (the unassignment's counter) on a synchronizer.
-- A row is closed by the next deactivation of its contract (archive or unassignment): `deactivated_offset` is set and
-- `open_contract` cleared. So a contract is active on `synchronizer_id` at offset X iff a row has
-- activated_offset <= X and (deactivated_offset IS NULL OR deactivated_offset > X).
-- `open_contract` (the contract id while the row is open) finds a contract's open row when it is deactivated.
CREATE TABLE contract_activations (
  activated_offset      bigint   NOT NULL,
  -- the activating event's node id within its update (its order there)
  node_id               integer  NOT NULL,
  contract_id           text     NOT NULL,
  synchronizer_id       text     NOT NULL,
  reassignment_counter  bigint   NOT NULL,
  workflow_id           text     NOT NULL,
  open_contract         text,
  deactivated_offset    bigint,
  PRIMARY KEY (activated_offset, node_id)
) WITH (fillfactor = 80);
CREATE UNIQUE INDEX contract_activations_open_idx ON contract_activations (open_contract);

-- The stakeholders of each activation, keyed so that a party's activations are read in activation order.
CREATE TABLE contract_activation_parties (
  party             text     NOT NULL,
  activated_offset  bigint   NOT NULL,
  node_id           integer  NOT NULL,
  PRIMARY KEY (party, activated_offset, node_id)
);

-- The unassignment's workflow id (an incomplete-unassigned entry of the active contract set shows it).
ALTER TABLE reassignments ADD COLUMN workflow_id text NOT NULL DEFAULT '';

-- Backfill from the event log, as the projection would have written it (a ledger migrated with data keeps an exact
-- active contract set at every unpruned offset).
UPDATE reassignments r SET workflow_id = COALESCE(e.data->>'workflowId', '')
FROM event_log e WHERE e.ledger_offset = r.unassigned_offset AND e.type = 'ReassignmentCommitted';

INSERT INTO contract_activations (activated_offset, node_id, contract_id, synchronizer_id, reassignment_counter, workflow_id)
SELECT e.ledger_offset, (ev->'CreatedEvent'->>'nodeId')::int, ev->'CreatedEvent'->>'contractId', e.header->>'synchronizerId', 0,
       COALESCE(e.data->>'workflowId', '')
FROM event_log e CROSS JOIN LATERAL jsonb_array_elements(e.data->'events') AS ev
WHERE e.type = 'TransactionCommitted' AND ev ? 'CreatedEvent' AND (ev->'CreatedEvent'->>'acsDelta')::boolean
UNION ALL
SELECT e.ledger_offset, (ev->'Assigned'->'createdEvent'->>'nodeId')::int, ev->'Assigned'->'createdEvent'->>'contractId',
       e.header->>'synchronizerId', (ev->'Assigned'->>'reassignmentCounter')::bigint, COALESCE(e.data->>'workflowId', '')
FROM event_log e CROSS JOIN LATERAL jsonb_array_elements(e.data->'events') AS ev
WHERE e.type = 'ReassignmentCommitted' AND ev ? 'Assigned';

UPDATE contract_activations a SET deactivated_offset = d.o
FROM (
  SELECT a2.activated_offset, a2.node_id, min(x.o) AS o
  FROM contract_activations a2
  JOIN (
    SELECT e.ledger_offset AS o, COALESCE(ev->'ArchivedEvent'->>'contractId', ev->'Unassigned'->>'contractId') AS cid
    FROM event_log e CROSS JOIN LATERAL jsonb_array_elements(e.data->'events') AS ev
    WHERE e.type IN ('TransactionCommitted', 'ReassignmentCommitted') AND (ev ? 'ArchivedEvent' OR ev ? 'Unassigned')
  ) x ON x.cid = a2.contract_id AND x.o > a2.activated_offset
  GROUP BY a2.activated_offset, a2.node_id
) d
WHERE a.activated_offset = d.activated_offset AND a.node_id = d.node_id;

UPDATE contract_activations SET open_contract = contract_id WHERE deactivated_offset IS NULL;

DELETE FROM contract_activations
WHERE deactivated_offset <= COALESCE((SELECT pruned_up_to FROM ledger_pruning WHERE id = 1), 0);

INSERT INTO contract_activation_parties (party, activated_offset, node_id)
SELECT DISTINCT s.party, a.activated_offset, a.node_id
FROM contract_activations a JOIN contracts c ON c.contract_id = a.contract_id CROSS JOIN LATERAL unnest(c.stakeholders) AS s(party);
