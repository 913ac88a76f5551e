import { permissionDenied } from '../errors';
import type { UserState } from '../users/user-rules';

/**
 * The self-allocation quota (Canton's ApiPartyManagementService `checkUserLimitsIfUserSpecified`): a caller allowed only
 * because it allocates for itself may end up with rights for at most `quota` parties. Applies to local and external
 * parties alike. `quota` null = no limit (admins); an unknown user is left to the caller's not-found check.
 */
export function checkSelfAllocationQuota(user: UserState | null, quota: number | null): void {
  if (quota === null || !user?.user) return;
  const parties = new Set(user.rights.flatMap((r) => ('party' in r ? [r.party] : [])));
  if (parties.size + 1 > quota) throw permissionDenied('User quota of party allocations exhausted');
}
