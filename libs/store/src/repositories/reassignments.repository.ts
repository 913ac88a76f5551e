import { sql, type Kysely } from 'kysely';
import type { ReassignableContract, ReassignmentChange, ReassignmentCompletion, UnassignmentRecord } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { StateLoader } from '../event-store';
import { prepared } from '../database';

/** What an unassign decision reads: the change id's last completion and the named contracts. */
export interface UnassignState {
  completion: ReassignmentCompletion | null;
  contracts: Map<string, ReassignableContract>;
  /** Whether the submitter is hosted on this participant. */
  submitterHosted: boolean;
}

/** What an assign decision reads: the change id's last completion, the unassignment and its contracts. */
export interface AssignState extends UnassignState {
  unassignment: UnassignmentRecord | null;
}

/** An unassign's keys: its change and the contracts it names. */
export interface UnassignKey extends ReassignmentChange {
  contractIds: readonly string[];
}

/** An assign's keys: its change and the unassignment it completes. */
export interface AssignKey extends ReassignmentChange {
  reassignmentId: string;
}

/*
 * The loaders below read many submissions at once: each key is a row `k` of an unnest(…) WITH ORDINALITY, and every
 * piece of state is a scalar subquery correlated with it.
 */

/**
 * "Hosted on this participant": the party is allocated here as a local party (party_details.is_local). The one place to
 * change if hosting becomes per synchronizer.
 */
const hostedSql = sql<boolean | null>`(SELECT is_local FROM party_details WHERE party = k.submitter)`;

const completionSql = sql<ReassignmentCompletion | null>`(
  SELECT json_build_object('submissionId', submission_id, 'completionOffset', completion_offset, 'recordTime', record_time)
  FROM reassignment_completions WHERE user_id = k.user_id AND submitter = k.submitter AND command_id = k.command_id
  ORDER BY completion_offset DESC LIMIT 1)`;

/**
 * Contracts as JSON objects. With `inFlightTarget`, an in-flight one also carries the target of its pending
 * unassignment (only the unassign path needs it, for its error message).
 */
const contractJson = (inFlightTarget: boolean) => sql`json_build_object(
  'contractId', c.contract_id, 'templateId', c.template_id, 'packageName', c.package_name, 'stakeholders', c.stakeholders,
  'status', c.status, 'synchronizerId', c.synchronizer_id, 'reassignmentCounter', c.reassignment_counter,
  'createdEvent', c.created_event${inFlightTarget ? sql`,
  'inFlightTarget', CASE WHEN c.status = 'in_flight' THEN (
    SELECT r.target_synchronizer FROM reassignments r
    WHERE r.contracts @> jsonb_build_array(jsonb_build_object('contractId', c.contract_id))
      AND NOT EXISTS (SELECT 1 FROM reassignment_assignments a WHERE a.reassignment_id = r.reassignment_id)
    ORDER BY r.unassigned_offset DESC LIMIT 1) END` : sql``})`;

const toMap = (rows: ReassignableContract[] | null) =>
  new Map((rows ?? []).map((c) => [c.contractId, { ...c, reassignmentCounter: Number(c.reassignmentCounter) }]));

const changeArrays = (keys: readonly ReassignmentChange[]) =>
  sql`${keys.map((k) => k.userId)}::text[], ${keys.map((k) => k.submitter)}::text[], ${keys.map((k) => k.commandId)}::text[]`;

type UnassignmentRow = (Omit<UnassignmentRecord, 'completed'> & { assignedOffset: number | null }) | null;

/** The keys of one reassignment submission: an unassign (its contracts) or an assign (its unassignment). */
export type ReassignmentKey = ({ kind: 'unassign' } & UnassignKey) | ({ kind: 'assign' } & AssignKey);

type StateRow = {
  kind: 'u' | 'a';
  n: string;
  completion: ReassignmentCompletion | null;
  unassignment: UnassignmentRow;
  contracts: ReassignableContract[] | null;
  hosted: boolean | null;
};

