import { isContractId, isPartyId, isReassignmentId, isUniqueIdentifier } from '@ledgerline/canton';
import { invalidArgument, invalidField, missingField } from '../errors';
import { validateUserId } from '../users/user-rules';
import type { RawReassignmentCommands, ReassignmentBatch, ReassignmentSubmission } from './commands';

/**
 * Field validation of ReassignmentCommands (Canton's SubmitAndWaitRequestValidator and CommandsValidator, ledger-api-core:
 * ledger/api/validation/), then the batch shape. Pure: the caller passes the effective user id (after MatchUserId) and a
 * generator for an empty submission id.
 */

/** LedgerString: 1–255 characters of `[a-zA-Z0-9._:\-#/ ]`. */
const LEDGER_STRING = /^[a-zA-Z0-9._:\-#/ ]{1,255}$/;

function ledgerString(value: string, field: string): string {
  if (!LEDGER_STRING.test(value)) {
    throw invalidField(
      field,
      `"${value}" is not a valid LedgerString: 1 to 255 characters of [a-zA-Z0-9._:-#/ ] expected`,
    );
  }
  return value;
}

export function requireParty(value: string | undefined, field: string): string {
  if (!value) throw missingField(field);
  if (!isPartyId(value)) throw invalidField(field, `Invalid party id '${value}': expected <hint>::<namespace>`);
  return value;
}

/** requireSynchronizerId: absent or empty → MISSING_FIELD; not `alias::namespace` → INVALID_FIELD. */
export function requireSynchronizerId(value: string | undefined, field: string): string {
  if (!value) throw missingField(field);
  if (!isUniqueIdentifier(value))
    throw invalidField(field, `Invalid unique identifier \`${value}\`: expected <alias>::<namespace>`);
  return value;
}

type ParsedCommand =
  | { kind: 'unassign'; contractId: string; source: string; target: string }
  | { kind: 'assign'; reassignmentId: string; source: string; target: string };

export const invalidBatch = (reason: 'no commands' | 'mixed assign with other commands' | 'differing synchronizers') =>
  invalidArgument(`The batch of reassignment commands was invalid: ${reason}`);

/** Exactly one assign, or one or more unassigns sharing source and target (ReassignmentCommandsBatch). */
export function batchOf(commands: ParsedCommand[]): ReassignmentBatch {
  if (commands.length === 0) throw invalidBatch('no commands');
  const assigns = commands.filter((c) => c.kind === 'assign');
  if (assigns.length > 0) {
    if (commands.length > 1) throw invalidBatch('mixed assign with other commands');
    const a = assigns[0] as Extract<ParsedCommand, { kind: 'assign' }>;
    return { kind: 'assign', source: a.source, target: a.target, reassignmentId: a.reassignmentId };
  }
  const { source, target } = commands[0];
  if (commands.some((c) => c.source !== source || c.target !== target)) throw invalidBatch('differing synchronizers');
  return {
    kind: 'unassign',
    source,
    target,
    contractIds: commands.map((c) => (c as Extract<ParsedCommand, { kind: 'unassign' }>).contractId),
  };
}

export function validateReassignmentCommands(
  rc: RawReassignmentCommands | null | undefined,
  userId: string,
  newSubmissionId: () => string,
): ReassignmentSubmission {
  if (!rc) throw missingField('reassignment_commands');
  const submitter = requireParty(rc.submitter, 'submitter');
  validateUserId(userId, 'user_id');
  if (!rc.commandId) throw missingField('command_id');
  const commandId = ledgerString(rc.commandId, 'command_id');
  const submissionId = rc.submissionId ? ledgerString(rc.submissionId, 'submission_id') : newSubmissionId();
  const workflowId = rc.workflowId ? ledgerString(rc.workflowId, 'workflow_id') : '';
  const parsed: ParsedCommand[] = (rc.commands ?? []).map((c) => {
    const cmd = c.command ?? {};
    if (cmd.UnassignCommand) {
      const v = cmd.UnassignCommand.value ?? {};
      const source = requireSynchronizerId(v.source, 'source');
      const target = requireSynchronizerId(v.target, 'target');
      if (!v.contractId) throw missingField('contract_id');
      if (!isContractId(v.contractId)) throw invalidField('contract_id', `Invalid contract id '${v.contractId}'`);
      return { kind: 'unassign', contractId: v.contractId, source, target };
    }
    if (cmd.AssignCommand) {
      const v = cmd.AssignCommand.value ?? {};
      const source = requireSynchronizerId(v.source, 'source');
      const target = requireSynchronizerId(v.target, 'target');
      if (!v.reassignmentId || !isReassignmentId(v.reassignmentId))
        throw invalidField('reassignment_id', 'Invalid reassignment ID');
      return { kind: 'assign', reassignmentId: v.reassignmentId, source, target };
    }
    throw missingField('command');
  });
  return { userId, submitter, commandId, workflowId, submissionId, batch: batchOf(parsed) };
}
