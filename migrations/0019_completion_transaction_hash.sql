-- completion-by-hash (Canton 3.5.10): completions are found by the transaction hash of an externally signed transaction,
-- which the rendered completion carries (base64 of the multihash; '' for commands of local parties). A hash index on that
-- field for the completions that have one, as update-by-hash has on ledger_updates (migration 0015); others add no entry.
-- Rejected completions carry the hash from this version on; earlier ones keep ''.
CREATE INDEX command_completions_transaction_hash_idx ON command_completions USING hash ((completion->>'transactionHash'))
  WHERE completion->>'transactionHash' <> '';
