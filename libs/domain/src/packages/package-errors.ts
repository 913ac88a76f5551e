import { ErrorCategories } from '../errors/error-category';
import { invalidArgument, LedgerError } from '../errors';

/**
 * The reference's package-service errors (Canton's PackageServiceErrors and CantonPackageServiceError, the engine's
 * AllowedLanguageVersion, RequestValidationErrors, TopologyManagerError).
 */
const C = ErrorCategories;

export const invalidDar = (entries: readonly string[], reason: string) =>
  new LedgerError('INVALID_DAR', C.InvalidIndependentOfSystemState, 'Dar file is corrupt', {
    context: { entries: entries.join(', '), throwable: reason },
  });

export const invalidZipEntry = (name: string, entries: readonly string[]) =>
  new LedgerError('INVALID_ZIP_ENTRY', C.InvalidIndependentOfSystemState, 'Dar zip file is corrupt', {
    context: { name, entries: entries.join(', ') },
  });

export const zipBomb = () =>
  new LedgerError('ZIP_BOMB', C.InvalidIndependentOfSystemState, 'Dar zip file seems to be a zip bomb.');

export const darParseError = (reason: string) =>
  new LedgerError('DAR_PARSE_ERROR', C.InvalidIndependentOfSystemState, 'Failed to parse the dar file content.', {
    context: { reason },
  });

export const allowedLanguageVersions = (packageId: string, lfVersion: string, min: string, max: string) =>
  new LedgerError(
    'ALLOWED_LANGUAGE_VERSIONS',
    C.InvalidIndependentOfSystemState,
    `Disallowed language version in package ${packageId}: Expected version between ${min} and ${max} but got ${lfVersion}`,
    { context: { packageId, languageVersion: lfVersion, allowedLanguageVersions: `${min} to ${max}` } },
  );

/** A package of the DAR fails Canton's package validation (PackageServiceErrors.Validation.ValidationError). */
export const darValidationError = (validationError: string) =>
  new LedgerError('DAR_VALIDATION_ERROR', C.InvalidIndependentOfSystemState, 'Package validation failed.', {
    context: { validationError },
  });

/** `<id> (<name> v<version>)`, as Canton names a package in topology errors (`PkgIdWithNameAndVersion`). */
export const packageWithNameAndVersion = (p: { packageId: string; name: string; version: string }) =>
  `${p.packageId} (${p.name} v${p.version})`;

/** A package to vet is not a valid upgrade of the vetted version below it (TopologyManagerError.Upgradeability). */
export const notValidUpgradePackage = (oldPackage: string, newPackage: string, upgradeError: string) =>
  new LedgerError(
    'NOT_VALID_UPGRADE_PACKAGE',
    C.InvalidIndependentOfSystemState,
    `Upgrade checks indicate that ${newPackage} cannot be an upgrade of ${oldPackage}. Reason: ${upgradeError}`,
  );

/** Two packages to vet have the same name and version (TopologyManagerError.UpgradeVersion). */
export const knownPackageVersion = (first: string, second: string) =>
  new LedgerError(
    'KNOWN_PACKAGE_VERSION',
    C.InvalidIndependentOfSystemState,
    `Tried to vet two packages with the same name and version: ${first} and ${second}.`,
  );

export const darDependenciesNotValid = (mainPackageId: string, missing: readonly string[]) =>
  new LedgerError(
    'DAR_DEPENDENCIES_NOT_VALID',
    C.InvalidIndependentOfSystemState,
    `The DAR of main package ${mainPackageId} does not hold all of its dependencies.`,
    {
      context: { mainPackageId, missingDependencies: missing.join(', '), extraDependencies: '' },
    },
  );

export const protoDeserializationFailure = (reason: string) =>
  new LedgerError(
    'PROTO_DESERIALIZATION_FAILURE',
    C.InvalidIndependentOfSystemState,
    `Deserialization of protobuf message failed: ${reason}`,
    { context: { reason } },
  );

