import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  ContractLocation,
  StoredActivation,
  StoredContract,
  StoredCreatedEvent,
  StoredIncompleteUnassignment,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

const storedContractOf = (r: Selectable<DB['contracts']>): StoredContract => ({
  contractId: r.contract_id,
  templateId: r.template_id,
  packageName: r.package_name,
  signatories: r.signatories,
  stakeholders: r.stakeholders,
  status: r.status,
  synchronizerId: r.synchronizer_id,
  createdEvent: r.created_event as StoredCreatedEvent,
});

export interface ActivationPageRequest {
  /** The snapshot offset. */
  at: number;
  /** Exclusive lower bound: the activation (offset, node id) after which to read. */
  after: { offset: number; nodeId: number };
  /** Parties whose activations to read (stakeholders); null reads every activation. */
  parties: readonly string[] | null;
  limit: number;
  /**
   * A byte bound on the page (the created events' JSON text, in UTF-8): the page holds the rows whose created events fit
   * in it, and says `cut` when it stopped at one that does not (PostgreSQL sends that one row more, and no other).
   */
  maxBytes?: number;
}

/**
 * A page of activations in activation order. `activations` holds those still active at the snapshot offset; `scanned`
 * how many activations the page went through (fewer than `limit`: nothing is left) and `last` the last one's key, where
 * the next page starts.
 */
export interface ActivationPage {
  activations: StoredActivation[];
  scanned: number;
  last: { offset: number; nodeId: number };
  /** With `maxBytes`: the page's created events' text bytes (else 0). */
  bytes: number;
  /** With `maxBytes`: the page stopped before the row that would take it past the bound (the range may go on). */
  cut: boolean;
}

interface ActivationRow {
  o: string;
  n: number;
  contract_id: string;
  synchronizer_id: string;
  reassignment_counter: string;
  workflow_id: string;
  created_event: StoredCreatedEvent | string | null;
}

/**
 * Reads of the contract projections (migrations 0003, 0014): the active contract set at an offset, single contracts and
 * their locations (routing), and the contracts the transaction builder exercises.
 *
 * A snapshot page costs what it scans: party-filtered pages take at most `limit` activations per requested party from the
 * (party, offset, node) key of `contract_activation_parties` (a `LATERAL` per party), merge them and join the activations
 * by primary key; unfiltered pages walk the activations' primary key. Activations closed at or before the snapshot
 * offset are scanned and left out (pruning deletes those closed at or below the pruning offset), as Canton's ACS
 * reader scans a party's creates and filters the archived ones.
 */
