import { describe, expect, it } from 'vitest';
import { isoMicros, parseIsoMicros, type ReassignableContract, type ReassignmentSubmission } from '@ledgerline/domain';
import { reassignmentDecider, type ReassignmentState, type SubmitReassignment } from '@ledgerline/store';
import { createdEventFor, partyId } from '../../support/contracts';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { PARTICIPANT, SYNC_A, SYNC_B } from './fixtures';

const alice = partyId('alice');
const NOW = parseIsoMicros('2026-01-01T12:00:00.000000Z');
const DEDUPLICATION = 600_000_000n;

function contract(seed: string): ReassignableContract {
  const created = createdEventFor({ seed, signatories: [alice], observers: [], synchronizerId: SYNC_A });
  return {
    contractId: created.contractId,
    templateId: created.templateId,
    packageName: created.packageName,
    stakeholders: [alice],
    status: 'active',
    synchronizerId: SYNC_A,
    reassignmentCounter: 0,
    createdEvent: created,
  };
}
const c = contract('r1');
const unassign = (submitter = alice): SubmitReassignment => {
  const submission: ReassignmentSubmission = {
    userId: 'u',
    submitter,
    commandId: 'move',
    workflowId: '',
    submissionId: 'sub',
    batch: { kind: 'unassign', source: SYNC_A, target: SYNC_B, contractIds: [c.contractId] },
  };
  return {
    submission,
    participantId: PARTICIPANT,
    deduplicationMicros: DEDUPLICATION,
    exclusivityTimeoutMicros: 60_000_000n,
    now: () => NOW,
  };
};
const hosted: ReassignmentState = {
  completion: null,
  contracts: new Map([[c.contractId, c]]),
  submitterHosted: true,
  unassignment: null,
};
const reassignment = spec(reassignmentDecider, { ledgerEnd: 7 });

describe('reassignment decider', () => {
  it('an unassign of an active contract by its hosted stakeholder commits one reassignment update; answers it committed', () => {
    const { events, answer } = reassignment.given(hosted).when(unassign()).decision();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ReassignmentCommitted',
      update: { kind: 'Reassignment', synchronizerId: SYNC_A, parties: [alice], commandId: 'move' },
    });
    expect(answer).toEqual({
      committed: expect.objectContaining({
        type: 'ReassignmentCommitted',
        offset: 8,
        update: expect.objectContaining({ offset: 8, updateId: 'update-8' }),
      }),
    });
  });

  it('a change completed within the deduplication period is a rejected completion (DUPLICATE_COMMAND) at an offset of its own', () => {
    const completion = { submissionId: 'earlier', completionOffset: 5, recordTime: isoMicros(NOW - 1_000_000n) };
    const { events, answer } = reassignment
      .given({ ...hosted, completion })
      .when(unassign())
      .decision();
    expect(events.map((e) => [e.type, e.ownOffset])).toEqual([['CommandRejected', true]]);
    expect(answer).toMatchObject({ completionOffset: 8, rejection: { code: 'DUPLICATE_COMMAND' } });
  });

  it('refuses synchronously an unassign of an unknown contract, and one by a submitter not hosted here', () => {
    reassignment
      .given({ ...hosted, contracts: new Map() })
      .when(unassign())
      .rejects('INVALID_ARGUMENT', /unknown contract$/);
    reassignment
      .given({ ...hosted, submitterHosted: false })
      .when(unassign())
      .rejects('INVALID_ARGUMENT', new RegExp(`${alice} is not hosted on ${PARTICIPANT}$`));
  });

  it("changes its change and its contracts; reads the submitter's hosting", () => {
    const keys = conflictKeysOf(reassignmentDecider, unassign());
    expect(keys.writes).toEqual([keys.writes[0], `contract:${c.contractId}`]);
    expect(keys.reads).toContain(`party:${alice}`);
  });
});
