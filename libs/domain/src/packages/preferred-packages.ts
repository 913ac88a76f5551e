import { comparePackageVersions, isPackageName, isUniqueIdentifier } from '@ledgerline/canton';
import { invalidField, missingField } from '../errors';
import { parseIsoMicros } from '../ledger/time';
import { requireParty } from '../parties/party-rules';
import type { PackageInfo, VettingState } from './events';
import { packageNamesNotFound } from './package-errors';
import { vettedAt } from './vetting';

/**
 * Preferred packages (Canton's ApiInteractiveSubmissionService and PackagePreferenceBackend): per package name, the
 * highest (version, then package id) stored package vetted at the given time on a synchronizer where every listed party
 * is hosted; among synchronizers that answer every name, the smallest synchronizer id. One participant hosts every party,
 * so a synchronizer's candidates are the packages this participant vets there.
 */

export interface PackageVettingRequirement {
  parties: string[];
  packageName: string;
}

export interface PreferredPackagesRequest {
  requirements: PackageVettingRequirement[];
  synchronizerId: string;
  /** ISO-8601 instant, or '' for now. */
  vettingValidAt: string;
}

/** Validation in the reference's order (GetPreferredPackagesRequestValidator); failures are errors, not "no preference". */
export function validatePreferredPackagesRequest(req: PreferredPackagesRequest): void {
  if (req.requirements.length === 0) throw missingField('package_vetting_requirements/packageVettingRequirements');
  for (const r of req.requirements) {
    if (r.packageName === '') throw missingField('package_name/packageName');
    if (!isPackageName(r.packageName))
      throw invalidField('package_name/packageName', `Invalid package name: ${r.packageName}`);
    if (r.parties.length === 0) throw missingField('parties');
    for (const p of r.parties) requireParty(p);
  }
  if (req.synchronizerId !== '' && !isUniqueIdentifier(req.synchronizerId)) {
    throw invalidField('synchronizer_id/synchronizerId', `Invalid unique identifier \`${req.synchronizerId}\``);
  }
  if (req.vettingValidAt !== '') {
    try {
      parseIsoMicros(req.vettingValidAt);
    } catch {
      throw invalidField('vetting_valid_at/vettingValidAt', `Invalid timestamp ${req.vettingValidAt}`);
    }
  }
}

export interface PreferredPackages {
  synchronizerId: string;
  /** One per requested name, in the request's order. */
  packages: PackageInfo[];
}

/** Highest (version, then id) first. */
export const comparePackagesByVersion = (a: PackageInfo, b: PackageInfo): number =>
  comparePackageVersions(a.version, b.version) || (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0);

/**
 * The preferred package of each requested name, or null when no synchronizer satisfies every requirement. A name that no
 * stored package has → PACKAGE_NAMES_NOT_FOUND. `states` are the vetting states of the connected synchronizers.
 */
export function choosePreferredPackages(
  stored: readonly PackageInfo[],
  states: readonly VettingState[],
  req: PreferredPackagesRequest,
  nowMicros: bigint,
): PreferredPackages | null {
  const names = [...new Set(req.requirements.map((r) => r.packageName))];
  const unknown = names.filter((n) => !stored.some((p) => p.name === n));
  if (unknown.length) throw packageNamesNotFound(unknown);
  const at = req.vettingValidAt === '' ? nowMicros : parseIsoMicros(req.vettingValidAt);
  const candidates = [...states]
    .filter((s) => req.synchronizerId === '' || s.synchronizerId === req.synchronizerId)
    .sort((a, b) => (a.synchronizerId < b.synchronizerId ? -1 : a.synchronizerId > b.synchronizerId ? 1 : 0));
  for (const s of candidates) {
    const vetted = new Set(s.packages.filter((p) => vettedAt(p, at)).map((p) => p.packageId));
    const chosen = names.map((n) => preferredOf(stored.filter((p) => p.name === n && vetted.has(p.packageId))));
    if (chosen.every((p) => p !== null)) {
      const byName = new Map(chosen.map((p) => [p!.name, p!]));
      return { synchronizerId: s.synchronizerId, packages: req.requirements.map((r) => byName.get(r.packageName)!) };
    }
  }
  return null;
}

/** The highest of `packages` by (version, id), or null. */
export function preferredOf(packages: readonly PackageInfo[]): PackageInfo | null {
  let best: PackageInfo | null = null;
  for (const p of packages) if (best === null || comparePackagesByVersion(p, best) > 0) best = p;
  return best;
}
