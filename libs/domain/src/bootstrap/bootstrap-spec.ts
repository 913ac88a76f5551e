import { createHash } from 'node:crypto';
import type { Right } from '../auth/rights';

/**
 * The declarative bootstrap file (LEDGER_BOOTSTRAP_FILE, `ledgerctl bootstrap`): parties, users and their rights, DARs and
 * contracts that a ledger starts with. Checked here (pure: one problem per defect, with where it is); applied by the
 * server, idempotently.
 *
 * Party references (a user's primaryParty and rights, a contract's actAs/readAs) are either the hint of a party the
 * file declares or a full party id (`name::fingerprint`). In contract arguments, the string `${hint}` stands for that
 * declared party's id.
 */
export interface BootstrapSpec {
  parties: string[];
  users: BootstrapUser[];
  /** DAR paths as written (relative to the file's folder unless absolute). */
  dars: string[];
  contracts: BootstrapContract[];
}

export interface BootstrapUser {
  id: string;
  primaryParty: string;
  rights: BootstrapRight[];
}

export type BootstrapRight = { kind: Right['kind']; party?: string };

export interface BootstrapContract {
  /** Identifies the entry across applications: a contract is created once per key. */
  key: string;
  templateId: string;
  actAs: string[];
  readAs: string[];
  arguments: Record<string, unknown>;
}

const PARTY_RIGHTS: Record<string, Right['kind']> = {
  actAs: 'CanActAs',
  readAs: 'CanReadAs',
  executeAs: 'CanExecuteAs',
};
const PLAIN_RIGHTS: Record<string, Right['kind']> = {
  participantAdmin: 'ParticipantAdmin',
  identityProviderAdmin: 'IdentityProviderAdmin',
  readAsAnyParty: 'CanReadAsAnyParty',
  executeAsAnyParty: 'CanExecuteAsAnyParty',
  actAsAnyParty: 'CanActAsAnyParty',
};
const HINT = /^[a-zA-Z0-9_-]{1,185}$/;
const USER_ID = /^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/;
const TEMPLATE_ID = /^#?[^:\s]+:[^:\s]+:[^:\s]+$/;
const PLACEHOLDER = /^\$\{([^}]*)\}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** Checks a parsed bootstrap file: the spec, or one problem per defect (`where: what`). */
export function checkBootstrapSpec(json: unknown): { spec: BootstrapSpec; problems: string[] } {
  const problems: string[] = [];
  const spec: BootstrapSpec = { parties: [], users: [], dars: [], contracts: [] };
  if (json === null || json === undefined) return { spec, problems };
  if (!isObject(json))
    return { spec, problems: ['the file must be a mapping with parties, users, dars and/or contracts'] };
  for (const k of Object.keys(json))
    if (!['parties', 'users', 'dars', 'contracts'].includes(k))
      problems.push(`unknown key '${k}' (expected parties, users, dars, contracts)`);
  const list = (k: string): unknown[] => {
    const v = json[k];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      problems.push(`${k}: must be a list`);
      return [];
    }
    return v;
  };

  list('parties').forEach((p, i) => {
    const hint = isObject(p) ? p.hint : p;
    if (isObject(p))
      for (const k of Object.keys(p))
        if (k !== 'hint') problems.push(`parties[${i}]: unknown key '${k}' (expected hint)`);
    if (typeof hint !== 'string' || !HINT.test(hint))
      problems.push(`parties[${i}]: a party hint must be 1-185 letters, digits, '_' or '-' (got ${show(hint)})`);
    else if (spec.parties.includes(hint)) problems.push(`parties[${i}]: party '${hint}' is declared twice`);
    else spec.parties.push(hint);
  });
  const declared = new Set(spec.parties);
  const partyRef = (where: string, ref: unknown): string => {
    if (typeof ref !== 'string' || ref === '')
      problems.push(`${where}: a party must be a declared party hint or a full party id (got ${show(ref)})`);
    else if (!ref.includes('::') && !declared.has(ref))
      problems.push(
        `${where}: party '${ref}' is not declared in parties (declare it, or give its full id name::fingerprint)`,
      );
    else return ref;
    return '';
  };

  const userIds = new Set<string>();
  list('users').forEach((u, i) => {
    const where = `users[${i}]`;
    if (!isObject(u)) return problems.push(`${where}: must be a mapping with id, primaryParty and rights`);
    for (const k of Object.keys(u))
      if (!['id', 'primaryParty', 'rights'].includes(k))
        problems.push(`${where}: unknown key '${k}' (expected id, primaryParty, rights)`);
    if (typeof u.id !== 'string' || !USER_ID.test(u.id))
      problems.push(`${where}.id: not a valid user id (got ${show(u.id)})`);
    else if (userIds.has(u.id)) problems.push(`${where}.id: user '${u.id}' is declared twice`);
    else userIds.add(u.id);
    const primaryParty = u.primaryParty === undefined ? '' : partyRef(`${where}.primaryParty`, u.primaryParty);
    const rights: BootstrapRight[] = [];
    const raw = u.rights === undefined ? [] : u.rights;
    if (!Array.isArray(raw)) problems.push(`${where}.rights: must be a list`);
    else
      raw.forEach((r, j) => {
        const rw = `${where}.rights[${j}]`;
        if (typeof r === 'string' && PLAIN_RIGHTS[r]) rights.push({ kind: PLAIN_RIGHTS[r] });
        else if (isObject(r) && Object.keys(r).length === 1 && PARTY_RIGHTS[Object.keys(r)[0]]) {
          const [k] = Object.keys(r);
          const party = partyRef(`${rw}.${k}`, r[k]);
          if (party) rights.push({ kind: PARTY_RIGHTS[k], party });
        } else {
          problems.push(
            `${rw}: a right is one of ${Object.keys(PLAIN_RIGHTS).join(', ')}, or {actAs|readAs|executeAs: <party>} (got ${show(r)})`,
          );
        }
      });
    if (typeof u.id === 'string') spec.users.push({ id: u.id, primaryParty, rights });
  });

  list('dars').forEach((d, i) => {
    if (typeof d !== 'string' || d === '')
      problems.push(`dars[${i}]: must be the path of a .dar file (got ${show(d)})`);
    else spec.dars.push(d);
  });

  const keys = new Set<string>();
  list('contracts').forEach((c, i) => {
    const where = `contracts[${i}]`;
    if (!isObject(c)) return problems.push(`${where}: must be a mapping with templateId, actAs and arguments`);
    for (const k of Object.keys(c))
      if (!['key', 'templateId', 'actAs', 'readAs', 'arguments'].includes(k))
        problems.push(`${where}: unknown key '${k}' (expected key, templateId, actAs, readAs, arguments)`);
    if (typeof c.templateId !== 'string' || !TEMPLATE_ID.test(c.templateId))
      problems.push(
        `${where}.templateId: must be <package-id or #package-name>:<Module>:<Entity> (got ${show(c.templateId)})`,
      );
    const parties = (k: 'actAs' | 'readAs'): string[] => {
      const v = c[k] === undefined ? [] : typeof c[k] === 'string' ? [c[k]] : c[k];
      if (!Array.isArray(v)) {
        problems.push(`${where}.${k}: must be a party or a list of parties`);
        return [];
      }
      return v.map((p, j) => partyRef(`${where}.${k}[${j}]`, p));
    };
    const actAs = parties('actAs');
    const readAs = parties('readAs');
    if (c.actAs === undefined || (Array.isArray(c.actAs) && c.actAs.length === 0))
      problems.push(`${where}.actAs: at least one party must act`);
    if (!isObject(c.arguments)) problems.push(`${where}.arguments: must be a mapping (the create arguments)`);
    else checkPlaceholders(`${where}.arguments`, c.arguments, declared, problems);
    let key: string;
    if (c.key === undefined)
      key = createHash('sha256')
        .update(canonicalJson({ templateId: c.templateId, actAs: c.actAs, readAs: c.readAs, arguments: c.arguments }))
        .digest('hex');
    else if (typeof c.key !== 'string' || c.key === '' || c.key.length > 200) {
      problems.push(`${where}.key: must be a string of 1-200 characters (got ${show(c.key)})`);
      key = '';
    } else key = c.key;
    if (key && keys.has(key))
      problems.push(`${where}: another contract has the same key '${key}' (give each a distinct key)`);
    keys.add(key);
    if (typeof c.templateId === 'string' && isObject(c.arguments))
      spec.contracts.push({ key, templateId: c.templateId, actAs, readAs, arguments: c.arguments });
  });
  return { spec, problems };
}

