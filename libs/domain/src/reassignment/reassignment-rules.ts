import { reassignmentId as cantonReassignmentId } from '@ledgerline/canton';
import { invalidArgument } from '../errors';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import { isoMicros, parseIsoMicros } from '../ledger/time';
import {
  REASSIGNMENT_COMMITTED,
  type StoredAssignedEvent,
  type StoredCreatedEvent,
  type StoredReassignment,
  type StoredUnassignedEvent,
} from '../ledger/updates';
import type { ReassignmentBatch, ReassignmentSubmission } from './commands';

/**
 * The rules of unassign and assign (Canton's UnassignmentProcessingSteps, ReassignmentValidation and AssignmentValidation,
 * participant: protocol/reassignment/). Pure: the caller reads the state (contracts, the in-flight unassignment, who is
 * hosted) and the clock, and appends the one event returned.
 */

/** A contract as the reassignment rules need it (a row of the contracts projection). */
export interface ReassignableContract {
  contractId: string;
  templateId: string;
  packageName: string;
  stakeholders: string[];
  status: 'active' | 'in_flight' | 'archived';
  synchronizerId: string | null;
  reassignmentCounter: number;
  createdEvent: StoredCreatedEvent;
  /** For an in-flight contract: the target of its pending unassignment. */
  inFlightTarget?: string | null;
}

/** An unassignment as kept for its assignment. */
export interface UnassignmentRecord {
  reassignmentId: string;
  source: string;
  target: string;
  submitter: string;
  /** ISO-8601 µs, or null (no exclusivity). */
  assignmentExclusivity: string | null;
  contracts: Array<{ contractId: string; reassignmentCounter: number }>;
  completed: boolean;
}

export interface ReassignmentDecisionContext {
  /** Whether a party is hosted on this participant. */
  isHosted: (party: string) => boolean;
  participantId: string;
  /** The decision's clock, µs since the epoch (unassignment time; compared with the exclusivity deadline). */
  nowMicros: bigint;
}

export type ReassignmentEvent = NewLedgerEvent<typeof REASSIGNMENT_COMMITTED>;

// ---- errors (all 400 INVALID_ARGUMENT, as the participant reports them) ----

/** Wrapping of the submitter checks (ReassignmentValidationError.toSubmissionValidationError). */
const submissionFailed = (message: string) => invalidArgument(`Submission failed because: ${message}`);

export const reassignmentSubmitterNotStakeholder = (ref: string, submitter: string) =>
  submissionFailed(`For ${ref}: submitter \`${submitter}\` is not a stakeholder`);
export const reassignmentSubmitterNotHosted = (ref: string, submitter: string, participantId: string) =>
  submissionFailed(`For ${ref}: ${submitter} is not hosted on ${participantId}`);
export const unresolvedReassignmentSynchronizer = (id: string) =>
  invalidArgument(`Unable to resolve ${id} to a connected physical synchronizer id`);
export const unassignSameSynchronizers = (contractIds: string[]) =>
  invalidArgument(
    `Cannot unassign contracts \`${contractIds.join(', ')}\`: source and target synchronizers are the same`,
  );
export const unassignUnknownContract = (cid: string) =>
  invalidArgument(`Cannot unassign contract \`${cid}\`: unknown contract`);
export const unassignContractNotActive = (cid: string, status: string) =>
  invalidArgument(`Cannot unassign contract \`${cid}\` because it's not active. Current status ${status}`);
export const unknownReassignmentId = (id: string) =>
  invalidArgument(`Cannot find reassignment data for reassignment \`${id}\`: unknown reassignment id`);
export const assignmentCompleted = (id: string) =>
  invalidArgument(`Cannot assign \`${id}\`: assignment has been completed`);
export const onlySubmitterBeforeExclusivity = (id: string, deadline: string) =>
  invalidArgument(`Cannot assign \`${id}\`: only submitter can initiate before exclusivity timeout ${deadline}`);

const contractRef = (cid: string) => `contract \`${cid}\``;
const reassignmentRef = (id: string) => `reassignment \`${id}\``;

/** Source and target must both be synchronizers this participant is connected to. */
export function requireReassignmentSynchronizers(batch: ReassignmentBatch, connected: readonly string[]): void {
  for (const id of [batch.source, batch.target])
    if (!connected.includes(id)) throw unresolvedReassignmentSynchronizer(id);
}

/** The submitter must be a stakeholder of the contract and hosted on this participant. */
export function checkReassignmentSubmitter(
  ref: string,
  submitter: string,
  stakeholders: readonly string[],
  ctx: ReassignmentDecisionContext,
): void {
  if (!stakeholders.includes(submitter)) throw reassignmentSubmitterNotStakeholder(ref, submitter);
  if (!ctx.isHosted(submitter)) throw reassignmentSubmitterNotHosted(ref, submitter, ctx.participantId);
}

/** How Canton prints a contract's status on the source synchronizer. */
function statusText(c: ReassignableContract): string {
  if (c.status === 'archived') return 'Archived';
  return `ReassignedAway(Target(${c.inFlightTarget ?? ''}),${c.reassignmentCounter})`;
}

const union = (lists: Iterable<readonly string[]>): string[] => [...new Set([...lists].flat())].sort();

