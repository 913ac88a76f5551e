// The write engine: what the rest of the code uses of it.
export { EventStore } from './event-store';
export {
  COMMIT_CHANNEL,
  type BatchInfo,
  type BatchPhases,
  type LedgerWriter,
  type Work,
  type WriterKind,
  type WriterOptions,
  type WriteTx,
} from './writer';
export {
  changes,
  conflictsOf,
  decision,
  everything,
  namesNoState,
  reads,
  type Conflicts,
  type Decider,
  type Decision,
  type FieldConflict,
  type KeyConflicts,
  type LoadContext,
} from './decider';
export { conflictKey, type ConflictKey, type ConflictNamespace } from './conflict-key';
export { updateIdFor } from './ledger-head';
export { BatchedWriter } from './batched-writer';
export { ReferenceWriter } from './reference-writer';
export { ProjectionReplay } from './projection-replay';
export { dryRunDecision, type DryRunDecision } from './dry-run';
