import { describe, expect, it } from 'vitest';
import { decodeArchive, PackageValidationError, validatePackages, type Package } from '@ledgerline/daml-lf';
import { encodeArchive, parsePackage } from '@ledgerline/daml-lf/testing';
import { IFACE_SRC } from '../../support/versioned-packages';

/**
 * Upload validation (Canton's daml-lf/validation: Typing.checkModule's definition checks, Serializability.checkModule),
 * restated with LF text. Cases follow Canton's SerializabilitySpec and TypingSpec; each names the error class Canton
 * throws and checks its message.
 */
const pkg = (body: string, name = 'v'): Package => parsePackage(`metadata ( '${name}' : '1.0.0' )\n${body}`);

function refusal(p: Package, deps: Package[] = []): PackageValidationError {
  try {
    validatePackages([p], (id) => deps.find((d) => d.id === id));
  } catch (e) {
    if (e instanceof PackageValidationError) return e;
    throw e;
  }
  throw new Error('the package was accepted');
}

const owner = 'Cons @Party [M:T {owner} this] (Nil @Party)';
const template = (fields: string, extra = '', serializable = '@serializable') => `
module M {
  record ${serializable} T = { owner: Party${fields} } ;
  ${extra}
  template (this : T) = {
    precondition True;
    signatories ${owner};
    observers Nil @Party;
  } ;
}`;

describe('serializability (SerializabilitySpec)', () => {
  it('accepts what a ledger can store: primitives, applied containers, contract ids, serializable records', () => {
    expect(() =>
      validatePackages([
        pkg(`
module M {
  record @serializable P (a: *) = { x: a, l: List a, o: Option Int64, m: TextMap Text, g: GenMap Party Date } ;
  variant @serializable V = A: Unit | B: Numeric 10 ;
  enum @serializable E = Red | Green ;
  record @serializable T = { owner: Party, p: M:P Text, v: M:V, e: M:E, c: ContractId M:T } ;
  template (this : T) = {
    precondition True;
    signatories ${owner};
    observers Nil @Party;
  } ;
}`),
      ]),
    ).not.toThrow();
  });

  it('a serializable record with a function-typed field → EExpectedSerializableType (function type)', () => {
    const e = refusal(pkg(`module M { record @serializable R = { f: Int64 -> Int64 } ; }`));
    expect(e.kind).toBe('EExpectedSerializableType');
    expect(e.message).toContain(' in data type ');
    expect(e.message).toContain(':M:R: expected serializable type:\n * reason: function type\n * found: M:R');
    expect(e.message).toContain('* problem: serializable data type');
  });

  it('the same record unmarked is no data type a ledger stores: accepted', () => {
    expect(() => validatePackages([pkg(`module M { record R = { f: Int64 -> Int64 } ; }`)])).not.toThrow();
  });

  it('a template over a record not marked serializable → unserializable data type, template argument', () => {
    const e = refusal(pkg(template('', '', '')));
    expect(e.message).toMatch(/reason: unserializable data type M:T\n \* found: M:T\n \* problem: template argument/);
  });

  it('other reasons: Any, unapplied List, higher-ranked, structs, free variables, empty variants, higher kinds', () => {
    const reason = (body: string) => /reason: ([^\n]*)/.exec(refusal(pkg(`module M { ${body} }`)).message)![1];
    expect(reason('record @serializable R = { f: Any } ;')).toBe('Any');
    expect(reason('record @serializable R = { f: Update Unit } ;')).toBe('Update');
    expect(reason('record @serializable R (f: * -> *) = { x: f Int64 } ;')).toBe(
      'higher-kinded type variable f : *->*',
    );
    expect(reason('record @serializable R = { f: forall (a: *). a } ;')).toBe('higher-ranked type');
    expect(reason('record @serializable R = { f: BigNumeric } ;')).toBe('BigNumeric');
    expect(reason('record @serializable R = { f: M:U } ; record U = { x: Int64 } ;')).toBe(
      'unserializable data type M:U',
    );
  });

  it('a choice argument or result that cannot be serialized → choice argument / choice result', () => {
    const choice = (arg: string, res: string) =>
      template('', 'record NS = { x: Int64 } ;').replace(
        'observers Nil @Party;',
        `observers Nil @Party;
    choice Go (self) (arg: ${arg}) : ${res}, controllers ${owner} to upure @${res} (ERROR @${res} "x");`,
      );
    expect(refusal(pkg(choice('M:NS', 'Unit'))).message).toMatch(/problem: choice argument/);
    expect(refusal(pkg(choice('Unit', 'M:NS'))).message).toMatch(/problem: choice result/);
  });
});

