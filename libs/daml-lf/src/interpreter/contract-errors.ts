/**
 * The contract failures of a submission as Canton renders them (`speedy/Pretty.scala`, `prettyDamlException`; the
 * error codes and resources of `ledger-api-core/…/CommandExecutionErrors.scala`). Pretty prints a template or interface
 * id as `Module:Name@` and the first 8 characters of the package id.
 */
import type { TypeConId } from '../language/ast';
import { qualifiedNameToString } from '../language/ast';
import { Failure } from './errors';

const interp = (m: string) => `Interpretation error: Error: ${m}`;
const tid = (id: TypeConId) => qualifiedNameToString(id);

export const prettyTypeConId = (id: TypeConId) => `${id.module}:${id.name}@${id.packageId.slice(0, 8)}`;

function ledgerFailure(code: string, message: string, resources: readonly (readonly [string, string])[]): Failure {
  return new Failure({ tag: 'Ledger', code, message, details: { resources } });
}

/** `templateId` is the contract's own template. */
export function contractNotActive(contractId: string, templateId: TypeConId, consumedBy: number): Failure {
  return ledgerFailure(
    'CONTRACT_NOT_ACTIVE',
    interp(
      `Update failed due to fetch of an inactive contract ${contractId} (${prettyTypeConId(templateId)}).\nThe contract had been consumed in sub-transaction #NodeId(${consumedBy}):`,
    ),
    [
      ['TEMPLATE_ID', tid(templateId)],
      ['CONTRACT_ID', contractId],
    ],
  );
}

export function wronglyTypedContract(contractId: string, expected: TypeConId, actual: TypeConId): Failure {
  return ledgerFailure(
    'WRONGLY_TYPED_CONTRACT',
    interp(
      `Update failed due to wrongly typed contract id ${contractId}\nExpected contract of type ${prettyTypeConId(expected)} but got ${prettyTypeConId(actual)}`,
    ),
    [
      ['CONTRACT_ID', contractId],
      ['TEMPLATE_ID', tid(expected)],
      ['TEMPLATE_ID', tid(actual)],
    ],
  );
}

export function contractDoesNotImplementInterface(
  contractId: string,
  templateId: TypeConId,
  iface: TypeConId,
): Failure {
  return ledgerFailure(
    'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
    interp(
      `Update failed due to contract ${contractId} not implementing an interface\nExpected contract to implement interface ${prettyTypeConId(iface)} but contract has type ${prettyTypeConId(templateId)}`,
    ),
    [
      ['CONTRACT_ID', contractId],
      ['TEMPLATE_ID', tid(templateId)],
      ['INTERFACE_ID', tid(iface)],
    ],
  );
}

/** `unsafe_from_required_interface` on a contract whose template lacks the requiring interface (Canton keeps its spelling "requirring"). */
export function contractDoesNotImplementRequiringInterface(
  requiring: TypeConId,
  required: TypeConId,
  contractId: string,
  templateId: TypeConId,
): Failure {
  return ledgerFailure(
    'CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE',
    interp(
      `Update failed due to contract ${contractId} not implementing the requiring interface\nExpected contract to implement interface ${prettyTypeConId(requiring)} requirring the interface ${prettyTypeConId(required)} but contract has type ${prettyTypeConId(templateId)}`,
    ),
    [
      ['CONTRACT_ID', contractId],
      ['TEMPLATE_ID', tid(templateId)],
      ['INTERFACE_ID', tid(required)],
      ['INTERFACE_ID', tid(requiring)],
    ],
  );
}

export interface ContractMetadata {
  readonly packageName: string;
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
}

const prettyParties = (ps: readonly string[]) => `{ ${ps.map((p) => `'${p}'`).join(',')} }`;

/**
 * A ledger contract whose metadata, recomputed from its template, differs from what the ledger stored (Canton:
 * `Upgrade.ValidationFailed`). The original observers are the stored non-signatory stakeholders.
 */
export function validationFailed(
  contractId: string,
  templateId: TypeConId,
  original: ContractMetadata,
  recomputed: ContractMetadata,
): Failure {
  const t = prettyTypeConId(templateId);
  const lines = [
    `Validation fails when trying to upgrade the contract ${contractId} from ${t} to ${t}`,
    "Verify that neither the signatories, nor the observers, nor the contract key, nor the key's maintainers, nor the package name have changed",
    `original package name is ${original.packageName}`,
    `original signatories are ${prettyParties(original.signatories)}`,
    `original observers are ${prettyParties(original.observers)}`,
    `target package name is ${recomputed.packageName}`,
    `recomputed signatories are ${prettyParties(recomputed.signatories)}`,
    `recomputed observers are ${prettyParties(recomputed.observers)}`,
  ];
  return ledgerFailure('INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED', interp(lines.join('\n')), [
    ['CONTRACT_ID', contractId],
    ['TEMPLATE_ID', tid(templateId)],
    ['TEMPLATE_ID', tid(templateId)],
    ['PACKAGE_NAME', original.packageName],
    ['PACKAGE_NAME', recomputed.packageName],
  ]);
}
