/**
 * The optional template catalog (a JSON file, LEDGER_TEMPLATE_CATALOG): per template id, which argument fields hold the
 * signatories and which the observers, overriding the generic rule (signatories = actAs, observers = the other parties in
 * the arguments) where it has an entry.
 *
 *   { "templates": { "#memo-pkg:Main:Memo": { "signatories": ["owner"], "observers": ["readers"] },
 *                    "<package id>:Main:Iou": { "signatories": ["issuer"], "packageName": "iou" } } }
 *
 * A field is a top-level argument label or a dotted path into nested records (`terms.payer`); it may hold a party, a list
 * of parties, or null. Entries are looked up by the template id as written in the command, then in its
 * `<package id>:<Module>:<Entity>` form. `packageName` (package-id entries only) names the package of that id.
 *
 * `interfaces` declares the interfaces the template implements, each with its view as a mapping from the create
 * arguments (see updates/interface-views.ts): interface filters then match the template and render the view.
 */
export interface TemplateCatalogEntry {
  signatories?: string[];
  observers?: string[];
  packageName?: string;
  interfaces?: Record<string, { view: ViewMapping }>;
}

/**
 * An interface view as a mapping from the create arguments: a string is a field path into them (its value, or null when
 * absent), `{"$literal": v}` is `v` itself, another object is a record of mappings, and null, numbers and booleans
 * stand for themselves.
 */
export type ViewMapping = string | number | boolean | null | { $literal: unknown } | { [field: string]: ViewMapping };

export interface TemplateCatalog {
  templates: Record<string, TemplateCatalogEntry>;
}

export const EMPTY_TEMPLATE_CATALOG: TemplateCatalog = { templates: {} };

const FIELD_PATH = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/** Validates a parsed catalog file; returns the problems found (empty when it is fine). */
export function templateCatalogProblems(json: unknown): string[] {
  const problems: string[] = [];
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return ['the catalog must be a JSON object {"templates": {…}}'];
  const templates = (json as { templates?: unknown }).templates;
  if (templates === null || typeof templates !== 'object' || Array.isArray(templates))
    return ['"templates" must be an object keyed by template id'];
  for (const [id, entry] of Object.entries(templates as Record<string, unknown>)) {
    if (id.split(':').length !== 3) problems.push(`template id "${id}" is not <package>:<Module>:<Entity>`);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push(`entry "${id}" must be an object`);
      continue;
    }
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e))
      if (!['signatories', 'observers', 'packageName', 'interfaces'].includes(key))
        problems.push(`entry "${id}": unknown key "${key}"`);
    if (e.interfaces !== undefined) problems.push(...interfaceProblems(id, e.interfaces));
    for (const key of ['signatories', 'observers']) {
      const v = e[key];
      if (v === undefined) continue;
      if (!Array.isArray(v) || v.some((f) => typeof f !== 'string' || !FIELD_PATH.test(f)))
        problems.push(`entry "${id}": "${key}" must be a list of field names (dotted paths allowed)`);
    }
    if (e.packageName !== undefined && typeof e.packageName !== 'string')
      problems.push(`entry "${id}": "packageName" must be a string`);
  }
  return problems;
}

/** The entry for a command's template id (as written, else in package-id form). */
export function catalogEntry(
  catalog: TemplateCatalog,
  written: string,
  resolved: string,
): TemplateCatalogEntry | undefined {
  return catalog.templates[written] ?? catalog.templates[resolved];
}

/** The JSON values at a dotted field path of an arguments object (flattening lists of parties; null = none). */
export function valuesAtPath(args: unknown, path: string): unknown[] {
  let cur: unknown = args;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return [];
    cur = (cur as Record<string, unknown>)[seg];
  }
  if (cur === undefined || cur === null) return [];
  return Array.isArray(cur) ? cur.filter((x) => x !== null) : [cur];
}

function interfaceProblems(id: string, interfaces: unknown): string[] {
  if (interfaces === null || typeof interfaces !== 'object' || Array.isArray(interfaces))
    return [`entry "${id}": "interfaces" must be an object keyed by interface id`];
  const problems: string[] = [];
  for (const [iface, decl] of Object.entries(interfaces as Record<string, unknown>)) {
    if (iface.split(':').length !== 3)
      problems.push(`entry "${id}": interface id "${iface}" is not <package>:<Module>:<Entity>`);
    const view = (decl as { view?: unknown } | null)?.view;
    if (
      decl === null ||
      typeof decl !== 'object' ||
      Array.isArray(decl) ||
      Object.keys(decl).some((k) => k !== 'view') ||
      !mappingOk(view)
    ) {
      problems.push(
        `entry "${id}": interface "${iface}" must be {"view": <mapping>} (field paths, {"$literal": …}, records of mappings)`,
      );
    }
  }
  return problems;
}

function mappingOk(m: unknown): boolean {
  if (m === null || typeof m === 'number' || typeof m === 'boolean') return true;
  if (typeof m === 'string') return FIELD_PATH.test(m);
  if (typeof m !== 'object' || Array.isArray(m)) return false;
  if ('$literal' in m) return Object.keys(m).length === 1;
  return Object.values(m).every(mappingOk);
}
