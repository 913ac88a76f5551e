import fs from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  CANTON_COIN_TEMPLATES as T,
  DEV_PREAPPROVAL_SECONDS,
  SPLICE_AMULET_MIN_VERSION,
  SPLICE_AMULET_PACKAGE,
  SPLICE_WALLET_PACKAGE,
  TRANSFER_PREAPPROVAL_PROPOSAL,
  amuletTemplateRef,
  comparePackageVersions,
  externalPartyConfigStateOf,
  devAmuletRulesArguments,
  devBootstrapRoundsArguments,
  isoMicros,
  issuingMiningRoundOf,
  miningRoundOf,
  openMiningRoundOf,
  planDsoRoundActions,
  planPreapprovalAcceptances,
  preapprovalProposalOf,
  resolveBootstrapParty,
  rightKey,
  rewardCouponOf,
  transferPreapprovalOf,
  usableOpenRound,
  walletTemplateRef,
  type Claims,
  type DsoRoundAction,
  type DsoRoundsState,
  type Right,
  type StoredCreatedEvent,
} from '@ledgerline/domain';
import { readDar } from '@ledgerline/canton';
import { declaredPackageId } from '@ledgerline/daml-lf';
import {
  BootstrapRepository,
  CantonCoinRepository,
  PackagesRepository,
  PartiesRepository,
  UsersRepository,
  type ActiveContract,
} from '@ledgerline/store';
import { decodeJsCommands } from '@ledgerline/wire';
import { clusterWorkerSlot } from '../../infrastructure/cluster';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { SubmitCommandsCommand } from '../command-submission/commands/submit-commands.command';
import { UploadDarCommand } from '../packages/commands/package.commands';
import { AllocatePartyCommand } from '../parties/commands/party.commands';
import { CreateUserCommand, GrantUserRightsCommand } from '../users/commands/user.commands';

/** The party id hints and the user of the profile (Splice: the DSO party, the validator operator and its user). */
export const DSO_PARTY_HINT = 'DSO';
export const VALIDATOR_PARTY_HINT = 'validator';
export const VALIDATOR_USER = 'validator';

/** The profile's on-ledger state, found (or created) by `ensureSetUp`. */
export interface CantonCoinState {
  dso: string;
  validator: string;
  amuletRules: ActiveContract;
}

/**
 * The Canton Coin development profile (LEDGER_CANTON_COIN=dev). At start it uploads LEDGER_CANTON_COIN_DARS; once a
 * `splice-amulet` of a supported version is stored (uploaded at start, by the bootstrap file or later by a user) it
 * sets up what Splice's own test setups and DSO bootstrap create: the DSO party, a validator operator party with its
 * user, an `AmuletRules` with the development configuration, the `ExternalPartyAmuletRules`, the first three mining
 * rounds (`AmuletRules_Bootstrap_Rounds`) and the validator's `FeaturedAppRight` (a DevNet validator features itself).
 * Every step first looks for what exists, so restarts (and several service processes) never duplicate it.
 *
 * Then, on a timer, it runs the DSO's round automation (libs/domain canton-coin/rounds.ts) and the validator's
 * preapproval automation (canton-coin/preapprovals.ts). The decisions are pure; this service reads the contracts,
 * submits the decided commands through the command pipeline every user's commands go through (as the admin user, acting
 * as the DSO or the validator), and logs a refused one (it is decided again at the next tick). A package uploaded
 * after the start is noticed at the next tick. With several service processes, only the first one runs the timer.
 */