export class ContractsRepository {
  async activationPage(db: Kysely<DB>, q: ActivationPageRequest): Promise<ActivationPage> {
    const active = sql`(a.deactivated_offset IS NULL OR a.deactivated_offset > ${q.at}::bigint)`;
    const event = sql.raw(q.maxBytes === undefined ? 'k.created_event' : 'k.created_event::text AS created_event');
    // With a byte bound, PostgreSQL renders each created event's text once and sends only the rows within the bound.
    const bounded = (inner: ReturnType<typeof sql>) =>
      q.maxBytes === undefined
        ? inner
        : sql`SELECT o, n, contract_id, synchronizer_id, reassignment_counter, workflow_id, created_event FROM (
            SELECT p.*, sum(COALESCE(octet_length(p.created_event), 0)) OVER (ORDER BY p.o, p.n ROWS UNBOUNDED PRECEDING) - COALESCE(octet_length(p.created_event), 0) AS before
            FROM (${inner}) p
          ) w WHERE w.before <= ${q.maxBytes}::bigint ORDER BY o, n`;
    let rows: ActivationRow[];
    if (q.parties === null) {
      ({ rows } = await prepared(
        sql<ActivationRow>`${bounded(sql`
        SELECT a.activated_offset AS o, a.node_id AS n, a.contract_id, a.synchronizer_id, a.reassignment_counter, a.workflow_id, ${event}
        FROM contract_activations a
        LEFT JOIN contracts k ON ${active} AND k.contract_id = a.contract_id
        WHERE (a.activated_offset, a.node_id) > (${q.after.offset}::bigint, ${q.after.nodeId}::int) AND a.activated_offset <= ${q.at}::bigint
        ORDER BY a.activated_offset, a.node_id LIMIT ${q.limit}::bigint`)}`,
      ).execute(db));
    } else {
      if (q.parties.length === 0) return { activations: [], scanned: 0, last: q.after, bytes: 0, cut: false };
      ({ rows } = await prepared(
        sql<ActivationRow>`${bounded(sql`
        SELECT c.o, c.n, a.contract_id, a.synchronizer_id, a.reassignment_counter, a.workflow_id, ${event}
        FROM (
          SELECT DISTINCT x.o, x.n FROM unnest(${[...q.parties]}::text[]) AS p(party)
          CROSS JOIN LATERAL (
            SELECT ap.activated_offset AS o, ap.node_id AS n FROM contract_activation_parties ap
            WHERE ap.party = p.party AND (ap.activated_offset, ap.node_id) > (${q.after.offset}::bigint, ${q.after.nodeId}::int)
              AND ap.activated_offset <= ${q.at}::bigint
            ORDER BY ap.activated_offset, ap.node_id LIMIT ${q.limit}::bigint
          ) x
          ORDER BY x.o, x.n LIMIT ${q.limit}::bigint
        ) c
        JOIN contract_activations a ON a.activated_offset = c.o AND a.node_id = c.n
        LEFT JOIN contracts k ON ${active} AND k.contract_id = a.contract_id
        ORDER BY c.o, c.n`)}`,
      ).execute(db));
    }
    const activations: StoredActivation[] = [];
    let bytes = 0;
    let scanned = 0;
    let cut = false;
    for (const r of rows) {
      const text = typeof r.created_event === 'string' ? r.created_event : null;
      if (text !== null && q.maxBytes !== undefined) {
        const b = Buffer.byteLength(text);
        if (bytes + b > q.maxBytes) {
          cut = true;
          break;
        }
        bytes += b;
      }
      scanned++;
      if (r.created_event === null) continue;
      activations.push({
        offset: Number(r.o),
        nodeId: r.n,
        contractId: r.contract_id,
        synchronizerId: r.synchronizer_id,
        reassignmentCounter: Number(r.reassignment_counter),
        workflowId: r.workflow_id,
        createdEvent:
          text === null ? (r.created_event as StoredCreatedEvent) : (JSON.parse(text) as StoredCreatedEvent),
      });
    }
    const lastRow = scanned ? rows[scanned - 1] : undefined;
    return {
      activations,
      scanned,
      last: lastRow ? { offset: Number(lastRow.o), nodeId: lastRow.n } : q.after,
      bytes,
      cut,
    };
  }

