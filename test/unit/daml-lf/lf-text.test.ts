import { describe, expect, it } from 'vitest';
import { decodeArchive, decodeArchivePayload, type Expr, type Package } from '@ledgerline/daml-lf';
import {
  LfTextError,
  encodeArchive,
  encodeArchivePayload,
  parseExpr,
  parsePackage,
  parseType,
} from '@ledgerline/daml-lf/testing';
import { LF_ENCODER_MODULES } from '../../support/lf-encoder-modules';

/** Every construct of the LF-text syntax, in one package (keys and by-key updates need LF 2.3). */
function kitchenSink(withKeys: boolean): string {
  return `
metadata ( 'kitchen-sink' : '1.2.3' )
module Sink.Main {
  synonym Functor (f: * -> *) = <fmap: forall a b . (a -> b) -> f a -> f b> ;
  synonym Pair2 (a: *) (n: nat) = <fst: a, snd: Numeric n> ;
  record @serializable T = { owner: Party, n: Int64 } ;
  record R (a: *) (f: * -> *) = { x: f a } ;
  variant @serializable V (a: *) = Left: a | Right: Text ;
  enum @serializable Color = Red | Green ;
  enum Empty = ;
  record @serializable Go = {} ;
  record @serializable E = { msg: Text } ;
  exception E = { message \\(e: Sink.Main:E) -> Sink.Main:E {msg} e } ;
  interface (this: J) = { viewtype Unit; } ;
  interface (this: I) = {
    viewtype Unit;
    requires Sink.Main:J;
    method getOwner: Party;
    choice @nonConsuming IGo (self) (arg: Sink.Main:Go) : Unit
      , controllers Cons @Party [call_method @Sink.Main:I getOwner this] (Nil @Party)
      to upure @Unit ();
  } ;
  template (this : T) = {
    precondition True;
    signatories Cons @Party [Sink.Main:T {owner} this] (Nil @Party);
    observers Nil @Party;
    choice Go (self) (arg: Sink.Main:Go) : Unit
      , controllers Cons @Party [Sink.Main:T {owner} this] (Nil @Party)
      , observers Nil @Party
      to upure @Unit ();
    implements Sink.Main:I { view = (); method getOwner = Sink.Main:T {owner} this; };
    implements Sink.Main:J { view = (); };
    ${withKeys ? 'key @Party (Sink.Main:T {owner} this) (\\(k: Party) -> Cons @Party [k] (Nil @Party));' : ''}
  } ;
  val lits: List Any = Cons @Any [
      to_any @Int64 -9223372036854775808, to_any @Int64 42, to_any @(Numeric 10) 1.0000000000,
      to_any @Text "h\\"e\\nl\\\\lo", to_any @Timestamp 1970-01-01T00:00:01.000002Z, to_any @Date 2020-02-29,
      to_any @RoundingMode ROUNDING_HALF_EVEN, to_any @FailureCategory INVALID_INDEPENDENT_OF_SYSTEM_STATE,
      to_any @Bool True, to_any @Bool False, to_any @Unit ()
    ] (Nil @Any) ;
  val records: Sink.Main:T -> Sink.Main:T = \\(t: Sink.Main:T) ->
    Sink.Main:T { t with n = ADD_INT64 (Sink.Main:T {n} t) 1 } ;
  val structs: <a: Int64, b: Text> -> Int64 = \\(s: <a: Int64, b: Text>) ->
    let s2 : <a: Int64, b: Text> = < s with a = 1 > in (s2).a ;
  val structCon: <a: Int64> = <a = 1> ;
  val variants: Sink.Main:V Int64 = Sink.Main:V:Left @Int64 7 ;
  val enums: Sink.Main:Color = Sink.Main:Color:Red ;
  val cases: Sink.Main:V Int64 -> Int64 = \\(v: Sink.Main:V Int64) ->
    case v of
        Sink.Main:V:Left x -> x
      | Sink.Main:V:Right t -> 0
      | _ -> 1 ;
  val moreCases: forall (a: *). List a -> Option a -> Bool -> Unit -> Sink.Main:Color -> Int64 =
    /\\ (a: *). \\(l: List a) (o: Option a) (b: Bool) (u: Unit) (c: Sink.Main:Color) ->
      case l of Nil -> 0 | Cons h t -> case o of None -> 1 | Some x -> case b of True -> 2 | False -> case u of () -> case c of Sink.Main:Color:Red -> 3 | _ -> 4 ;
  val options: Option Int64 = Some @Int64 (None @Int64) ;
  val anys: Any -> Option Sink.Main:T = \\(x: Any) -> from_any @Sink.Main:T x ;
  val typeReps: TypeRep = type_rep @(List Sink.Main:T) ;
  val exceptions: AnyException -> Option Sink.Main:E = \\(x: AnyException) -> from_any_exception @Sink.Main:E x ;
  val throws: Int64 = throw @Int64 @Sink.Main:E (Sink.Main:E { msg = "boom" }) ;
  val toAnyEx: AnyException = to_any_exception @Sink.Main:E (Sink.Main:E { msg = "boom" }) ;
  val ifaces: Sink.Main:T -> ContractId Sink.Main:I -> Sink.Main:I -> Unit = \\(t: Sink.Main:T) (cid: ContractId Sink.Main:I) (i: Sink.Main:I) ->
    let a : Sink.Main:I = to_interface @Sink.Main:I @Sink.Main:T t in
    let b : Option Sink.Main:T = from_interface @Sink.Main:I @Sink.Main:T i in
    let c : Sink.Main:T = unsafe_from_interface @Sink.Main:I @Sink.Main:T cid i in
    let d : Sink.Main:J = to_required_interface @Sink.Main:J @Sink.Main:I i in
    let e : Option Sink.Main:I = from_required_interface @Sink.Main:J @Sink.Main:I d in
    let f : Sink.Main:I = unsafe_from_required_interface @Sink.Main:J @Sink.Main:I cid d in
    let g : List Party = signatory_interface @Sink.Main:I i in
    let h : List Party = observer_interface @Sink.Main:I i in
    let j : Unit = view_interface @Sink.Main:I i in
    let k : TypeRep = interface_template_type_rep @Sink.Main:I i in
    let l : List Party = choice_controller @Sink.Main:T Go t Sink.Main:Go {} in
    let m : List Party = choice_observer @Sink.Main:T Go t Sink.Main:Go {} in
    () ;
  val updates: Party -> ContractId Sink.Main:T -> ContractId Sink.Main:I -> Update Unit =
    \\(p: Party) (cid: ContractId Sink.Main:T) (icid: ContractId Sink.Main:I) ->
    ubind
      c : ContractId Sink.Main:T <- create @Sink.Main:T (Sink.Main:T { owner = p, n = 0 }) ;
      ci : ContractId Sink.Main:I <- create_by_interface @Sink.Main:I (to_interface @Sink.Main:I @Sink.Main:T (Sink.Main:T { owner = p, n = 0 })) ;
      _ : Unit <- exercise @Sink.Main:T Go cid Sink.Main:Go {} ;
      _ : Unit <- exercise_interface @Sink.Main:I IGo icid Sink.Main:Go {} ;
      t : Sink.Main:T <- fetch_template @Sink.Main:T cid ;
      i : Sink.Main:I <- fetch_interface @Sink.Main:I icid ;
      now : Timestamp <- uget_time ;
      lt : Bool <- ledger_time_lt now ;
      x : Int64 <- uembed_expr @Int64 (upure @Int64 1) ;
      y : Int64 <- try @Int64 (upure @Int64 1) catch err -> None @(Update Int64)
      ${withKeys ? '; z : Unit <- exercise_by_key @Sink.Main:T Go p Sink.Main:Go {} ; w : Sink.Main:T <- fetch_by_key @Sink.Main:T ; q : Unit <- query_n_by_key @Sink.Main:T' : ''}
    in upure @Unit () ;
  val builtins: Text = APPEND_TEXT (INT64_TO_TEXT 1) (SHA256_TEXT "x") ;
  val located: Int64 = loc(Sink.Main, located, 1, 2, 3, 4) 5 ;
  val foldl: forall (a: *) (b: *). (b -> a -> b) -> b -> List a -> b = FOLDL ;
}
module Sink.Other {
  val ref: Int64 = 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff':Dep.Mod:value ;
  val self: Sink.Main:T -> Sink.Main:T = Sink.Main:records ;
}
`;
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x instanceof Map ? [...x.entries()] : x));

