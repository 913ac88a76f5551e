import { describe, expect, it } from 'vitest';
import {
  decimalSum,
  planDsoRoundActions,
  roundSummary,
  usableOpenRound,
  type DsoRoundsState,
  type OpenMiningRound,
} from '@ledgerline/domain';

const TICK = 600_000_000n;
const open = (round: number, opensAt: bigint, targetClosesAt: bigint): OpenMiningRound => ({
  contractId: `open${round}`,
  round: BigInt(round),
  opensAt,
  targetClosesAt,
  tickMicros: TICK,
  amuletPrice: '1.0000000000',
});
const empty: DsoRoundsState = {
  externalPartyConfigStates: [],
  open: [],
  summarizing: [],
  issuing: [],
  closed: [],
  coupons: [],
};
/** The rounds `AmuletRules_Bootstrap_Rounds` creates at time 0 with a one-tick round 0. */
const bootstrapped = [open(0, 0n, TICK), open(1, 0n, 2n * TICK), open(2, TICK, 3n * TICK)];

describe('planDsoRoundActions: open rounds', () => {
  it('advances once the oldest round passed targetClosesAt, the newest opened and the middle one was open a tick', () => {
    expect(planDsoRoundActions({ ...empty, open: bootstrapped }, TICK - 1n)).toEqual([]);
    expect(planDsoRoundActions({ ...empty, open: bootstrapped }, TICK)).toEqual([
      {
        kind: 'advance',
        round: 0n,
        amuletPrice: '1.0000000000',
        roundToArchiveCid: 'open0',
        middleRoundCid: 'open1',
        latestRoundCid: 'open2',
      },
    ]);
  });

  it('waits while the newest round has not opened or the middle one has been open less than a tick', () => {
    const notOpened = [open(3, 0n, TICK), open(4, 0n, 2n * TICK), open(5, 2n * TICK, 4n * TICK)];
    expect(planDsoRoundActions({ ...empty, open: notOpened }, TICK)).toEqual([]);
    const middleYoung = [open(3, 0n, TICK), open(4, TICK / 2n, 2n * TICK), open(5, TICK / 2n, 4n * TICK)];
    expect(planDsoRoundActions({ ...empty, open: middleYoung }, TICK)).toEqual([]);
  });

  it('takes the three newest rounds in round order, whatever order they come in, and never non-consecutive ones', () => {
    const shuffled = [bootstrapped[2], bootstrapped[0], bootstrapped[1]];
    expect(planDsoRoundActions({ ...empty, open: shuffled }, TICK).map((a) => a.kind)).toEqual(['advance']);
    const gap = [open(0, 0n, TICK), open(1, 0n, 2n * TICK), open(3, TICK, 3n * TICK)];
    expect(planDsoRoundActions({ ...empty, open: gap }, 10n * TICK)).toEqual([]);
    expect(planDsoRoundActions({ ...empty, open: bootstrapped.slice(0, 2) }, 10n * TICK)).toEqual([]);
  });
});

