import type { Kysely } from 'kysely';
import { darPackageIdsToLookUp, decideUploadDar, type ParsedDar, type UploadDarState } from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** An inspected DAR to store, vetted on `vetOn` (null: not vetted). */
export interface UploadDar {
  dar: ParsedDar;
  vetOn: string | null;
  participantId: string;
}

/** The DAR's package ids and imports, and the synchronizer it vets on ('' for none). */
export interface DarUploadKey {
  packageIds: readonly string[];
  vetOn: string;
}

const packages = repositories.packages;

/**
 * POST /v2/packages: which of the DAR's packages are stored and the vetting state it changes, then `decideUploadDar`.
 * The new packages' archives are written before the event that names them, in the same transaction. Vetting changes read
 * every stored package, so an upload changes 'packages:all'.
 */
export const darUploadDecider: Decider<UploadDar, DarUploadKey, UploadDarState, void> = {
  name: 'dar-upload',
  key: ({ dar, vetOn }) => ({ packageIds: darPackageIdsToLookUp(dar), vetOn: vetOn ?? '' }),
  conflicts: {
    packageIds: changes('packages', (ids: readonly string[]) => (ids.length ? 'all' : [])),
    vetOn: changes('vetting', (id: string) => id || []),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      stored: await packages.stored(db, k.packageIds),
      vetting: k.vetOn ? (await packages.vetting(db, [k.vetOn]))[0] : null,
    })),
  decide(state, { dar, participantId }) {
    const { events, newPackages } = decideUploadDar(state, dar, participantId);
    return {
      events,
      answer: () => undefined,
      writeFirst: newPackages.length
        ? async (db) => {
            for (const p of newPackages) await packages.writeArchive(db, p.info.packageId, p.payload);
          }
        : undefined,
    };
  },
};
