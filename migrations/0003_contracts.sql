-- Projection: contracts, as the ledger model needs them (interactive submission checks inputs against it, reassignment
-- moves contracts between synchronizers, the read side serves active contracts after pruning).
CREATE TABLE contracts (
  contract_id           text    PRIMARY KEY,
  template_id           text    NOT NULL,
  package_name          text    NOT NULL,
  signatories           text[]  NOT NULL,
  stakeholders          text[]  NOT NULL,
  -- 'active' on synchronizer_id; 'in_flight' between an unassign and its assign (on no synchronizer); 'archived'.
  status                text    NOT NULL CHECK (status IN ('active', 'in_flight', 'archived')),
  synchronizer_id       text,
  reassignment_counter  bigint  NOT NULL DEFAULT 0,
  created_offset        bigint  NOT NULL,
  archived_offset       bigint,
  -- The StoredCreatedEvent of its creation (re-rendered by assignments and by pruned-ledger reads).
  created_event         jsonb   NOT NULL
);
CREATE INDEX contracts_active_idx ON contracts (synchronizer_id) WHERE status = 'active';
