import { Injectable } from '@nestjs/common';
import {
  AMULET_REFERENCE_KINDS,
  AMULET_TEMPLATES,
  amuletReferences,
  allocationLock,
  amuletAllocationFactory,
  amuletDsoOf,
  amuletInstrument,
  amuletTransferFactory,
  amuletTwoStepContext,
  contractIdOrNotFound,
  decodeChoiceContextRequest,
  decodeFactoryRequest,
  decodeTransferFactoryArguments,
  featuredAppRightOf,
  preapprovalProvider,
  registryInfo,
  registryNotFound,
  registryReassigning,
  selectRegistry,
  templateIdsImplementing,
  templateIdsNamed,
  tokenChoiceContext,
  tokenFactory,
  tokenInstruments,
  tokenTransferFactory,
  transferInstructionLock,
  TOKEN_INTERFACES,
  TokenRegistryError,
  usablePreapproval,
  type AmuletContracts,
  type FactoryWithChoiceContext,
  type Instrument,
  type RegistryChoiceContext,
  type RegistryContract,
  type Registry,
  type RegistryInfo,
  type TransferFactoryWithChoiceContext,
  type ViewedRegistryContract,
} from '@ledgerline/domain';
import { TokenRegistryRepository } from '@ledgerline/store';
import { CommandInterpreter } from '../../infrastructure/command-interpreter';
import { InterfaceDirectories } from '../../infrastructure/interface-directories';
import { LedgerRuntime } from '../../infrastructure/runtime';

export type TransferInstructionChoice = 'accept' | 'reject' | 'withdraw';
export type AllocationChoice = 'execute-transfer' | 'withdraw' | 'cancel';

/**
 * The token registry's reads: it finds the registry a request addresses, reads the admin's active contracts through the
 * store (on the primary, so that a contract a client has just created is found) and lets the domain decide what to
 * answer. Template ids come from the stored packages by name; interface views are evaluated by the engine.
 */
