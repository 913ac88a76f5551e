import { parseIsoMicros } from '../ledger/time';

/**
 * The DSO's round automation, as pure decisions: given the DSO's mining-round and reward-coupon contracts and the
 * ledger's time, which `AmuletRules` choices to exercise now. It follows the lifecycle Splice's DSO automation drives
 * (`AmuletRules_AdvanceOpenMiningRounds`, `AmuletRules_MiningRound_StartIssuing`, `AmuletRules_MiningRound_Close`,
 * `AmuletRules_ClaimExpiredRewards`, `AmuletRules_MiningRound_Archive` in `Splice.AmuletRules`), with the DSO party
 * exercising `AmuletRules` directly instead of through a `DsoRules` vote:
 *
 * - open → summarizing: when the oldest of three open rounds has passed its `targetClosesAt`, the newest has opened and
 *   the middle one has been open for a tick (the choice's own preconditions), a new open round is created;
 * - summarizing → issuing: at once, with the round's summary: the totals of the reward coupons created in it (no
 *   coupon can be created in a round once it is no longer open, so the totals are final);
 * - issuing → closed: once the issuing round has passed its `targetClosesAt`;
 * - closed: the coupons of the round still unclaimed are expired (their value goes to an `UnclaimedReward`), then the
 *   closed round is archived;
 * - the two `ExternalPartyConfigState`s (what token-standard transfers of external parties read): once the older one
 *   has passed its `targetArchiveAfter`, `AmuletRules_UpdateExternalPartyConfigStates` replaces it from the three open
 *   rounds (Splice's `UpdateExternalPartyConfigStateTrigger`), in a tick where the rounds do not advance.
 */
export interface MiningRound {
  contractId: string;
  round: bigint;
}

export interface OpenMiningRound extends MiningRound {
  /** µs since the epoch */
  opensAt: bigint;
  targetClosesAt: bigint;
  tickMicros: bigint;
  amuletPrice: string;
}

export interface IssuingMiningRound extends MiningRound {
  targetClosesAt: bigint;
}

export type RewardCouponKind = 'validator' | 'app' | 'sv' | 'validatorFaucet' | 'validatorLiveness';

export interface RewardCoupon {
  contractId: string;
  kind: RewardCouponKind;
  round: bigint;
  /** Validator and app coupons: the amount (a Daml Decimal). */
  amount?: string;
  /** App coupons: featured or not. */
  featured?: boolean;
  /** SV coupons: the weight (a Daml Int). */
  weight?: string;
}

export interface ExternalPartyConfigState {
  contractId: string;
  /** µs since the epoch */
  targetArchiveAfter: bigint;
}

export interface DsoRoundsState {
  externalPartyConfigStates: ExternalPartyConfigState[];
  open: OpenMiningRound[];
  summarizing: MiningRound[];
  issuing: IssuingMiningRound[];
  closed: MiningRound[];
  coupons: RewardCoupon[];
}

/** Splice's `OpenMiningRoundSummary` (`Splice.Issuance`), in the JSON API's encoding. */
export interface OpenMiningRoundSummary {
  totalValidatorRewardCoupons: string;
  totalFeaturedAppRewardCoupons: string;
  totalUnfeaturedAppRewardCoupons: string;
  totalSvRewardWeight: string;
  optTotalValidatorFaucetCoupons: string;
}

export type DsoRoundAction =
  | {
      kind: 'advance';
      round: bigint;
      amuletPrice: string;
      roundToArchiveCid: string;
      middleRoundCid: string;
      latestRoundCid: string;
    }
  | { kind: 'startIssuing'; round: bigint; miningRoundCid: string; summary: OpenMiningRoundSummary }
  | { kind: 'close'; round: bigint; issuingRoundCid: string }
  | {
      kind: 'expireRewards';
      round: bigint;
      closedRoundCid: string;
      validatorRewardCouponCids: string[];
      appCouponCids: string[];
      svRewardCouponCids: string[];
      validatorFaucetCouponCids: string[];
      validatorLivenessActivityRecordCids: string[];
    }
  | { kind: 'archive'; round: bigint; closedRoundCid: string }
  | {
      kind: 'updateExternalPartyConfigStates';
      round: bigint;
      externalPartyConfigStateCid0: string;
      externalPartyConfigStateCid1: string;
      openMiningRoundTriple: { round0Cid: string; round1Cid: string; round2Cid: string };
    };

