import { describe, expect, it } from 'vitest';
import { isUtilityPackage, upgradeError, type Package } from '@ledgerline/daml-lf';
import { parsePackage } from '@ledgerline/daml-lf/testing';

/**
 * Upgrade checks between two versions of a package (Canton's TypecheckUpgrades, Upgrading.scala), restated with LF text
 * after the cases of Canton's upgrade tests (UpgradesSpec's "succeeds"/"fails" DARs): each case names what it changes.
 */
const owner = 'Cons @Party [M:T {owner} this] (Nil @Party)';
const version = (v: string, fields: string, extra = '', choices = '', id = `-v${v}-`) =>
  parsePackage(
    `metadata ( 'upg' : '${v}' )
module M {
  record @serializable T = { owner: Party${fields} } ;
  ${choices ? 'record @serializable Go = {} ;' : ''}
  ${extra}
  template (this : T) = {
    precondition True;
    signatories ${owner};
    observers Nil @Party;
    ${choices}
  } ;
}`,
    { selfPackageId: id },
  );
const go = (res = 'Unit') =>
  `choice Go (self) (arg: M:Go) : ${res}, controllers ${owner} to upure @${res} (ERROR @${res} "x");`;

const check = (past: Package, present: Package) => upgradeError(past, present, () => undefined);

describe('upgrades (TypecheckUpgrades)', () => {
  it('succeeds: a trailing Optional field, a new choice, a new template, a new variant constructor at the end', () => {
    const v1 = version('1.0.0', ', n: Int64', 'variant @serializable V = A: Unit ;');
    const v2 = version(
      '2.0.0',
      ', n: Int64, note: Option Text',
      'variant @serializable V = A: Unit | B: Int64 ;',
      go(),
    );
    expect(check(v1, v2)).toBeNull();
  });

  it('fails: a new field that is not Optional', () => {
    expect(check(version('1.0.0', ''), version('2.0.0', ', n: Int64'))).toBe(
      'The upgraded template T has added new fields, but those fields are not Optional.',
    );
  });

  it('fails: a field removed, a field whose type changed, fields reordered', () => {
    expect(check(version('1.0.0', ', n: Int64'), version('2.0.0', ''))).toBe(
      'The upgraded template T is missing some of its original fields.',
    );
    expect(check(version('1.0.0', ', n: Int64'), version('2.0.0', ', n: Text'))).toBe(
      'The upgraded template T has changed the types of some of its original fields.',
    );
    expect(check(version('1.0.0', ', a: Int64, b: Int64'), version('2.0.0', ', b: Int64, a: Int64'))).toBe(
      'The upgraded template T has changed the order of its fields - any new fields must be added at the end of the record.',
    );
  });

  it('fails: a choice removed, a choice whose result type changed', () => {
    expect(check(version('1.0.0', '', '', go()), version('2.0.0', ''))).toBe(
      'Choice Go appears in package that is being upgraded, but does not appear in the upgrading package.',
    );
    expect(check(version('1.0.0', '', '', go()), version('2.0.0', '', '', go('Int64')))).toBe(
      'The upgraded choice Go cannot change its return type.',
    );
  });

  it('fails: variant constructors removed or reordered, a record turned into a variant, a module dropped', () => {
    const v = (cons: string) => version('1.0.0', '', `variant @serializable V = ${cons} ;`);
    expect(check(v('A: Unit | B: Int64'), v('A: Unit'))).toBe(
      'The upgraded data type V has removed an existing variant.',
    );
    expect(check(v('A: Unit | B: Int64'), v('B: Int64 | A: Unit'))).toBe(
      'The upgraded data type V has changed the order of its variants - any new variant must be added at the end of the variant.',
    );
    expect(
      check(
        version('1.0.0', '', 'record @serializable V = {} ;'),
        version('2.0.0', '', 'variant @serializable V = A: Unit ;'),
      ),
    ).toBe(
      'The upgraded data type V has changed from a record to a variant. Datatypes cannot change variety via upgrades.',
    );
    const twoModules = parsePackage(
      `metadata ( 'upg' : '1.0.0' )\nmodule A { record @serializable R = {} ; }\nmodule B { record @serializable S = {} ; }`,
    );
    const oneModule = parsePackage(`metadata ( 'upg' : '2.0.0' )\nmodule A { record @serializable R = {} ; }`);
    expect(check(twoModules, oneModule)).toBe(
      'Module B appears in package that is being upgraded, but does not appear in the upgrading package.',
    );
  });

  it('fails: a top-level record that becomes a choice argument changes its origin', () => {
    const v1 = version('1.0.0', '', 'record @serializable Go = {} ;');
    expect(check(v1, version('2.0.0', '', '', go()))).toBe(
      'The record Go has changed origin from data type Go to input type of choice Go on template T',
    );
  });

  it('a package without serializable types is a utility package (not upgrade-checked)', () => {
    expect(
      isUtilityPackage(parsePackage(`metadata ( 'u' : '1.0.0' )\nmodule M { record R = { f: Int64 -> Int64 } ; }`)),
    ).toBe(true);
    expect(isUtilityPackage(version('1.0.0', ''))).toBe(false);
  });
});
