import { comparePackageVersions, isPackageId, isUniqueIdentifier } from '@ledgerline/canton';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import { parseIsoMicros } from '../ledger/time';
import {
  PACKAGE_VETTING_CHANGED,
  packageVettingStream,
  type PackageInfo,
  type PackageVettingChangedData,
  type VettedPackageBounds,
  type VettingState,
} from './events';
import {
  ambiguousVettingReference,
  protoDeserializationFailure,
  topologySerialMismatch,
  unresolvedVettingReference,
} from './package-errors';

/**
 * Package vetting of this participant (Canton's package-vetting endpoints over its VettedPackages topology mapping):
 * per synchronizer, a set of package ids with optional validity bounds and a serial that grows by one per change. One
 * participant and no topology delay: a change is effective once committed.
 */

/** `{packageId, packageName, packageVersion}`, `""` meaning "any". */
export interface VettingRef {
  packageId: string;
  packageName: string;
  packageVersion: string;
}

export type VettingChange =
  | { kind: 'vet'; refs: VettingRef[]; validFromInclusive: string | null; validUntilExclusive: string | null }
  | { kind: 'unvet'; refs: VettingRef[] };

export interface VettingUpdateRequest {
  changes: VettingChange[];
  dryRun: boolean;
  /** The serial the caller expects (0 = no prior vetting state), or null for no check. */
  expectedSerial: number | null;
}

const renderRef = (r: VettingRef) =>
  `VettedPackagesRef(packageId=${r.packageId}, packageName=${r.packageName}, packageVersion=${r.packageVersion})`;

/** Allowed combinations: id; name; name + version; all three (else PROTO_DESERIALIZATION_FAILURE). */
export function validateVettingRef(r: VettingRef): void {
  const ok = r.packageId !== '' ? (r.packageName !== '') === (r.packageVersion !== '') : r.packageName !== '';
  if (!ok)
    throw protoDeserializationFailure(
      'Either package_id must be set, or package_name and package_version must be set, or all three must be set.',
    );
  if (r.packageId !== '' && !isPackageId(r.packageId))
    throw protoDeserializationFailure(`Invalid package id: ${r.packageId}`);
}

/** A vetting bound: an ISO-8601 instant, else PROTO_DESERIALIZATION_FAILURE. */
export function validateVettingBound(field: string, value: string | null): void {
  if (value === null) return;
  try {
    parseIsoMicros(value);
  } catch {
    throw protoDeserializationFailure(`ValueConversionError(${field},Invalid timestamp ${value})`);
  }
}

const matches = (r: VettingRef, p: { packageId: string; name: string; version: string }) =>
  (r.packageId === '' || r.packageId === p.packageId) &&
  (r.packageName === '' || r.packageName === p.name) &&
  (r.packageVersion === '' || r.packageVersion === p.version);

export interface VettingUpdateDecision {
  past: VettingState | null;
  next: VettingState;
  events: NewLedgerEvent[];
}

/**
 * Applies the changes in order to the vetting state. A Vet reference must match exactly one stored package
 * (UNRESOLVED_VETTING_REFERENCE, AMBIGUOUS_VETTING_REFERENCE); an Unvet reference matches every stored or vetted package
 * it names and must match one. The serial check comes first; a dry run or a change that changes nothing appends nothing.
 */
export function decideVettingUpdate(
  state: VettingState,
  stored: readonly PackageInfo[],
  req: VettingUpdateRequest,
  participantId: string,
): VettingUpdateDecision {
  if (req.expectedSerial !== null && req.expectedSerial !== state.serial)
    throw topologySerialMismatch(req.expectedSerial, state.serial);
  const known = stored.map((p) => ({ packageId: p.packageId, name: p.name, version: p.version }));
  const vetted = new Map<string, VettedPackageBounds>(state.packages.map((p) => [p.packageId, p]));
  for (const change of req.changes) {
    if (change.kind === 'vet') {
      for (const ref of change.refs) {
        const found = known.filter((p) => matches(ref, p));
        if (found.length === 0) throw unresolvedVettingReference(renderRef(ref));
        if (found.length > 1) throw ambiguousVettingReference(renderRef(ref), found.map((p) => p.packageId).sort());
        vetted.set(found[0].packageId, {
          packageId: found[0].packageId,
          validFromInclusive: change.validFromInclusive,
          validUntilExclusive: change.validUntilExclusive,
        });
      }
    } else {
      for (const ref of change.refs) {
        const ids = new Set(known.filter((p) => matches(ref, p)).map((p) => p.packageId));
        if (ref.packageName === '' && ref.packageVersion === '' && vetted.has(ref.packageId)) ids.add(ref.packageId);
        if (ids.size === 0) throw unresolvedVettingReference(renderRef(ref));
        for (const id of ids) vetted.delete(id);
      }
    }
  }
  const after = [...vetted.values()];
  const unchanged =
    after.length === state.packages.length &&
    after.every((p) =>
      sameBounds(
        p,
        state.packages.find((q) => q.packageId === p.packageId),
      ),
    );
  const past = state.serial === 0 ? null : state;
  if (unchanged) return { past, next: state, events: [] };
  const next: VettingState = { synchronizerId: state.synchronizerId, serial: state.serial + 1, packages: after };
  if (req.dryRun) return { past, next, events: [] };
  const data: PackageVettingChangedData = {
    synchronizerId: state.synchronizerId,
    participantId,
    serial: next.serial,
    packages: after,
  };
  return {
    past,
    next,
    events: [{ type: PACKAGE_VETTING_CHANGED, stream: packageVettingStream(state.synchronizerId), data }],
  };
}

