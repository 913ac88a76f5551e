/**
 * Interpretation failures as data (Canton `interpretation/Error.scala`). Inside the machine a failure travels as a thrown
 * `Failure` (or `DamlThrow` for a catchable Daml exception); it never escapes the machine's `run`.
 */
import type { TypeConId } from '../language/ast';
import type { SValue } from './code';

export type InterpretationError =
  /** `error`/`abort` (INTERPRETATION_USER_ERROR). */
  | { readonly tag: 'UserError'; readonly message: string }
  /** A Daml exception nobody caught (DAML_FAILURE, error id `UNHANDLED_EXCEPTION/<Module>:<Name>`). */
  | {
      readonly tag: 'UnhandledException';
      readonly exceptionType: TypeConId;
      readonly value: SValue;
      readonly message: string;
    }
  /** FAIL_WITH_STATUS (DAML_FAILURE with the package's own error id and category). */
  | {
      readonly tag: 'FailureStatus';
      readonly errorId: string;
      readonly failureCategory: number;
      readonly message: string;
      readonly metadata: ReadonlyMap<string, string>;
    }
  /** A template precondition that evaluated to False without throwing (not damlc's PreconditionFailed). */
  | { readonly tag: 'TemplatePreconditionViolated'; readonly templateId: TypeConId; readonly arg: SValue }
  | { readonly tag: 'Crypto'; readonly message: string }
  /** Comparing (or using as a GenMap key) values that contain functions. */
  | { readonly tag: 'NonComparableValues' }
  /** Authorization failures, contract look-up failures … raised by the transaction layer. */
  | {
      readonly tag: 'Ledger';
      readonly code: string;
      readonly message: string;
      readonly details?: Record<string, unknown>;
    }
  /** Evaluation exceeded its step budget. */
  | { readonly tag: 'TimeExceeded'; readonly steps: number }
  /** Evaluation would build more than its memory budget (bytes, estimated as `memory.ts` does). */
  | { readonly tag: 'MemoryExceeded'; readonly bytes: number }
  /** The program was not well-typed, or a feature is not implemented (a bug or an unsupported package). */
  | { readonly tag: 'Internal'; readonly message: string };

/** A non-catchable failure raised inside the machine. */
export class Failure {
  constructor(readonly error: InterpretationError) {}
}

/** A Daml exception (an `AnyException` value: type + record) on its way to the nearest handler. */
export class DamlThrow {
  constructor(readonly exception: Extract<SValue, { t: 'any' }>) {}
}

export const internal = (message: string) => new Failure({ tag: 'Internal', message });

/** Stable `DA.Exception.ArithmeticError:ArithmeticError` of daml-prim (Canton `StablePackages`). */
export const ARITHMETIC_ERROR: TypeConId = {
  packageId: 'ee33fb70918e7aaa3d3fc44d64a399fb2bf5bcefc54201b1690ecd448551ba88',
  module: 'DA.Exception.ArithmeticError',
  name: 'ArithmeticError',
};

export function arithmeticError(message: string): DamlThrow {
  return new DamlThrow({
    t: 'any',
    ty: { tag: 'con', tycon: ARITHMETIC_ERROR, args: [] },
    v: { t: 'record', id: ARITHMETIC_ERROR, f: ['message'], v: [{ t: 'text', v: message }] },
  });
}
