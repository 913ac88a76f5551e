/** What the package store keeps of one Daml-LF package (its archive's bytes are kept beside the log, by package id). */
export interface PackageInfo {
  packageId: string;
  name: string;
  version: string;
  /** `2.1`, `2.2`, `2.3`. */
  lfVersion: string;
  /** Size of the archive payload in bytes. */
  sizeBytes: number;
  /** Package ids the package declares it imports (LF ≥ 2.2), or null. */
  imports: string[] | null;
  /** Its templates and interfaces as `Module:Entity`, read from the archive's definition headers (null: not known). */
  templates?: string[] | null;
}

/** A DAR's packages that were not stored before (an upload of known packages only appends nothing). */
export const PACKAGES_UPLOADED = 'PackagesUploaded';
export interface PackagesUploadedData {
  mainPackageId: string;
  packages: PackageInfo[];
}

/** One vetted package and its bounds (ISO-8601 instants; null = unbounded). */
export interface VettedPackageBounds {
  packageId: string;
  validFromInclusive: string | null;
  validUntilExclusive: string | null;
}

/** This participant's vetting state on one synchronizer after a change: every vetted package, and the new serial. */
export const PACKAGE_VETTING_CHANGED = 'PackageVettingChanged';
export interface PackageVettingChangedData {
  synchronizerId: string;
  participantId: string;
  serial: number;
  packages: VettedPackageBounds[];
}

export const packageStream = (mainPackageId: string) => `package:${mainPackageId}`;
export const packageVettingStream = (synchronizerId: string) => `package-vetting:${synchronizerId}`;

/** The vetting state of this participant on one synchronizer (serial 0 and no packages: never vetted anything there). */
export interface VettingState {
  synchronizerId: string;
  serial: number;
  packages: VettedPackageBounds[];
}
