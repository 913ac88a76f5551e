-- Core: the event log, the ledger head, node secrets, and the user/ledger-update projections.

-- The one append-only log. `seq` orders every event; `ledger_offset` is set only for ledger updates and is strictly
-- increasing in `seq` order. Rows are never updated; pruning (if any) only deletes projection rows.
CREATE TABLE event_log (
  seq            bigint PRIMARY KEY,
  ledger_offset  bigint UNIQUE,
  type           text   NOT NULL,
  stream         text   NOT NULL,
  data           jsonb  NOT NULL,
  header         jsonb,
  recorded_at    text   NOT NULL
);
CREATE INDEX event_log_stream_idx ON event_log (stream, seq);

-- One row: the last assigned seq and ledger offset. Writers lock it (SELECT … FOR UPDATE) for the length of their
-- transaction, so commits happen in offset order even with several service instances on one database.
CREATE TABLE ledger_head (
  id                  int    PRIMARY KEY CHECK (id = 1),
  seq                 bigint NOT NULL,
  ledger_offset       bigint NOT NULL,
  record_time_micros  bigint NOT NULL
);
INSERT INTO ledger_head VALUES (1, 0, 0, 0);

-- Node-local secrets and identity (participant namespace key, generated JWT secret). Not event-sourced.
CREATE TABLE node_secrets (
  name   text PRIMARY KEY,
  value  text NOT NULL
);

-- Projection: users.
CREATE TABLE users (
  id                    text    PRIMARY KEY,
  primary_party         text    NOT NULL DEFAULT '',
  is_deactivated        boolean NOT NULL DEFAULT false,
  annotations           jsonb   NOT NULL DEFAULT '{}',
  resource_version      bigint  NOT NULL DEFAULT 0,
  identity_provider_id  text    NOT NULL DEFAULT '',
  created_seq           bigint  NOT NULL
);
CREATE INDEX users_idp_idx ON users (identity_provider_id, id);

-- Projection: user rights ('' party for rights without a party).
CREATE TABLE user_rights (
  user_id  text NOT NULL,
  kind     text NOT NULL,
  party    text NOT NULL DEFAULT '',
  PRIMARY KEY (user_id, kind, party)
);

-- Projection: ledger updates (what the read side serves) and the parties that may see each one.
CREATE TABLE ledger_updates (
  ledger_offset    bigint PRIMARY KEY,
  update_id        text   NOT NULL UNIQUE,
  kind             text   NOT NULL,
  synchronizer_id  text   NOT NULL,
  record_time      text   NOT NULL,
  command_id       text,
  seq              bigint NOT NULL,
  payload          jsonb  NOT NULL
);
CREATE TABLE ledger_update_parties (
  party          text   NOT NULL,
  ledger_offset  bigint NOT NULL,
  PRIMARY KEY (party, ledger_offset)
);

-- Projection: the pruning offset (updates at or below it are no longer served).
CREATE TABLE ledger_pruning (
  id            int    PRIMARY KEY CHECK (id = 1),
  pruned_up_to  bigint NOT NULL
);
