import { LedgerError } from '../errors';
import { templateIdOf, type TemplateRef } from '../transaction-builder/template-id';
import type { DirectoryTemplate, TemplateDirectory } from '../transaction-builder/template-directory';
import type { TransactionCommand } from '../transaction-builder/commands';
import type { PackageInfo, VettingState } from './events';
import { packageNamesNotFound, packageSelectionFailed, templatesOrInterfacesNotFound } from './package-errors';
import { pinnedPackagesByName } from './package-preference';
import { preferredOf } from './preferred-packages';
import { vettedAt } from './vetting';

/**
 * Template resolution with the package store: `#name` denotes the preferred package of that name (the highest version
 * vetted now, on the command's synchronizer, else on any; among the ids `packageIdSelectionPreference` pins for that name,
 * if it pins any — see package-preference.ts), a package id denotes its stored package, whose name the events carry.
 * A name the store knows always resolves to one of its packages or is refused (JSON_API_PACKAGE_SELECTION_FAILED, as
 * Canton's TranscodePackageIdResolver refuses it). References to packages that are not stored fall back to the generic
 * model's directory; in strict mode they are refused as the reference's JSON layer refuses them (PACKAGE_NAMES_NOT_FOUND
 * from PackagePreferenceBackend for a name, TEMPLATES_OR_INTERFACES_NOT_FOUND from SchemaProcessors for an id).
 * Strict mode also refuses a template or interface its package does not define: the names of a package's modules,
 * templates and interfaces are read from the archive (their headers only; no definition is decoded).
 */

/** What template resolution reads of the package store (implemented with SQL in the store). */
export interface PackageDirectory {
  /** The stored packages with these ids or these names. */
  packagesFor(ids: readonly string[], names: readonly string[]): Promise<PackageInfo[]>;
  /** This participant's vetting on each of these synchronizers. */
  vetting(synchronizerIds: readonly string[]): Promise<VettingState[]>;
}

export interface PackageTemplateOptions {
  /** Refuse references to packages that are not stored (or, for `#name`, not vetted). */
  strict: boolean;
  /** The command's synchronizer ('' = any connected one). */
  synchronizerId: string;
  connectedSynchronizers: readonly string[];
  nowMicros: bigint;
  /** The submission's `packageIdSelectionPreference` (package ids). */
  preference?: readonly string[];
}

/** Loads what the commands' template references need and returns the directory that resolves them. */
export async function packageTemplateDirectory(
  base: TemplateDirectory,
  store: PackageDirectory,
  refs: readonly TemplateRef[],
  opts: PackageTemplateOptions,
): Promise<TemplateDirectory> {
  const names = [...new Set(refs.filter((r) => r.packageRef.startsWith('#')).map((r) => r.packageRef.slice(1)))];
  const ids = [...new Set(refs.filter((r) => !r.packageRef.startsWith('#')).map((r) => r.packageRef))];
  if (names.length === 0 && ids.length === 0) return base;
  // The preference matters (and is checked here) only where a command names a package by name.
  const preference = names.length ? [...new Set(opts.preference ?? [])] : [];
  const syncs = opts.synchronizerId !== '' ? [opts.synchronizerId] : opts.connectedSynchronizers;
  const [stored, states] = await Promise.all([
    store.packagesFor([...ids, ...preference], names),
    names.length ? store.vetting(syncs) : Promise.resolve([]),
  ]);
  const byId = new Map(stored.map((p) => [p.packageId, p]));
  const vetted = new Set(
    states.flatMap((s) => s.packages.filter((p) => vettedAt(p, opts.nowMicros)).map((p) => p.packageId)),
  );
  // Failures are raised when a command's template is resolved, after the JSON layer's earlier checks (actAs, synchronizer).
  let pinned: Map<string, Set<string>> | LedgerError;
  try {
    pinned = pinnedPackagesByName(preference, stored);
  } catch (e) {
    if (!(e instanceof LedgerError)) throw e;
    pinned = e;
  }
  const preferredFor = (n: string): PackageInfo | null => {
    if (pinned instanceof LedgerError) throw pinned;
    const ofName = stored.filter((p) => p.name === n);
    if (ofName.length === 0) {
      if (opts.strict) throw packageNamesNotFound([n]);
      return null;
    }
    const pins = pinned.get(n);
    const chosen = preferredOf(ofName.filter((p) => vetted.has(p.packageId) && (!pins || pins.has(p.packageId))));
    if (chosen === null) throw packageSelectionFailed(n, syncs, pins);
    return chosen;
  };

  const known = (ref: TemplateRef, written: string): PackageInfo | null => {
    const p = ref.packageRef.startsWith('#')
      ? preferredFor(ref.packageRef.slice(1))
      : (byId.get(ref.packageRef) ?? null);
    if (opts.strict) {
      if (p === null) throw templatesOrInterfacesNotFound(written);
      // Where the archive's template and interface names were read, the template (or interface) must be one of them.
      if (p.templates && !p.templates.includes(`${ref.moduleName}:${ref.entityName}`))
        throw templatesOrInterfacesNotFound(written);
    }
    return p;
  };

  return {
    resolve(written, ref): DirectoryTemplate {
      const fallback = base.resolve(written, ref);
      const p = known(ref, written);
      if (p === null) return fallback;
      const t = { packageId: p.packageId, packageName: p.name, moduleName: ref.moduleName, entityName: ref.entityName };
      // The catalog's entry for the template as written, else for its resolved package-id form.
      const entry = fallback.entry ?? base.resolve(templateIdOf(t), { ...ref, packageRef: p.packageId }).entry;
      return { ...t, entry, stored: true };
    },
    names(ref, contract) {
      known(ref, `${ref.packageRef}:${ref.moduleName}:${ref.entityName}`);
      return base.names(ref, contract);
    },
  };
}

/** The template references of commands. */
export const templateRefsOf = (commands: readonly TransactionCommand[]): TemplateRef[] =>
  commands.map((c) => c.template);