@Injectable()
export class CantonCoinService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private tickInFlight: Promise<void> | undefined;
  private stopped = false;
  /** The state found by the last complete set-up; re-checked at every tick (a testing-API reset removes it). */
  private state: CantonCoinState | null = null;

  constructor(
    private readonly commands: CommandBus,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly contracts: CantonCoinRepository,
    private readonly packages: PackagesRepository,
    private readonly parties: PartiesRepository,
    private readonly users: UsersRepository,
    private readonly lock: BootstrapRepository,
  ) {}

  get enabled(): boolean {
    return this.runtime.config.cantonCoin === 'dev';
  }

  get dsoParty(): string {
    return resolveBootstrapParty(DSO_PARTY_HINT, this.identity.fingerprint);
  }

  get validatorParty(): string {
    return resolveBootstrapParty(VALIDATOR_PARTY_HINT, this.identity.fingerprint);
  }

  private get synchronizerId(): string {
    return this.identity.synchronizers[0].id;
  }

  /** The admin user acting for the DSO and the validator (administration, acting as any party), as the bootstrap file does. */
  private get claims(): Claims {
    return {
      userId: this.runtime.config.adminUser,
      identityProviderId: '',
      rights: [{ kind: 'ParticipantAdmin' }, { kind: 'CanActAsAnyParty' }],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    const t0 = performance.now();
    for (const dar of this.runtime.config.cantonCoinDars) await this.uploadUnlessStored(dar);
    const t1 = performance.now();
    const state = await this.ensureSetUp();
    const t2 = performance.now();
    // What the profile adds to the start (bench/canton-coin.bench.ts reads this line).
    this.runtime.logger.info(
      { darsMs: Math.round(t1 - t0), setUpMs: Math.round(t2 - t1) },
      'Canton Coin profile: started',
    );
    if (!state)
      this.runtime.logger.warn(
        `Canton Coin profile: no ${SPLICE_AMULET_PACKAGE} ≥ ${SPLICE_AMULET_MIN_VERSION} stored yet; the profile sets up once one is uploaded`,
      );
    const slot = clusterWorkerSlot();
    if (slot === undefined || slot === 0) this.schedule();
  }

  /**
   * Uploads a configured DAR (vetting its packages) unless its main package is stored already, and with it every package
   * it depends on (a package is stored only with its dependencies): a restart then skips decoding and checking the
   * archives again (about 2.5 s for splice-wallet with its dependencies).
   */
  private async uploadUnlessStored(file: string): Promise<void> {
    const bytes = await fs.readFile(file);
    let mainPackageId: string | null = null;
    try {
      const dar = await readDar(bytes, {
        maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes,
        mainOnly: true,
      });
      mainPackageId = declaredPackageId(dar.main.bytes);
    } catch {
      // not a readable DAR: the upload below refuses it with Canton's error
    }
    if (mainPackageId !== null && (await this.packages.stored(this.runtime.db, [mainPackageId])).size === 1) return;
    await this.commands.execute(new UploadDarCommand(this.claims, async () => bytes, true, this.synchronizerId));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.tickInFlight;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.tickInFlight = this.tick()
        .catch((e: unknown) => this.runtime.logger.warn({ err: e }, 'Canton Coin profile: automation tick failed'))
        .finally(() => {
          this.tickInFlight = undefined;
          this.schedule();
        });
    }, this.runtime.config.cantonCoinPollMs);
    this.timer.unref();
  }

  /** One round of the automation: set up if needed, then the DSO's and the validator's work. */
  async tick(): Promise<void> {
    const state = await this.currentState();
    if (!state || this.stopped) return;
    await this.runDsoAutomation(state);
    if (this.stopped) return;
    await this.runValidatorAutomation(state);
  }

  /** The set-up state if it is still on the ledger, else a new set-up (null: no supported `splice-amulet` stored). */
  async currentState(): Promise<CantonCoinState | null> {
    if (this.state) {
      const rules = await this.contracts.activeContracts(this.runtime.db, SPLICE_AMULET_PACKAGE, [T.amuletRules], {
        field: 'dso',
        value: this.state.dso,
      });
      if (rules.length) return (this.state = { ...this.state, amuletRules: rules[0] });
      this.state = null;
    }
    return this.ensureSetUp();
  }

  /** Whether a `splice-amulet` this profile's configuration fits is stored. */
  async amuletStored(): Promise<boolean> {
    const stored = await this.packages.byNames(this.runtime.db, [SPLICE_AMULET_PACKAGE]);
    return stored.some((p) => comparePackageVersions(p.version, SPLICE_AMULET_MIN_VERSION) >= 0);
  }

  /** Finds or creates the profile's parties, user and contracts (one set-up at a time per database). */
  async ensureSetUp(): Promise<CantonCoinState | null> {
    if (!(await this.amuletStored())) return null;
    const state = await this.lock.withLock(this.runtime.database.pool, async () => {
      const dso = await this.ensureParty(DSO_PARTY_HINT);
      const validator = await this.ensureParty(VALIDATOR_PARTY_HINT);
      await this.ensureValidatorUser(validator);
      const byDso = (names: string[]) =>
        this.contracts.activeContracts(this.runtime.db, SPLICE_AMULET_PACKAGE, names, { field: 'dso', value: dso });
      if ((await byDso([T.amuletRules])).length === 0) {
        await this.submit(
          [dso],
          [
            {
              CreateCommand: {
                templateId: amuletTemplateRef(T.amuletRules),
                createArguments: devAmuletRulesArguments(dso, this.synchronizerId),
              },
            },
          ],
        );
      }
      const [amuletRules] = await byDso([T.amuletRules]);
      if ((await byDso([T.externalPartyAmuletRules])).length === 0) {
        await this.submit(
          [dso],
          [{ CreateCommand: { templateId: amuletTemplateRef(T.externalPartyAmuletRules), createArguments: { dso } } }],
        );
      }
      if (
        (await byDso([T.openMiningRound, T.summarizingMiningRound, T.issuingMiningRound, T.closedMiningRound]))
          .length === 0
      ) {
        await this.onRules([dso], amuletRules, 'AmuletRules_Bootstrap_Rounds', devBootstrapRoundsArguments());
      }
      const featured = await this.contracts.activeContracts(
        this.runtime.db,
        SPLICE_AMULET_PACKAGE,
        [T.featuredAppRight],
        { field: 'provider', value: validator },
      );
      if (!featured.some((c) => (c.createdEvent.createArgument as { dso: string }).dso === dso)) {
        await this.onRules([validator], amuletRules, 'AmuletRules_DevNet_FeatureApp', {
          provider: validator,
          activityWeight: null,
        });
      }
      return { dso, validator, amuletRules };
    });
    if (!this.state)
      this.runtime.logger.info(
        { dso: state.dso, validator: state.validator, amuletRules: state.amuletRules.createdEvent.contractId },
        'Canton Coin profile: set up',
      );
    return (this.state = state);
  }

  private async ensureParty(hint: string): Promise<string> {
    const id = resolveBootstrapParty(hint, this.identity.fingerprint);
    if (await this.parties.get(this.runtime.db, id)) return id;
    const input = {
      partyIdHint: hint,
      annotations: {},
      resourceVersion: '',
      identityProviderId: '',
      synchronizerId: this.synchronizerId,
      userId: '',
    };
    await this.commands.execute(new AllocatePartyCommand(this.claims, input));
    return id;
  }

  private async ensureValidatorUser(validator: string): Promise<void> {
    // Splice's validator operator user: acts as the validator party and administers the participant (the wallet SDK
    // onboards parties and submits the validator's own commands with its token).
    const rights: Right[] = [{ kind: 'CanActAs', party: validator } as Right, { kind: 'ParticipantAdmin' }];
    const existing = await this.users.state(this.runtime.db, VALIDATOR_USER);
    if (existing.user) {
      const held = new Set(existing.rights.map(rightKey));
      const missing = rights.filter((r) => !held.has(rightKey(r)));
      if (missing.length)
        await this.commands.execute(
          new GrantUserRightsCommand(this.claims, VALIDATOR_USER, missing, existing.user.identityProviderId),
        );
      return;
    }
    const record = {
      id: VALIDATOR_USER,
      primaryParty: validator,
      isDeactivated: false,
      annotations: {},
      identityProviderId: '',
    };
    await this.commands.execute(new CreateUserCommand(this.claims, record, rights));
  }

  // --- the DSO ----------------------------------------------------------------------------------------------------

  /** The DSO's round and coupon contracts, as the round automation reads them. */
  async roundsState(dso: string): Promise<DsoRoundsState> {
    const read = (names: string[]) =>
      this.contracts.activeContracts(this.runtime.db, SPLICE_AMULET_PACKAGE, names, { field: 'dso', value: dso });
    const of = <R>(rows: ActiveContract[], f: (cid: string, arg: unknown) => R) =>
      rows.map((r) => f(r.createdEvent.contractId, r.createdEvent.createArgument));
    const rounds = await read([
      T.openMiningRound,
      T.summarizingMiningRound,
      T.issuingMiningRound,
      T.closedMiningRound,
      T.externalPartyConfigState,
    ]);
    const named = (name: string) => rounds.filter((r) => qualifiedName(r.createdEvent) === name);
    const summarizing = named(T.summarizingMiningRound);
    const closed = named(T.closedMiningRound);
    // Coupons matter only for rounds being summarized or closed.
    const coupons =
      summarizing.length + closed.length === 0
        ? []
        : await read([
            T.validatorRewardCoupon,
            T.appRewardCoupon,
            T.svRewardCoupon,
            T.validatorFaucetCoupon,
            T.validatorLivenessActivityRecord,
          ]);
    const kindOf: Record<string, 'validator' | 'app' | 'sv' | 'validatorFaucet' | 'validatorLiveness'> = {
      [T.validatorRewardCoupon]: 'validator',
      [T.appRewardCoupon]: 'app',
      [T.svRewardCoupon]: 'sv',
      [T.validatorFaucetCoupon]: 'validatorFaucet',
      [T.validatorLivenessActivityRecord]: 'validatorLiveness',
    };
    return {
      externalPartyConfigStates: of(named(T.externalPartyConfigState), externalPartyConfigStateOf),
      open: of(named(T.openMiningRound), openMiningRoundOf),
      summarizing: of(summarizing, miningRoundOf),
      issuing: of(named(T.issuingMiningRound), issuingMiningRoundOf),
      closed: of(closed, miningRoundOf),
      coupons: coupons.map((c) =>
        rewardCouponOf(kindOf[qualifiedName(c.createdEvent)], c.createdEvent.contractId, c.createdEvent.createArgument),
      ),
    };
  }

  private async runDsoAutomation(state: CantonCoinState): Promise<void> {
    const actions = planDsoRoundActions(await this.roundsState(state.dso), this.runtime.clock.nowMicros());
    for (const action of actions) {
      if (this.stopped) return;
      const [choice, argument] = dsoChoice(action);
      try {
        await this.onRules([state.dso], state.amuletRules, choice, argument);
        this.runtime.logger.debug({ choice, round: String(action.round) }, 'Canton Coin profile: DSO round automation');
      } catch (e) {
        this.runtime.logger.warn(
          { err: e, choice, round: String(action.round) },
          'Canton Coin profile: DSO round automation refused',
        );
      }
    }
  }

  // --- the validator ----------------------------------------------------------------------------------------------

  private async runValidatorAutomation(state: CantonCoinState): Promise<void> {
    const db = this.runtime.db;
    const proposals = (
      await this.contracts.activeContracts(db, SPLICE_WALLET_PACKAGE, [TRANSFER_PREAPPROVAL_PROPOSAL], {
        field: 'provider',
        value: state.validator,
      })
    ).map((c) => preapprovalProposalOf(c.createdEvent.contractId, c.createdEvent.createArgument));
    if (proposals.length === 0) return;
    const receivers = new Set(proposals.map((p) => p.receiver));
    const preapprovals = (
      await this.contracts.activeContracts(db, SPLICE_AMULET_PACKAGE, [T.transferPreapproval], {
        field: 'dso',
        value: state.dso,
      })
    )
      .map((c) => transferPreapprovalOf(c.createdEvent.createArgument))
      .filter((p) => receivers.has(p.receiver));
    const now = this.runtime.clock.nowMicros();
    const plan = planPreapprovalAcceptances(proposals, preapprovals, {
      validator: state.validator,
      dso: state.dso,
      nowMicros: now,
      lifetimeMicros: BigInt(DEV_PREAPPROVAL_SECONDS) * 1_000_000n,
    });
    if (plan.length === 0) return;
    const rounds = await this.contracts.activeContracts(db, SPLICE_AMULET_PACKAGE, [T.openMiningRound], {
      field: 'dso',
      value: state.dso,
    });
    const open = usableOpenRound(
      rounds.map((r) => ({ ...openMiningRoundOf(r.createdEvent.contractId, r.createdEvent.createArgument), row: r })),
      now,
    );
    if (!open) return;
    for (const a of plan) {
      if (this.stopped) return;
      const context = {
        amuletRules: state.amuletRules.createdEvent.contractId,
        context: {
          openMiningRound: open.contractId,
          issuingMiningRounds: [],
          validatorRights: [],
          featuredAppRight: null,
        },
      };
      try {
        await this.submit(
          [state.validator],
          [
            {
              ExerciseCommand: {
                templateId: walletTemplateRef(TRANSFER_PREAPPROVAL_PROPOSAL),
                contractId: a.proposalCid,
                choice: 'TransferPreapprovalProposal_Accept',
                choiceArgument: { context, inputs: [], expiresAt: isoMicros(a.expiresAt) },
              },
            },
          ],
          [this.disclosed(state.amuletRules), this.disclosed(open.row)],
        );
        this.runtime.logger.debug(
          { receiver: a.receiver },
          'Canton Coin profile: validator accepted a transfer preapproval proposal',
        );
      } catch (e) {
        this.runtime.logger.warn(
          { err: e, receiver: a.receiver },
          'Canton Coin profile: accepting a transfer preapproval proposal refused',
        );
      }
    }
  }

  // --- submissions ------------------------------------------------------------------------------------------------

  private disclosed(c: ActiveContract) {
    const e = c.createdEvent;
    return {
      templateId: e.templateId,
      contractId: e.contractId,
      createdEventBlob: e.createdEventBlob,
      synchronizerId: c.synchronizerId ?? this.synchronizerId,
    };
  }

  /** Exercises a choice of the DSO's `AmuletRules`; a party other than the DSO sees it through disclosure. */
  private onRules(actAs: string[], rules: ActiveContract, choice: string, choiceArgument: unknown) {
    const exercise = {
      ExerciseCommand: {
        templateId: amuletTemplateRef(T.amuletRules),
        contractId: rules.createdEvent.contractId,
        choice,
        choiceArgument,
      },
    };
    return this.submit(actAs, [exercise], actAs.includes(this.dsoParty) ? [] : [this.disclosed(rules)]);
  }

  /** submit-and-wait through the command pipeline, as the admin user. */
  private async submit(actAs: string[], commands: unknown[], disclosedContracts: unknown[] = []): Promise<void> {
    const request = decodeJsCommands({
      commands,
      commandId: `canton-coin-${randomUUID()}`,
      actAs,
      readAs: [],
      userId: this.runtime.config.adminUser,
      synchronizerId: this.synchronizerId,
      disclosedContracts,
    });
    await this.commands.execute(new SubmitCommandsCommand(this.claims, request, 'wait'));
  }
}