function eventOf(
  sub: ReassignmentSubmission,
  synchronizerId: string,
  id: string,
  data: StoredReassignment['events'],
  parties: string[],
): ReassignmentEvent {
  return {
    type: REASSIGNMENT_COMMITTED,
    stream: `reassignment:${id}`,
    data: {
      commandId: sub.commandId,
      workflowId: sub.workflowId,
      events: data,
      submission: { userId: sub.userId, submitter: sub.submitter, submissionId: sub.submissionId },
    },
    update: { kind: 'Reassignment', synchronizerId, parties, commandId: sub.commandId },
  };
}

/**
 * Unassign every contract of the batch from the source towards the target: each must be known and active on the source,
 * the submitter a hosted stakeholder of each; each counter goes up by one; all share one reassignment id.
 */
export function decideUnassign(
  sub: ReassignmentSubmission & { batch: Extract<ReassignmentBatch, { kind: 'unassign' }> },
  contracts: ReadonlyMap<string, ReassignableContract>,
  ctx: ReassignmentDecisionContext & { exclusivityTimeoutMicros: bigint },
): ReassignmentEvent {
  const { source, target, contractIds } = sub.batch;
  if (source === target) throw unassignSameSynchronizers(contractIds);
  const moved: ReassignableContract[] = [];
  const seen = new Set<string>();
  for (const cid of contractIds) {
    const c = contracts.get(cid);
    if (!c || (c.status === 'active' && c.synchronizerId !== source)) throw unassignUnknownContract(cid);
    if (c.status !== 'active') throw unassignContractNotActive(cid, statusText(c));
    // Named twice in one batch: the first unassign already moved it away.
    if (seen.has(cid))
      throw unassignContractNotActive(
        cid,
        statusText({
          ...c,
          status: 'in_flight',
          inFlightTarget: target,
          reassignmentCounter: c.reassignmentCounter + 1,
        }),
      );
    checkReassignmentSubmitter(contractRef(cid), sub.submitter, c.stakeholders, ctx);
    seen.add(cid);
    moved.push(c);
  }
  const counters = moved.map((c) => ({ contractId: c.contractId, reassignmentCounter: c.reassignmentCounter + 1 }));
  const id = cantonReassignmentId({ source, target, unassignmentTimestampMicros: ctx.nowMicros, contracts: counters });
  const exclusivity = isoMicros(ctx.nowMicros + ctx.exclusivityTimeoutMicros);
  const events = moved.map((c, nodeId): { Unassigned: StoredUnassignedEvent } => ({
    Unassigned: {
      reassignmentId: id,
      contractId: c.contractId,
      templateId: c.templateId,
      packageName: c.packageName,
      source,
      target,
      submitter: sub.submitter,
      reassignmentCounter: c.reassignmentCounter + 1,
      assignmentExclusivity: exclusivity,
      stakeholders: [...c.stakeholders],
      nodeId,
    },
  }));
  return eventOf(sub, source, id, events, union(moved.map((c) => c.stakeholders)));
}

/**
 * Assign an in-flight unassignment on its target: the id must name an unassignment with the same source and target that
 * is not yet completed; the submitter must be a hosted stakeholder; before the exclusivity deadline only the
 * unassignment's submitter may assign. Every contract becomes active on the target with the unassignment's counter.
 */
export function decideAssign(
  sub: ReassignmentSubmission & { batch: Extract<ReassignmentBatch, { kind: 'assign' }> },
  unassignment: UnassignmentRecord | null,
  contracts: ReadonlyMap<string, ReassignableContract>,
  ctx: ReassignmentDecisionContext,
): ReassignmentEvent {
  const { source, target, reassignmentId: id } = sub.batch;
  if (!unassignment || unassignment.source !== source || unassignment.target !== target)
    throw unknownReassignmentId(id);
  const inFlight = unassignment.contracts.map((u) => ({ u, c: contracts.get(u.contractId) }));
  const done = inFlight.some(
    ({ u, c }) => !c || c.status !== 'in_flight' || c.reassignmentCounter !== u.reassignmentCounter,
  );
  if (unassignment.completed || done) throw assignmentCompleted(id);
  const stakeholders = union(inFlight.map(({ c }) => c!.stakeholders));
  for (const { c } of inFlight) checkReassignmentSubmitter(reassignmentRef(id), sub.submitter, c!.stakeholders, ctx);
  if (
    sub.submitter !== unassignment.submitter &&
    unassignment.assignmentExclusivity !== null &&
    ctx.nowMicros < parseIsoMicros(unassignment.assignmentExclusivity)
  ) {
    throw onlySubmitterBeforeExclusivity(id, unassignment.assignmentExclusivity);
  }
  const events = inFlight.map(({ u, c }, nodeId): { Assigned: StoredAssignedEvent } => ({
    Assigned: {
      reassignmentId: id,
      source,
      target,
      submitter: sub.submitter,
      reassignmentCounter: u.reassignmentCounter,
      createdEvent: { ...c!.createdEvent, nodeId },
      stakeholders: [...c!.stakeholders],
    },
  }));
  return eventOf(sub, target, id, events, stakeholders);
}