/** The actions due at `nowMicros`, oldest round first; each touches different contracts, so all may run now. */
export function planDsoRoundActions(state: DsoRoundsState, nowMicros: bigint): DsoRoundAction[] {
  const actions: DsoRoundAction[] = [];
  const open = [...state.open].sort((a, b) => cmp(a.round, b.round));
  if (open.length >= 3) {
    const [oldest, middle, latest] = open.slice(-3);
    const consecutive = middle.round === oldest.round + 1n && latest.round === middle.round + 1n;
    if (
      consecutive &&
      oldest.targetClosesAt <= nowMicros &&
      latest.opensAt <= nowMicros &&
      middle.opensAt + middle.tickMicros <= nowMicros
    ) {
      actions.push({
        kind: 'advance',
        round: oldest.round,
        amuletPrice: latest.amuletPrice,
        roundToArchiveCid: oldest.contractId,
        middleRoundCid: middle.contractId,
        latestRoundCid: latest.contractId,
      });
    } else if (consecutive && state.externalPartyConfigStates.length >= 2) {
      const [older, newer] = [...state.externalPartyConfigStates].sort((a, b) =>
        cmp(a.targetArchiveAfter, b.targetArchiveAfter),
      );
      if (older.targetArchiveAfter < nowMicros) {
        actions.push({
          kind: 'updateExternalPartyConfigStates',
          round: latest.round,
          externalPartyConfigStateCid0: older.contractId,
          externalPartyConfigStateCid1: newer.contractId,
          openMiningRoundTriple: {
            round0Cid: oldest.contractId,
            round1Cid: middle.contractId,
            round2Cid: latest.contractId,
          },
        });
      }
    }
  }
  for (const s of sortByRound(state.summarizing)) {
    actions.push({
      kind: 'startIssuing',
      round: s.round,
      miningRoundCid: s.contractId,
      summary: roundSummary(state.coupons.filter((c) => c.round === s.round)),
    });
  }
  for (const i of sortByRound(state.issuing)) {
    if (i.targetClosesAt <= nowMicros) actions.push({ kind: 'close', round: i.round, issuingRoundCid: i.contractId });
  }
  for (const c of sortByRound(state.closed)) {
    const coupons = state.coupons.filter((x) => x.round === c.round);
    if (coupons.length === 0) {
      actions.push({ kind: 'archive', round: c.round, closedRoundCid: c.contractId });
      continue;
    }
    const of = (kind: RewardCouponKind) => coupons.filter((x) => x.kind === kind).map((x) => x.contractId);
    actions.push({
      kind: 'expireRewards',
      round: c.round,
      closedRoundCid: c.contractId,
      validatorRewardCouponCids: of('validator'),
      appCouponCids: of('app'),
      svRewardCouponCids: of('sv'),
      validatorFaucetCouponCids: of('validatorFaucet'),
      validatorLivenessActivityRecordCids: of('validatorLiveness'),
    });
  }
  return actions;
}

/** The summary of a round from the reward coupons created in it. */
export function roundSummary(coupons: readonly RewardCoupon[]): OpenMiningRoundSummary {
  const amounts = (pick: (c: RewardCoupon) => boolean) => decimalSum(coupons.filter(pick).map((c) => c.amount ?? '0'));
  const weight = coupons.filter((c) => c.kind === 'sv').reduce((s, c) => s + BigInt(c.weight ?? '0'), 0n);
  const faucets = coupons.filter((c) => c.kind === 'validatorFaucet' || c.kind === 'validatorLiveness').length;
  return {
    totalValidatorRewardCoupons: amounts((c) => c.kind === 'validator'),
    totalFeaturedAppRewardCoupons: amounts((c) => c.kind === 'app' && c.featured === true),
    totalUnfeaturedAppRewardCoupons: amounts((c) => c.kind === 'app' && c.featured !== true),
    totalSvRewardWeight: String(weight),
    optTotalValidatorFaucetCoupons: String(faucets),
  };
}