describe('well-formedness (TypingSpec, definitions)', () => {
  it('an unknown data type → EUnknownDefinition', () => {
    const e = refusal(pkg(`module M { record R = { f: M:Nope } ; }`));
    expect(e.kind).toBe('EUnknownDefinition');
    expect(e.message).toMatch(/: unknown data type -self-:M:Nope$/);
  });

  it('a type of the wrong kind → EKindMismatch; an unbound variable → EUnknownTypeVar', () => {
    const mismatch = refusal(pkg(`module M { record R = { f: List } ; }`));
    expect(mismatch.kind).toBe('EKindMismatch');
    expect(mismatch.message).toContain('kind mismatch:\n * expected kind: *\n * found Kind: *->*');
    expect(refusal(pkg(`module M { record R = { f: a } ; }`)).message).toContain('unknown type variable: a');
  });

  it('duplicate fields, constructors and type parameters', () => {
    expect(refusal(pkg(`module M { record R = { f: Int64, f: Text } ; }`)).message).toContain('duplicate field: f');
    expect(refusal(pkg(`module M { variant V = A: Unit | A: Int64 ; }`)).message).toContain(
      'duplicate variant constructor: A',
    );
    expect(refusal(pkg(`module M { enum E = A | A ; }`)).message).toContain('duplicate enum constructor: A');
    expect(refusal(pkg(`module M { record R (a: *) (a: *) = { x: a } ; }`)).message).toContain(
      'duplicate type parameter: a',
    );
  });

  it('a template over a variant → EExpectedTemplatableType', () => {
    const src = template('').replace(
      'record @serializable T = { owner: Party } ;',
      'variant @serializable T = A: Party ;',
    );
    const e = refusal(pkg(src));
    expect(e.kind).toBe('EExpectedTemplatableType');
    expect(e.message).toContain('expected monomorphic record type in template definition, but found: M:T');
  });

  it('an interface instance without one of its methods → EMissingMethodInInterfaceInstance', () => {
    const iface = decodeArchive(encodeArchive(parsePackage(IFACE_SRC)).dalf).package;
    const src = `
module M {
  record @serializable T = { owner: Party } ;
  template (this : T) = {
    precondition True;
    signatories ${owner};
    observers Nil @Party;
    implements '${iface.id}':Iface:Describable {
      view = '${iface.id}':Iface:View { owner = M:T {owner} this };
      method owner = M:T {owner} this;
    };
  } ;
}`;
    const e = refusal(pkg(src), [iface]);
    expect(e.kind).toBe('EMissingMethodInInterfaceInstance');
    expect(e.message).toContain("Interface instance lacks an implementation for method 'describe'.");
  });

  it('an interface whose view is not a record → EViewTypeHeadNotCon', () => {
    const e = refusal(parsePackage(IFACE_SRC.replace('viewtype Iface:View;', 'viewtype Int64;')));
    expect(e.kind).toBe('EViewTypeHeadNotCon');
    expect(e.message).toContain('but found a built-in type instead: Int64');
  });

  it("the project's interface test package is valid", () => {
    expect(() => validatePackages([parsePackage(IFACE_SRC)])).not.toThrow();
  });
});
