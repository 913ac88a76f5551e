import type { JsStatus } from '../command-completions/status';
import { OK_STATUS } from '../command-completions/status';
import type { StoredCreatedEvent } from '../ledger/updates';
import { packageIdForName } from '../transaction-builder/template-id';
import type { TemplateCatalog, ViewMapping } from '../transaction-builder/template-catalog';

/**
 * Interface filters and views (Canton's EventProjectionProperties): an interface filter selects the templates that
 * implement the interface, and a filter asking for the view renders each matched interface's view of the contract. Which
 * templates implement which interfaces, and how a view is computed, is an InterfaceDirectory's answer: the stored
 * packages' interface instances evaluated by the Daml engine (package-interfaces.ts), or the template catalog's view
 * mappings for templates of the generic model (below).
 */

/** JsInterfaceView: the view, or in `viewStatus` why it could not be computed. */
export interface JsInterfaceView {
  /** `<package id>:<Module>:<Entity>` of the interface. */
  interfaceId: string;
  viewStatus: JsStatus;
  viewValue: unknown;
  /** The package whose interface instance computed the view. */
  implementationPackageId: string;
}

/** What a view is computed from: the contract as its created event stores it. */
export type ViewedContract = Pick<
  StoredCreatedEvent,
  'contractId' | 'templateId' | 'packageName' | 'representativePackageId' | 'createArgument'
>;

/** One interface a template implements. */
export interface InterfaceImplementation {
  /** `package-name:Module:Entity` of the interface: the key interface filters are matched by. */
  readonly interfaceKey: string;
  /** `<package id>:<Module>:<Entity>`, as a rendered view and `implementedInterfaces` name the interface. */
  readonly interfaceId: string;
  /** This interface's view of a contract of the template. */
  view(c: ViewedContract): JsInterfaceView;
}

/** Which interfaces a template implements, by the template's `package-name:Module:Entity` key. */
export interface InterfaceDirectory {
  /** The template's implementations; undefined when this directory does not know the template. */
  implementationsOf(templateKey: string): readonly InterfaceImplementation[] | undefined;
}

/** No template implements an interface: interface filters match nothing. */
export const NO_INTERFACES: InterfaceDirectory = { implementationsOf: () => undefined };

/**
 * The first directory that knows a template answers for it: a template of a stored package has the interfaces its
 * package declares (maybe none), whatever the catalog says about a template of the same name.
 */
export function firstKnowing(...directories: readonly InterfaceDirectory[]): InterfaceDirectory {
  return {
    implementationsOf(templateKey) {
      for (const d of directories) {
        const found = d.implementationsOf(templateKey);
        if (found) return found;
      }
      return undefined;
    },
  };
}

/** `#name:M:E` → (name:M:E, <id of name>:M:E); `<package id>:M:E` → (<packageName ?? id>:M:E, id:M:E). */
function keys(id: string, packageName?: string): { key: string; packageId: string; rest: string } {
  const [pkg, mod, entity] = id.split(':');
  const rest = `${mod}:${entity}`;
  if (pkg.startsWith('#')) return { key: `${pkg.slice(1)}:${rest}`, packageId: packageIdForName(pkg.slice(1)), rest };
  return { key: `${packageName ?? pkg}:${rest}`, packageId: pkg, rest };
}

/**
 * The template catalog's interfaces (generic-model templates): the interfaces each entry declares, each view a mapping
 * from the create arguments. A template the catalog does not declare implements nothing.
 */
export function catalogInterfaces(catalog: TemplateCatalog | null | undefined): InterfaceDirectory {
  const byTemplate = new Map<string, InterfaceImplementation[]>();
  for (const [templateId, entry] of Object.entries(catalog?.templates ?? {})) {
    if (!entry.interfaces) continue;
    const t = keys(templateId, entry.packageName);
    const list = byTemplate.get(t.key) ?? [];
    for (const [ifaceId, decl] of Object.entries(entry.interfaces)) {
      const i = keys(ifaceId);
      const interfaceId = `${i.packageId}:${i.rest}`;
      list.push({
        interfaceKey: i.key,
        interfaceId,
        view: (c) => ({
          interfaceId,
          viewStatus: OK_STATUS,
          viewValue: computeView(decl.view, c.createArgument),
          implementationPackageId: c.templateId.split(':')[0],
        }),
      });
    }
    byTemplate.set(t.key, list);
  }
  return { implementationsOf: (templateKey) => byTemplate.get(templateKey) };
}

/** The view value of a create argument under a mapping. */
export function computeView(mapping: ViewMapping, args: unknown): unknown {
  if (mapping === null || typeof mapping === 'number' || typeof mapping === 'boolean') return mapping;
  if (typeof mapping === 'string') return fieldAt(args, mapping) ?? null;
  if ('$literal' in mapping) return (mapping as { $literal: unknown }).$literal;
  const out: Record<string, unknown> = {};
  for (const [k, m] of Object.entries(mapping)) out[k] = computeView(m as ViewMapping, args);
  return out;
}

function fieldAt(args: unknown, path: string): unknown {
  let cur = args;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}
