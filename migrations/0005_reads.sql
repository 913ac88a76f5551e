-- Reads: the update stream pages through ledger_updates (primary key = offset) and, for party-filtered reads, through
-- ledger_update_parties (primary key = party, offset), both already indexed by 0001. Pruning adds:
--   * ledger_update_parties by offset alone, so pruning deletes a range without scanning every party;
--   * contracts by creating offset, so pruning keeps the creating updates of contracts that are still active.
CREATE INDEX ledger_update_parties_offset_idx ON ledger_update_parties (ledger_offset);
CREATE INDEX contracts_created_offset_idx ON contracts (created_offset);
