/**
 * Choice contexts and disclosed contracts for Canton Coin's token-standard choices, built by hand from the DSO's active
 * contracts the way Splice's registry (Scan) builds them (apps/scan/…/scan/util/ChoiceContextBuilder.scala,
 * HttpTokenStandardTransferInstructionHandler.scala): the context names contracts under the keys of
 * daml/splice-amulet/daml/Splice/Amulet/TokenApiUtils.daml and every contract it names is disclosed, so that a wallet
 * party that is no stakeholder of the DSO's contracts can use them.
 *
 * - transfer factory: `amulet-rules`, `open-round` (the newest round open now), `external-party-config-state` (the
 *   newest `ExternalPartyConfigState`, the one splice-amulet 0.1.22 reads), `transfer-preapproval` (the receiver's
 *   `TransferPreapproval`, if any) and `featured-app-right` (of that preapproval's provider, if featured); the
 *   `ExternalPartyAmuletRules` (the factory) is disclosed beside them;
 * - a transfer instruction's or allocation's accept/reject/withdraw/execute: the same base entries, the instruction's
 *   `LockedAmulet` disclosed, and `expire-lock` = whether that locked amulet is still active (TwoStepTransfer.daml's
 *   abort unlocks it only then).
 *
 * The ledger calls go through `read` (a call of the JSON API answering the JSON of a 200, or throwing), so the test suite
 * and bench:engine share this code.
 */
export const AMULET_PKG = '#splice-amulet';
export const TEMPLATES = {
  amuletRules: `${AMULET_PKG}:Splice.AmuletRules:AmuletRules`,
  externalPartyAmuletRules: `${AMULET_PKG}:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules`,
  openRound: `${AMULET_PKG}:Splice.Round:OpenMiningRound`,
  configState: `${AMULET_PKG}:Splice.ExternalPartyConfigState:ExternalPartyConfigState`,
  transferPreapproval: `${AMULET_PKG}:Splice.AmuletRules:TransferPreapproval`,
  featuredAppRight: `${AMULET_PKG}:Splice.Amulet:FeaturedAppRight`,
  amulet: `${AMULET_PKG}:Splice.Amulet:Amulet`,
  lockedAmulet: `${AMULET_PKG}:Splice.Amulet:LockedAmulet`,
  transferInstruction: `${AMULET_PKG}:Splice.AmuletTransferInstruction:AmuletTransferInstruction`,
  allocation: `${AMULET_PKG}:Splice.AmuletAllocation:AmuletAllocation`,
} as const;
export const INTERFACES = {
  holding: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  transferFactory: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  transferInstruction:
    '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  allocationFactory:
    '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  allocation: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
} as const;
/** Choice-context keys (splice-amulet's TokenApiUtils.daml and Scan's ChoiceContextBuilder.scala). */
export const CONTEXT_KEYS = {
  amuletRules: 'amulet-rules',
  openRound: 'open-round',
  configState: 'external-party-config-state',
  transferPreapproval: 'transfer-preapproval',
  featuredAppRight: 'featured-app-right',
  expireLock: 'expire-lock',
} as const;

export type Read = (method: 'GET' | 'POST', pathname: string, body?: unknown) => Promise<any>;
export interface DisclosedContract {
  contractId: string;
  templateId: string;
  createdEventBlob: string;
  synchronizerId: string;
}
export type AnyValue = { tag: 'AV_ContractId'; value: string } | { tag: 'AV_Bool'; value: boolean };
export interface ChoiceContext {
  choiceContextData: { values: Record<string, AnyValue> };
  disclosedContracts: DisclosedContract[];
}
export interface TransferFactoryContext extends ChoiceContext {
  factoryId: string;
  /** As Scan's answer: `self` (sender = receiver), `direct` (a preapproval), `offer` (a transfer instruction). */
  transferKind: 'self' | 'direct' | 'offer';
}
/** A created event as the DSO reads it (verbose, with its blob). */
type Created = { contractId: string; templateId: string; createArgument: any; createdEventBlob: string };

const contractId = (value: string): AnyValue => ({ tag: 'AV_ContractId', value });

export class AmuletRegistry {
  constructor(
    private readonly read: Read,
    readonly dso: string,
    readonly synchronizerId: string,
  ) {}

