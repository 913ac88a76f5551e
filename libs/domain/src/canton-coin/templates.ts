/**
 * The Splice templates the Canton Coin development profile reads and writes (`splice-amulet`, `splice-wallet`), by
 * package name (`#name:Module:Entity`, resolved to the preferred stored version) and by qualified name (`Module:Entity`,
 * what a stored template id `packageId:Module:Entity` ends with).
 */
export const SPLICE_AMULET_PACKAGE = 'splice-amulet';
export const SPLICE_WALLET_PACKAGE = 'splice-wallet';
/** The oldest `splice-amulet` whose `AmuletConfig` the development configuration (dev-config.ts) matches. */
export const SPLICE_AMULET_MIN_VERSION = '0.1.22';

export const CANTON_COIN_TEMPLATES = {
  amuletRules: 'Splice.AmuletRules:AmuletRules',
  externalPartyAmuletRules: 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
  externalPartyConfigState: 'Splice.ExternalPartyConfigState:ExternalPartyConfigState',
  openMiningRound: 'Splice.Round:OpenMiningRound',
  summarizingMiningRound: 'Splice.Round:SummarizingMiningRound',
  issuingMiningRound: 'Splice.Round:IssuingMiningRound',
  closedMiningRound: 'Splice.Round:ClosedMiningRound',
  featuredAppRight: 'Splice.Amulet:FeaturedAppRight',
  validatorRewardCoupon: 'Splice.Amulet:ValidatorRewardCoupon',
  appRewardCoupon: 'Splice.Amulet:AppRewardCoupon',
  svRewardCoupon: 'Splice.Amulet:SvRewardCoupon',
  validatorFaucetCoupon: 'Splice.ValidatorLicense:ValidatorFaucetCoupon',
  validatorLivenessActivityRecord: 'Splice.ValidatorLicense:ValidatorLivenessActivityRecord',
  transferPreapproval: 'Splice.AmuletRules:TransferPreapproval',
} as const;

export const TRANSFER_PREAPPROVAL_PROPOSAL = 'Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal';

/** `#splice-amulet:Module:Entity` for a qualified name. */
export const amuletTemplateRef = (qualifiedName: string) => `#${SPLICE_AMULET_PACKAGE}:${qualifiedName}`;
export const walletTemplateRef = (qualifiedName: string) => `#${SPLICE_WALLET_PACKAGE}:${qualifiedName}`;

/** Compares dotted package versions (`0.1.22` > `0.1.9`). */
export function comparePackageVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