/**
 * The open round commands should use at `nowMicros`: of the rounds that have opened and not passed their
 * `targetClosesAt`, the one opened last (as the wallet SDK picks it); null when none is.
 */
export function usableOpenRound<T extends OpenMiningRound>(open: readonly T[], nowMicros: bigint): T | null {
  const usable = open.filter((r) => r.opensAt <= nowMicros && nowMicros < r.targetClosesAt);
  usable.sort((a, b) => cmp(a.opensAt, b.opensAt) || cmp(a.round, b.round));
  return usable.at(-1) ?? null;
}

/** Exact sum of Daml Decimals (scale 10), rendered with ten decimals. */
export function decimalSum(values: readonly string[]): string {
  const SCALE = 10;
  let total = 0n;
  for (const v of values) {
    const m = /^(-?)(\d+)(?:\.(\d{0,10}))?$/.exec(v);
    if (!m) throw new Error(`not a Daml Decimal: '${v}'`);
    const units = BigInt(m[2]) * 10n ** BigInt(SCALE) + BigInt((m[3] ?? '').padEnd(SCALE, '0'));
    total += m[1] ? -units : units;
  }
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const whole = abs / 10n ** BigInt(SCALE);
  const frac = (abs % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

// --- reading the contracts' create arguments (the JSON API's encoding) -------------------------------------------

/** The create-argument fields the automation reads (the JSON API's encoding: numbers as strings, times as ISO text). */
interface RoundArgument {
  round: { number: string };
  opensAt: string;
  targetClosesAt: string;
  tickDuration: { microseconds: string };
  amuletPrice: string;
}
interface CouponArgument {
  round: { number: string };
  amount?: string;
  featured?: boolean;
  weight?: string;
}

const roundNumber = (arg: unknown) => BigInt((arg as RoundArgument).round.number);

export function openMiningRoundOf(contractId: string, createArgument: unknown): OpenMiningRound {
  const arg = createArgument as RoundArgument;
  return {
    contractId,
    round: roundNumber(arg),
    opensAt: parseIsoMicros(arg.opensAt),
    targetClosesAt: parseIsoMicros(arg.targetClosesAt),
    tickMicros: BigInt(arg.tickDuration.microseconds),
    amuletPrice: String(arg.amuletPrice),
  };
}

export function miningRoundOf(contractId: string, createArgument: unknown): MiningRound {
  return { contractId, round: roundNumber(createArgument) };
}

export function issuingMiningRoundOf(contractId: string, createArgument: unknown): IssuingMiningRound {
  return {
    contractId,
    round: roundNumber(createArgument),
    targetClosesAt: parseIsoMicros((createArgument as RoundArgument).targetClosesAt),
  };
}

export function externalPartyConfigStateOf(contractId: string, createArgument: unknown): ExternalPartyConfigState {
  return {
    contractId,
    targetArchiveAfter: parseIsoMicros((createArgument as { targetArchiveAfter: string }).targetArchiveAfter),
  };
}

export function rewardCouponOf(kind: RewardCouponKind, contractId: string, createArgument: unknown): RewardCoupon {
  const arg = createArgument as CouponArgument;
  const coupon: RewardCoupon = { contractId, kind, round: roundNumber(arg) };
  if (kind === 'validator' || kind === 'app') coupon.amount = String(arg.amount);
  if (kind === 'app') coupon.featured = arg.featured === true;
  if (kind === 'sv') coupon.weight = String(arg.weight);
  return coupon;
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const sortByRound = <T extends MiningRound>(xs: readonly T[]) => [...xs].sort((a, b) => cmp(a.round, b.round));