describe('LF text: parsing', () => {
  for (const minor of ['1', '2', '3'] as const) {
    it(`LF 2.${minor}: every construct parses, encodes and decodes back to the same AST`, () => {
      const pkg = parsePackage(kitchenSink(minor === '3'), { minor });
      expect(pkg.metadata).toEqual({ name: 'kitchen-sink', version: '1.2.3' });
      expect(pkg.imports).toEqual(['f'.repeat(64)]);
      const main = pkg.modules.get('Sink.Main')!;
      expect([...main.templates.get('T')!.implements.keys()]).toEqual(['-self-:Sink.Main:I', '-self-:Sink.Main:J']);
      expect(main.dataTypes.get('I')!.cons).toEqual({ tag: 'interface' });
      expect(main.templates.get('T')!.key !== undefined).toBe(minor === '3');
      const back = decodeArchivePayload(encodeArchivePayload(pkg), pkg.id);
      expect(canonical(back)).toBe(canonical(pkg));
    });
  }

  it('gives the package its real id once encoded: self references follow', () => {
    const pkg = parsePackage(kitchenSink(false), { minor: '2' });
    const a = encodeArchive(pkg);
    const decoded = decodeArchive(a.dalf).package;
    expect(decoded.id).toBe(a.packageId);
    expect(decoded.modules.get('Sink.Other')!.values.get('self')!.expr).toEqual({
      tag: 'val',
      ref: { packageId: a.packageId, module: 'Sink.Main', name: 'records' },
    });
  });

  it('shapes forms for the LF version: n-ary in 2.1, binary (flat) from 2.2', () => {
    const t21 = parseType('forall (a: *) (f: * -> * -> *). f a Int64 -> a', { minor: '1' });
    expect(t21).toEqual({
      tag: 'forall',
      vars: [
        { name: 'a', kind: { tag: 'star' } },
        { name: 'f', kind: { tag: 'arrow', params: [{ tag: 'star' }, { tag: 'star' }], result: { tag: 'star' } } },
      ],
      body: {
        tag: 'builtin',
        builtin: 'ARROW',
        args: [
          {
            tag: 'var',
            name: 'f',
            args: [
              { tag: 'var', name: 'a', args: [] },
              { tag: 'builtin', builtin: 'INT64', args: [] },
            ],
          },
          { tag: 'var', name: 'a', args: [] },
        ],
      },
    });
    const t22 = parseType('List a', { minor: '2' });
    expect(t22).toEqual({
      tag: 'tapp',
      lhs: { tag: 'builtin', builtin: 'LIST', args: [] },
      rhs: { tag: 'var', name: 'a', args: [] },
    });
    const v = (name: string): Expr => ({ tag: 'var', name });
    expect(parseExpr('f @Int64 x y', { minor: '1' })).toEqual({
      tag: 'app',
      fun: { tag: 'tyApp', expr: v('f'), types: [{ tag: 'builtin', builtin: 'INT64', args: [] }] },
      args: [v('x'), v('y')],
    });
    expect(parseExpr('f x y', { minor: '2' })).toEqual({
      tag: 'app',
      fun: { tag: 'app', fun: v('f'), args: [v('x')] },
      args: [v('y')],
    });
    expect(parseExpr('\\(x: Int64) (y: Int64) -> x', { minor: '1' })).toMatchObject({
      tag: 'abs',
      params: [{ name: 'x' }, { name: 'y' }],
    });
    expect(parseExpr('\\(x: Int64) (y: Int64) -> x', { minor: '2' })).toMatchObject({
      tag: 'abs',
      params: [{ name: 'x' }],
      body: { tag: 'abs', params: [{ name: 'y' }] },
    });
  });

  it('reads literals as Canton does', () => {
    const lit = (src: string) => (parseExpr(src) as Expr & { tag: 'lit' }).lit;
    expect(lit('1970-01-02T00:00:00.5Z')).toEqual({ tag: 'timestamp', value: 86_400_500_000n });
    expect(lit('1969-12-31')).toEqual({ tag: 'date', value: -1 });
    expect(lit('0001-01-01')).toEqual({ tag: 'date', value: -719162 });
    expect(lit('0001-01-01T00:00:00Z')).toEqual({ tag: 'timestamp', value: -62135596800000000n });
    expect(lit('-12')).toEqual({ tag: 'int64', value: -12n });
    expect(lit('0.')).toEqual({ tag: 'numeric', value: '0.' });
    expect(lit('"a\\"b"')).toEqual({ tag: 'text', value: 'a"b' });
    expect(parseExpr('ROUNDING_HALF_UP')).toEqual({ tag: 'lit', lit: { tag: 'roundingMode', value: 'HALF_UP' } });
  });

  it('parses the restated Canton modules together', () => {
    const pkg: Package = parsePackage(Object.values(LF_ENCODER_MODULES).join('\n'), { minor: '1' });
    expect([...pkg.modules.keys()]).toEqual(Object.keys(LF_ENCODER_MODULES));
    expect(pkg.modules.get('TemplateMod')!.templates.get('Person')!.choices.get('Nap')!.consuming).toBe(false);
  });
});

