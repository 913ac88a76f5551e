-- Reassignment: unassignments and their completion by an assignment, and the change ids of committed reassignment
-- submissions (command deduplication). Projections of 'ReassignmentCommitted' events; all three are insert-only, so the
-- event store writes their rows once per group commit.

-- One row per unassignment (a batch of unassigns shares one reassignment id). `contracts` lists what it moved:
-- [{"contractId": …, "reassignmentCounter": …}].
CREATE TABLE reassignments (
  reassignment_id         text    PRIMARY KEY,
  source_synchronizer     text    NOT NULL,
  target_synchronizer     text    NOT NULL,
  submitter               text    NOT NULL,
  unassigned_offset       bigint  NOT NULL,
  -- ISO-8601 µs: the unassignment's record time, and the end of the submitter's exclusive right to assign (or null).
  unassigned_at           text    NOT NULL,
  assignment_exclusivity  text,
  contracts               jsonb   NOT NULL
);

-- The assignment that completed an unassignment (at most one).
CREATE TABLE reassignment_assignments (
  reassignment_id  text    PRIMARY KEY,
  assigned_offset  bigint  NOT NULL
);

-- Every successful submission of a change id (user, submitter, command id); the latest one decides whether a
-- resubmission within the deduplication period is a DUPLICATE_COMMAND.
CREATE TABLE reassignment_completions (
  user_id            text    NOT NULL,
  submitter          text    NOT NULL,
  command_id         text    NOT NULL,
  completion_offset  bigint  NOT NULL,
  submission_id      text    NOT NULL,
  record_time        text    NOT NULL,
  PRIMARY KEY (user_id, submitter, command_id, completion_offset)
);
