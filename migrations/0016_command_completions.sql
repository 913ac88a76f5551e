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
