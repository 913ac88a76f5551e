import { sql, type Kysely } from 'kysely';
import type { ReassignableContract, ReassignmentChange, ReassignmentCompletion, UnassignmentRecord } from '@ledgerline/domain';
import type { DB } from '../schema';

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

/**
 * "Hosted on this participant": the party is allocated here as a local party (party_details.is_local). The one place to
 * change if hosting becomes per synchronizer.
 */
const hostedSql = (party: string) => sql<boolean | null>`(SELECT is_local FROM party_details WHERE party = ${party})`;

const completionSql = (c: ReassignmentChange) => sql<ReassignmentCompletion | null>`(
  SELECT json_build_object('submissionId', submission_id, 'completionOffset', completion_offset, 'recordTime', record_time)
  FROM reassignment_completions WHERE user_id = ${c.userId} AND submitter = ${c.submitter} AND command_id = ${c.commandId}
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

/** Reads for reassignment decisions: one round trip each, inside the write transaction. */
export class ReassignmentsRepository {
  async unassignState(db: Kysely<DB>, changeId: ReassignmentChange, contractIds: string[]): Promise<UnassignState> {
    const { rows } = await sql<{ completion: ReassignmentCompletion | null; contracts: ReassignableContract[] | null; hosted: boolean | null }>`
      SELECT ${completionSql(changeId)} AS completion, ${hostedSql(changeId.submitter)} AS hosted,
        (SELECT json_agg(${contractJson(true)}) FROM contracts c WHERE c.contract_id = ANY(${contractIds}::text[])) AS contracts`.execute(db);
    return { completion: normalizeCompletion(rows[0].completion), contracts: toMap(rows[0].contracts), submitterHosted: rows[0].hosted === true };
  }

  async assignState(db: Kysely<DB>, changeId: ReassignmentChange, reassignmentId: string): Promise<AssignState> {
    const { rows } = await sql<{
      completion: ReassignmentCompletion | null;
      unassignment: (Omit<UnassignmentRecord, 'completed'> & { assignedOffset: number | null }) | null;
      contracts: ReassignableContract[] | null;
      hosted: boolean | null;
    }>`
      WITH r AS (SELECT * FROM reassignments WHERE reassignment_id = ${reassignmentId})
      SELECT ${completionSql(changeId)} AS completion, ${hostedSql(changeId.submitter)} AS hosted,
        (SELECT json_build_object('reassignmentId', reassignment_id, 'source', source_synchronizer, 'target', target_synchronizer,
            'submitter', submitter, 'assignmentExclusivity', assignment_exclusivity, 'contracts', contracts,
            'assignedOffset', (SELECT assigned_offset FROM reassignment_assignments a WHERE a.reassignment_id = r.reassignment_id)) FROM r)
          AS unassignment,
        (SELECT json_agg(${contractJson(false)}) FROM contracts c
          WHERE c.contract_id IN (SELECT jsonb_array_elements(r.contracts) ->> 'contractId' FROM r)) AS contracts`.execute(db);
    const u = rows[0].unassignment;
    return {
      completion: normalizeCompletion(rows[0].completion),
      contracts: toMap(rows[0].contracts),
      submitterHosted: rows[0].hosted === true,
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
}

function normalizeCompletion(c: ReassignmentCompletion | null): ReassignmentCompletion | null {
  return c ? { ...c, completionOffset: Number(c.completionOffset) } : null;
}
