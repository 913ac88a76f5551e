import { sql, type Kysely } from 'kysely';
import { isoMicros, type StoredUpdate, type UpdateKind } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

export interface LedgerPosition {
  /** Last assigned offset (0 = empty ledger). */
  ledgerEnd: number;
  /** Record time of the ledger head (every later update has a later record time). */
  recordTime: string;
  /** Updates at or below this offset are pruned (0 = never pruned). */
  prunedUpTo: number;
}

export interface PageRequest {
  /** Exclusive lower bound. */
  after: number;
  /** Inclusive upper bound. */
  upTo: number;
  descending: boolean;
  /** Parties whose index rows select the updates; null reads every update in the range. */
  parties: readonly string[] | null;
  /** Kinds wanted (applied in SQL only for unfiltered reads; party-filtered readers drop other kinds themselves). */
  kinds?: readonly UpdateKind[];
  limit: number;
  /** 'text': the payload comes back as its JSON text, unparsed (for renderers that parse elsewhere). Default 'json'. */
  payloadAs?: 'json' | 'text';
  /**
   * A byte bound on the page (the payloads' JSON text, in UTF-8): rows are returned, in order, while the payloads before
   * each one hold at most this many bytes. So the page stops at the first row that takes it past the bound (which is
   * returned, and the first row always is); a page cut short by it holds more than `maxBytes`. The payloads come back as
   * text, whatever `payloadAs` says.
   */
  maxBytes?: number;
}

interface Row {
  ledger_offset: string;
  update_id: string;
  kind: UpdateKind;
  synchronizer_id: string;
  record_time: string;
  payload: unknown;
}

const toUpdate = (r: Row): StoredUpdate => ({
  offset: Number(r.ledger_offset),
  updateId: r.update_id,
  kind: r.kind,
  synchronizerId: r.synchronizer_id,
  recordTime: r.record_time,
  payload: r.payload,
});

const ALL_KINDS: readonly UpdateKind[] = ['Transaction', 'Reassignment', 'TopologyTransaction'];

/**
 * Reads of the ledger-updates projection. A page costs what the page holds: unfiltered pages walk the offset primary key;
 * party-filtered pages take at most `limit` offsets per requested party from the (party, offset) primary key of
 * `ledger_update_parties`, merge them and join the updates by primary key. Fewer rows than `limit` means the range is
 * exhausted. The range is written as (party, offset) row comparisons, which only that key can serve: with plain offset
 * bounds the planner may walk the offset index (kept for pruning) and filter by party, which reads the whole range for
 * a party that has nothing in it, once per such party.
 */
export class LedgerUpdatesRepository {
  async position(db: Kysely<DB>): Promise<LedgerPosition> {
    const { rows } = await prepared(sql<{ ledger_offset: string; record_time_micros: string; pruned: string }>`
      SELECT h.ledger_offset, h.record_time_micros, COALESCE((SELECT pruned_up_to FROM ledger_pruning WHERE id = 1), 0) AS pruned
      FROM ledger_head h WHERE h.id = 1`).execute(db);
    const r = rows[0];
    return { ledgerEnd: Number(r.ledger_offset), recordTime: isoMicros(BigInt(r.record_time_micros)), prunedUpTo: Number(r.pruned) };
  }

  async ledgerEnd(db: Kysely<DB>): Promise<number> {
    const { rows } = await prepared(sql<{ ledger_offset: string }>`SELECT ledger_offset FROM ledger_head WHERE id = 1`).execute(db);
    return Number(rows[0].ledger_offset);
  }

  async page(db: Kysely<DB>, q: PageRequest): Promise<StoredUpdate[]> {
    const dir = sql.raw(q.descending ? 'DESC' : 'ASC');
    const payload = sql.raw(q.payloadAs === 'text' || q.maxBytes !== undefined ? 'payload::text AS payload' : 'payload');
    // With a byte bound, PostgreSQL renders each payload's text once and sends only the rows within the bound.
    const bounded = (inner: ReturnType<typeof sql>) =>
      q.maxBytes === undefined
        ? inner
        : sql`SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM (
            SELECT p.*, sum(octet_length(p.payload)) OVER (ORDER BY p.ledger_offset ${dir} ROWS UNBOUNDED PRECEDING) - octet_length(p.payload) AS before
            FROM (${inner}) p
          ) w WHERE w.before <= ${q.maxBytes}::bigint ORDER BY ledger_offset ${dir}`;
    if (q.parties === null) {
      const kinds = q.kinds && q.kinds.length < ALL_KINDS.length ? sql`AND kind = ANY(${[...q.kinds]}::text[])` : sql``;
      const { rows } = await prepared(sql<Row>`${bounded(sql`
        SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, ${payload} FROM ledger_updates
        WHERE ledger_offset > ${q.after}::bigint AND ledger_offset <= ${q.upTo}::bigint ${kinds}
        ORDER BY ledger_offset ${dir} LIMIT ${q.limit}::bigint`)}`).execute(db);
      return rows.map(toUpdate);
    }
    if (q.parties.length === 0) return [];
    const { rows } = await prepared(sql<Row>`${bounded(sql`
      SELECT u.ledger_offset, u.update_id, u.kind, u.synchronizer_id, u.record_time, u.${payload}
      FROM (
        SELECT DISTINCT x.o FROM unnest(${[...q.parties]}::text[]) AS p(party)
        CROSS JOIN LATERAL (
          SELECT lup.ledger_offset AS o FROM ledger_update_parties lup
          WHERE lup.party = p.party
            AND (lup.party, lup.ledger_offset) > (p.party, ${q.after}::bigint) AND (lup.party, lup.ledger_offset) <= (p.party, ${q.upTo}::bigint)
          ORDER BY lup.ledger_offset ${dir} LIMIT ${q.limit}::bigint
        ) x
        ORDER BY x.o ${dir} LIMIT ${q.limit}::bigint
      ) c
      JOIN ledger_updates u ON u.ledger_offset = c.o
      ORDER BY u.ledger_offset ${dir}`)}`).execute(db);
    return rows.map(toUpdate);
  }

  async byUpdateId(db: Kysely<DB>, updateId: string): Promise<StoredUpdate | null> {
    return (await this.byUpdateIds(db, [updateId])).get(updateId) ?? null;
  }

  /** The updates at these offsets that exist (at or below the ledger end, not pruned), keyed by offset. */
  async byOffsets(db: Kysely<DB>, offsets: readonly number[]): Promise<Map<number, StoredUpdate>> {
    const { rows } = await prepared(sql<Row>`
      SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM ledger_updates
      WHERE ledger_offset = ANY(${offsets.map(String)}::bigint[])`).execute(db);
    return new Map(rows.map((r) => [Number(r.ledger_offset), toUpdate(r)]));
  }

  /** The transaction whose external transaction hash (multihash hex) is this, or null. */
  async byTransactionHash(db: Kysely<DB>, hash: string): Promise<StoredUpdate | null> {
    const { rows } = await prepared(sql<Row>`
      SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM ledger_updates
      WHERE kind = 'Transaction' AND payload->>'externalTransactionHash' = ${hash}`).execute(db);
    return rows.length ? toUpdate(rows[0]) : null;
  }

  /** The updates with these ids that exist, keyed by update id (one statement whatever the number of ids). */
  async byUpdateIds(db: Kysely<DB>, updateIds: readonly string[]): Promise<Map<string, StoredUpdate>> {
    const { rows } = await prepared(sql<Row>`
      SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM ledger_updates
      WHERE update_id = ANY(${[...updateIds]}::text[])`).execute(db);
    return new Map(rows.map((r) => [r.update_id, toUpdate(r)]));
  }
}
