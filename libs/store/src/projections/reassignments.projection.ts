import { sql } from 'kysely';
import { REASSIGNMENT_COMMITTED, type StoredReassignment } from '@ledgerline/domain';
import type { Projection } from './registry';

/**
 * Unassignments and their completion, and the change ids of committed reassignment submissions (deduplication).
 * An unassignment (one reassignment id per batch) becomes a row of `reassignments`; its assignment sets
 * `assigned_offset`. One statement per event: the row write and the completion upsert share a CTE.
 */
export const reassignmentsProjection: Projection = {
  name: 'reassignments',
  tables: ['reassignments', 'reassignment_completions'],
  handles: [REASSIGNMENT_COMMITTED],
  async apply(trx, event) {
    const h = event.update;
    if (!h) return;
    const r = event.data as StoredReassignment;
    const unassigned = r.events.flatMap((e) => ('Unassigned' in e ? [e.Unassigned] : []));
    const assigned = r.events.flatMap((e) => ('Assigned' in e ? [e.Assigned] : []));
    const writes = [];
    if (unassigned.length) {
      const u = unassigned[0];
      const contracts = JSON.stringify(unassigned.map((e) => ({ contractId: e.contractId, reassignmentCounter: e.reassignmentCounter })));
      writes.push(sql`INSERT INTO reassignments (reassignment_id, source_synchronizer, target_synchronizer, submitter, unassigned_offset,
          unassigned_at, assignment_exclusivity, contracts)
        VALUES (${u.reassignmentId}, ${u.source}, ${u.target}, ${u.submitter}, ${h.offset}, ${h.recordTime}, ${u.assignmentExclusivity},
          ${contracts}::jsonb)`);
    }
    if (assigned.length) {
      writes.push(sql`UPDATE reassignments SET assigned_offset = ${h.offset} WHERE reassignment_id = ${assigned[0].reassignmentId}`);
    }
    if (r.submission) {
      const s = r.submission;
      writes.push(sql`INSERT INTO reassignment_completions (user_id, submitter, command_id, submission_id, completion_offset, record_time)
        VALUES (${s.userId}, ${s.submitter}, ${r.commandId}, ${s.submissionId}, ${h.offset}, ${h.recordTime})
        ON CONFLICT (user_id, submitter, command_id)
        DO UPDATE SET submission_id = EXCLUDED.submission_id, completion_offset = EXCLUDED.completion_offset, record_time = EXCLUDED.record_time`);
    }
    if (writes.length === 0) return;
    if (writes.length === 1) {
      await writes[0].execute(trx);
      return;
    }
    // Data-modifying CTEs: every write runs, in one round trip.
    const ctes = writes.slice(0, -1).map((w, i) => sql`${sql.raw(`w${i}`)} AS (${w})`);
    await sql`WITH ${sql.join(ctes)} ${writes[writes.length - 1]}`.execute(trx);
  },
};
