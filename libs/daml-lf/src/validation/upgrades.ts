/**
 * Smart contract upgrade checks between two versions of a package (Canton's `TypecheckUpgrades`, `Upgrading.scala`):
 * modules, templates, choices and interface instances kept; choice results and keys of the same type; serializable data
 * types keeping their origin, parameters and variety; records only growing by trailing `Optional` fields, variants and
 * enums only by trailing constructors. Types compare up to the package ids of upgraded packages (same name, a version
 * no lower). Pure; the first failure's message is Canton's.
 */
import { comparePackageVersions } from '@ledgerline/canton';
import type { DataCons, DefDataType, Kind, Module, Package, PackageId, Type, TypeConId } from '../language/ast';

/** Canton's utility packages: packages that define no serializable type (no template either) are not upgrade-checked. */
export function isUtilityPackage(pkg: Package): boolean {
  for (const m of pkg.modules.values()) {
    if (m.templates.size || m.interfaces.size) return false;
    for (const dt of m.dataTypes.values()) if (dt.serializable) return false;
  }
  return true;
}

/** Whether a package takes part in upgrade checks (`PackageSignature.supportsUpgrades`). */
export function supportsUpgrades(pkg: Package): boolean {
  return pkg.metadata.name !== 'daml-prim' && pkg.metadata.name !== 'daml-stdlib' && !isUtilityPackage(pkg);
}

class UpgradeFailure extends Error {}
const fail = (message: string): never => {
  throw new UpgradeFailure(message);
};

