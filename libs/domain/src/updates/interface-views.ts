import { packageIdForName } from '../transaction-builder/template-id';
import type { TemplateCatalog, ViewMapping } from '../transaction-builder/template-catalog';

/**
 * Interface views without a Daml engine: the template catalog declares which interfaces a template implements and each
 * view as a mapping from the create arguments. Interface filters on every read path match those templates (and only
 * those: a template the catalog does not declare matches no interface filter) and render their `interfaceViews`.
 */

export interface InterfaceImplementation {
  /** `package-name:Module:Entity`, the key interface filters are matched by. */
  interfaceKey: string;
  /** `<package id>:Module:Entity`, as a rendered view names the interface. */
  interfaceId: string;
  view: ViewMapping;
}

/** Which interfaces a template (by its `package-name:Module:Entity` key) implements. */
export type InterfaceDirectory = ReadonlyMap<string, readonly InterfaceImplementation[]>;

const NONE: InterfaceDirectory = new Map();
let directory: InterfaceDirectory = NONE;

/** The directory every read path uses (set once at start-up from the catalog; the rendering worker sets its own copy). */
export function useInterfaceCatalog(catalog: TemplateCatalog | null | undefined): void {
  directory = catalog ? interfaceDirectoryOf(catalog) : NONE;
}

export const implementationsOf = (templateKey: string): readonly InterfaceImplementation[] => directory.get(templateKey) ?? [];

/** `#name:M:E` → (name:M:E, <id of name>:M:E); `<package id>:M:E` → (<packageName ?? id>:M:E, id:M:E). */
function keys(id: string, packageName?: string): { key: string; packageId: string; rest: string } {
  const [pkg, mod, entity] = id.split(':');
  const rest = `${mod}:${entity}`;
  if (pkg.startsWith('#')) return { key: `${pkg.slice(1)}:${rest}`, packageId: packageIdForName(pkg.slice(1)), rest };
  return { key: `${packageName ?? pkg}:${rest}`, packageId: pkg, rest };
}

export function interfaceDirectoryOf(catalog: TemplateCatalog): InterfaceDirectory {
  const out = new Map<string, InterfaceImplementation[]>();
  for (const [templateId, entry] of Object.entries(catalog.templates)) {
    if (!entry.interfaces) continue;
    const t = keys(templateId, entry.packageName);
    const list = out.get(t.key) ?? [];
    for (const [ifaceId, decl] of Object.entries(entry.interfaces)) {
      const i = keys(ifaceId);
      list.push({ interfaceKey: i.key, interfaceId: `${i.packageId}:${i.rest}`, view: decl.view });
    }
    out.set(t.key, list);
  }
  return out;
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

/** The rendered JsInterfaceView of a contract for one implementation. */
export function renderInterfaceView(impl: InterfaceImplementation, args: unknown, templateId: string) {
  return {
    interfaceId: impl.interfaceId,
    viewStatus: { code: 0, message: '', details: [] },
    viewValue: computeView(impl.view, args),
    implementationPackageId: templateId.split(':')[0],
  };
}
