-- The writer's buffered write (RowBuffer.flush) checks in the statement itself that each compare-and-set update and the
-- ledger head update changed the rows they must: a mismatch raises, so the transaction aborts before anything commits.
-- (The check used to run in the service after the statement; the writer now sends COMMIT right behind the statement,
-- without waiting for its answer, so nothing may be decided after it.)
CREATE OR REPLACE FUNCTION ledgerline_expect_rows(what text, changed bigint, expected bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
  IF changed IS DISTINCT FROM expected THEN
    RAISE EXCEPTION 'projection write % changed % rows, expected % (a row was missing or no longer matched)', what, changed, expected
      USING ERRCODE = 'P0001';
  END IF;
  RETURN changed;
END
$$;
