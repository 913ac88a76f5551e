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
  | { readonly tag: 'UnhandledException'; readonly exceptionType: TypeConId; readonly value: SValue; readonly message: string }
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
  | { readonly tag: 'Ledger'; readonly code: string; readonly message: string; readonly details?: Record<string, unknown> }
  /** Evaluation exceeded its step budget. */
  | { readonly tag: 'TimeExceeded'; readonly steps: number }
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

/** Canton's `Pretty.prettyTypeConId`: `Module:Name@` and the package id's first 8 characters. */
export const prettyTypeConId = (id: TypeConId) => `${id.module}:${id.name}@${id.packageId.slice(0, 8)}`;
const fullId = (id: TypeConId) => `${id.packageId}:${id.module}:${id.name}`;
const interpretationError = (m: string) => `Interpretation error: Error: ${m}`;

/**
 * The contract's template has no instance of the interface it is used through (Canton's
 * `ContractDoesNotImplementInterface`, rendered by `speedy/Pretty.scala`; resources as `CommandExecutionErrors.scala`).
 */
export function contractDoesNotImplementInterface(iface: TypeConId, contractId: string, template: TypeConId): Failure {
  return new Failure({
    tag: 'Ledger',
    code: 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
    message: interpretationError(
      `Update failed due to contract ${contractId} not implementing an interface\n` +
        `Expected contract to implement interface ${prettyTypeConId(iface)} but contract has type ${prettyTypeConId(template)}`,
    ),
    details: { contractId, resources: [['CONTRACT_ID', contractId], ['TEMPLATE_ID', fullId(template)], ['INTERFACE_ID', fullId(iface)]] },
  });
}

/** `unsafe_from_required_interface` on a contract whose template lacks the requiring interface (Canton's wording). */
export function contractDoesNotImplementRequiringInterface(requiring: TypeConId, required: TypeConId, contractId: string, template: TypeConId): Failure {
  return new Failure({
    tag: 'Ledger',
    code: 'CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE',
    message: interpretationError(
      `Update failed due to contract ${contractId} not implementing the requiring interface\n` +
        `Expected contract to implement interface ${prettyTypeConId(requiring)} requirring the interface ${prettyTypeConId(required)} ` +
        `but contract has type ${prettyTypeConId(template)}`,
    ),
    details: {
      contractId,
      resources: [['CONTRACT_ID', contractId], ['TEMPLATE_ID', fullId(template)], ['INTERFACE_ID', fullId(required)], ['INTERFACE_ID', fullId(requiring)]],
    },
  });
}

/** A contract of another template than the one expected (Canton's `WronglyTypedContract`). */
export function wronglyTypedContract(contractId: string, expected: TypeConId, actual: TypeConId): Failure {
  return new Failure({
    tag: 'Ledger',
    code: 'WRONGLY_TYPED_CONTRACT',
    message: interpretationError(
      `Update failed due to wrongly typed contract id ${contractId}\nExpected contract of type ${prettyTypeConId(expected)} but got ${prettyTypeConId(actual)}`,
    ),
    details: { contractId, resources: [['CONTRACT_ID', contractId], ['TEMPLATE_ID', fullId(expected)], ['TEMPLATE_ID', fullId(actual)]] },
  });
}

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
