/**
 * The development `AmuletRules` configuration of the Canton Coin test ledgers (test/support/amulet-ledger.ts) and of
 * bench:engine's Amulet transfers: no vitest, no service, so the bench can import it.
 */
export const micros = (seconds: number) => ({ microseconds: String(seconds * 1_000_000) });

/**
 * A development configuration: Splice's default holding fee and issuance curve, one synchronizer, 10-minute ticks. This
 * version's `AmuletRules` precondition only accepts zero create, transfer and lock-holder fees, and a featured-app
 * activity-marker amount equal to the extra featured-app reward amount.
 */
export function devAmuletConfig(synchronizer: string) {
  return {
    transferConfig: {
      createFee: { fee: '0.0' },
      holdingFee: { rate: '0.0000190259' },
      transferFee: { initialRate: '0.0', steps: [{ _1: '100.0', _2: '0.0' }, { _1: '1000.0', _2: '0.0' }, { _1: '1000000.0', _2: '0.0' }] },
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
      requiredSynchronizers: { map: [[synchronizer, {}]] },
      activeSynchronizer: synchronizer,
      fees: { baseRateTrafficLimits: { burstAmount: '400000', burstWindow: micros(1200) }, extraTrafficPrice: '16.67', readVsWriteScalingFactor: '4', minTopupAmount: '200000' },
    },
    tickDuration: micros(600),
    packageConfig: { amulet: '0.1.22', amuletNameService: '0.1.22', dsoGovernance: '0.1.22', validatorLifecycle: '0.1.22', wallet: '0.1.23', walletPayments: '0.1.22' },
    transferPreapprovalFee: null,
    featuredAppActivityMarkerAmount: '1.0',
    optDevelopmentFundManager: null,
    externalPartyConfigStateTickDuration: null,
    rewardConfig: null,
    transferPreapprovalBaseDuration: null,
  };
}

