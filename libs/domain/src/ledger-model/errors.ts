import { ErrorCategories as C, LedgerError } from '../errors';

/**
 * The reference's rejections of an externally signed transaction (Canton's CommandExecutionErrors, ledger-api-core:
 * ledger/error/groups/, and LocalRejectError, base: protocol/). Every rule of the ledger model throws one of these.
 */

/** 400 FAILED_TO_EXECUTE_TRANSACTION: the transaction cannot be executed as given (malformed, unauthorized, bad signatures). */
export const failedToExecute = (reason: string) =>
  new LedgerError(
    'FAILED_TO_EXECUTE_TRANSACTION',
    C.InvalidIndependentOfSystemState,
    `The participant failed to execute the transaction: ${reason}`,
  );

/** 404 CONTRACT_NOT_ACTIVE: the contract was consumed earlier in the same transaction. */
export const contractNotActive = (contractId: string, templateId: string) =>
  new LedgerError(
    'CONTRACT_NOT_ACTIVE',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `Interpretation error: Error: Update failed due to fetch of an inactive contract ${contractId} (${templateId}).`,
    { resources: [['CONTRACT_ID', contractId]] },
  );

const cids = (ids: readonly string[]) => ids.map((id) => ['CONTRACT_ID', id] as [string, string]);

/** 404 LOCAL_VERDICT_INACTIVE_CONTRACTS: an input contract is archived, unknown, in flight or on another synchronizer. */
export const inactiveContracts = (ids: readonly string[]) =>
  new LedgerError(
    'LOCAL_VERDICT_INACTIVE_CONTRACTS',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `Rejected transaction is referring to inactive contracts ${ids.join(', ')}`,
    { resources: cids(ids), definiteAnswer: false },
  );

/** 409 LOCAL_VERDICT_LOCKED_CONTRACTS: an input contract is being consumed by a submission still in flight. */
export const lockedContracts = (ids: readonly string[]) =>
  new LedgerError(
    'LOCAL_VERDICT_LOCKED_CONTRACTS',
    C.ContentionOnSharedResources,
    `Rejected transaction is referring to locked contracts ${ids.join(', ')}`,
    { resources: cids(ids), definiteAnswer: false },
  );

/** 409 LOCAL_VERDICT_CREATES_EXISTING_CONTRACTS: a created contract id is already known to this ledger. */
export const createsExistingContracts = (ids: readonly string[]) =>
  new LedgerError(
    'LOCAL_VERDICT_CREATES_EXISTING_CONTRACTS',
    C.InvalidGivenCurrentSystemStateResourceExists,
    `Rejected transaction would create contract(s) that already exist ${ids.join(', ')}`,
    { resources: cids(ids), definiteAnswer: false },
  );

/** 409 LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND */
export const ledgerTimeOutOfBound = (details: string) =>
  new LedgerError(
    'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
    C.ContentionOnSharedResources,
    `Rejected transaction as delta of the ledger time and the record time exceed the time tolerance ${details}`,
    { definiteAnswer: false },
  );

/** 409 LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND */
export const preparationTimeOutOfBound = (details: string) =>
  new LedgerError(
    'LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND',
    C.ContentionOnSharedResources,
    `Rejected transaction as delta of the preparation time and the record time exceed the time tolerance ${details}`,
    { definiteAnswer: false },
  );

/** 400 LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED (retrying cannot help, hence not a contention category). */
export const maxRecordTimeExceeded = (details: string) =>
  new LedgerError(
    'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED',
    C.InvalidGivenCurrentSystemStateOther,
    `Rejected transaction as the record time exceeds the transaction's max record time ${details}`,
    { definiteAnswer: false },
  );
