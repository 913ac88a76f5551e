import type { StoredCreatedEvent } from '../ledger/updates';

/** An active contract as the registry reads it: its created event and the synchronizer it is assigned to. */
export interface RegistryContract {
  createdEvent: StoredCreatedEvent;
  synchronizerId: string;
}

/** The value at `path` in a JSON value (a create argument or an interface view as the JSON API renders them), or undefined. */
export function pathIn(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The text at `path` ('' when absent: a contract of the template always has it). */
export const textIn = (value: unknown, ...path: string[]): string => {
  const v = pathIn(value, ...path);
  return typeof v === 'string' ? v : '';
};

/** `Splice.Api.Token.MetadataV1.AnyValue` in the JSON API's encoding: the constructor in `tag`, its argument in `value`. */
export type AnyValue =
  { tag: 'AV_ContractId'; value: string } | { tag: 'AV_Bool'; value: boolean } | { tag: 'AV_Text'; value: string };

/** `Splice.Api.Token.MetadataV1.ChoiceContext` in the JSON API's encoding. */
export interface ChoiceContextData {
  values: Record<string, AnyValue>;
}

/** The registry API's DisclosedContract: what a submission's `disclosedContracts` takes, and optional debug fields. */
export interface RegistryDisclosedContract {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
  debugPackageName?: string;
  debugPayload?: unknown;
  debugCreatedAt?: string;
}

/** The registry API's ChoiceContext: the context to pass as `extraArgs.context` and the contracts to disclose. */
export interface RegistryChoiceContext {
  choiceContextData: ChoiceContextData;
  disclosedContracts: RegistryDisclosedContract[];
}

/**
 * A contract as a disclosed contract. The debug fields (package name, create argument, creation time) are left out when
 * the request asked for `excludeDebugFields`.
 */
export function disclosedContract(c: RegistryContract, excludeDebugFields: boolean): RegistryDisclosedContract {
  const e = c.createdEvent;
  const d: RegistryDisclosedContract = {
    templateId: e.templateId,
    contractId: e.contractId,
    createdEventBlob: e.createdEventBlob,
    synchronizerId: c.synchronizerId,
  };
  if (!excludeDebugFields) {
    d.debugPackageName = e.packageName;
    d.debugPayload = e.createArgument;
    d.debugCreatedAt = e.createdAt;
  }
  return d;
}

/**
 * Builds a choice context: a contract added under a key is named in the context data (`AV_ContractId`) and disclosed;
 * a contract may also be disclosed without a key. Each contract is disclosed once, in the order it was first added.
 */
export class ChoiceContextBuilder {
  private readonly values: Record<string, AnyValue> = {};
  private readonly disclosed: RegistryDisclosedContract[] = [];

  constructor(private readonly excludeDebugFields: boolean) {}

  contract(key: string, c: RegistryContract): this {
    this.values[key] = { tag: 'AV_ContractId', value: c.createdEvent.contractId };
    return this.disclose(c);
  }

  optionalContract(key: string, c: RegistryContract | null): this {
    return c ? this.contract(key, c) : this;
  }

  bool(key: string, value: boolean): this {
    this.values[key] = { tag: 'AV_Bool', value };
    return this;
  }

  disclose(c: RegistryContract): this {
    if (!this.disclosed.some((d) => d.contractId === c.createdEvent.contractId))
      this.disclosed.push(disclosedContract(c, this.excludeDebugFields));
    return this;
  }

  build(): RegistryChoiceContext {
    return { choiceContextData: { values: { ...this.values } }, disclosedContracts: [...this.disclosed] };
  }
}
