import { comparePackageVersions } from '@ledgerline/canton';
import { supportsUpgrades, upgradeError, type Package } from '@ledgerline/daml-lf';
import { knownPackageVersion, notValidUpgradePackage, packageWithNameAndVersion } from './package-errors';

/** A package of the next vetting state, decoded. */
export interface LineagePackage {
  packageId: string;
  name: string;
  version: string;
  decoded: Package;
}

/**
 * The upgrade checks of a vetting change, as Canton's PackageUpgradeValidator runs them: for each package name of
 * `newPackageIds`, the packages of that name in the next vetting state (`target`) that take part in upgrades (not utility
 * packages, not daml-prim or daml-stdlib), ordered by version then id, and each neighbouring pair that involves a new
 * package: the same version twice → KNOWN_PACKAGE_VERSION; then the later not a valid upgrade of the earlier →
 * NOT_VALID_UPGRADE_PACKAGE with Canton's reason. `lookup` resolves the packages their types refer to.
 */
export function checkUpgrades(
  newPackageIds: ReadonlySet<string>,
  target: readonly LineagePackage[],
  lookup: (packageId: string) => Package | undefined,
): void {
  const names = new Set(target.filter((p) => newPackageIds.has(p.packageId)).map((p) => p.name));
  const pairs: Array<[LineagePackage, LineagePackage]> = [];
  for (const name of names) {
    const lineage = target
      .filter((p) => p.name === name && supportsUpgrades(p.decoded))
      .sort((a, b) => comparePackageVersions(a.version, b.version) || (a.packageId < b.packageId ? -1 : 1));
    for (let i = 1; i < lineage.length; i++)
      if (newPackageIds.has(lineage[i - 1].packageId) || newPackageIds.has(lineage[i].packageId))
        pairs.push([lineage[i - 1], lineage[i]]);
  }
  for (const [a, b] of pairs)
    if (comparePackageVersions(a.version, b.version) === 0)
      throw knownPackageVersion(packageWithNameAndVersion(a), packageWithNameAndVersion(b));
  for (const [a, b] of pairs) {
    const reason = upgradeError(a.decoded, b.decoded, lookup);
    if (reason) throw notValidUpgradePackage(packageWithNameAndVersion(a), packageWithNameAndVersion(b), reason);
  }
}
