import { ErrorCategories as C, LedgerError, failedPrecondition, invalidArgument, notFound } from '../errors';

/** The rejections of building a transaction from commands (the reference's codes for the same mistakes). */

export const partiesNotKnown = (parties: readonly string[]) =>
  new LedgerError(
    'PARTY_NOT_KNOWN_ON_LEDGER',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `Parties not known on ledger: ${parties.join(', ')}`,
    {
      resources: parties.map((p) => ['PARTY', p] as [string, string]),
    },
  );

export const damlAuthorizationError = (msg: string) =>
  new LedgerError('DAML_AUTHORIZATION_ERROR', C.InvalidIndependentOfSystemState, `Interpretation error: Error: ${msg}`);

export const contractNotFound = (contractId: string) =>
  notFound('CONTRACT_NOT_FOUND', `Contract could not be found with id ${contractId}`, [['CONTRACT_ID', contractId]]);

/** Canton's preprocessor on a command naming an id without suffix (`IllegalContractId.NonSuffixV1ContractId`). */
export const nonSuffixedContractId = (contractId: string) =>
  new LedgerError(
    'COMMAND_PREPROCESSING_FAILED',
    C.InvalidIndependentOfSystemState,
    `Illegal Contract ID "${contractId}", non-suffixed V1 Contract IDs are forbidden`,
  );

export const wronglyTypedContract = (contractId: string, actual: string, expected: string) =>
  failedPrecondition(
    'WRONGLY_TYPED_CONTRACT',
    `Interpretation error: Error: Contract ${contractId} was found but it is of template ${actual}, not of the expected ${expected}`,
  );

export const noSynchronizerForSubmission = (reason: string) =>
  failedPrecondition('NO_SYNCHRONIZER_FOR_SUBMISSION', `No valid synchronizer for submission found: ${reason}`);

/** Choices are not interpreted: only the built-in Archive can be built here. */
export const choiceNotInterpreted = (choice: string, templateId: string) =>
  invalidArgument(
    `Choice '${choice}' of ${templateId} cannot be exercised by the generic template model: Ledgerline does not run Daml code, so it ` +
      `builds only creates and the consuming Archive choice. To exercise another choice, build the prepared transaction yourself (its ` +
      `nodes stated explicitly: Exercise with its children, signatories, stakeholders and acting parties), sign its hash and submit it to ` +
      `/v2/interactive-submission/executeAndWait.`,
  );

/** Contract keys are not modelled, so a contract cannot be exercised by key. */
export const contractKeysNotModelled = (templateId: string) =>
  invalidArgument(
    `ExerciseByKeyCommand on ${templateId} needs contract keys, which the generic template model does not have: exercise the contract by its id (ExerciseCommand).`,
  );