describe('planDsoRoundActions: summarizing, issuing and closed rounds', () => {
  it('starts issuing a summarizing round at once, with the totals of the coupons created in it', () => {
    const actions = planDsoRoundActions(
      {
        ...empty,
        summarizing: [{ contractId: 's7', round: 7n }],
        coupons: [
          { contractId: 'v1', kind: 'validator', round: 7n, amount: '1.5' },
          { contractId: 'v2', kind: 'validator', round: 7n, amount: '0.25' },
          { contractId: 'v3', kind: 'validator', round: 8n, amount: '100.0' },
          { contractId: 'a1', kind: 'app', round: 7n, amount: '2.0', featured: true },
          { contractId: 'a2', kind: 'app', round: 7n, amount: '0.1', featured: false },
          { contractId: 'sv', kind: 'sv', round: 7n, weight: '3' },
          { contractId: 'f1', kind: 'validatorFaucet', round: 7n },
          { contractId: 'l1', kind: 'validatorLiveness', round: 7n },
        ],
      },
      0n,
    );
    expect(actions).toEqual([
      {
        kind: 'startIssuing',
        round: 7n,
        miningRoundCid: 's7',
        summary: {
          totalValidatorRewardCoupons: '1.7500000000',
          totalFeaturedAppRewardCoupons: '2.0000000000',
          totalUnfeaturedAppRewardCoupons: '0.1000000000',
          totalSvRewardWeight: '3',
          optTotalValidatorFaucetCoupons: '2',
        },
      },
    ]);
  });

  it('closes an issuing round once it passed targetClosesAt, not before', () => {
    const state = { ...empty, issuing: [{ contractId: 'i4', round: 4n, targetClosesAt: 5n * TICK }] };
    expect(planDsoRoundActions(state, 5n * TICK - 1n)).toEqual([]);
    expect(planDsoRoundActions(state, 5n * TICK)).toEqual([{ kind: 'close', round: 4n, issuingRoundCid: 'i4' }]);
  });

  it("expires a closed round's coupons first, then archives the round", () => {
    const closed = [{ contractId: 'c2', round: 2n }];
    const coupons = [
      { contractId: 'v', kind: 'validator' as const, round: 2n, amount: '1.0' },
      { contractId: 'a', kind: 'app' as const, round: 2n, amount: '1.0', featured: false },
      { contractId: 'f', kind: 'validatorFaucet' as const, round: 2n },
      { contractId: 'other', kind: 'validator' as const, round: 3n, amount: '1.0' },
    ];
    expect(planDsoRoundActions({ ...empty, closed, coupons }, 0n)).toEqual([
      {
        kind: 'expireRewards',
        round: 2n,
        closedRoundCid: 'c2',
        validatorRewardCouponCids: ['v'],
        appCouponCids: ['a'],
        svRewardCouponCids: [],
        validatorFaucetCouponCids: ['f'],
        validatorLivenessActivityRecordCids: [],
      },
    ]);
    expect(planDsoRoundActions({ ...empty, closed, coupons: coupons.slice(3) }, 0n)).toEqual([
      { kind: 'archive', round: 2n, closedRoundCid: 'c2' },
    ]);
  });
});

describe('planDsoRoundActions: ExternalPartyConfigState', () => {
  const states = [
    { contractId: 'e1', targetArchiveAfter: 10n * TICK },
    { contractId: 'e0', targetArchiveAfter: 5n * TICK },
  ];
  const rounds = [open(3, 0n, 100n * TICK), open(4, 0n, 100n * TICK), open(5, 0n, 100n * TICK)];

  it('replaces the older state once it passed targetArchiveAfter, from the three open rounds', () => {
    expect(planDsoRoundActions({ ...empty, open: rounds, externalPartyConfigStates: states }, 5n * TICK)).toEqual([]);
    expect(planDsoRoundActions({ ...empty, open: rounds, externalPartyConfigStates: states }, 5n * TICK + 1n)).toEqual([
      {
        kind: 'updateExternalPartyConfigStates',
        round: 5n,
        externalPartyConfigStateCid0: 'e0',
        externalPartyConfigStateCid1: 'e1',
        openMiningRoundTriple: { round0Cid: 'open3', round1Cid: 'open4', round2Cid: 'open5' },
      },
    ]);
  });

  it('waits while the rounds advance (the advance archives the triple it would name)', () => {
    const actions = planDsoRoundActions(
      { ...empty, open: bootstrapped, externalPartyConfigStates: states },
      20n * TICK,
    );
    expect(actions.map((a) => a.kind)).toEqual(['advance']);
  });
});

describe('usableOpenRound', () => {
  it('is the round opened last among those open now, null when none is', () => {
    expect(usableOpenRound(bootstrapped, 0n)?.contractId).toBe('open1');
    expect(usableOpenRound(bootstrapped, TICK)?.contractId).toBe('open2');
    expect(usableOpenRound(bootstrapped, 3n * TICK)).toBeNull();
  });
});

describe('decimalSum and roundSummary', () => {
  it('adds Daml Decimals exactly, with ten decimals', () => {
    expect(decimalSum([])).toBe('0.0000000000');
    expect(decimalSum(['0.1', '0.2'])).toBe('0.3000000000');
    expect(decimalSum(['1000000000.0000000001', '-0.0000000002'])).toBe('999999999.9999999999');
    expect(() => decimalSum(['1e5'])).toThrow(/not a Daml Decimal/);
  });

  it('summarizes no coupons as zeros', () => {
    expect(roundSummary([])).toEqual({
      totalValidatorRewardCoupons: '0.0000000000',
      totalFeaturedAppRewardCoupons: '0.0000000000',
      totalUnfeaturedAppRewardCoupons: '0.0000000000',
      totalSvRewardWeight: '0',
      optTotalValidatorFaucetCoupons: '0',
    });
  });
});