/** `Module:Entity` of a stored created event's template id. */
export const qualifiedName = (e: StoredCreatedEvent) => e.templateId.slice(e.templateId.indexOf(':') + 1);

/** The `AmuletRules` choice and argument of a DSO round action. */
function dsoChoice(a: DsoRoundAction): [string, unknown] {
  switch (a.kind) {
    case 'advance':
      return [
        'AmuletRules_AdvanceOpenMiningRounds',
        {
          amuletPrice: a.amuletPrice,
          roundToArchiveCid: a.roundToArchiveCid,
          middleRoundCid: a.middleRoundCid,
          latestRoundCid: a.latestRoundCid,
        },
      ];
    case 'startIssuing':
      return ['AmuletRules_MiningRound_StartIssuing', { miningRoundCid: a.miningRoundCid, summary: a.summary }];
    case 'close':
      return ['AmuletRules_MiningRound_Close', { issuingRoundCid: a.issuingRoundCid }];
    case 'expireRewards':
      return [
        'AmuletRules_ClaimExpiredRewards',
        {
          closedRoundCid: a.closedRoundCid,
          validatorRewardCouponCids: a.validatorRewardCouponCids,
          appCouponCids: a.appCouponCids,
          svRewardCouponCids: a.svRewardCouponCids,
          optValidatorFaucetCouponCids: a.validatorFaucetCouponCids,
          optValidatorLivenessActivityRecordCids: a.validatorLivenessActivityRecordCids,
        },
      ];
    case 'archive':
      return ['AmuletRules_MiningRound_Archive', { closedRoundCid: a.closedRoundCid }];
    case 'updateExternalPartyConfigStates':
      return [
        'AmuletRules_UpdateExternalPartyConfigStates',
        {
          externalPartyConfigStateCid0: a.externalPartyConfigStateCid0,
          externalPartyConfigStateCid1: a.externalPartyConfigStateCid1,
          openMiningRoundTriple: a.openMiningRoundTriple,
        },
      ];
  }
}
