import { ChoiceContextBuilder, textIn, type RegistryChoiceContext, type RegistryContract } from './choice-context';
import { registryNotFound } from './errors';
import { parseIsoMicros } from '../ledger/time';

/**
 * Canton Coin's registry (Splice's Amulet, `splice-amulet`), as Splice's scan serves it
 * (apps/scan/…/scan/admin/http/HttpTokenStandard*Handler.scala, scan/util/ChoiceContextBuilder.scala): the DSO party is
 * the instrument admin, `ExternalPartyAmuletRules` is the transfer and allocation factory, and the choice contexts name
 * the DSO's reference contracts, which are disclosed with them:
 *
 * - `amulet-rules` (AmuletRules) and `open-round` (the newest OpenMiningRound that has opened) in every context that can
 *   move Amulet (scan keeps them for choice implementations of earlier `splice-amulet` versions);
 * - `external-party-config-state` (the ExternalPartyConfigState that is archived last), which `splice-amulet` 0.1.22's
 *   transfers require;
 * - `transfer-preapproval` (the receiver's TransferPreapproval) and `featured-app-right` (its provider's
 *   FeaturedAppRight) for a direct transfer;
 * - `expire-lock` (AV_Bool) for a transfer instruction's or an allocation's choices: whether the choice should unlock
 *   its LockedAmulet, which is disclosed; a LockedAmulet that is gone (expired and unlocked) leaves `expire-lock` false
 *   as the whole context, except for the choices that need it (accept, execute-transfer), which are refused with 404.
 */
export const AMULET_TEMPLATES = {
  amuletRules: 'splice-amulet:Splice.AmuletRules:AmuletRules',
  externalPartyAmuletRules: 'splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
  openMiningRound: 'splice-amulet:Splice.Round:OpenMiningRound',
  externalPartyConfigState: 'splice-amulet:Splice.ExternalPartyConfigState:ExternalPartyConfigState',
  transferPreapproval: 'splice-amulet:Splice.AmuletRules:TransferPreapproval',
  featuredAppRight: 'splice-amulet:Splice.Amulet:FeaturedAppRight',
  lockedAmulet: 'splice-amulet:Splice.Amulet:LockedAmulet',
  transferInstruction: 'splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction',
  allocation: 'splice-amulet:Splice.AmuletAllocation:AmuletAllocation',
} as const;

/** The instrument id of Amulet (`amuletInstrumentIdName` in Splice.Amulet.TokenApiUtils). */
export const AMULET_INSTRUMENT_ID = 'Amulet';

export type TransferKind = 'self' | 'direct' | 'offer';

/** The DSO's reference contracts every Amulet context is built from. */
export interface AmuletReferenceContracts {
  dso: string;
  amuletRules: RegistryContract;
  externalPartyAmuletRules: RegistryContract;
  openRounds: readonly RegistryContract[];
  configStates: readonly RegistryContract[];
}

/** A text field of a contract's create argument. */
const arg = (c: RegistryContract, ...path: string[]): string => textIn(c.createdEvent.createArgument, ...path);
/** A Daml `Time` as the JSON API renders it, in microseconds since the epoch. */
export const timeMicros = (iso: string): bigint => parseIsoMicros(iso);
const createdOrder = (a: RegistryContract, b: RegistryContract) =>
  a.createdEvent.createdAt < b.createdEvent.createdAt
    ? -1
    : a.createdEvent.createdAt > b.createdEvent.createdAt
      ? 1
      : 0;

/** The kinds of DSO contract the answers are built from, read together (by-id reads aside). */
export const AMULET_REFERENCE_KINDS = [
  'amuletRules',
  'externalPartyAmuletRules',
  'openMiningRound',
  'externalPartyConfigState',
  'transferPreapproval',
  'featuredAppRight',
] as const;

/** The active contracts of each kind. */
export type AmuletContracts = Record<(typeof AMULET_REFERENCE_KINDS)[number], RegistryContract[]>;

/** The DSO's reference contracts: its AmuletRules and ExternalPartyAmuletRules (404 without), rounds and config states. */
export function amuletReferences(coin: AmuletContracts, dso: string): AmuletReferenceContracts {
  return {
    dso,
    amuletRules: dsoContract(coin.amuletRules, dso, 'AmuletRules'),
    externalPartyAmuletRules: dsoContract(coin.externalPartyAmuletRules, dso, 'ExternalPartyAmuletRules'),
    openRounds: coin.openMiningRound,
    configStates: coin.externalPartyConfigState,
  };
}