@Injectable()
export class TokenRegistryReader {
  private cachedAt = -1;
  private readonly templateIds = new Map<string, string[]>();

  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly interpreter: CommandInterpreter,
    private readonly interfaces: InterfaceDirectories,
    private readonly repo: TokenRegistryRepository,
  ) {}

  /**
   * Template ids of a template (`package-name:M:E`) or of the implementations of an interface, over the stored packages
   * (decoded by `registry`, which every request calls first).
   */
  private ids(key: string, kind: 'template' | 'interface'): string[] {
    const packages = this.interpreter.engine.packages;
    if (packages.size !== this.cachedAt) {
      this.templateIds.clear();
      this.cachedAt = packages.size;
    }
    const k = `${kind}/${key}`;
    let ids = this.templateIds.get(k);
    if (!ids) {
      ids =
        kind === 'template'
          ? templateIdsNamed(packages.all(), key)
          : templateIdsImplementing(packages.all(), key, (id) => packages.getPackage(id));
      this.templateIds.set(k, ids);
    }
    return ids;
  }

  private get db() {
    return this.runtime.db;
  }

  /** The registry a request addresses (`selectRegistry`), with the DSO's reference contracts. */
  async registry(admin: string | undefined): Promise<{ registry: Registry; coin: AmuletContracts }> {
    await this.interpreter.warmAll();
    const coin = await this.amuletContracts();
    const registry = selectRegistry(admin, amuletDsoOf(coin.amuletRules), this.runtime.config.tokenRegistries);
    return { registry, coin };
  }

  async info(admin: string | undefined): Promise<RegistryInfo> {
    return registryInfo((await this.registry(admin)).registry.admin);
  }

  async instruments(admin: string | undefined): Promise<Instrument[]> {
    const { registry: r } = await this.registry(admin);
    if (r.kind === 'amulet') return [amuletInstrument(this.runtime.config.amuletInstrumentNames)];
    const holdings = await this.viewed(TOKEN_INTERFACES.holding, r.admin);
    const transfer = (await this.viewed(TOKEN_INTERFACES.transferFactory, r.admin)).some(
      (f) => f.view.admin === r.admin,
    );
    const allocation = (await this.viewed(TOKEN_INTERFACES.allocationFactory, r.admin)).some(
      (f) => f.view.admin === r.admin,
    );
    return tokenInstruments(
      holdings.map((h) => h.view),
      r.admin,
      { transfer, allocation },
    );
  }

  async transferFactory(admin: string | undefined, body: unknown): Promise<TransferFactoryWithChoiceContext> {
    const request = decodeFactoryRequest(body);
    const transfer = decodeTransferFactoryArguments(request.choiceArguments);
    const { registry: r, coin } = await this.registry(admin);
    if (r.kind === 'token')
      return tokenTransferFactory(
        await this.viewed(TOKEN_INTERFACES.transferFactory, r.admin),
        r.admin,
        transfer,
        request.excludeDebugFields,
      );
    const now = this.runtime.clock.nowMicros();
    const ref = amuletReferences(coin, r.admin);
    const preapproval =
      transfer.sender === transfer.receiver
        ? null
        : usablePreapproval(coin.transferPreapproval, r.admin, transfer.receiver, now);
    const featuredAppRight = preapproval
      ? featuredAppRightOf(coin.featuredAppRight, r.admin, preapprovalProvider(preapproval))
      : null;
    return amuletTransferFactory(
      ref,
      { sender: transfer.sender, receiver: transfer.receiver, preapproval, featuredAppRight },
      now,
      request.excludeDebugFields,
    );
  }

  async allocationFactory(admin: string | undefined, body: unknown): Promise<FactoryWithChoiceContext> {
    const request = decodeFactoryRequest(body);
    const { registry: r, coin } = await this.registry(admin);
    if (r.kind === 'token')
      return tokenFactory(
        await this.viewed(TOKEN_INTERFACES.allocationFactory, r.admin),
        r.admin,
        'AllocationFactory',
        request.excludeDebugFields,
      );
    return amuletAllocationFactory(
      amuletReferences(coin, r.admin),
      this.runtime.clock.nowMicros(),
      request.excludeDebugFields,
    );
  }

  async transferInstructionContext(
    admin: string | undefined,
    id: string,
    choice: TransferInstructionChoice,
    body: unknown,
  ): Promise<RegistryChoiceContext> {
    const request = decodeChoiceContextRequest(body);
    const { registry: r, coin } = await this.registry(admin);
    if (r.kind === 'token') {
      const notFound = `TransferInstruction '${id}' not found.`;
      const found = await this.viewedById(
        TOKEN_INTERFACES.transferInstruction,
        contractIdOrNotFound(id, notFound),
        r.admin,
      );
      if (!found) throw await this.missing(id, notFound);
      return tokenChoiceContext(found, id, r.admin, 'TransferInstruction');
    }
    const notFound = `AmuletTransferInstruction '${id}' not found.`;
    const instruction = await this.repo.activeById(
      this.db,
      contractIdOrNotFound(id, notFound),
      this.ids(AMULET_TEMPLATES.transferInstruction, 'template'),
      r.admin,
    );
    if (!instruction) throw await this.missing(id, notFound);
    const lock = transferInstructionLock(instruction);
    const lockedAmulet = await this.repo.activeById(
      this.db,
      lock.lockedAmuletId,
      this.ids(AMULET_TEMPLATES.lockedAmulet, 'template'),
      r.admin,
    );
    const twoStep = {
      description: `AmuletTransferInstruction '${id}'`,
      ...lock,
      lockedAmulet,
      requireLockedAmulet: choice === 'accept',
      featuredAppRight: null,
    };
    return amuletTwoStepContext(
      amuletReferences(coin, r.admin),
      twoStep,
      this.runtime.clock.nowMicros(),
      request.excludeDebugFields,
    );
  }

  async allocationContext(
    admin: string | undefined,
    id: string,
    choice: AllocationChoice,
    body: unknown,
  ): Promise<RegistryChoiceContext> {
    const request = decodeChoiceContextRequest(body);
    const { registry: r, coin } = await this.registry(admin);
    if (r.kind === 'token') {
      const notFound = `Allocation '${id}' not found.`;
      const found = await this.viewedById(TOKEN_INTERFACES.allocation, contractIdOrNotFound(id, notFound), r.admin);
      if (!found) throw await this.missing(id, notFound);
      return tokenChoiceContext(found, id, r.admin, 'Allocation');
    }
    const notFound = `AmuletAllocation '${id}' not found.`;
    const allocation = await this.repo.activeById(
      this.db,
      contractIdOrNotFound(id, notFound),
      this.ids(AMULET_TEMPLATES.allocation, 'template'),
      r.admin,
    );
    if (!allocation) throw await this.missing(id, notFound);
    const { executor, ...lock } = allocationLock(allocation);
    const lockedAmulet = await this.repo.activeById(
      this.db,
      lock.lockedAmuletId,
      this.ids(AMULET_TEMPLATES.lockedAmulet, 'template'),
      r.admin,
    );
    const executing = choice === 'execute-transfer';
    const featuredAppRight = executing ? featuredAppRightOf(coin.featuredAppRight, r.admin, executor) : null;
    const twoStep = {
      description: `AmuletAllocation '${id}'`,
      ...lock,
      lockedAmulet,
      requireLockedAmulet: executing,
      featuredAppRight,
    };
    return amuletTwoStepContext(
      amuletReferences(coin, r.admin),
      twoStep,
      this.runtime.clock.nowMicros(),
      request.excludeDebugFields,
    );
  }

  /** Why a contract the request names is not found: 409 while it is being reassigned, else 404 with `notFound`. */
  private async missing(id: string, notFound: string): Promise<TokenRegistryError> {
    return (await this.repo.inFlight(this.db, id)) ? registryReassigning(id) : registryNotFound(notFound);
  }

  /**
   * The active contracts of the `splice-amulet` templates the answers are built from, in one statement, grouped by
   * template.
   */
  private async amuletContracts(): Promise<AmuletContracts> {
    const byId = new Map<string, keyof AmuletContracts>();
    for (const key of AMULET_REFERENCE_KINDS)
      for (const id of this.ids(AMULET_TEMPLATES[key], 'template')) byId.set(id, key);
    const coin = Object.fromEntries(
      AMULET_REFERENCE_KINDS.map((k) => [k, [] as RegistryContract[]]),
    ) as unknown as AmuletContracts;
    for (const c of await this.repo.active(this.db, [...byId.keys()], null))
      coin[byId.get(c.createdEvent.templateId)!].push(c);
    return coin;
  }

  /** The admin's active contracts implementing an interface, each with its view (those whose view fails are left out). */
  private async viewed(interfaceKey: string, admin: string): Promise<ViewedRegistryContract[]> {
    const contracts = await this.repo.active(this.db, this.ids(interfaceKey, 'interface'), admin);
    return this.withViews(contracts, interfaceKey);
  }

  private async viewedById(interfaceKey: string, id: string, admin: string): Promise<ViewedRegistryContract | null> {
    const c = await this.repo.activeById(this.db, id, this.ids(interfaceKey, 'interface'), admin);
    return c ? ((await this.withViews([c], interfaceKey))[0] ?? null) : null;
  }

  private async withViews(contracts: RegistryContract[], interfaceKey: string): Promise<ViewedRegistryContract[]> {
    const directory = await this.interfaces.warmed();
    const out: ViewedRegistryContract[] = [];
    for (const contract of contracts) {
      const e = contract.createdEvent;
      const impl = directory
        .implementationsOf(`${e.packageName}:${e.templateId.slice(e.templateId.indexOf(':') + 1)}`)
        ?.find((i) => i.interfaceKey === interfaceKey);
      const view = impl?.view(e);
      if (view && view.viewStatus.code === 0 && view.viewValue && typeof view.viewValue === 'object')
        out.push({ contract, view: view.viewValue as Record<string, unknown> });
    }
    return out;
  }
}
