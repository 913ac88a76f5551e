import { sql, type Kysely } from 'kysely';
import type { CommittedEvent, UpdateHeader } from '@ledgerline/domain';
import type { DB } from './schema';
import { projectionTables } from './projections/registry';
import { ProjectionReplay } from './writer';

/**
 * Recreates every projection from the event log alone: empties the projection tables, then replays the log in `seq` order
 * through the same projection code the writer uses. Runs in one transaction holding the ledger-head lock, so no write
 * interleaves with the replay and readers see either the old or the rebuilt projections.
 */
export async function rebuildProjections(db: Kysely<DB>, opts: { chunk?: number } = {}): Promise<{ events: number }> {
  const chunk = opts.chunk ?? 2000;
  let count = 0;
  await db.transaction().execute(async (trx) => {
    await sql`SELECT 1 FROM ledger_head WHERE id = 1 FOR UPDATE`.execute(trx);
    await sql.raw(`TRUNCATE ${projectionTables().join(', ')}`).execute(trx);
    let after = 0;
    const replay = new ProjectionReplay(trx);
    for (;;) {
      const rows = await trx
        .selectFrom('event_log')
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(chunk)
        .execute();
      if (rows.length === 0) break;
      for (const r of rows) {
        const event: CommittedEvent = {
          seq: Number(r.seq),
          type: r.type,
          stream: r.stream,
          data: r.data,
          update: (r.header as UpdateHeader | null) ?? undefined,
          offset: r.ledger_offset === null ? undefined : Number(r.ledger_offset),
          recordedAt: r.recorded_at,
        };
        await replay.apply(event);
        count++;
      }
      await replay.flush();
      after = Number(rows[rows.length - 1].seq);
    }
  });
  return { events: count };
}

/** Every projection row, table by table, in primary-key order: used to compare live and rebuilt projections. */
export async function dumpProjections(db: Kysely<DB>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of projectionTables()) {
    const { rows } = await sql
      .raw<Record<string, unknown>>(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY 1`)
      .execute(db);
    out[table] = rows.map((r) => r.row).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return out;
}