const unassignSelect = (keys: readonly UnassignKey[]) => sql`
  SELECT 'u' AS kind, k.n, ${completionSql} AS completion, ${hostedSql} AS hosted, NULL::json AS unassignment,
    (SELECT json_agg(${contractJson(true)}) FROM contracts c
      WHERE c.contract_id = ANY (ARRAY(SELECT jsonb_array_elements_text(k.ids)))) AS contracts
  FROM unnest(${changeArrays(keys)}, ${keys.map((k) => JSON.stringify(k.contractIds))}::jsonb[])
    WITH ORDINALITY AS k(user_id, submitter, command_id, ids, n)`;

const assignSelect = (keys: readonly AssignKey[]) => sql`
  SELECT 'a' AS kind, k.n, ${completionSql} AS completion, ${hostedSql} AS hosted,
    (SELECT json_build_object('reassignmentId', reassignment_id, 'source', source_synchronizer, 'target', target_synchronizer,
        'submitter', submitter, 'assignmentExclusivity', assignment_exclusivity, 'contracts', contracts,
        'assignedOffset', (SELECT assigned_offset FROM reassignment_assignments a WHERE a.reassignment_id = r.reassignment_id))
      FROM reassignments r WHERE r.reassignment_id = k.reassignment_id) AS unassignment,
    (SELECT json_agg(${contractJson(false)}) FROM contracts c
      WHERE c.contract_id = ANY (ARRAY(SELECT jsonb_array_elements(r.contracts) ->> 'contractId' FROM reassignments r
                                       WHERE r.reassignment_id = k.reassignment_id))) AS contracts
  FROM unnest(${changeArrays(keys)}, ${keys.map((k) => k.reassignmentId)}::text[])
    WITH ORDINALITY AS k(user_id, submitter, command_id, reassignment_id, n)`;

/** Reads for reassignment decisions: a state loader of the event store (one statement for a whole batch segment). */
export class ReassignmentsRepository {
  /**
   * What unassign and assign decisions read (an unassign's state has no unassignment), for a mix of both in one
   * statement: the last completion of each change, whether the submitter is hosted here, the contracts and, for an
   * assign, the unassignment it completes.
   */
  readonly submissions: StateLoader<ReassignmentKey, AssignState> = {
    name: 'reassignment',
    async load(db: Kysely<DB>, keys: readonly ReassignmentKey[]): Promise<AssignState[]> {
      const unassigns: number[] = [];
      const assigns: number[] = [];
      keys.forEach((k, i) => (k.kind === 'unassign' ? unassigns : assigns).push(i));
      const parts = [
        ...(unassigns.length ? [unassignSelect(unassigns.map((i) => keys[i] as UnassignKey))] : []),
        ...(assigns.length ? [assignSelect(assigns.map((i) => keys[i] as AssignKey))] : []),
      ];
      const { rows } = await prepared(sql<StateRow>`${sql.join(parts, sql` UNION ALL `)}`).execute(db);
      const out = new Array<AssignState>(keys.length);
      for (const r of rows) out[(r.kind === 'u' ? unassigns : assigns)[Number(r.n) - 1]] = toState(r);
      return out;
    },
  };
}

function toState(r: StateRow): AssignState {
  const u = r.unassignment;
  return {
    completion: normalizeCompletion(r.completion),
    contracts: toMap(r.contracts),
    submitterHosted: r.hosted === true,
    unassignment: u
      ? {
          reassignmentId: u.reassignmentId,
          source: u.source,
          target: u.target,
          submitter: u.submitter,
          assignmentExclusivity: u.assignmentExclusivity,
          contracts: u.contracts.map((c) => ({ contractId: c.contractId, reassignmentCounter: Number(c.reassignmentCounter) })),
          completed: u.assignedOffset !== null,
        }
      : null,
  };
}

function normalizeCompletion(c: ReassignmentCompletion | null): ReassignmentCompletion | null {
  return c ? { ...c, completionOffset: Number(c.completionOffset) } : null;
}
