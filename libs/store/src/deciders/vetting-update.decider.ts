import type { Kysely } from 'kysely';
import {
  decideVettingUpdate,
  vettingEntry,
  type VettedPackagesEntry,
  type VettingState,
  type VettingUpdateRequest,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import type { StoredPackage } from '../repositories/packages.repository';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** A vetting change on `synchronizerId` (resolved). */
export interface UpdateVetting {
  synchronizerId: string;
  request: VettingUpdateRequest;
  participantId: string;
}

export interface VettingUpdateState {
  vetting: VettingState;
  /** Every stored package (vetting references resolve against them). */
  packages: StoredPackage[];
}

const packages = repositories.packages;

/**
 * POST /v2/package-vetting (update): the synchronizer's vetting state and every stored package, then
 * `decideVettingUpdate`. The answer: the vetting entries before and after.
 */
export const vettingUpdateDecider: Decider<
  UpdateVetting,
  { synchronizerId: string },
  VettingUpdateState,
  { past: VettedPackagesEntry | null; next: VettedPackagesEntry }
> = {
  name: 'vetting-update',
  key: ({ synchronizerId }) => ({ synchronizerId }),
  conflicts: { synchronizerId: [changes('vetting'), reads('packages', () => 'all')] },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      vetting: (await packages.vetting(db, [k.synchronizerId]))[0],
      packages: await packages.all(db),
    })),
  decide(state, { request, participantId }) {
    const d = decideVettingUpdate(state.vetting, state.packages, request, participantId);
    const byId = new Map(state.packages.map((p) => [p.packageId, p]));
    return decision(d.events, {
      past: d.past && vettingEntry(d.past, byId, participantId),
      next: vettingEntry(d.next, byId, participantId),
    });
  },
};
