-- Projection: the last successful completion of each change (userId, actAs, commandId), for command deduplication of
-- interactive submissions. change_id = sha256 of the change (libs/domain/src/ledger-model/deduplication.ts changeIdOf).
CREATE TABLE command_deduplication (
  change_id           text    PRIMARY KEY,
  user_id             text    NOT NULL,
  act_as              text[]  NOT NULL,
  command_id          text    NOT NULL,
  submission_id       text    NOT NULL,
  completion_offset   bigint  NOT NULL,
  update_id           text    NOT NULL,
  record_time_micros  bigint  NOT NULL
);
