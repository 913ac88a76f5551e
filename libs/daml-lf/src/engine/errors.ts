/**
 * Engine failures with Canton's error code, category and cause (`ledger-api-core/…/CommandExecutionErrors.scala`,
 * `RejectionGenerators.scala`, `speedy/Pretty.scala`). The pipeline turns them into its LedgerError.
 */
import type { InterpretationError } from '../interpreter/errors';
import type { ValueError } from '../values/errors';

/** Canton ErrorCategory ids. */
export const Category = {
  InvalidIndependentOfSystemState: 8,
  InvalidGivenCurrentSystemStateOther: 9,
  InvalidGivenCurrentSystemStateResourceMissing: 11,
  ContentionOnSharedResources: 2,
  SystemInternalAssumptionViolated: 4,
} as const;

export interface EngineError {
  /** Canton error code id, e.g. `DAML_AUTHORIZATION_ERROR`. */
  readonly code: string;
  /** Canton ErrorCategory id (8 = InvalidIndependentOfSystemState …). */
  readonly category: number;
  /** The error's cause as Canton renders it. */
  readonly message: string;
  /** Error-info metadata (DAML_FAILURE: `error_id` and the package's own metadata). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Resource ids (CONTRACT_ID …) for the error details. */
  readonly resources?: readonly (readonly [string, string])[];
}

const interp = (m: string) => `Interpretation error: Error: ${m}`;

export function preprocessingError(message: string): EngineError {
  return { code: 'COMMAND_PREPROCESSING_FAILED', category: Category.InvalidIndependentOfSystemState, message };
}

export function fromValueError(e: ValueError): EngineError {
  return e.code === 'INVALID_ARGUMENT'
    ? { code: 'INVALID_ARGUMENT', category: Category.InvalidIndependentOfSystemState, message: `The submitted request has invalid arguments: ${e.message}` }
    : preprocessingError(e.message);
}

export function packageNotFound(packageId: string): EngineError {
  return {
    code: 'PACKAGE_NOT_FOUND',
    category: Category.InvalidGivenCurrentSystemStateResourceMissing,
    message: `Couldn't find package ${packageId}`,
    resources: [['PACKAGE', packageId]],
  };
}

/** Canton's failure status of an exception nobody caught (error id `UNHANDLED_EXCEPTION/<Module>:<Name>`, category 9). */
export function damlFailure(errorId: string, category: number, message: string, metadata: ReadonlyMap<string, string> | Record<string, string> = {}): EngineError {
  const meta = metadata instanceof Map ? Object.fromEntries(metadata) : (metadata as Record<string, string>);
  return {
    code: 'DAML_FAILURE',
    category,
    message: interp(`User failure: ${errorId} (error category ${category}): ${message}`),
    metadata: { ...meta, error_id: errorId },
  };
}

export function fromInterpretationError(e: InterpretationError): EngineError {
  switch (e.tag) {
    case 'UserError':
      return { code: 'INTERPRETATION_USER_ERROR', category: Category.InvalidGivenCurrentSystemStateOther, message: interp(`User abort: ${e.message}`) };
    case 'UnhandledException':
      return damlFailure(`UNHANDLED_EXCEPTION/${e.exceptionType.module}:${e.exceptionType.name}`, Category.InvalidGivenCurrentSystemStateOther, e.message);
    case 'FailureStatus':
      return damlFailure(e.errorId, e.failureCategory, e.message, e.metadata);
    case 'TemplatePreconditionViolated':
      return {
        code: 'TEMPLATE_PRECONDITION_VIOLATED',
        category: Category.InvalidIndependentOfSystemState,
        message: interp(`Update failed due to precondition violation when creating ${e.templateId.packageId}:${e.templateId.module}:${e.templateId.name}`),
      };
    case 'Crypto':
      return { code: 'DAML_INTERPRETATION_ERROR', category: Category.InvalidGivenCurrentSystemStateOther, message: interp(e.message) };
    case 'NonComparableValues':
      return { code: 'NON_COMPARABLE_VALUES', category: Category.InvalidIndependentOfSystemState, message: interp('functions are not comparable') };
    case 'Ledger':
      return ledgerError(e.code, e.message, e.details);
    case 'TimeExceeded':
      return {
        code: 'INTERPRETATION_TIME_EXCEEDED',
        category: Category.ContentionOnSharedResources,
        message: `Interpretation exceeded the limit of ${e.steps} steps. Interpretation aborted.`,
      };
    case 'Internal':
      return { code: 'DAML_INTERPRETATION_ERROR', category: Category.InvalidGivenCurrentSystemStateOther, message: interp(e.message) };
  }
}

const LEDGER_CATEGORIES: Record<string, number> = {
  DAML_AUTHORIZATION_ERROR: Category.InvalidIndependentOfSystemState,
  CONTRACT_NOT_FOUND: Category.InvalidGivenCurrentSystemStateResourceMissing,
  CONTRACT_NOT_ACTIVE: Category.InvalidGivenCurrentSystemStateResourceMissing,
  WRONGLY_TYPED_CONTRACT: Category.InvalidGivenCurrentSystemStateOther,
  CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE: Category.InvalidIndependentOfSystemState,
  COMMAND_PREPROCESSING_FAILED: Category.InvalidIndependentOfSystemState,
  VALUE_NESTING: Category.InvalidIndependentOfSystemState,
  PACKAGE_NOT_FOUND: Category.InvalidGivenCurrentSystemStateResourceMissing,
};

function ledgerError(code: string, message: string, details?: Record<string, unknown>): EngineError {
  const resources = details?.contractId ? [['CONTRACT_ID', String(details.contractId)] as const] : undefined;
  return { code, category: LEDGER_CATEGORIES[code] ?? Category.InvalidGivenCurrentSystemStateOther, message, ...(resources ? { resources } : {}) };
}
