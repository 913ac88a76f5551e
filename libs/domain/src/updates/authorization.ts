import { canReadAs, readsAsAnyParty, type Claims } from '../auth/rights';
import { permissionDenied } from '../errors';
import type { EventFormat, UpdateFormat } from './format';

/**
 * The claims a read needs (Canton's UpdateServiceAuthorization, ledger-api-core: ledger/api/auth/services/): ReadAs for
 * every party of `filtersByParty` (transactions and reassignments),
 * ReadAsAnyParty when either has `filtersForAnyParty`; for topology events ReadAs per listed party, or ReadAsAnyParty when
 * the list is empty (all parties). Checked before any validation of the request, as the reference does.
 */
export function authorizeUpdateFormat(claims: Claims, uf: UpdateFormat): void {
  const check = (ef: EventFormat | null | undefined) => authorizeEventFormat(claims, ef);
  check(uf.includeTransactions?.eventFormat);
  check(uf.includeReassignments);
  const topo = uf.includeTopologyEvents?.includeParticipantAuthorizationEvents;
  if (topo) {
    const parties = topo.parties ?? [];
    if (parties.length === 0 && !readsAsAnyParty(claims))
      throw permissionDenied('Claims do not authorize to read topology events of all parties');
    for (const p of parties)
      if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read data for party '${p}'`);
  }
}

/** ReadAs for every party of `filtersByParty`, ReadAsAnyParty for `filtersForAnyParty` (no format: nothing). */
export function authorizeEventFormat(claims: Claims, ef: EventFormat | null | undefined): void {
  if (!ef) return;
  for (const p of Object.keys(ef.filtersByParty ?? {})) {
    if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read data for party '${p}'`);
  }
  if (ef.filtersForAnyParty && !readsAsAnyParty(claims))
    throw permissionDenied('Claims do not authorize to read data as any party');
}