function checkPlaceholders(where: string, v: unknown, declared: Set<string>, problems: string[]): void {
  if (typeof v === 'string') {
    const m = PLACEHOLDER.exec(v);
    if (m && !declared.has(m[1])) problems.push(`${where}: '${v}' names no declared party`);
  } else if (Array.isArray(v)) v.forEach((x, i) => checkPlaceholders(`${where}[${i}]`, x, declared, problems));
  else if (isObject(v))
    for (const [k, x] of Object.entries(v)) checkPlaceholders(`${where}.${k}`, x, declared, problems);
}

/** The id of a party reference: a declared hint is this participant's local party, anything else a full id. */
export const resolveBootstrapParty = (ref: string, namespace: string): string =>
  ref.includes('::') ? ref : `${ref}::${namespace}`;

/** The create arguments with every `${hint}` replaced by that party's id. */
export function resolveBootstrapArguments(v: unknown, namespace: string): unknown {
  if (typeof v === 'string') {
    const m = PLACEHOLDER.exec(v);
    return m ? resolveBootstrapParty(m[1], namespace) : v;
  }
  if (Array.isArray(v)) return v.map((x) => resolveBootstrapArguments(x, namespace));
  if (isObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveBootstrapArguments(x, namespace)]));
  return v;
}

/** A command id valid in Canton for a contract entry: `bootstrap-` and 32 hex digits of its key's hash. */
export const bootstrapCommandId = (key: string): string =>
  `bootstrap-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