describe('LF text: errors name the place and what was expected', () => {
  const err = (src: string, minor = '2') => {
    try {
      parsePackage(src, { minor });
    } catch (e) {
      return e as LfTextError;
    }
    throw new Error('parsed');
  };

  it('a missing semicolon', () => {
    const e = err('module M {\n  val x: Int64 = 1\n}');
    expect(e).toBeInstanceOf(LfTextError);
    expect(e.message).toBe(`3:1: expected an expression or ';' but found "}"`);
    expect([e.line, e.col]).toEqual([3, 1]);
  });

  it('an unknown definition keyword', () => {
    expect(err('module M {\n  value x: Int64 = 1;\n}').message).toMatch(/^2:3: expected a definition/);
  });

  it('a bad character, a bad tag, a nat out of range, an enum with type arguments, a bad date', () => {
    expect(err('module M { val x: Int64 = 1 ? 2; }').message).toBe('1:29: unexpected character "?"');
    expect(err('record @foo T = {};'.replace(/^/, 'module M { ') + ' }').message).toMatch(
      /found tag foo but expected one of serializable\./,
    );
    expect(err('module M { val x: Numeric 38 = 1; }').message).toMatch(/TNat must be between 0 and 37, found 38/);
    expect(err('module M { val x: M:C = M:C:Red @Int64; }').message).toMatch(/enum type does not take type parameters/);
    expect(err('module M { val x: Date = 2021-02-30; }').message).toMatch(/cannot interpret 2021-02-30 as a Date/);
    expect(() => parseType('List', { minor: '7' })).toThrow('unknown LF minor version 2.7');
  });

  it('an unterminated module', () => {
    expect(err('module M { val x: Int64 = 1;').message).toMatch(/but found end of input$/);
  });
});
