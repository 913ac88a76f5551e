import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateFormat,
  canActAs,
  compileEventFormat,
  matchUserId,
  missingField,
  requireReassignmentSynchronizers,
  requireThat,
  reassignmentChangeId,
  validateReassignmentCommands,
  validateEventFormat,
  type Claims,
  type CompiledEventFormat,
  type ReassignmentSubmission,
  type StoredReassignment,
  type UpdateHeader,
} from '@ledgerline/domain';
import { EventStore, reassignmentDecider, type ReassignmentDecision } from '@ledgerline/store';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { InterfaceDirectories } from '../../../infrastructure/interface-directories';
import { InFlightSubmissions } from '../../transaction-submission/in-flight-submissions';
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
  if (rc)
    requireThat(
      canActAs(claims, rc.submitter ?? ''),
      `Claims do not authorize to act as party '${rc.submitter ?? ''}'`,
    );
  if (body.eventFormat) authorizeUpdateFormat(claims, { includeReassignments: body.eventFormat });
  return userId;
}

/**
 * Submits one reassignment (a batch of unassigns or one assign): authorization, validation, the tracker and in-flight
 * checks shared with transaction submissions, then one event-store work that checks deduplication, reads the contracts
 * (and the unassignment), decides and appends ONE 'ReassignmentCommitted' update. All commands of the batch commit
 * together or not at all. Resolves once decided: with the committed reassignment, or (async) null. A submission rejected
 * after hand-over (the same change in flight, a duplicate) ends in a rejected completion, which a waiting caller gets as
 * its error.
 */
@CommandHandler(SubmitReassignmentCommand)
export class SubmitReassignmentHandler implements ICommandHandler<
  SubmitReassignmentCommand,
  ReassignmentResult | null
> {
  constructor(
    private readonly store: EventStore,
    private readonly identity: ParticipantIdentity,
    private readonly settings: ReassignmentSettings,
    private readonly inFlight: InFlightSubmissions,
    private readonly interfaces: InterfaceDirectories,
  ) {}

  async execute({ claims, body, wait }: SubmitReassignmentCommand): Promise<ReassignmentResult | null> {
    const userId = authorize(claims, body);
    if (!body.reassignmentCommands) throw missingField('reassignment_commands');
    // The event format is the read side's: one set of filter rules for streams and submission results.
    if (body.eventFormat) validateEventFormat(body.eventFormat);
    const format = body.eventFormat
      ? compileEventFormat(body.eventFormat, await this.interfaces.forFormat(body.eventFormat))
      : null;
    const sub = validateReassignmentCommands(body.reassignmentCommands, userId, randomUUID);
    requireReassignmentSynchronizers(
      sub.batch,
      this.identity.synchronizers.map((s) => s.id),
    );

    const key = reassignmentChangeId(sub);
    const untrack = wait ? this.inFlight.track(key, sub.submissionId) : undefined;
    let decision: ReassignmentDecision;
    try {
      decision = await this.handOver(sub, key);
    } finally {
      untrack?.();
    }
    if (!wait) return null;
    if (decision.rejection) throw decision.rejection;
    return { header: decision.committed.update!, data: decision.committed.data as StoredReassignment, format };
  }

  private async handOver(sub: ReassignmentSubmission, key: string): Promise<ReassignmentDecision> {
    const deduplicationMicros = BigInt(this.settings.maxDeduplicationSeconds) * 1_000_000n;
    // Another submission of the change in flight: a synchronous refusal (SUBMISSION_ALREADY_IN_FLIGHT), no completion.
    const release = this.inFlight.register(key, sub.submissionId);
    try {
      // Decided in the writer (reassignmentDecider): it loads the change's last completion, the submitter's hosting and
      // the contracts (or the unassignment) for many submissions at once, then decides.
      return await this.store.decide(reassignmentDecider, {
        submission: sub,
        participantId: this.identity.participantId,
        deduplicationMicros,
        exclusivityTimeoutMicros: BigInt(this.settings.assignmentExclusivityTimeoutMs) * 1000n,
        now: () => this.settings.clock.nowMicros(),
      });
    } finally {
      release();
    }
  }
}
