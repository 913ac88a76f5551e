import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateFormat,
  canActAs,
  checkReassignmentDeduplication,
  compileEventFormat,
  decideAssign,
  decideUnassign,
  matchUserId,
  missingField,
  nowMicros,
  requireReassignmentSynchronizers,
  requireThat,
  reassignmentChangeId,
  submissionAlreadyInFlight,
  validateReassignmentCommands,
  validateEventFormat,
  type Claims,
  type CompiledEventFormat,
  type ReassignmentSubmission,
  type StoredReassignment,
  type UpdateHeader,
  type CommittedEvent,
} from '@ledgerline/domain';
import { EventStore, ReassignmentsRepository } from '@ledgerline/store';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { ReassignmentSettings } from './reassignment-settings';
import { SubmitReassignmentCommand, type ReassignmentRequestBody } from './submit-reassignment.command';

export interface ReassignmentResult {
  header: UpdateHeader;
  data: StoredReassignment;
  /** The validated event format of the request (null: the result shows no events). */
  format: CompiledEventFormat | null;
}

/**
 * Canton's CommandServiceAuthorization (ledger-api-core: ledger/api/auth/services/): MatchUserId + ActAs(submitter) +
 * ReadAs for every eventFormat party (ReadAsAnyParty for filtersForAnyParty).
 */
function authorize(claims: Claims, body: ReassignmentRequestBody): string {
  const rc = body.reassignmentCommands;
  const userId = matchUserId(claims, rc?.userId);
  if (rc) requireThat(canActAs(claims, rc.submitter ?? ''), `Claims do not authorize to act as party '${rc.submitter ?? ''}'`);
  if (body.eventFormat) authorizeUpdateFormat(claims, { includeReassignments: body.eventFormat });
  return userId;
}

/**
 * Submits one reassignment (a batch of unassigns or one assign): authorization, validation, then one event-store work
 * that checks deduplication, reads the contracts (and the unassignment), decides and appends ONE 'ReassignmentCommitted'
 * update. All commands of the batch commit together or not at all. Resolves once committed.
 */
@CommandHandler(SubmitReassignmentCommand)
export class SubmitReassignmentHandler implements ICommandHandler<SubmitReassignmentCommand, ReassignmentResult> {
  /** Change ids being processed by this instance (SUBMISSION_ALREADY_IN_FLIGHT). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly store: EventStore,
    private readonly repository: ReassignmentsRepository,
    private readonly identity: ParticipantIdentity,
    private readonly settings: ReassignmentSettings,
  ) {}

  async execute({ claims, body }: SubmitReassignmentCommand): Promise<ReassignmentResult> {
    const userId = authorize(claims, body);
    if (!body.reassignmentCommands) throw missingField('reassignment_commands');
    // The event format is the read side's: one set of filter rules for streams and submission results.
    if (body.eventFormat) validateEventFormat(body.eventFormat);
    const format = body.eventFormat ? compileEventFormat(body.eventFormat) : null;
    const sub = validateReassignmentCommands(body.reassignmentCommands, userId, randomUUID);
    requireReassignmentSynchronizers(
      sub.batch,
      this.identity.synchronizers.map((s) => s.id),
    );

    const key = reassignmentChangeId(sub);
    if (this.inFlight.has(key)) throw submissionAlreadyInFlight(key, sub.submissionId);
    this.inFlight.add(key);
    try {
      const committed = await this.submit(sub);
      return { header: committed.update!, data: committed.data as StoredReassignment, format };
    } finally {
      this.inFlight.delete(key);
    }
  }

  /**
   * One keyed work of the event store: the writer loads the change's last completion, the submitter's hosting and the
   * contracts (or the unassignment) for a whole batch segment at once, then decides.
   */
  private submit(sub: ReassignmentSubmission): Promise<CommittedEvent> {
    const batch = sub.batch;
    const change = { userId: sub.userId, submitter: sub.submitter, commandId: sub.commandId };
    const changeKey = `reassignment-change:${reassignmentChangeId(sub)}`;
    const hostedKey = `party:${sub.submitter}`;
    const contracts = batch.kind === 'unassign' ? batch.contractIds.map((c) => `contract:${c}`) : [];
    // The contracts an assign activates are known only once its unassignment is read; they are in flight, and only the
    // assign of that unassignment (serialised by the unassignment's key) changes an in-flight contract. Another work of
    // the segment that reads one sees it in flight and is rejected, as it would be if ordered before the assign.
    const unassignment = batch.kind === 'assign' ? [`reassignment:${batch.reassignmentId}`] : [];
    return this.store.decide({
      loader: this.repository.submissions,
      key:
        batch.kind === 'unassign'
          ? { kind: 'unassign', ...change, contractIds: batch.contractIds }
          : { kind: 'assign', ...change, reassignmentId: batch.reassignmentId },
      reads: [changeKey, hostedKey, ...contracts, ...unassignment],
      writes: [changeKey, ...contracts, ...unassignment],
      decide: async (state, tx) => {
        const now = nowMicros();
        checkReassignmentDeduplication(state.completion, now, BigInt(this.settings.maxDeduplicationSeconds) * 1_000_000n);
        const context = {
          participantId: this.identity.participantId,
          nowMicros: now,
          isHosted: (p: string) => p === sub.submitter && state.submitterHosted,
        };
        const event =
          batch.kind === 'unassign'
            ? decideUnassign({ ...sub, batch }, state.contracts, {
                ...context,
                exclusivityTimeoutMicros: BigInt(this.settings.assignmentExclusivityTimeoutMs) * 1000n,
              })
            : decideAssign({ ...sub, batch }, state.unassignment, state.contracts, context);
        return (await tx.append([event]))[0];
      },
    });
  }
}