export const notConnectedToSynchronizer = (id: string) =>
  new LedgerError(
    'PACKAGE_SERVICE_NOT_CONNECTED_TO_SYNCHRONIZER',
    C.InvalidGivenCurrentSystemStateOther,
    `Cannot upload a dar because the participant is not connected to synchronizer '${id}'.`,
    { context: { synchronizerId: id } },
  );

export const cannotAutodetectSynchronizer = (connected: readonly string[]) =>
  new LedgerError(
    'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER',
    C.InvalidGivenCurrentSystemStateOther,
    connected.length === 0
      ? 'Cannot autodetect synchronizer: no synchronizers currently connected'
      : `Cannot autodetect synchronizer: currently connected synchronizers ${connected.join(', ')}`,
  );

export const invalidPackageId = (reason: string) => invalidArgument(`Invalid package id: ${reason}`);

export const packageNotFound = (packageId: string) =>
  new LedgerError('PACKAGE_NOT_FOUND', C.InvalidGivenCurrentSystemStateResourceMissing, 'Could not find package.', {
    resources: [['PACKAGE', packageId]],
  });

export const unresolvedVettingReference = (ref: string) =>
  new LedgerError(
    'UNRESOLVED_VETTING_REFERENCE',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `The reference ${ref} did not match any package.`,
    {
      context: { reference: ref },
    },
  );

export const ambiguousVettingReference = (ref: string, matches: readonly string[]) =>
  new LedgerError(
    'AMBIGUOUS_VETTING_REFERENCE',
    C.InvalidGivenCurrentSystemStateOther,
    `The reference ${ref} matches more than one package: ${matches.join(', ')}. Vet a single package per reference.`,
    { context: { reference: ref, matches: matches.join(', ') } },
  );

export const topologySerialMismatch = (expected: number, actual: number) =>
  new LedgerError(
    'TOPOLOGY_SERIAL_MISMATCH',
    C.InvalidGivenCurrentSystemStateOther,
    `The expected serial ${expected === 0 ? 'NoPrior' : expected} does not match the serial of the current vetting state (${actual === 0 ? 'none' : actual}).`,
    { context: { expected: String(expected), actual: String(actual) } },
  );

export const packageNamesNotFound = (names: readonly string[]) =>
  new LedgerError(
    'PACKAGE_NAMES_NOT_FOUND',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `The following package names do not match upgradable packages uploaded on this participant: [${names.join(', ')}].`,
  );

export const noPreferredPackagesFound = (reason: string) =>
  new LedgerError(
    'NO_PREFERRED_PACKAGES_FOUND',
    C.InvalidGivenCurrentSystemStateOther,
    `Failed to compute package preferences. Reason: ${reason}`,
  );

export const templatesOrInterfacesNotFound = (templateId: string) =>
  new LedgerError(
    'TEMPLATES_OR_INTERFACES_NOT_FOUND',
    C.InvalidGivenCurrentSystemStateResourceMissing,
    `Templates or interfaces do not exist: ${templateId}.`,
    {
      resources: [['TEMPLATE_ID', templateId]],
    },
  );

/** The JSON layer could not choose a package for a `#package-name` (Canton's JsonApiErrors.JsonApiPackageSelectionFailed). */
export const jsonApiPackageSelectionFailed = (cause: string) =>
  new LedgerError('JSON_API_PACKAGE_SELECTION_FAILED', C.InvalidGivenCurrentSystemStateOther, cause);

/**
 * No synchronizer has a candidate for a stored package name: none of its packages is vetted (or, with pinned ids, none
 * of those), as PackagePreferenceBackend words it.
 */
export function packageSelectionFailed(
  packageName: string,
  synchronizers: readonly string[],
  pinned?: ReadonlySet<string>,
): LedgerError {
  const reason = pinned
    ? `No vetted package candidate satisfies the package-id filter 'Commands.packageIdSelectionPreferences'=Map(${packageName} -> Set(${[...pinned].join(', ')}))`
    : `No package with package-name '${packageName}' is consistently vetted by all hosting participants of the submitting party.`;
  return jsonApiPackageSelectionFailed(
    `No synchronizer satisfies the vetting requirements. Discarded synchronizers: ${synchronizers.map((s) => `${s}: ${reason}`).join(', ')}`,
  );
}
