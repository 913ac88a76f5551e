-- update-by-hash: a transaction is found by its external transaction hash (the prepared-transaction hash its parties
-- signed), which its payload carries. A hash index on that field, for transactions only: an entry is a 4-byte hash
-- code and a row pointer, the smallest index the writer's batch can pay for; transactions without a hash add none.
CREATE INDEX ledger_updates_transaction_hash_idx ON ledger_updates USING hash ((payload->>'externalTransactionHash'))
  WHERE kind = 'Transaction';
