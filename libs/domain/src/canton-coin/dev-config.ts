/**
 * The development configuration of the Canton Coin profile: the `AmuletConfig` an `AmuletRules` is created with, as in
 * Splice's test setups (`daml/splice-amulet-test/…/Scripts/Util.daml`, `defaultAmuletConfig`): Splice's default holding
 * fee and issuance curve, one synchronizer, 10-minute ticks. `splice-amulet` 0.1.22's `AmuletRules` precondition only
 * accepts zero create, transfer and lock-holder fees and a featured-app activity-marker amount equal to the extra
 * featured-app reward amount, so those are what it holds.
 */
export const DEV_TICK_SECONDS = 600;
/** Round 0 lasts one tick, like every later round's open phase (Splice's DSO bootstrap takes a longer one for its SVs). */
export const DEV_ROUND0_SECONDS = DEV_TICK_SECONDS;
/** The amulet price (USD per CC) the DSO opens every round with. */
export const DEV_AMULET_PRICE = '1.0';
/**
 * How long a transfer preapproval accepted by the validator lasts: the config's base duration (90 days, Splice's
 * `defaultTransferPreapprovalBaseDuration`), which is granted without a fee, so the validator pays nothing.
 */
export const DEV_PREAPPROVAL_SECONDS = 90 * 24 * 3600;

const micros = (seconds: number) => ({ microseconds: String(seconds * 1_000_000) });

/** The `AmuletConfig USD` of the development profile on the synchronizer `synchronizerId`. */
export function devAmuletConfig(synchronizerId: string) {
  return {
    transferConfig: {
      createFee: { fee: '0.0' },
      holdingFee: { rate: '0.0000190259' },
      transferFee: {
        initialRate: '0.0',
        steps: [
          { _1: '100.0', _2: '0.0' },
          { _1: '1000.0', _2: '0.0' },
          { _1: '1000000.0', _2: '0.0' },
        ],
      },
      lockHolderFee: { fee: '0.0' },
      extraFeaturedAppRewardAmount: '1.0',
      maxNumInputs: '100',
      maxNumOutputs: '100',
      maxNumLockHolders: '50',
      tokenStandardMaxTTL: null,
    },
    issuanceCurve: {
      initialValue: {
        amuletToIssuePerYear: '40000000000.0',
        validatorRewardPercentage: '0.05',
        appRewardPercentage: '0.15',
        validatorRewardCap: '0.2',
        featuredAppRewardCap: '100.0',
        unfeaturedAppRewardCap: '0.6',
        optValidatorFaucetCap: '2.85',
        optDevelopmentFundPercentage: null,
      },
      futureValues: [],
    },
    decentralizedSynchronizer: {
      requiredSynchronizers: { map: [[synchronizerId, {}]] },
      activeSynchronizer: synchronizerId,
      fees: {
        baseRateTrafficLimits: { burstAmount: '400000', burstWindow: micros(1200) },
        extraTrafficPrice: '16.67',
        readVsWriteScalingFactor: '4',
        minTopupAmount: '200000',
      },
    },
    tickDuration: micros(DEV_TICK_SECONDS),
    packageConfig: {
      amulet: '0.1.22',
      amuletNameService: '0.1.22',
      dsoGovernance: '0.1.22',
      validatorLifecycle: '0.1.22',
      wallet: '0.1.23',
      walletPayments: '0.1.22',
    },
    transferPreapprovalFee: null,
    featuredAppActivityMarkerAmount: '1.0',
    optDevelopmentFundManager: null,
    externalPartyConfigStateTickDuration: null,
    rewardConfig: null,
    transferPreapprovalBaseDuration: null,
  };
}

/** The create arguments of the profile's `AmuletRules` (`isDevNet`: anyone may tap and self-feature). */
export function devAmuletRulesArguments(dso: string, synchronizerId: string) {
  return {
    dso,
    configSchedule: { initialValue: devAmuletConfig(synchronizerId), futureValues: [] },
    isDevNet: true,
    contractStateSchemaVersion: null,
  };
}

/** The arguments of `AmuletRules_Bootstrap_Rounds`: rounds 0 and 1 open at once, round 2 when round 0 closes. */
export function devBootstrapRoundsArguments() {
  return { amuletPrice: DEV_AMULET_PRICE, round0Duration: micros(DEV_ROUND0_SECONDS), initialRound: null };
}
