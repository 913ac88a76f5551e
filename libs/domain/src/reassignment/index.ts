// Explicit exports: generic helper names (requireParty, …) stay inside this folder so they cannot clash with other
// capabilities' exports from '@ledgerline/domain'.
export type {
  RawReassignmentCommands,
  RawReassignmentCommand,
  RawAssignCommand,
  RawUnassignCommand,
  ReassignmentBatch,
  ReassignmentSubmission,
} from './commands';
export { validateReassignmentCommands, invalidBatch } from './validation';
export * from './reassignment-rules';
export {
  reassignmentChangeId,
  checkReassignmentDeduplication,
  type ReassignmentChange,
  type ReassignmentCompletion,
} from './deduplication';
