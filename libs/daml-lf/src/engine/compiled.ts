/** The engine's compiled templates and choices, and the small helpers the engine and a submission share. */
import type { DefTemplate, TemplateChoice, Type, TypeConId } from '../language/ast';
import { qualifiedNameToString } from '../language/ast';
import type { Code } from '../interpreter/code';
import { internal } from '../interpreter/errors';
import type { Interpreter } from '../interpreter';
import type { CompiledPackages } from '../interpreter/packages';
import { listToArray, type SValue } from '../interpreter/values';
import type { Decoded } from '../values/errors';
import type { CommandArgument } from './types';

export const tid = (id: TypeConId) => qualifiedNameToString(id);
export const con = (id: TypeConId): Type => ({ tag: 'con', tycon: id, args: [] });
export const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort();
export const interp = (m: string) => `Interpretation error: Error: ${m}`;
export const identifier = (id: TypeConId) => ({ packageId: id.packageId, moduleName: id.module, entityName: id.name });

export interface ChoiceCode {
  readonly def: TemplateChoice;
  readonly controllers: Code;
  readonly observers?: Code;
  /** Explicit choice authorizers (LF 2.dev); without them the body has the signatories' and controllers' authority. */
  readonly authorizers?: Code;
  readonly update: Code;
}

/** A template's compiled pieces: `this` is the only free variable of precond/signatories/observers. */
export interface TemplateCode {
  readonly id: TypeConId;
  readonly def: DefTemplate;
  readonly packageName: string;
  readonly precond: Code;
  readonly signatories: Code;
  readonly observers: Code;
  readonly choices: Map<string, ChoiceCode>;
}

/** What a submission needs of the engine: its packages, interpreter and compiled templates/interfaces. */
export interface EngineHost {
  readonly packages: CompiledPackages;
  readonly interpreter: Interpreter;
  templateCode(id: TypeConId): TemplateCode;
  interfaceCode(id: TypeConId): { readonly choices: Map<string, ChoiceCode> };
  typeArgument(type: Type, a: CommandArgument, nullIsUnit?: boolean): Decoded<SValue>;
}

export function partiesOf(v: SValue): string[] {
  if (v.t !== 'list') throw internal(`expected a list of parties, got ${v.t}`);
  return listToArray(v.v).map((p) => {
    if (p.t !== 'party') throw internal(`expected a party, got ${p.t}`);
    return p.v;
  });
}
