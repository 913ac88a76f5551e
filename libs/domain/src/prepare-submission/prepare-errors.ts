import { ErrorCategories as C, LedgerError } from '../errors';

/** Prepare's own rejection (the builder's are in transaction-builder/builder-errors.ts). */
export const failedToPrepare = (reason: string) =>
  new LedgerError(
    'FAILED_TO_PREPARE_TRANSACTION',
    C.InvalidIndependentOfSystemState,
    `The participant failed to prepare the transaction: ${reason}`,
  );
