/** Errors of typing a value against its Daml-LF type, with the Ledger API error code Canton answers with. */
export interface ValueError {
  readonly code: 'INVALID_ARGUMENT' | 'COMMAND_PREPROCESSING_FAILED';
  readonly message: string;
}

export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ValueError };

/** Thrown inside the codecs only; the exported functions return `Decoded`. */
export class ValueErrorSignal {
  constructor(readonly error: ValueError) {}
}

export const invalidArgument = (message: string) => new ValueErrorSignal({ code: 'INVALID_ARGUMENT', message });
export const preprocessingFailed = (message: string) =>
  new ValueErrorSignal({ code: 'COMMAND_PREPROCESSING_FAILED', message });

/** Canton's `Value.MAXIMUM_NESTING`. */
export const MAXIMUM_NESTING = 100;
