-- Node state outside the event log (like node_secrets): the static ledger time, and the bootstrap file's applied
-- contract entries. Neither is a projection; a rebuild leaves them alone.

-- Static-time mode (LEDGER_TIME_MODE=static): the ledger's current time, µs since the epoch. One row, written when static
-- mode first starts and whenever the time is set or advanced; it only ever grows (checked by the UPDATE's condition).
CREATE TABLE ledger_time (
  id             boolean  PRIMARY KEY DEFAULT true CHECK (id),
  static_micros  bigint   NOT NULL
);

-- Declarative bootstrap: the contract entries already created (by the key of the entry), so that applying the file
-- again — at every start — creates each contract once.
CREATE TABLE bootstrap_contracts (
  entry_key  text  PRIMARY KEY,
  update_id  text  NOT NULL
);