const sameBounds = (a: VettedPackageBounds, b: VettedPackageBounds | undefined) =>
  b !== undefined && a.validFromInclusive === b.validFromInclusive && a.validUntilExclusive === b.validUntilExclusive;

/** True if the package is vetted at `atMicros` (bounds: from inclusive, until exclusive). */
export function vettedAt(p: VettedPackageBounds, atMicros: bigint): boolean {
  if (p.validFromInclusive !== null && parseIsoMicros(p.validFromInclusive) > atMicros) return false;
  if (p.validUntilExclusive !== null && parseIsoMicros(p.validUntilExclusive) <= atMicros) return false;
  return true;
}

// ------------------------------------------------------------------------------------------------ listing

export interface VettingListFilter {
  packageIds: string[];
  packageNamePrefixes: string[];
  participantIds: string[];
  synchronizerIds: string[];
}

/** A listed package: its bounds, and name and version where the package is stored here (else ''). */
export interface ListedVettedPackage extends VettedPackageBounds {
  packageName: string;
  packageVersion: string;
}

export interface VettedPackagesEntry {
  synchronizerId: string;
  participantId: string;
  serial: number;
  packages: ListedVettedPackage[];
}

/** Filter ids must parse (PROTO_DESERIALIZATION_FAILURE); the page size must be within 0…max. */
export function validateVettingList(filter: VettingListFilter, pageSize: number, maxPageSize: number): void {
  for (const id of filter.packageIds)
    if (!isPackageId(id)) throw protoDeserializationFailure(`Invalid package id: ${id}`);
  for (const id of [...filter.participantIds, ...filter.synchronizerIds]) {
    if (!isUniqueIdentifier(id)) throw protoDeserializationFailure(`Invalid unique identifier \`${id}\``);
  }
  if (pageSize < 0) throw protoDeserializationFailure(`Page size must be non-negative, got ${pageSize}`);
  if (pageSize > maxPageSize)
    throw protoDeserializationFailure(`Page size ${pageSize} exceeds the maximum of ${maxPageSize}`);
}

/**
 * The entries (one per synchronizer with vetting state, sorted by synchronizer then participant) that hold a package
 * matching the filter, with the matching packages only (sorted by name, version, then id); paging after `after`.
 */
export function listVettedPackages(
  states: readonly VettingState[],
  stored: ReadonlyMap<string, PackageInfo>,
  participantId: string,
  filter: VettingListFilter,
  page: { after: { synchronizerId: string; participantId: string } | null; size: number },
): { entries: VettedPackagesEntry[]; more: boolean } {
  if (filter.participantIds.length && !filter.participantIds.includes(participantId))
    return { entries: [], more: false };
  const matchesPackage = (p: ListedVettedPackage) =>
    (filter.packageIds.length === 0 && filter.packageNamePrefixes.length === 0) ||
    filter.packageIds.includes(p.packageId) ||
    (p.packageName !== '' && filter.packageNamePrefixes.some((prefix) => p.packageName.startsWith(prefix)));
  const entries: VettedPackagesEntry[] = [];
  const sorted = [...states]
    .filter((s) => s.serial > 0)
    .sort((a, b) => (a.synchronizerId < b.synchronizerId ? -1 : a.synchronizerId > b.synchronizerId ? 1 : 0));
  for (const s of sorted) {
    if (filter.synchronizerIds.length && !filter.synchronizerIds.includes(s.synchronizerId)) continue;
    if (
      page.after &&
      (s.synchronizerId < page.after.synchronizerId ||
        (s.synchronizerId === page.after.synchronizerId && participantId <= page.after.participantId))
    )
      continue;
    const entry = vettingEntry(s, stored, participantId);
    const packages = entry.packages.filter(matchesPackage);
    if (packages.length) entries.push({ ...entry, packages });
  }
  return { entries: entries.slice(0, page.size), more: entries.length > page.size };
}

/** A vetting state with the names and versions of the packages stored here ('' otherwise), sorted as listed. */
export function vettingEntry(
  state: VettingState,
  stored: ReadonlyMap<string, PackageInfo>,
  participantId: string,
): VettedPackagesEntry {
  return {
    synchronizerId: state.synchronizerId,
    participantId,
    serial: state.serial,
    packages: state.packages
      .map((p) => ({
        ...p,
        packageName: stored.get(p.packageId)?.name ?? '',
        packageVersion: stored.get(p.packageId)?.version ?? '',
      }))
      .sort(compareListed),
  };
}

/** By name and version where known (unknown last), the package id last. */
export function compareListed(a: ListedVettedPackage, b: ListedVettedPackage): number {
  if (a.packageName !== b.packageName) {
    if (a.packageName === '') return 1;
    if (b.packageName === '') return -1;
    return a.packageName < b.packageName ? -1 : 1;
  }
  if (a.packageVersion !== '' && b.packageVersion !== '' && a.packageVersion !== b.packageVersion)
    return comparePackageVersions(a.packageVersion, b.packageVersion);
  return a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0;
}