/** The DSO of the oldest active AmuletRules, or null when there is none (no Amulet on this ledger). */
export function amuletDsoOf(rules: readonly RegistryContract[]): string | null {
  const oldest = [...rules].sort(createdOrder)[0];
  return oldest ? arg(oldest, 'dso') : null;
}

/** The DSO's contract of a kind: the oldest one it signs (there is one of each), else 404 as scan's `get…` lookups. */
export function dsoContract(contracts: readonly RegistryContract[], dso: string, what: string): RegistryContract {
  const found = contracts.filter((c) => arg(c, 'dso') === dso).sort(createdOrder)[0];
  if (!found) throw registryNotFound(`No active ${what} contract found for ${dso}.`);
  return found;
}

/** The newest OpenMiningRound (highest round number) that has opened at `nowMicros` (scan's latest usable round). */
export function latestUsableOpenRound(
  rounds: readonly RegistryContract[],
  dso: string,
  nowMicros: bigint,
): RegistryContract {
  const usable = rounds.filter((r) => arg(r, 'dso') === dso && timeMicros(arg(r, 'opensAt')) <= nowMicros);
  const newest = usable.sort((a, b) =>
    Number(BigInt(arg(b, 'round', 'number')) - BigInt(arg(a, 'round', 'number'))),
  )[0];
  if (!newest) throw registryNotFound('No open usable OpenMiningRound found.');
  return newest;
}

/** The ExternalPartyConfigState that is archived last (the newer of the pair the DSO keeps), or null. */
export function latestConfigState(states: readonly RegistryContract[], dso: string): RegistryContract | null {
  const own = states.filter((s) => arg(s, 'dso') === dso);
  own.sort(
    (a, b) =>
      Number(timeMicros(arg(b, 'targetArchiveAfter')) - timeMicros(arg(a, 'targetArchiveAfter'))) || createdOrder(b, a),
  );
  return own[0] ?? null;
}

/** The receiver's TransferPreapproval that expires last among those not expired at `nowMicros`, or null. */
export function usablePreapproval(
  preapprovals: readonly RegistryContract[],
  dso: string,
  receiver: string,
  nowMicros: bigint,
): RegistryContract | null {
  const usable = preapprovals.filter(
    (p) => arg(p, 'dso') === dso && arg(p, 'receiver') === receiver && timeMicros(arg(p, 'expiresAt')) > nowMicros,
  );
  usable.sort((a, b) => Number(timeMicros(arg(b, 'expiresAt')) - timeMicros(arg(a, 'expiresAt'))));
  return usable[0] ?? null;
}

/** The provider's FeaturedAppRight (the oldest, should it have several), or null. */
export function featuredAppRightOf(
  rights: readonly RegistryContract[],
  dso: string,
  provider: string,
): RegistryContract | null {
  return rights.filter((r) => arg(r, 'dso') === dso && arg(r, 'provider') === provider).sort(createdOrder)[0] ?? null;
}

/** The provider of a TransferPreapproval. */
export const preapprovalProvider = (preapproval: RegistryContract): string => arg(preapproval, 'provider');

/** self: sender and receiver are one party; direct: the receiver pre-approved transfers; offer: otherwise. */
export function amuletTransferKind(
  sender: string,
  receiver: string,
  preapproval: RegistryContract | null,
): TransferKind {
  if (sender === receiver) return 'self';
  return preapproval ? 'direct' : 'offer';
}

function referenceContext(
  ref: AmuletReferenceContracts,
  nowMicros: bigint,
  excludeDebugFields: boolean,
): ChoiceContextBuilder {
  return new ChoiceContextBuilder(excludeDebugFields)
    .contract('amulet-rules', ref.amuletRules)
    .contract('open-round', latestUsableOpenRound(ref.openRounds, ref.dso, nowMicros))
    .optionalContract('external-party-config-state', latestConfigState(ref.configStates, ref.dso));
}

export interface TransferFactoryWithChoiceContext {
  factoryId: string;
  transferKind: TransferKind;
  choiceContext: RegistryChoiceContext;
}

export interface FactoryWithChoiceContext {
  factoryId: string;
  choiceContext: RegistryChoiceContext;
}

