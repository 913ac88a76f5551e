import type { LedgerClock } from '@ledgerline/domain';

/** The Canton release whose Ledger API this serves (3.5.7's JSON operations and 3.5.10's additions, its gRPC services). */
export const API_VERSION = '3.5.10';

/** What VersionService.GetLedgerApiVersion and GET /v2/version report: the version and the features descriptor. */
export function apiVersionInfo(clock: Pick<LedgerClock, 'mode'>) {
  return {
    version: API_VERSION,
    staticTime: clock.mode === 'static',
    userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
    partyManagement: { maxPartiesPageSize: 10000 },
    maxOffsetCheckpointEmissionDelaySeconds: 60,
    packageFeature: { maxVettedPackagesPageSize: 100 },
  };
}
