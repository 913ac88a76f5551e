/** The engine room: submit commands, answer questions, get a transaction; views and parties of stored contracts. */
export { Engine, type InterfaceViewResult, type InterfaceViewFailure } from './engine';
export {
  UNCONSTRAINED_TIME,
  boundsAfterGetTime,
  boundsAfterLedgerTimeLt,
  boundsConstraints,
  checkWithinBounds,
  type TimeRange,
} from './ledger-time';
export { Category as EngineErrorCategory, fromInterpretationError, type EngineError } from './errors';
export type {
  CommandArgument,
  ContractInstance,
  CreatedContract,
  EngineCommand,
  EngineResult,
  Question,
  SubmitContext,
  TransactionMetadata,
} from './types';
