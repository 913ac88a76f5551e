import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeContractId } from '@ledgerline/canton';
import { changeIdOf, checkWellFormed, prerenderTransaction, type StoredContractState } from '@ledgerline/domain';
import {
  transactionSubmissionDecider,
  type CheckedTransactionSubmission,
  type TransactionSubmissionState,
} from '@ledgerline/store';
import {
  createNode,
  exerciseNode,
  PACKAGE_NAME,
  preparedTransaction,
  TEMPLATE,
} from '../../../testkit/external-signing';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { alice, bob, SYNC_A } from './fixtures';

const NOW = 1_767_225_600_000_000n;
const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const contract = (k: string) => makeContractId(Buffer.from(hex(k), 'hex'));
const [c0, c1] = [contract('c0'), contract('c1')];
const ref = (contractId: string) => ({ contractId, signatories: [alice], stakeholders: [alice, bob] });
const TID = `${TEMPLATE.packageId}:${TEMPLATE.moduleName}:${TEMPLATE.entityName}`;
const stored = (contractId: string, status: StoredContractState['status'] = 'active'): StoredContractState => ({
  contractId,
  templateId: TID,
  packageName: PACKAGE_NAME,
  signatories: [alice],
  stakeholders: [alice, bob],
  status,
  synchronizerId: SYNC_A,
});

/** Alice archives c0 and creates c1 (a transfer), as submitted with command id `cmd-1`. */
function transfer(): CheckedTransactionSubmission {
  const nodes = [exerciseNode('0', { ...ref(c0), actingParties: [alice], children: ['1'] }), createNode('1', ref(c1))];
  const wf = checkWellFormed(
    preparedTransaction({ nodes, actAs: [alice], synchronizerId: SYNC_A, commandId: 'cmd-1', preparationTime: NOW })
      .transaction,
  );
  const submission = { userId: 'u1', actAs: [alice], submissionId: 's-1' };
  const times = { preparationTime: NOW };
  const externalTransactionHash = `1220${hex('transaction')}`;
  return {
    changeId: changeIdOf('u1', [alice], 'cmd-1'),
    transaction: {
      wf,
      synchronizerId: SYNC_A,
      commandId: 'cmd-1',
      submission,
      times,
      externalTransactionHash,
      timeConfig: { preparationTimeToleranceMicros: 60_000_000n, ledgerTimeToleranceMicros: 60_000_000n },
      rendered: prerenderTransaction({ wf, commandId: 'cmd-1', submission, times, externalTransactionHash }, NOW),
    },
    deduplicationPeriod: { kind: 'duration', micros: 3_600_000_000n },
    now: () => NOW,
  };
}

const execution = spec(transactionSubmissionDecider, { ledgerEnd: 100 });
const active: TransactionSubmissionState = { completed: undefined, contracts: new Map([[c0, stored(c0)]]) };

describe('transaction submission decider', () => {
  it('given its input active, commits one transaction update; answers its update id and offset', () => {
    const { events, answer } = execution.given(active).when(transfer()).decision();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'TransactionCommitted',
      update: { kind: 'Transaction', synchronizerId: SYNC_A, commandId: 'cmd-1' },
    });
    expect(answer).toEqual({ updateId: 'update-101', completionOffset: 101 });
  });

  it('given its input archived, the decision is a rejected completion (LOCAL_VERDICT_INACTIVE_CONTRACTS) at an offset of its own', () => {
    const { events, answer } = execution
      .given({ completed: undefined, contracts: new Map([[c0, stored(c0, 'archived')]]) })
      .when(transfer())
      .decision();
    expect(events.map((e) => [e.type, e.ownOffset])).toEqual([['CommandRejected', true]]);
    expect(answer.completionOffset).toBe(101);
    expect(answer.rejection?.code).toBe('LOCAL_VERDICT_INACTIVE_CONTRACTS');
  });

  it('given the change completed within the deduplication period, the decision is a DUPLICATE_COMMAND rejection', () => {
    const completed = { completionOffset: 90, recordTimeMicros: NOW - 1_000_000n, submissionId: 's-0' };
    const { events, answer } = execution
      .given({ ...active, completed })
      .when(transfer())
      .decision();
    expect(events.map((e) => e.type)).toEqual(['CommandRejected']);
    expect(answer.rejection?.code).toBe('DUPLICATE_COMMAND');
    expect(events[0].data).toMatchObject({ deduplicationPeriod: { DeduplicationOffset: { value: 89 } } });
  });

  it('changes its change, the contract it consumes and the one it creates', () => {
    expect(conflictKeysOf(transactionSubmissionDecider, transfer()).writes).toEqual([
      `change:${transfer().changeId}`,
      `contract:${c0}`,
      `contract:${c1}`,
    ]);
  });
});