  /**
   * The contracts unassigned at or before `at` whose unassignment is not assigned at or before it, in the order of
   * their unassignment (offset, node id), each with its last activation before the unassignment (the latest earlier
   * assignment of it, else its creation).
   */
  async incompleteUnassignments(db: Kysely<DB>, at: number): Promise<StoredIncompleteUnassignment[]> {
    const { rows } = await sql<{
      reassignment_id: string;
      source_synchronizer: string;
      target_synchronizer: string;
      submitter: string;
      unassigned_offset: string;
      assignment_exclusivity: string | null;
      workflow_id: string;
      node_id: number;
      counter: string;
      stakeholders: string[];
      created_event: StoredCreatedEvent;
      created_offset: string;
      prior_offset: string | null;
      prior_node: number | null;
    }>`
      SELECT r.reassignment_id, r.source_synchronizer, r.target_synchronizer, r.submitter, r.unassigned_offset, r.assignment_exclusivity,
             r.workflow_id, (x.ord - 1)::int AS node_id, (x.c->>'reassignmentCounter')::bigint AS counter, k.stakeholders, k.created_event,
             k.created_offset, prior.assigned_offset AS prior_offset, prior.node_id AS prior_node
      FROM reassignments r
      CROSS JOIN LATERAL jsonb_array_elements(r.contracts) WITH ORDINALITY AS x(c, ord)
      JOIN contracts k ON k.contract_id = x.c->>'contractId'
      LEFT JOIN LATERAL (
        SELECT a.assigned_offset, (y.ord - 1)::int AS node_id
        FROM reassignments r2
        JOIN reassignment_assignments a ON a.reassignment_id = r2.reassignment_id AND a.assigned_offset < r.unassigned_offset
        CROSS JOIN LATERAL jsonb_array_elements(r2.contracts) WITH ORDINALITY AS y(c, ord)
        WHERE r2.contracts @> jsonb_build_array(jsonb_build_object('contractId', k.contract_id)) AND y.c->>'contractId' = k.contract_id
        ORDER BY a.assigned_offset DESC LIMIT 1
      ) prior ON true
      WHERE r.unassigned_offset <= ${at}::bigint
        AND NOT EXISTS (SELECT 1 FROM reassignment_assignments a WHERE a.reassignment_id = r.reassignment_id AND a.assigned_offset <= ${at}::bigint)
      ORDER BY r.unassigned_offset, node_id`.execute(db);
    return rows.map((r) => ({
      reassignmentId: r.reassignment_id,
      source: r.source_synchronizer,
      target: r.target_synchronizer,
      submitter: r.submitter,
      unassignedOffset: Number(r.unassigned_offset),
      assignmentExclusivity: r.assignment_exclusivity,
      workflowId: r.workflow_id,
      nodeId: r.node_id,
      reassignmentCounter: Number(r.counter),
      stakeholders: r.stakeholders,
      createdEvent: r.created_event,
      activatedAt:
        r.prior_offset === null
          ? { offset: Number(r.created_offset), nodeId: r.created_event.nodeId }
          : { offset: Number(r.prior_offset), nodeId: r.prior_node! },
    }));
  }

  /** A contract's created event and where its creation and archive are in the ledger, or null if unknown. */
  async contract(
    db: Kysely<DB>,
    contractId: string,
  ): Promise<{ createdEvent: StoredCreatedEvent; createdOffset: number; archivedOffset: number | null } | null> {
    const { rows } = await prepared(sql<{
      created_event: StoredCreatedEvent;
      created_offset: string;
      archived_offset: string | null;
    }>`
      SELECT created_event, created_offset, archived_offset FROM contracts WHERE contract_id = ${contractId}`).execute(
      db,
    );
    const r = rows[0];
    if (!r) return null;
    return {
      createdEvent: r.created_event,
      createdOffset: Number(r.created_offset),
      archivedOffset: r.archived_offset === null ? null : Number(r.archived_offset),
    };
  }

  /** A contract as the transaction builder needs it to exercise it (any status), or null if unknown. */
  async get(db: Kysely<DB>, contractId: string): Promise<StoredContract | null> {
    const r = await db.selectFrom('contracts').selectAll().where('contract_id', '=', contractId).executeTakeFirst();
    return r ? storedContractOf(r) : null;
  }

  /**
   * Where the ledger has these contracts now, for routing: the status and synchronizer (an archived contract's: that of
   * the update that archived it); unknown ones are absent.
   */
  async locations(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, ContractLocation>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('contracts as c')
      .leftJoin('ledger_updates as u', (j) =>
        j.on('c.status', '=', 'archived').onRef('u.ledger_offset', '=', 'c.archived_offset'),
      )
      .select(['c.contract_id', 'c.status', 'c.synchronizer_id', 'u.synchronizer_id as archived_on'])
      .where('c.contract_id', 'in', [...ids])
      .execute();
    return new Map(
      rows.map((r) => [r.contract_id, { status: r.status, synchronizerId: r.synchronizer_id ?? r.archived_on }]),
    );
  }

  /** The contracts with these ids that the ledger knows (any status). */
  async getMany(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, StoredContract>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', 'in', [...ids])
      .execute();
    return new Map(rows.map((r) => [r.contract_id, storedContractOf(r)]));
  }
}