  /** The DSO's active contracts of the given templates, with their created-event blobs. */
  async dsoContracts(templateIds: string[]): Promise<Created[]> {
    const end = (await this.read('GET', '/v2/state/ledger-end')).offset;
    const acs = await this.read('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: {
        filtersByParty: {
          [this.dso]: {
            cumulative: templateIds.map((templateId) => ({
              identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob: true } } },
            })),
          },
        },
        verbose: true,
      },
    });
    return acs.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
  }

  disclose(c: Created): DisclosedContract {
    return {
      contractId: c.contractId,
      templateId: c.templateId,
      createdEventBlob: c.createdEventBlob,
      synchronizerId: this.synchronizerId,
    };
  }

  /** The entries every Amulet choice context carries: AmuletRules, the newest round open now, the newest config state. */
  private base(all: Created[]): { values: Record<string, AnyValue>; disclosed: Created[] } {
    const of = (suffix: string) => all.filter((c) => c.templateId.endsWith(suffix));
    const [rules] = of(':Splice.AmuletRules:AmuletRules');
    const now = Date.now();
    const open = of(':Splice.Round:OpenMiningRound')
      .filter((r) => Date.parse(r.createArgument.opensAt) <= now)
      .sort((a, b) => Number(b.createArgument.round.number) - Number(a.createArgument.round.number))[0];
    const state = of(':Splice.ExternalPartyConfigState:ExternalPartyConfigState').sort(
      (a, b) => Date.parse(b.createArgument.targetArchiveAfter) - Date.parse(a.createArgument.targetArchiveAfter),
    )[0];
    if (!rules || !open || !state)
      throw new Error('the DSO has no AmuletRules, open round or ExternalPartyConfigState');
    return {
      values: {
        [CONTEXT_KEYS.amuletRules]: contractId(rules.contractId),
        [CONTEXT_KEYS.openRound]: contractId(open.contractId),
        [CONTEXT_KEYS.configState]: contractId(state.contractId),
      },
      disclosed: [rules, open, state],
    };
  }

  /** The transfer factory and its context for a transfer from `sender` to `receiver` (Scan's getTransferFactory). */
  async transferFactory(sender: string, receiver: string): Promise<TransferFactoryContext> {
    const all = await this.dsoContracts([
      TEMPLATES.amuletRules,
      TEMPLATES.openRound,
      TEMPLATES.configState,
      TEMPLATES.externalPartyAmuletRules,
      TEMPLATES.transferPreapproval,
      TEMPLATES.featuredAppRight,
    ]);
    const { values, disclosed } = this.base(all);
    const factory = all.find((c) => c.templateId.endsWith(':ExternalPartyAmuletRules'));
    if (!factory) throw new Error('the DSO has no ExternalPartyAmuletRules');
    const preapproval =
      sender === receiver
        ? undefined
        : all.find(
            (c) =>
              c.templateId.endsWith(':TransferPreapproval') &&
              c.createArgument.receiver === receiver &&
              Date.parse(c.createArgument.expiresAt) > Date.now(),
          );
    const featured =
      preapproval &&
      all.find(
        (c) =>
          c.templateId.endsWith(':FeaturedAppRight') &&
          c.createArgument.provider === preapproval.createArgument.provider,
      );
    if (preapproval) {
      values[CONTEXT_KEYS.transferPreapproval] = contractId(preapproval.contractId);
      disclosed.push(preapproval);
    }
    if (featured) {
      values[CONTEXT_KEYS.featuredAppRight] = contractId(featured.contractId);
      disclosed.push(featured);
    }
    return {
      factoryId: factory.contractId,
      transferKind: sender === receiver ? 'self' : preapproval ? 'direct' : 'offer',
      choiceContextData: { values },
      disclosedContracts: [factory, ...disclosed].map((c) => this.disclose(c)),
    };
  }

  /** The allocation factory (the same ExternalPartyAmuletRules) and its context, without preapproval or featuring. */
  async allocationFactory(): Promise<TransferFactoryContext> {
    const all = await this.dsoContracts([
      TEMPLATES.amuletRules,
      TEMPLATES.openRound,
      TEMPLATES.configState,
      TEMPLATES.externalPartyAmuletRules,
    ]);
    const { values, disclosed } = this.base(all);
    const factory = all.find((c) => c.templateId.endsWith(':ExternalPartyAmuletRules'))!;
    return {
      factoryId: factory.contractId,
      transferKind: 'offer',
      choiceContextData: { values },
      disclosedContracts: [factory, ...disclosed].map((c) => this.disclose(c)),
    };
  }

  /**
   * The context of a choice on a two-step transfer (a transfer instruction's accept/reject/withdraw, an allocation's
   * execute/withdraw/cancel) backed by `lockedAmuletCid` (Scan's getTwoStepTransferContext).
   */
  async twoStepContext(lockedAmuletCid: string): Promise<ChoiceContext> {
    const all = await this.dsoContracts([
      TEMPLATES.amuletRules,
      TEMPLATES.openRound,
      TEMPLATES.configState,
      TEMPLATES.lockedAmulet,
    ]);
    const locked = all.find((c) => c.contractId === lockedAmuletCid);
    if (!locked)
      return {
        choiceContextData: { values: { [CONTEXT_KEYS.expireLock]: { tag: 'AV_Bool', value: false } } },
        disclosedContracts: [],
      };
    const { values, disclosed } = this.base(all);
    values[CONTEXT_KEYS.expireLock] = { tag: 'AV_Bool', value: true };
    return { choiceContextData: { values }, disclosedContracts: [...disclosed, locked].map((c) => this.disclose(c)) };
  }
}

/** The token standard's `extraArgs` carrying a choice context. */
export const extraArgs = (context: { choiceContextData: { values: Record<string, AnyValue> } }) => ({
  context: context.choiceContextData,
  meta: { values: {} },
});
