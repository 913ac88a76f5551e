import { REASSIGNMENT_COMMITTED } from '@ledgerline/domain';
import { projection, type ProjectionRows } from './projection';

const NO_ROWS: ProjectionRows = {};

/**
 * Unassignments, their completion by an assignment, and the change ids of committed reassignment submissions
 * (deduplication). Insert-only, so the rows are buffered and written once per batch. Decisions later in the same batch do
 * not need them: a completed assignment shows in the contracts projection (applied at once: the contracts are no longer
 * in flight), an assign can only name an unassignment committed earlier, and a change id is kept from being submitted
 * twice at once by the handler's in-flight set.
 */
export const reassignmentsProjection = projection({
  name: 'reassignments',
  tables: ['reassignments', 'reassignment_assignments', 'reassignment_completions'],
  handles: [REASSIGNMENT_COMMITTED],
  rows(event) {
    const h = event.update;
    if (!h) return NO_ROWS;
    const r = event.data;
    const unassigned = r.events.flatMap((e) => ('Unassigned' in e ? [e.Unassigned] : []));
    const assigned = r.events.flatMap((e) => ('Assigned' in e ? [e.Assigned] : []));
    const u = unassigned[0];
    return {
      reassignments: u
        ? [
            {
              reassignment_id: u.reassignmentId,
              source_synchronizer: u.source,
              target_synchronizer: u.target,
              submitter: u.submitter,
              unassigned_offset: h.offset,
              unassigned_at: h.recordTime,
              assignment_exclusivity: u.assignmentExclusivity,
              workflow_id: r.workflowId,
              contracts: JSON.stringify(
                unassigned.map((e) => ({ contractId: e.contractId, reassignmentCounter: e.reassignmentCounter })),
              ),
            },
          ]
        : [],
      reassignment_assignments: assigned.length
        ? [{ reassignment_id: assigned[0].reassignmentId, assigned_offset: h.offset }]
        : [],
      reassignment_completions: r.submission
        ? [
            {
              user_id: r.submission.userId,
              submitter: r.submission.submitter,
              command_id: r.commandId,
              completion_offset: h.offset,
              submission_id: r.submission.submissionId,
              record_time: h.recordTime,
            },
          ]
        : [],
    };
  },
});
