import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateFormat,
  canActAs,
  compileEventFormat,
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
import { EventStore, reassignmentDecider } from '@ledgerline/store';
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
   * Decided in the writer (reassignmentDecider): it loads the change's last completion, the submitter's hosting and the
   * contracts (or the unassignment) for many submissions at once, then decides.
   */
  private submit(submission: ReassignmentSubmission): Promise<CommittedEvent> {
    return this.store.decide(reassignmentDecider, {
      submission,
      participantId: this.identity.participantId,
      deduplicationMicros: BigInt(this.settings.maxDeduplicationSeconds) * 1_000_000n,
      exclusivityTimeoutMicros: BigInt(this.settings.assignmentExclusivityTimeoutMs) * 1000n,
      now: nowMicros,
    });
  }
}
