-- The in-flight lookup of a contract's pending unassignment (`contracts @> [{contractId}]`) must not scan every
-- reassignment ever made.
CREATE INDEX reassignments_contracts_idx ON reassignments USING gin (contracts jsonb_path_ops);
