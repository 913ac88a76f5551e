import { packageIdProblem } from '@ledgerline/canton';
import { invalidArgument } from '../errors';
import type { PackageInfo } from './events';
import { jsonApiPackageSelectionFailed } from './package-errors';

/**
 * A submission's `packageIdSelectionPreference`: package ids that pin the package a `#package-name` reference of the
 * commands resolves to. Checked twice, as the reference checks it: by the JSON layer when a command names a template by
 * `#name` (`community/ledger/ledger-json-api/.../json/v2/TranscodePackageIdResolver.scala`:
 * JSON_API_PACKAGE_SELECTION_FAILED), then by the commands' validation in every case
 * (`community/ledger/ledger-api-core/.../validation/ValidateUpgradingPackageResolutions.scala`: INVALID_ARGUMENT). The
 * pinned ids restrict the candidates of their package name (the package filter of
 * `.../apiserver/execution/TapsCommandExecutionFactory.scala`): the preferred package of that name is the highest vetted
 * one among them.
 */

/** Why `s` is not a Daml-LF package id, in the words of Canton's `Ref.PackageId.fromString` (IdString.scala). */
function lfPackageIdProblem(s: string): string | null {
  if (s.length === 0) return 'Daml-LF Package ID is empty';
  if (s.length > 64) return 'Daml-LF Package ID is too long (max: 64)';
  return packageIdProblem(s);
}

/** The JSON layer's reading: the pinned package ids per package name (every id must be stored here). */
export function pinnedPackagesByName(
  preference: readonly string[],
  stored: readonly PackageInfo[],
): Map<string, Set<string>> {
  const byId = new Map(stored.map((p) => [p.packageId, p]));
  const pinned = new Map<string, Set<string>>();
  for (const id of new Set(preference)) {
    const problem = lfPackageIdProblem(id);
    if (problem !== null) throw invalidArgument(`packageIdSelectionPreferences: ${problem}`);
    const p = byId.get(id);
    if (!p) throw jsonApiPackageSelectionFailed(`Package-id ${id} not known`);
    pinned.set(p.name, (pinned.get(p.name) ?? new Set()).add(id));
  }
  return pinned;
}

/** The commands' validation: every id well-formed and stored, at most one per package name. */
export function validatePackageIdSelectionPreference(
  preference: readonly string[],
  stored: readonly PackageInfo[],
): void {
  for (const id of preference) {
    const problem = lfPackageIdProblem(id);
    if (problem !== null)
      throw invalidArgument(
        `package_id_selection_preference parsing failed with \`${problem}\`. The package_id_selection_preference field must contain non-empty and valid package ids`,
      );
  }
  const byId = new Map(stored.map((p) => [p.packageId, p]));
  const chosen = new Map<string, string>();
  for (const id of preference) {
    const p = byId.get(id);
    if (!p) throw invalidArgument(`user-specified pkg id (${id}) could not be found`);
    const existing = chosen.get(p.name);
    if (existing !== undefined)
      throw invalidArgument(`duplicate preference for package-name ${p.name}: ${existing} vs ${id}`);
    chosen.set(p.name, id);
  }
}