/**
 * The transfer factory for a transfer from `sender` to `receiver`: `ExternalPartyAmuletRules` (disclosed last), the
 * reference contracts, and for a transfer to another party the receiver's usable TransferPreapproval with its provider's
 * FeaturedAppRight (a self-transfer needs neither; without a pre-approval the transfer is an offer).
 */
export function amuletTransferFactory(
  ref: AmuletReferenceContracts,
  transfer: {
    sender: string;
    receiver: string;
    preapproval: RegistryContract | null;
    featuredAppRight: RegistryContract | null;
  },
  nowMicros: bigint,
  excludeDebugFields: boolean,
): TransferFactoryWithChoiceContext {
  const self = transfer.sender === transfer.receiver;
  const preapproval = self ? null : transfer.preapproval;
  const choiceContext = referenceContext(ref, nowMicros, excludeDebugFields)
    .optionalContract('featured-app-right', preapproval ? transfer.featuredAppRight : null)
    .optionalContract('transfer-preapproval', preapproval)
    .disclose(ref.externalPartyAmuletRules)
    .build();
  return {
    factoryId: ref.externalPartyAmuletRules.createdEvent.contractId,
    transferKind: amuletTransferKind(transfer.sender, transfer.receiver, preapproval),
    choiceContext,
  };
}

/** The allocation factory: `ExternalPartyAmuletRules` with the reference contracts. */
export function amuletAllocationFactory(
  ref: AmuletReferenceContracts,
  nowMicros: bigint,
  excludeDebugFields: boolean,
): FactoryWithChoiceContext {
  const choiceContext = referenceContext(ref, nowMicros, excludeDebugFields)
    .disclose(ref.externalPartyAmuletRules)
    .build();
  return { factoryId: ref.externalPartyAmuletRules.createdEvent.contractId, choiceContext };
}

/** What a two-step choice (a transfer instruction's or an allocation's) is about. */
export interface TwoStepTransfer {
  /** `AmuletTransferInstruction '<id>'` or `AmuletAllocation '<id>'`. */
  description: string;
  lockedAmuletId: string;
  /** The LockedAmulet if it is still active. */
  lockedAmulet: RegistryContract | null;
  /** When the instruction or allocation expires (its `executeBefore` or `settleBefore`). */
  expiresAt: string;
  /** The choice moves the locked Amulet (accept, execute-transfer): it cannot do without the LockedAmulet. */
  requireLockedAmulet: boolean;
  /** The executor's FeaturedAppRight (execute-transfer of an allocation), or null. */
  featuredAppRight: RegistryContract | null;
}

/** The choice context of a transfer instruction's or an allocation's choice (scan's `getTwoStepTransferContext`). */
export function amuletTwoStepContext(
  ref: AmuletReferenceContracts,
  t: TwoStepTransfer,
  nowMicros: bigint,
  excludeDebugFields: boolean,
): RegistryChoiceContext {
  if (!t.lockedAmulet) {
    if (t.requireLockedAmulet)
      throw registryNotFound(
        `LockedAmulet '${t.lockedAmuletId}' not found for ${t.description}, which expires on ${t.expiresAt}`,
      );
    return new ChoiceContextBuilder(excludeDebugFields).bool('expire-lock', false).build();
  }
  return referenceContext(ref, nowMicros, excludeDebugFields)
    .disclose(t.lockedAmulet)
    .bool('expire-lock', true)
    .optionalContract('featured-app-right', t.featuredAppRight)
    .build();
}

/** The LockedAmulet and expiry of an AmuletTransferInstruction. */
export function transferInstructionLock(instruction: RegistryContract): { lockedAmuletId: string; expiresAt: string } {
  return { lockedAmuletId: arg(instruction, 'lockedAmulet'), expiresAt: arg(instruction, 'transfer', 'executeBefore') };
}

/** The LockedAmulet, expiry and executor of an AmuletAllocation. */
export function allocationLock(allocation: RegistryContract): {
  lockedAmuletId: string;
  expiresAt: string;
  executor: string;
} {
  return {
    lockedAmuletId: arg(allocation, 'lockedAmulet'),
    expiresAt: arg(allocation, 'allocation', 'settlement', 'settleBefore'),
    executor: arg(allocation, 'allocation', 'settlement', 'executor'),
  };
}
