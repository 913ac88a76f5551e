-- Reassignment: unassignments waiting for (or completed by) their assignment, and the change ids of committed
-- reassignment submissions (command deduplication). Both are projections of 'ReassignmentCommitted' events.

-- One row per unassignment (a batch of unassigns shares one reassignment id). `contracts` lists what it moved:
-- [{"contractId": …, "reassignmentCounter": …}]. `assigned_offset` is set once the assignment completed it.
CREATE TABLE reassignments (
  reassignment_id         text    PRIMARY KEY,
  source_synchronizer     text    NOT NULL,
  target_synchronizer     text    NOT NULL,
  submitter               text    NOT NULL,
  unassigned_offset       bigint  NOT NULL,
  -- ISO-8601 µs: the unassignment's record time, and the end of the submitter's exclusive right to assign (or null).
  unassigned_at           text    NOT NULL,
  assignment_exclusivity  text,
  contracts               jsonb   NOT NULL,
  assigned_offset         bigint
);
CREATE INDEX reassignments_in_flight_idx ON reassignments (target_synchronizer) WHERE assigned_offset IS NULL;

-- The last successful submission of each change id (user, submitter, command id): a resubmission within the
-- deduplication period is rejected with DUPLICATE_COMMAND.
CREATE TABLE reassignment_completions (
  user_id            text    NOT NULL,
  submitter          text    NOT NULL,
  command_id         text    NOT NULL,
  submission_id      text    NOT NULL,
  completion_offset  bigint  NOT NULL,
  record_time        text    NOT NULL,
  PRIMARY KEY (user_id, submitter, command_id)
);
