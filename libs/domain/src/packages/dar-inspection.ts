import { ACCEPTED_LF_VERSIONS, ArchiveParseError, DarFormatError, readDar } from '@ledgerline/canton';
import {
  inspectArchive,
  PackageValidationError,
  validatePackages,
  type InspectedArchive,
  type Package,
} from '@ledgerline/daml-lf';
import type { PackageInfo } from './events';
import {
  allowedLanguageVersions,
  darDependenciesNotValid,
  darParseError,
  darValidationError,
  invalidDar,
  invalidZipEntry,
  zipBomb,
} from './package-errors';

/** One package of a DAR: what the store lists, and the archive payload it keeps. */
export interface DarPackage {
  info: PackageInfo;
  payload: Uint8Array;
  /** The package as the engine's decoder decoded it (absent only in hand-made test values). */
  decoded?: Package;
}

/** A DAR that passed every check that needs nothing but its bytes. */
export interface ParsedDar {
  mainPackageId: string;
  /** The main package first, then the dependencies in the manifest's order, each package id once. */
  packages: DarPackage[];
}

/**
 * Reads and checks a DAR as Canton's PackageUploader does before it stores anything, as far as that needs no Daml
 * interpretation: zip and manifest (INVALID_DAR, INVALID_ZIP_ENTRY, ZIP_BOMB), every archive decoded whole by the
 * engine's decoder, main first (DAR_PARSE_ERROR: corrupt archive, hash mismatch, unknown LF version, bad name or
 * version, a package the decoder refuses), then the LF version allow-list (ALLOWED_LANGUAGE_VERSIONS: LF 2.1–2.3).
 */
export async function inspectDar(bytes: Buffer, opts: { maxUncompressedBytes: number }): Promise<ParsedDar> {
  let file;
  try {
    file = await readDar(bytes, opts);
  } catch (e) {
    if (!(e instanceof DarFormatError)) throw e;
    const f = e.failure;
    if (f.kind === 'invalid-dar') throw invalidDar(f.entries, f.reason);
    if (f.kind === 'invalid-zip-entry') throw invalidZipEntry(f.name, f.entries);
    throw zipBomb();
  }
  const inspected: InspectedArchive[] = [];
  for (const dalf of [file.main, ...file.dependencies]) {
    try {
      inspected.push(inspectArchive(dalf.bytes));
    } catch (e) {
      if (e instanceof ArchiveParseError) throw darParseError(e.message);
      throw e;
    }
  }
  const archives = inspected.map((i) => i.archive);
  const refused = archives.find((a) => !a.accepted);
  if (refused)
    throw allowedLanguageVersions(
      refused.packageId,
      refused.lfVersion,
      ACCEPTED_LF_VERSIONS[0],
      ACCEPTED_LF_VERSIONS[ACCEPTED_LF_VERSIONS.length - 1],
    );
  const seen = new Set<string>();
  const packages: DarPackage[] = [];
  for (const { archive: a, package: decoded } of inspected) {
    if (seen.has(a.packageId)) continue;
    seen.add(a.packageId);
    packages.push({
      info: {
        packageId: a.packageId,
        name: a.name!,
        version: a.version!,
        lfVersion: a.lfVersion,
        sizeBytes: a.payload.length,
        imports: a.imports && [...a.imports],
        templates: a.templates && [...a.templates],
      },
      payload: a.payload,
      decoded: decoded!,
    });
  }
  return { mainPackageId: archives[0].packageId, packages };
}

/**
 * The DAR's declared imports must all be in the DAR or already stored (DAR_DEPENDENCIES_NOT_VALID). Packages that do
 * not declare their imports (LF 2.1) and extra, unreferenced archives are accepted.
 */
export function checkDarDependencies(dar: ParsedDar, stored: ReadonlySet<string>): void {
  const inDar = new Set(dar.packages.map((p) => p.info.packageId));
  const missing = new Set<string>();
  for (const p of dar.packages)
    for (const id of p.info.imports ?? []) if (!inDar.has(id) && !stored.has(id)) missing.add(id);
  if (missing.size) throw darDependenciesNotValid(dar.mainPackageId, [...missing].sort());
}

/** Every package id a DAR's decision needs to know about: its own and those it imports. */
export const darPackageIdsToLookUp = (dar: ParsedDar): string[] => [
  ...new Set(dar.packages.flatMap((p) => [p.info.packageId, ...(p.info.imports ?? [])])),
];

/**
 * The package ids a DAR's packages refer to that the DAR does not hold: the stored packages its validation needs.
 */
export function darExternalReferences(dar: ParsedDar): string[] {
  const inDar = new Set(dar.packages.map((p) => p.info.packageId));
  return [...new Set(dar.packages.flatMap((p) => p.decoded?.imports ?? []))].filter((id) => !inDar.has(id)).sort();
}

/**
 * Canton's package validation of every package of the DAR (`@ledgerline/daml-lf` validatePackages: well-formedness and
 * serializability) against the DAR and the stored packages it uses (`stored`): DAR_VALIDATION_ERROR with Canton's
 * message otherwise.
 */
export function validateDar(dar: ParsedDar, stored: (packageId: string) => Package | undefined): void {
  try {
    validatePackages(
      dar.packages.flatMap((p) => (p.decoded ? [p.decoded] : [])),
      stored,
    );
  } catch (e) {
    if (e instanceof PackageValidationError) throw darValidationError(e.message);
    throw e;
  }
}
