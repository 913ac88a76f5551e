/**
 * Engine failures with Canton's error code, category and cause (`ledger-api-core/…/CommandExecutionErrors.scala`,
 * `RejectionGenerators.scala`, `speedy/Pretty.scala`). The pipeline turns them into its LedgerError.
 */
import type { InterpretationError } from '../interpreter/errors';
import type { TypeConId } from '../language/ast';
import type { OpenExercise } from '../transaction/partial-transaction';
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
    ? {
        code: 'INVALID_ARGUMENT',
        category: Category.InvalidIndependentOfSystemState,
        message: `The submitted request has invalid arguments: ${e.message}`,
      }
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
export function damlFailure(
  errorId: string,
  category: number,
  message: string,
  metadata: ReadonlyMap<string, string> | Record<string, string> = {},
): EngineError {
  const meta = metadata instanceof Map ? Object.fromEntries(metadata) : (metadata as Record<string, string>);
  return {
    code: 'DAML_FAILURE',
    category,
    message: interp(`User failure: ${errorId} (error category ${category}): ${message}`),
    metadata: { ...meta, error_id: errorId },
  };
}

/** Canton's `EngineConfig.transactionTraceMaxLength`: the exercise trace names at most this many open exercises. */
const TRACE_MAX_EXERCISES = 10;

/**
 * The exercise trace Canton adds to a DAML_FAILURE's context as `exercise_trace` (`Speedy.scala` `transactionTrace`,
 * `CommandExecutionErrors.scala` `FailureStatus`): one indented line per exercise open when interpretation failed,
 * innermost first — the choice's template (or interface) with its package id cut to 8 characters, the contract id cut to
 * 10, the exercise's node id — then `...` when more were open, then the command that was running (see `commandTraceLine`).
 */
export function exerciseTrace(open: readonly OpenExercise[], command: string | undefined): string {
  const lines = open.slice(0, TRACE_MAX_EXERCISES).map(({ nodeId, exercise: e }) => {
    const t = e.interfaceId ?? e.templateId!;
    return `in choice ${t.packageId.slice(0, 8)}:${t.moduleName}:${t.entityName}:${e.choiceId} on contract ${e.contractId.slice(0, 10)} (#${nodeId})`;
  });
  if (open.length > TRACE_MAX_EXERCISES) lines.push('...');
  if (command !== undefined) lines.push(command);
  return lines.map((l) => `    ${l}\n`).join('');
}

/** An interpretation failure as the engine reports it; DAML_FAILURE carries the exercise trace in its metadata. */
export function interpretationFailure(
  e: InterpretationError,
  open: readonly OpenExercise[],
  command: string | undefined,
): EngineError {
  const err = fromInterpretationError(e);
  return err.code === 'DAML_FAILURE'
    ? { ...err, metadata: { ...err.metadata, exercise_trace: exerciseTrace(open, command) } }
    : err;
}

const shortId = (t: { packageId: string; module: string; name: string }) =>
  `${t.packageId.slice(0, 8)}:${t.module}:${t.name}`;

/** The exercise trace's last line: the command being interpreted (Canton `Speedy.scala` `transactionTrace`, `lastCommand`). */
export function commandTraceLine(
  c:
    | { kind: 'create'; templateId: TypeConId }
    | { kind: 'exercise'; templateId: TypeConId; choice: string; contractId: string }
    | { kind: 'createAndExercise'; templateId: TypeConId; choice: string },
): string {
  switch (c.kind) {
    case 'create':
      return `in create command ${shortId(c.templateId)}.`;
    case 'exercise':
      return `in exercise command ${shortId(c.templateId)}:${c.choice} on contract ${c.contractId.slice(0, 10)}.`;
    case 'createAndExercise':
      return `in create-and-exercise command ${shortId(c.templateId)}:${c.choice}.`;
  }
}

export function fromInterpretationError(e: InterpretationError): EngineError {
  switch (e.tag) {
    case 'UserError':
      return {
        code: 'INTERPRETATION_USER_ERROR',
        category: Category.InvalidGivenCurrentSystemStateOther,
        message: interp(`User abort: ${e.message}`),
      };
    case 'UnhandledException':
      return damlFailure(
        `UNHANDLED_EXCEPTION/${e.exceptionType.module}:${e.exceptionType.name}`,
        Category.InvalidGivenCurrentSystemStateOther,
        e.message,
      );
    case 'FailureStatus':
      return damlFailure(e.errorId, e.failureCategory, e.message, e.metadata);
    case 'TemplatePreconditionViolated':
      return {
        code: 'TEMPLATE_PRECONDITION_VIOLATED',
        category: Category.InvalidIndependentOfSystemState,
        message: interp(
          `Update failed due to precondition violation when creating ${e.templateId.packageId}:${e.templateId.module}:${e.templateId.name}`,
        ),
      };
    case 'Crypto':
      return {
        code: 'DAML_INTERPRETATION_ERROR',
        category: Category.InvalidGivenCurrentSystemStateOther,
        message: interp(e.message),
      };
    case 'NonComparableValues':
      return {
        code: 'NON_COMPARABLE_VALUES',
        category: Category.InvalidIndependentOfSystemState,
        message: interp('functions are not comparable'),
      };
    case 'Ledger':
      return ledgerError(e.code, e.message, e.details);
    case 'TimeExceeded':
      return {
        code: 'INTERPRETATION_TIME_EXCEEDED',
        category: Category.ContentionOnSharedResources,
        message: `Interpretation exceeded the limit of ${e.steps} steps. Interpretation aborted.`,
      };
    case 'MemoryExceeded':
      // Canton has no memory limit; its resource-category code of the interpreter's limits is TimeExceeded's.
      return {
        code: 'INTERPRETATION_TIME_EXCEEDED',
        category: Category.ContentionOnSharedResources,
        message: `Interpretation exceeded its memory budget of ${mib(e.bytes)}. Interpretation aborted.`,
      };
    case 'Internal':
      return {
        code: 'DAML_INTERPRETATION_ERROR',
        category: Category.InvalidGivenCurrentSystemStateOther,
        message: interp(e.message),
      };
  }
}

const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

const LEDGER_CATEGORIES: Record<string, number> = {
  DAML_AUTHORIZATION_ERROR: Category.InvalidIndependentOfSystemState,
  CONTRACT_NOT_FOUND: Category.InvalidGivenCurrentSystemStateResourceMissing,
  CONTRACT_NOT_ACTIVE: Category.InvalidGivenCurrentSystemStateResourceMissing,
  WRONGLY_TYPED_CONTRACT: Category.InvalidGivenCurrentSystemStateOther,
  CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE: Category.InvalidIndependentOfSystemState,
  CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE: Category.InvalidIndependentOfSystemState,
  COMMAND_PREPROCESSING_FAILED: Category.InvalidIndependentOfSystemState,
  VALUE_NESTING: Category.InvalidIndependentOfSystemState,
  PACKAGE_NOT_FOUND: Category.InvalidGivenCurrentSystemStateResourceMissing,
  INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED: Category.InvalidIndependentOfSystemState,
};

function ledgerError(code: string, message: string, details?: Record<string, unknown>): EngineError {
  const resources = Array.isArray(details?.resources)
    ? (details.resources as (readonly [string, string])[])
    : details?.contractId
      ? [['CONTRACT_ID', String(details.contractId)] as const]
      : undefined;
  return {
    code,
    category: LEDGER_CATEGORIES[code] ?? Category.InvalidGivenCurrentSystemStateOther,
    message,
    ...(resources ? { resources } : {}),
  };
}
