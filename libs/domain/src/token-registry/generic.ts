import { ChoiceContextBuilder, pathIn, type RegistryChoiceContext, type RegistryContract } from './choice-context';
import type { FactoryWithChoiceContext, TransferFactoryWithChoiceContext } from './amulet';
import { registryNotFound } from './errors';
import {
  ALLOCATION_API,
  ALLOCATION_INSTRUCTION_API,
  HOLDING_API,
  METADATA_API,
  TRANSFER_INSTRUCTION_API,
  type Instrument,
  type SupportedApis,
} from './metadata';

/**
 * The registry of any token whose admin party Ledgerline is configured to serve: the factory is the admin's active
 * contract that implements the token standard's factory interface and whose view names the admin; the choice context is
 * empty and discloses the factory. Instruction and allocation choices get an empty context with nothing to disclose
 * (their stakeholders see them). Instruments are the instrument ids of the admin's holdings.
 */
export const TOKEN_INTERFACES = {
  holding: 'splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  transferFactory: 'splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  transferInstruction:
    'splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  allocationFactory:
    'splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  allocation: 'splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
} as const;

/** A contract with its view of the interface it was read through. */
export interface ViewedRegistryContract {
  contract: RegistryContract;
  view: Record<string, unknown>;
}

const oldestFirst = (a: ViewedRegistryContract, b: ViewedRegistryContract) =>
  a.contract.createdEvent.createdAt < b.contract.createdEvent.createdAt
    ? -1
    : a.contract.createdEvent.createdAt > b.contract.createdEvent.createdAt
      ? 1
      : 0;

/** The admin's factory (the oldest whose view names the admin), disclosed, with an empty context; else 404. */
export function tokenFactory(
  candidates: readonly ViewedRegistryContract[],
  admin: string,
  what: 'TransferFactory' | 'AllocationFactory',
  excludeDebugFields: boolean,
): FactoryWithChoiceContext {
  const factory = candidates.filter((c) => c.view.admin === admin).sort(oldestFirst)[0];
  if (!factory) throw registryNotFound(`No ${what} found for admin ${admin}.`);
  return {
    factoryId: factory.contract.createdEvent.contractId,
    choiceContext: new ChoiceContextBuilder(excludeDebugFields).disclose(factory.contract).build(),
  };
}

/** A transfer through a generic factory is a self-transfer or an offer the receiver accepts: pre-approvals are Amulet's. */
export function tokenTransferFactory(
  candidates: readonly ViewedRegistryContract[],
  admin: string,
  transfer: { sender: string; receiver: string },
  excludeDebugFields: boolean,
): TransferFactoryWithChoiceContext {
  const { factoryId, choiceContext } = tokenFactory(candidates, admin, 'TransferFactory', excludeDebugFields);
  return { factoryId, transferKind: transfer.sender === transfer.receiver ? 'self' : 'offer', choiceContext };
}

/** The admin a TransferInstruction's or an Allocation's view names as its instrument's admin. */
function instrumentAdminOf(kind: 'TransferInstruction' | 'Allocation', view: Record<string, unknown>): unknown {
  return kind === 'TransferInstruction'
    ? pathIn(view, 'transfer', 'instrumentId', 'admin')
    : pathIn(view, 'allocation', 'transferLeg', 'instrumentId', 'admin');
}

/** The (empty) context of a choice on the admin's transfer instruction or allocation; 404 when it is not one. */
export function tokenChoiceContext(
  found: ViewedRegistryContract | null,
  id: string,
  admin: string,
  kind: 'TransferInstruction' | 'Allocation',
): RegistryChoiceContext {
  if (!found || instrumentAdminOf(kind, found.view) !== admin) throw registryNotFound(`${kind} '${id}' not found.`);
  return { choiceContextData: { values: {} }, disclosedContracts: [] };
}

/**
 * The instruments of the admin's holdings (distinct instrument ids whose admin it is), named by their id, 10 decimals,
 * with the APIs its factories support.
 */
export function tokenInstruments(
  holdingViews: readonly Record<string, unknown>[],
  admin: string,
  factories: { transfer: boolean; allocation: boolean },
): Instrument[] {
  const ids = new Set<string>();
  for (const v of holdingViews) {
    const id = pathIn(v, 'instrumentId', 'id');
    if (pathIn(v, 'instrumentId', 'admin') === admin && typeof id === 'string') ids.add(id);
  }
  const supportedApis: SupportedApis = { [METADATA_API]: 1, [HOLDING_API]: 1 };
  if (factories.transfer) supportedApis[TRANSFER_INSTRUCTION_API] = 1;
  if (factories.allocation) Object.assign(supportedApis, { [ALLOCATION_API]: 1, [ALLOCATION_INSTRUCTION_API]: 1 });
  return [...ids].sort().map((id) => ({ id, name: id, symbol: id, decimals: 10, supportedApis: { ...supportedApis } }));
}
