-- The token registry reads the active contracts of a few templates (the DSO's AmuletRules, rounds, pre-approvals…) on
-- every request; without an index each read scans the whole table, archived contracts included (≈ 130 ms at 100,000
-- rows). template_id never changes, so archives, unassignments and assignments stay HOT updates.
CREATE INDEX contracts_template_idx ON contracts (template_id);
