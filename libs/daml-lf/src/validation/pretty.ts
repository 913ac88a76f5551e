/** Kinds and types rendered as Canton renders them in its messages (`Ast.scala` `Kind.prettyKind`, `Type.prettyType`). */
import type { Kind, Type } from '../language/ast';

export function prettyKind(k: Kind, needParens = false): string {
  if (k.tag === 'star') return '*';
  if (k.tag === 'nat') return 'nat';
  const [param, ...rest] = k.params;
  const result: Kind = rest.length ? { tag: 'arrow', params: rest, result: k.result } : k.result;
  const s = `${prettyKind(param, true)}->${prettyKind(result, false)}`;
  return needParens ? `(${s})` : s;
}

const BUILTIN_NAMES: Record<string, string> = {
  UNIT: 'Unit',
  BOOL: 'Bool',
  INT64: 'Int64',
  DATE: 'Date',
  TIMESTAMP: 'Timestamp',
  NUMERIC: 'Numeric',
  PARTY: 'Party',
  TEXT: 'Text',
  CONTRACT_ID: 'ContractId',
  OPTIONAL: 'Optional',
  LIST: 'List',
  GENMAP: 'GenMap',
  ANY: 'Any',
  ANY_EXCEPTION: 'AnyException',
  TYPE_REP: 'TypeRep',
  ARROW: '(->)',
  UPDATE: 'Update',
  FAILURE_CATEGORY: 'FailureCategory',
  TEXTMAP: 'TextMap',
  BIGNUMERIC: 'BigNumeric',
  ROUNDING_MODE: 'RoundingMode',
};

const APP = 2;
const FUN = 1;
const FORALL = 0;

const parens = (need: boolean, s: string) => (need ? `(${s})` : s);

function headAndArgs(t: Type): { head: Type; args: Type[] } {
  const args: Type[] = [];
  let cur = t;
  for (;;) {
    if (cur.tag === 'tapp') {
      args.unshift(cur.rhs);
      cur = cur.lhs;
    } else if (
      (cur.tag === 'var' || cur.tag === 'con' || cur.tag === 'syn' || cur.tag === 'builtin') &&
      cur.args.length
    ) {
      args.unshift(...cur.args);
      cur = { ...cur, args: [] } as Type;
    } else return { head: cur, args };
  }
}

function render(t: Type, prec: number): string {
  const { head, args } = headAndArgs(t);
  if (head.tag === 'syn')
    return parens(
      prec > APP,
      `${head.tysyn.module}:${head.tysyn.name} ${args.map((a) => render(a, APP + 1)).join(' ')}`,
    );
  if (head.tag === 'builtin' && head.builtin === 'ARROW' && args.length === 2)
    return parens(prec > FUN, `${render(args[0], FUN + 1)} → ${render(args[1], FUN)}`);
  if (args.length) {
    const fun = render({ ...head } as Type, APP);
    const all = [fun];
    // Left-nested applications render as `f a b`.
    for (let i = 0; i < args.length; i++) {
      if (head.tag === 'builtin' && head.builtin === 'ARROW' && i === 1) break;
      all.push(render(args[i], APP + 1));
    }
    return parens(prec > APP, all.join(' '));
  }
  switch (head.tag) {
    case 'var':
      return head.name;
    case 'nat':
      return String(head.value);
    case 'con':
      return `${head.tycon.module}:${head.tycon.name}`;
    case 'builtin':
      return BUILTIN_NAMES[head.builtin] ?? head.builtin;
    case 'forall':
      return parens(prec > FORALL, `∀${head.vars.map((v) => v.name).join(' ')}. ${render(head.body, FORALL)}`);
    case 'struct':
      return `(${head.fields.map((f) => `${f.field}: ${render(f.type, FORALL)}`).join(', ')})`;
    default:
      return '?';
  }
}

export const prettyType = (t: Type): string => render(t, FORALL);
