import { isUniqueIdentifier, packageIdProblem } from '@ledgerline/canton';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import { checkDarDependencies, type DarPackage, type ParsedDar } from './dar-inspection';
import {
  PACKAGE_VETTING_CHANGED,
  PACKAGES_UPLOADED,
  packageStream,
  packageVettingStream,
  type PackagesUploadedData,
  type PackageVettingChangedData,
  type VettingState,
} from './events';
import {
  cannotAutodetectSynchronizer,
  invalidPackageId,
  notConnectedToSynchronizer,
  protoDeserializationFailure,
} from './package-errors';

/** A package id of a path: INVALID_ARGUMENT "Invalid package id: …" otherwise. */
export function requirePackageId(id: string): string {
  const problem = packageIdProblem(id);
  if (problem) throw invalidPackageId(problem);
  return id;
}

/** `synchronizerId` of a package-management request: a unique identifier, else PROTO_DESERIALIZATION_FAILURE. */
export function validatePackageSynchronizerId(id: string): void {
  if (id !== '' && !isUniqueIdentifier(id))
    throw protoDeserializationFailure(`ValueConversionError(synchronizer_id,Invalid unique identifier \`${id}\`)`);
}

/**
 * The synchronizer a vetting change goes to (Canton's CantonSyncService): the named one if connected; else the only
 * connected one; else PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER.
 */
export function resolvePackageSynchronizer(requested: string, connected: readonly string[]): string {
  if (requested !== '') {
    if (!connected.includes(requested)) throw notConnectedToSynchronizer(requested);
    return requested;
  }
  if (connected.length !== 1) throw cannotAutodetectSynchronizer(connected);
  return connected[0];
}

export interface UploadDarState {
  /** Which of the DAR's package ids and imports are stored already. */
  stored: ReadonlySet<string>;
  /** The vetting state on the synchronizer the upload vets on (null: the upload does not vet). */
  vetting: VettingState | null;
}

export interface UploadDarDecision {
  events: NewLedgerEvent[];
  /** The packages to store (those not stored before): their archives are written with the events. */
  newPackages: DarPackage[];
}

/**
 * An upload after its DAR passed inspection: dependencies present, then the packages not stored yet, then (when vetting)
 * every package of the DAR vetted on the synchronizer. Known packages keep what was stored first; packages already
 * vetted keep their bounds. An upload that changes nothing appends nothing.
 */
export function decideUploadDar(state: UploadDarState, dar: ParsedDar, participantId: string): UploadDarDecision {
  checkDarDependencies(dar, state.stored);
  const newPackages = dar.packages.filter((p) => !state.stored.has(p.info.packageId));
  const events: NewLedgerEvent[] = [];
  if (newPackages.length) {
    const data: PackagesUploadedData = { mainPackageId: dar.mainPackageId, packages: newPackages.map((p) => p.info) };
    events.push({ type: PACKAGES_UPLOADED, stream: packageStream(dar.mainPackageId), data });
  }
  const vetting = state.vetting;
  if (vetting) {
    const vetted = new Set(vetting.packages.map((p) => p.packageId));
    const toVet = dar.packages.filter((p) => !vetted.has(p.info.packageId));
    if (toVet.length) {
      const data: PackageVettingChangedData = {
        synchronizerId: vetting.synchronizerId,
        participantId,
        serial: vetting.serial + 1,
        packages: [
          ...vetting.packages,
          ...toVet.map((p) => ({ packageId: p.info.packageId, validFromInclusive: null, validUntilExclusive: null })),
        ],
      };
      events.push({ type: PACKAGE_VETTING_CHANGED, stream: packageVettingStream(vetting.synchronizerId), data });
    }
  }
  return { events, newPackages };
}
