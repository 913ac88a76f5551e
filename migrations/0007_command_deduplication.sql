-- Projection: successful completions of changes (userId, actAs, commandId) of interactive submissions, for command
-- deduplication; the latest row of a change_id is its last success. change_id = sha256 of the change
-- (libs/domain/src/ledger-model/deduplication.ts changeIdOf). Insert-only.
CREATE TABLE command_deduplication (
  change_id           text    NOT NULL,
  completion_offset   bigint  NOT NULL,
  user_id             text    NOT NULL,
  command_id          text    NOT NULL,
  submission_id       text    NOT NULL,
  update_id           text    NOT NULL,
  record_time_micros  bigint  NOT NULL,
  PRIMARY KEY (change_id, completion_offset)
);
