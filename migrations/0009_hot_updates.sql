-- Rows that the writer updates again and again (a contract moved between synchronizers, a party's details patched) are
-- updated in place ("HOT" updates: no new index entries, dead versions pruned on the page) when no indexed column
-- changes and the page has room. contracts_active_idx indexed synchronizer_id, which every archive, unassign and assign
-- changes, and no query uses it; the fill factors leave room on each page for the new versions.
DROP INDEX IF EXISTS contracts_active_idx;
ALTER TABLE contracts SET (fillfactor = 70);
ALTER TABLE party_details SET (fillfactor = 70);
