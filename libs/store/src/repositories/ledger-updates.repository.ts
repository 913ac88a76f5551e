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

/** Party filters at least this large try a window of offsets first (see LedgerUpdatesRepository). */
const WINDOW_PARTIES = 8;
/** The window's length in offsets, as a multiple of the page's limit. */
const WINDOW_FACTOR = 4;

/** The payload column: JSON, or its text (asked for, or needed to count a byte bound's bytes). */
const payloadColumn = (q: Pick<PageRequest, 'payloadAs' | 'maxBytes'>) =>
  sql.raw(q.payloadAs === 'text' || q.maxBytes !== undefined ? 'payload::text AS payload' : 'payload');

/** With a byte bound, PostgreSQL renders each payload's text once and sends only the rows within the bound. */
function bounded(q: Pick<PageRequest, 'descending'>, maxBytes: number | undefined, inner: ReturnType<typeof sql>) {
  if (maxBytes === undefined) return inner;
  const dir = sql.raw(q.descending ? 'DESC' : 'ASC');
  return sql`SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM (
      SELECT p.*, sum(octet_length(p.payload)) OVER (ORDER BY p.ledger_offset ${dir} ROWS UNBOUNDED PRECEDING) - octet_length(p.payload) AS before
      FROM (${inner}) p
    ) w WHERE w.before <= ${maxBytes}::bigint ORDER BY ledger_offset ${dir}`;
}

/**
 * Reads of the ledger-updates projection. A page costs what the page holds: unfiltered pages walk the offset primary key;
 * party-filtered pages take at most `limit` offsets per requested party from the (party, offset) primary key of
 * `ledger_update_parties`, merge them and join the updates by primary key. Fewer rows than `limit` means the range is
 * exhausted. The range is written as (party, offset) row comparisons, which only that key can serve: with plain offset
 * bounds the planner may walk the offset index (kept for pruning) and filter by party, which reads the whole range for
 * a party that has nothing in it, once per such party.
 *
 * That costs one index descent per requested party, whatever the page holds: with hundreds of parties it dominates the
 * page. So a filter of `WINDOW_PARTIES` or more parties first walks a bounded window of offsets (`WINDOW_FACTOR` × limit
 * offsets next to the page's start, on the offset index, parties matched by a hashed `= ANY`): where the parties see most
 * updates the page is full there and done. Otherwise the per-party probes read the rest of the range, after the window,
 * for the rows still missing: a page never costs more than the window plus what it cost before.
 */
export class LedgerUpdatesRepository {
  async position(db: Kysely<DB>): Promise<LedgerPosition> {
    const { rows } = await prepared(sql<{ ledger_offset: string; record_time_micros: string; pruned: string }>`
      SELECT h.ledger_offset, h.record_time_micros, COALESCE((SELECT pruned_up_to FROM ledger_pruning WHERE id = 1), 0) AS pruned
      FROM ledger_head h WHERE h.id = 1`).execute(db);
    const r = rows[0];
    return {
      ledgerEnd: Number(r.ledger_offset),
      recordTime: isoMicros(BigInt(r.record_time_micros)),
      prunedUpTo: Number(r.pruned),
    };
  }

  async ledgerEnd(db: Kysely<DB>): Promise<number> {
    const { rows } = await prepared(
      sql<{ ledger_offset: string }>`SELECT ledger_offset FROM ledger_head WHERE id = 1`,
    ).execute(db);
    return Number(rows[0].ledger_offset);
  }

  async page(db: Kysely<DB>, q: PageRequest): Promise<StoredUpdate[]> {
    const dir = sql.raw(q.descending ? 'DESC' : 'ASC');
    const payload = payloadColumn(q);
    if (q.parties === null) {
      const kinds = q.kinds && q.kinds.length < ALL_KINDS.length ? sql`AND kind = ANY(${[...q.kinds]}::text[])` : sql``;
      const { rows } = await prepared(
        sql<Row>`${bounded(
          q,
          q.maxBytes,
          sql`
        SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, ${payload} FROM ledger_updates
        WHERE ledger_offset > ${q.after}::bigint AND ledger_offset <= ${q.upTo}::bigint ${kinds}
        ORDER BY ledger_offset ${dir} LIMIT ${q.limit}::bigint`,
        )}`,
      ).execute(db);
      return rows.map(toUpdate);
    }
    const parties = q.parties;
    if (parties.length === 0) return [];
    if (parties.length < WINDOW_PARTIES) return this.pageByPartyProbes(db, { ...q, parties });
    const span = q.limit * WINDOW_FACTOR;
    // The window: (after, after + span] ascending, (upTo - span, upTo] descending.
    const window = q.descending
      ? { after: Math.max(q.after, q.upTo - span), upTo: q.upTo }
      : { after: q.after, upTo: Math.min(q.upTo, q.after + span) };
    const { rows } = await prepared(
      sql<Row>`${bounded(
        q,
        q.maxBytes,
        sql`
      SELECT u.ledger_offset, u.update_id, u.kind, u.synchronizer_id, u.record_time, u.${payload}
      FROM (
        SELECT DISTINCT lup.ledger_offset AS o FROM ledger_update_parties lup
        WHERE lup.ledger_offset > ${window.after}::bigint AND lup.ledger_offset <= ${window.upTo}::bigint
          AND lup.party = ANY(${[...parties]}::text[])
        ORDER BY 1 ${dir} LIMIT ${q.limit}::bigint
      ) c
      JOIN ledger_updates u ON u.ledger_offset = c.o
      ORDER BY u.ledger_offset ${dir}`,
      )}`,
    ).execute(db);
    const inWindow = rows.map(toUpdate);
    const windowCoversRange = window.after === q.after && window.upTo === q.upTo;
    if (inWindow.length === q.limit || windowCoversRange) return inWindow;
    let maxBytes = q.maxBytes;
    if (maxBytes !== undefined) {
      // The byte bound goes on across both statements: what the window used counts against it.
      const used = inWindow.reduce((n, u) => n + Buffer.byteLength(u.payload as string), 0);
      if (used > maxBytes) return inWindow;
      maxBytes -= used;
    }
    const rest = q.descending ? { after: q.after, upTo: window.after } : { after: window.upTo, upTo: q.upTo };
    return inWindow.concat(
      await this.pageByPartyProbes(db, { ...q, ...rest, parties, maxBytes, limit: q.limit - inWindow.length }),
    );
  }

  /** A party-filtered page by one (party, offset) index probe per party: see the class comment. */
  private async pageByPartyProbes(
    db: Kysely<DB>,
    q: PageRequest & { parties: readonly string[] },
  ): Promise<StoredUpdate[]> {
    const dir = sql.raw(q.descending ? 'DESC' : 'ASC');
    const payload = payloadColumn(q);
    const { rows } = await prepared(
      sql<Row>`${bounded(
        q,
        q.maxBytes,
        sql`
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
      ORDER BY u.ledger_offset ${dir}`,
      )}`,
    ).execute(db);
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