function spine(t: Type): { head: Type; args: Type[] } {
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

const MINOR_ORDER = ['1', '2', '3', 'dev'];

type Env = ReadonlyMap<string, number>;

const kindKey = (k: Kind): string =>
  k.tag === 'arrow' ? `(${k.params.map(kindKey).join('->')}->${kindKey(k.result)})` : k.tag;

/** Where a serializable data type comes from (`UpgradedRecordOrigin`), rendered as Canton renders it. */
function originOf(mod: Module, name: string): { text: string; key: string; variantConstructor: boolean } {
  if (mod.templates.has(name)) return { text: `template ${name}`, key: `template ${name}`, variantConstructor: false };
  for (const [tplName, tpl] of mod.templates) {
    const prefix = tplName.split('.').slice(0, -1);
    for (const choice of tpl.choices.keys())
      if ([...prefix, choice].join('.') === name) {
        const text = `input type of choice ${choice} on template ${tplName}`;
        return { text, key: text, variantConstructor: false };
      }
  }
  for (const [dtName, dt] of mod.dataTypes) {
    if (dt.cons.tag !== 'variant') continue;
    for (const c of dt.cons.constructors) {
      const { head } = spine(c.type);
      if (head.tag !== 'con' || `${dtName}.${c.field}` !== name) continue;
      return {
        text: `variant constructor ${head.tycon.name} from variant ${dtName}`,
        key: `variant ${head.tycon.module}:${head.tycon.name} from ${dtName}`,
        variantConstructor: true,
      };
    }
  }
  return { text: `data type ${name}`, key: `data type ${name}`, variantConstructor: false };
}

class Checker {
  constructor(private readonly lookup: (id: PackageId) => Package | undefined) {}

  private sameIdentifier(past: TypeConId, present: TypeConId): boolean {
    if (past.module !== present.module || past.name !== present.name) return false;
    const a = this.lookup(past.packageId);
    const b = this.lookup(present.packageId);
    if (!a && !b) return past.packageId === present.packageId;
    if (!a || !b) return false;
    return a.metadata.name === b.metadata.name && comparePackageVersions(a.metadata.version, b.metadata.version) <= 0;
  }

  sameType(past: Type, pastEnv: Env, present: Type, presentEnv: Env): boolean {
    const a = spine(past);
    const b = spine(present);
    if (a.args.length !== b.args.length) return false;
    const h1 = a.head;
    const h2 = b.head;
    let heads: boolean;
    if (h1.tag === 'var' && h2.tag === 'var')
      heads = pastEnv.get(h1.name) !== undefined && pastEnv.get(h1.name) === presentEnv.get(h2.name);
    else if (h1.tag === 'nat' && h2.tag === 'nat') heads = h1.value === h2.value;
    else if (h1.tag === 'con' && h2.tag === 'con') heads = this.sameIdentifier(h1.tycon, h2.tycon);
    else if (h1.tag === 'builtin' && h2.tag === 'builtin') heads = h1.builtin === h2.builtin;
    else heads = false;
    return heads && a.args.every((t, i) => this.sameType(t, pastEnv, b.args[i], presentEnv));
  }

  check(past: Package, present: Package): void {
    if (MINOR_ORDER.indexOf(past.languageVersion.minor) > MINOR_ORDER.indexOf(present.languageVersion.minor))
      fail(
        `The upgraded package uses an older LF version (2.${present.languageVersion.minor} < 2.${past.languageVersion.minor})`,
      );
    for (const name of past.modules.keys())
      if (!present.modules.has(name))
        fail(`Module ${name} appears in package that is being upgraded, but does not appear in the upgrading package.`);
    for (const [name, mod] of past.modules) this.checkModule(mod, present.modules.get(name)!);
  }

  private checkModule(past: Module, present: Module): void {
    const empty: Env = new Map();
    for (const [name, tpl] of past.templates) {
      const now = present.templates.get(name);
      if (!now)
        return fail(
          `Template ${name} appears in package that is being upgraded, but does not appear in the upgrading package.`,
        );
      for (const [choiceName, choice] of tpl.choices) {
        const c = now.choices.get(choiceName);
        if (!c)
          return fail(
            `Choice ${choiceName} appears in package that is being upgraded, but does not appear in the upgrading package.`,
          );
        if (!this.sameType(choice.returnType, empty, c.returnType, empty))
          fail(`The upgraded choice ${choiceName} cannot change its return type.`);
      }
      if (tpl.key && now.key && !this.sameType(tpl.key.type, empty, now.key.type, empty))
        fail(`The upgraded template ${name} cannot change its key type.`);
      if (tpl.key && !now.key) fail(`The upgraded template ${name} cannot remove its key.`);
      if (!tpl.key && now.key) fail(`The upgraded template ${name} cannot add a key.`);
    }
    for (const [tplName, tpl] of past.templates) {
      const now = present.templates.get(tplName)!;
      for (const [ifaceId] of tpl.implements)
        if (!now.implements.has(ifaceId))
          fail(
            `Implementation of interface ${ifaceId} by template ${tplName} appears in package that is being upgraded, but does not appear in this package.`,
          );
    }
    const unowned = (m: Module, name: string) => !m.interfaces.has(name) && !m.exceptions.has(name);
    for (const [name, dt] of past.dataTypes) {
      if (!unowned(past, name)) continue;
      const now = present.dataTypes.get(name);
      if (!now || !unowned(present, name)) {
        if (dt.serializable)
          fail(
            `Data type ${name} appears in package that is being upgraded, but does not appear in the upgrading package.`,
          );
        continue;
      }
      this.checkDataType(name, dt, now, past, present);
    }
  }

  private checkDataType(name: string, past: DefDataType, present: DefDataType, pastMod: Module, presentMod: Module) {
    const pastOrigin = originOf(pastMod, name);
    const origin = originOf(presentMod, name);
    if (past.serializable && !present.serializable)
      fail(
        `The upgraded ${origin.text} was serializable and is now unserializable. Datatypes cannot change their serializability via upgrades.`,
      );
    if (!past.serializable || !present.serializable) return;
    if (pastOrigin.key !== origin.key)
      fail(`The record ${name} has changed origin from ${pastOrigin.text} to ${origin.text}`);
    if (past.params.length !== present.params.length)
      fail(`The upgraded ${origin.text} has changed the number of type variables it has.`);
    if (past.params.some((p, i) => kindKey(p.kind) !== kindKey(present.params[i].kind)))
      fail(`The upgraded ${origin.text} has changed the kind of one of its type variables.`);
    const envOf = (dt: DefDataType): Env => new Map(dt.params.map((p, i) => [p.name, i]));
    const pe = envOf(past);
    const ne = envOf(present);
    const a: DataCons = past.cons;
    const b: DataCons = present.cons;
    if (a.tag === 'record' && b.tag === 'record') {
      const now = new Map(b.fields.map((f) => [f.field, f.type]));
      const before = new Set(a.fields.map((f) => f.field));
      if (a.fields.some((f) => !now.has(f.field)))
        fail(`The upgraded ${origin.text} is missing some of its original fields.`);
      if (a.fields.some((f) => !this.sameType(f.type, pe, now.get(f.field)!, ne)))
        fail(`The upgraded ${origin.text} has changed the types of some of its original fields.`);
      const optional = (t: Type) => {
        const { head, args } = spine(t);
        return head.tag === 'builtin' && head.builtin === 'OPTIONAL' && args.length === 1;
      };
      if (b.fields.some((f) => !before.has(f.field) && !optional(f.type)))
        fail(
          origin.variantConstructor
            ? `The upgraded ${origin.text} has added a field.`
            : `The upgraded ${origin.text} has added new fields, but those fields are not Optional.`,
        );
      if (a.fields.some((f, i) => i < b.fields.length && b.fields[i].field !== f.field))
        fail(
          `The upgraded ${origin.text} has changed the order of its fields - any new fields must be added at the end of the record.`,
        );
    } else if (a.tag === 'variant' && b.tag === 'variant') {
      const now = new Map(b.constructors.map((c) => [c.field, c.type]));
      if (a.constructors.some((c) => !now.has(c.field)))
        fail(`The upgraded ${origin.text} has removed an existing variant.`);
      if (a.constructors.some((c) => !this.sameType(c.type, pe, now.get(c.field)!, ne)))
        fail(`The upgraded ${origin.text} has changed the type of a variant.`);
      if (a.constructors.some((c, i) => i < b.constructors.length && b.constructors[i].field !== c.field))
        fail(
          `The upgraded ${origin.text} has changed the order of its variants - any new variant must be added at the end of the variant.`,
        );
    } else if (a.tag === 'enum' && b.tag === 'enum') {
      if (a.constructors.some((c) => !b.constructors.includes(c)))
        fail(`The upgraded ${origin.text} has removed an existing variant.`);
      if (a.constructors.some((c, i) => i < b.constructors.length && b.constructors[i] !== c))
        fail(
          `The upgraded ${origin.text} has changed the order of its variants - any new variant must be added at the end of the enum.`,
        );
    } else if (!(a.tag === 'interface' && b.tag === 'interface'))
      fail(
        `The upgraded data type ${name} has changed from a ${a.tag} to a ${b.tag}. Datatypes cannot change variety via upgrades.`,
      );
  }
}

/**
 * Why `present` is not a valid upgrade of `past` (Canton's `UpgradeError` message), or null when it is. `lookup`
 * resolves the packages their types refer to (both packages included).
 */
export function upgradeError(
  past: Package,
  present: Package,
  lookup: (id: PackageId) => Package | undefined,
): string | null {
  const all = (id: PackageId) => (id === past.id ? past : id === present.id ? present : lookup(id));
  try {
    new Checker(all).check(past, present);
    return null;
  } catch (e) {
    if (e instanceof UpgradeFailure) return e.message;
    throw e;
  }
}
