-- event_log_stream_idx (stream, seq) was made for reading one stream's events, and nothing does: the service's state
-- comes from its projections, and a replay reads the log by seq. Each event still paid for it, inside the writer's batch
-- (which holds the ledger lock): one B-tree insert of its stream name (`transaction:1220…`, ~80 bytes for a
-- transaction), the index pages and their WAL. A tool that needs a stream's events can read them by seq, or create the
-- index again (CREATE INDEX CONCURRENTLY).
DROP INDEX IF EXISTS event_log_stream_idx;
