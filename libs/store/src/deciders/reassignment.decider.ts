import { sql, type Kysely } from 'kysely';
import {
  checkReassignmentDeduplication,
  decideAssign,
  decideUnassign,
  isLedgerError,
  reassignmentChangeId,
  rejectionEvent,
  type CommittedEvent,
  type LedgerError,
  type ReassignableContract,
  type ReassignmentChange,
  type ReassignmentCompletion,
  type ReassignmentSubmission,
  type UnassignmentRecord,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';
import { changes, namesNoState, reads, type Decider, type Decision } from '../writer';
import { changesContracts, changesContractsOfAssignment } from './contract-conflicts';

/** A reassignment submission (a batch of unassigns or one assign), validated and authorized, to decide in the writer. */
export interface SubmitReassignment {
  submission: ReassignmentSubmission;
  participantId: string;
  /** Deduplication period of reassignments (µs). */
  deduplicationMicros: bigint;
  /** After an unassignment, how long only its submitter may assign it (µs). */
  exclusivityTimeoutMicros: bigint;
  /** The decision's clock, µs since the epoch. */
  now: () => bigint;
}

/**
 * Committed (the ReassignmentCommitted event), or rejected at commit (a duplicate change): a rejected completion was
 * appended at its own offset, and `rejection` is the error the submitter gets.
 */
export type ReassignmentDecision =
  { committed: CommittedEvent; rejection?: undefined } | { rejection: LedgerError; completionOffset: number };

/** The rejected completion of a reassignment submission (its actAs: the submitter; its synchronizer: where it was submitted). */
export function reassignmentRejection(sub: ReassignmentSubmission, deduplicationMicros: bigint, error: LedgerError) {
  const { userId, submitter, commandId, submissionId, batch } = sub;
  return rejectionEvent(
    {
      userId,
      actAs: [submitter],
      commandId,
      submissionId,
      synchronizerId: batch.kind === 'unassign' ? batch.source : batch.target,
      deduplicationPeriod: { kind: 'duration', micros: deduplicationMicros },
    },
    error,
  );
}

/**
 * What a reassignment decision reads: the change id's last completion, whether the submitter is hosted here, the
 * contracts (an unassign's named ones, an assign's through its unassignment) and, for an assign, the unassignment.
 */
export interface ReassignmentState {
  completion: ReassignmentCompletion | null;
  contracts: Map<string, ReassignableContract>;
  /** Whether the submitter is hosted on this participant. */
  submitterHosted: boolean;
  /** The unassignment an assign completes (null for an unassign, or an unknown id). */
  unassignment: UnassignmentRecord | null;
}

/** The key of a reassignment submission. */
export interface ReassignmentKey {
  kind: 'unassign' | 'assign';
  /** Its change (deduplication); its submitter's hosting is read too. */
  change: ReassignmentChange;
  /** An unassign's contracts (none for an assign). */
  contractIds: readonly string[];
  /** The unassignment an assign completes ('' for an unassign). */
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
  'createdEvent', c.created_event${
    inFlightTarget
      ? sql`,
  'inFlightTarget', CASE WHEN c.status = 'in_flight' THEN (
    SELECT r.target_synchronizer FROM reassignments r
    WHERE r.contracts @> jsonb_build_array(jsonb_build_object('contractId', c.contract_id))
      AND NOT EXISTS (SELECT 1 FROM reassignment_assignments a WHERE a.reassignment_id = r.reassignment_id)
    ORDER BY r.unassigned_offset DESC LIMIT 1) END`
      : sql``
  })`;

const toMap = (rows: ReassignableContract[] | null) =>
  new Map((rows ?? []).map((c) => [c.contractId, { ...c, reassignmentCounter: Number(c.reassignmentCounter) }]));

const changeArrays = (keys: readonly ReassignmentKey[]) =>
  sql`${keys.map((k) => k.change.userId)}::text[], ${keys.map((k) => k.change.submitter)}::text[], ${keys.map((k) => k.change.commandId)}::text[]`;

type UnassignmentRow = (Omit<UnassignmentRecord, 'completed'> & { assignedOffset: number | null }) | null;

type StateRow = {
  kind: 'u' | 'a';
  n: string;
  completion: ReassignmentCompletion | null;
  unassignment: UnassignmentRow;
  contracts: ReassignableContract[] | null;
  hosted: boolean | null;
};

const unassignSelect = (keys: readonly ReassignmentKey[]) => sql`
  SELECT 'u' AS kind, k.n, ${completionSql} AS completion, ${hostedSql} AS hosted, NULL::json AS unassignment,
    (SELECT json_agg(${contractJson(true)}) FROM contracts c
      WHERE c.contract_id = ANY (ARRAY(SELECT jsonb_array_elements_text(k.ids)))) AS contracts
  FROM unnest(${changeArrays(keys)}, ${keys.map((k) => JSON.stringify(k.contractIds))}::jsonb[])
    WITH ORDINALITY AS k(user_id, submitter, command_id, ids, n)`;

const assignSelect = (keys: readonly ReassignmentKey[]) => sql`
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

/**
 * Unassign and assign: deduplication of the change — a duplicate is a rejected completion, as Canton finds it after
 * hand-over — then `decideUnassign` / `decideAssign`, whose refusals are the checks Canton makes when it prepares the
 * submission (synchronous errors); commits one 'ReassignmentCommitted' update. The contracts an assign activates are
 * known only once its unassignment is read; they are in flight, and only the assign of that unassignment changes them
 * (it holds the unassignment's key and the 'assignments' key every contract reader reads: contract-conflicts.ts).
 */
export const reassignmentDecider: Decider<
  SubmitReassignment,
  ReassignmentKey,
  ReassignmentState,
  ReassignmentDecision
> = {
  name: 'reassignment',
  key({ submission: s }) {
    const change = { userId: s.userId, submitter: s.submitter, commandId: s.commandId };
    return s.batch.kind === 'unassign'
      ? { kind: 'unassign', change, contractIds: s.batch.contractIds, reassignmentId: '' }
      : { kind: 'assign', change, contractIds: [], reassignmentId: s.batch.reassignmentId };
  },
  conflicts: {
    kind: namesNoState,
    change: [
      changes('reassignment-change', reassignmentChangeId),
      reads('party', (c: ReassignmentChange) => c.submitter),
    ],
    contractIds: changesContracts,
    reassignmentId: [changes('reassignment', (id: string) => id || []), changesContractsOfAssignment],
  },
  /** Unassigns and assigns mixed, in one statement. */
  async load(db: Kysely<DB>, keys: readonly ReassignmentKey[]): Promise<ReassignmentState[]> {
    const unassigns: number[] = [];
    const assigns: number[] = [];
    keys.forEach((k, i) => (k.kind === 'unassign' ? unassigns : assigns).push(i));
    const parts = [
      ...(unassigns.length ? [unassignSelect(unassigns.map((i) => keys[i]))] : []),
      ...(assigns.length ? [assignSelect(assigns.map((i) => keys[i]))] : []),
    ];
    const { rows } = await prepared(sql<StateRow>`${sql.join(parts, sql` UNION ALL `)}`).execute(db);
    const out = new Array<ReassignmentState>(keys.length);
    for (const r of rows) out[(r.kind === 'u' ? unassigns : assigns)[Number(r.n) - 1]] = toState(r);
    return out;
  },
  decide(
    state,
    { submission: sub, participantId, deduplicationMicros, exclusivityTimeoutMicros, now },
  ): Decision<ReassignmentDecision> {
    const nowMicros = now();
    try {
      checkReassignmentDeduplication(state.completion, nowMicros, deduplicationMicros);
    } catch (e) {
      if (!isLedgerError(e)) throw e;
      return {
        events: [reassignmentRejection(sub, deduplicationMicros, e)],
        answer: ([rejected]) => ({ rejection: e, completionOffset: rejected.offset! }),
      };
    }
    const context = { participantId, nowMicros, isHosted: (p: string) => p === sub.submitter && state.submitterHosted };
    const batch = sub.batch;
    const event =
      batch.kind === 'unassign'
        ? decideUnassign({ ...sub, batch }, state.contracts, { ...context, exclusivityTimeoutMicros })
        : decideAssign({ ...sub, batch }, state.unassignment, state.contracts, context);
    return { events: [event], answer: ([committed]) => ({ committed }) };
  },
};

function toState(r: StateRow): ReassignmentState {
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
          contracts: u.contracts.map((c) => ({
            contractId: c.contractId,
            reassignmentCounter: Number(c.reassignmentCounter),
          })),
          completed: u.assignedOffset !== null,
        }
      : null,
  };
}

function normalizeCompletion(c: ReassignmentCompletion | null): ReassignmentCompletion | null {
  return c ? { ...c, completionOffset: Number(c.completionOffset) } : null;
}
