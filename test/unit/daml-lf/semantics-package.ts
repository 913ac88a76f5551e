/**
 * The package and harness of the engine-semantics tests (authorization, evaluation order, consumption). The package
 * restates, in our LF-text syntax, the shape of Canton's speedy test package (`daml-lf/interpreter/src/test/…/speedy/
 * TestPkg.scala`) without contract keys: a template `M:T` whose precondition, signatories, observers, choice
 * controllers, choice observers, choice authorizers and choice body each TRACE a label; an interface `M:Person`
 * implemented by `M:Human`; a plain `M:Dummy`; a `Test:Helper` through which a chosen party exercises or fetches.
 *
 * Canton runs its cases as top-level update expressions with the submitters' authority. Commands cannot, so a case runs
 * as the choice `Run` of `Test:Root { parties }`, whose authority is exactly `parties`: a prelude (fetch, archive or
 * create a contract first) and then an action (exercise, exercise by interface, fetch …) with the contract id.
 */
import {
  CompiledPackages,
  Engine,
  valueToProto,
  type ContractInstance,
  type EngineCommand,
  type EngineError,
  type EngineResult,
  type Package,
  type SValue,
  type SubmitContext,
  type TypeConId,
} from '@ledgerline/daml-lf';
import { parsePackage } from '@ledgerline/daml-lf/testing';

export const PKG_ID = 'c0ffee00'.repeat(8);

const SOURCE = String.raw`
metadata ( 'engine-semantics' : '1.0.0' )
module M {
  record @serializable MyUnit = {};
  record @serializable Nested = { f: Option M:Nested };
  val buildNested: Int64 -> M:Nested = \(i: Int64) ->
    case (EQUAL @Int64 i 0) of
        True -> M:Nested { f = None @M:Nested }
      | _ -> M:Nested { f = Some @M:Nested (M:buildNested (SUB_INT64 i 1)) };
  variant @serializable Either (a: *) (b: *) = Left: a | Right: b;

  interface (this: Person) = {
    viewtype M:MyUnit;
    method getCtrl: Party;
    choice @nonConsuming Nap (self) (i: Int64): Int64
      , controllers TRACE @(List Party) "interface choice controllers" (Cons @Party [call_method @M:Person getCtrl this] (Nil @Party))
      , observers TRACE @(List Party) "interface choice observers" (Nil @Party)
      to upure @Int64 (TRACE @Int64 "choice body" i);
  };

  record @serializable T = { signatory: Party, observer: Party, precondition: Bool, nested: M:Nested };
  template (this: T) = {
    precondition TRACE @Bool "precondition" (M:T {precondition} this);
    signatories TRACE @(List Party) "contract signatories" (Cons @Party [M:T {signatory} this] (Nil @Party));
    observers TRACE @(List Party) "contract observers" (Cons @Party [M:T {observer} this] (Nil @Party));
    choice Choice (self) (arg: M:Either M:Nested Int64): M:Nested
      , controllers TRACE @(List Party) "template choice controllers" (Cons @Party [M:T {signatory} this] (Nil @Party))
      , observers TRACE @(List Party) "template choice observers" (Nil @Party)
      , authorizers TRACE @(List Party) "template choice authorizers" (Cons @Party [M:T {signatory} this] (Nil @Party))
      to upure @M:Nested (TRACE @M:Nested "choice body" (M:buildNested (case arg of M:Either:Right i -> i | _ -> 0)));
    choice Archive (self) (arg: Unit): Unit
      , controllers Cons @Party [M:T {signatory} this] (Nil @Party)
      to upure @Unit (TRACE @Unit "archive" ());
  };

  record @serializable Human = { person: Party, obs: Party, ctrl: Party, precond: Bool, nested: M:Nested };
  template (this: Human) = {
    precondition TRACE @Bool "precondition" (M:Human {precond} this);
    signatories TRACE @(List Party) "contract signatories" (Cons @Party [M:Human {person} this] (Nil @Party));
    observers TRACE @(List Party) "contract observers" (Cons @Party [M:Human {obs} this] (Nil @Party));
    choice Archive (self) (arg: Unit): Unit
      , controllers Cons @Party [M:Human {person} this] (Nil @Party)
      to upure @Unit (TRACE @Unit "archive" ());
    implements M:Person {
      view = TRACE @M:MyUnit "view" (M:MyUnit {});
      method getCtrl = M:Human {ctrl} this;
    };
  };

  val foldl: forall (a: *) (b: *). (a -> b -> a) -> a -> List b -> a = /\ (a: *) (b: *).
    \(f: a -> b -> a) (acc: a) (xs: List b) -> case xs of Nil -> acc | Cons x rest -> M:foldl @a @b f (f acc x) rest;
  val foldr: forall (a: *) (b: *). (b -> a -> a) -> a -> List b -> a = /\ (a: *) (b: *).
    \(f: b -> a -> a) (acc: a) (xs: List b) -> case xs of Nil -> acc | Cons x rest -> f x (M:foldr @a @b f acc rest);

  record @serializable Dummy = { signatory: Party };
  template (this: Dummy) = {
    precondition True;
    signatories Cons @Party [M:Dummy {signatory} this] (Nil @Party);
    observers Nil @Party;
    choice Archive (self) (arg: Unit): Unit
      , controllers Cons @Party [M:Dummy {signatory} this] (Nil @Party)
      to upure @Unit ();
  };
}

module Test {
  val run: forall (t: *). Update t -> Update Unit = /\(t: *). \(u: Update t) ->
    ubind x: Unit <- upure @Unit (TRACE @Unit "starts test" ()) ;
          y: t <- u
    in upure @Unit (TRACE @Unit "ends test" ());

  record @serializable Helper = { sig: Party, obs: Party };
  record @serializable ExeArg = { id: ContractId M:T, argParams: M:Either Int64 Int64 };
  template (this: Helper) = {
    precondition True;
    signatories Cons @Party [Test:Helper {sig} this] (Nil @Party);
    observers Nil @Party;
    choice Exe (self) (arg: Test:ExeArg): M:Nested
      , controllers Cons @Party [Test:Helper {sig} this] (Nil @Party)
      , observers Nil @Party
      to
        let choiceArg: M:Either M:Nested Int64 = case (Test:ExeArg {argParams} arg) of
            M:Either:Left n -> M:Either:Left @M:Nested @Int64 (M:buildNested n)
          | M:Either:Right n -> M:Either:Right @M:Nested @Int64 n
        in ubind
          x: Unit <- upure @Unit (TRACE @Unit "starts test" ()) ;
          res: M:Nested <- exercise @M:T Choice (Test:ExeArg {id} arg) choiceArg ;
          y: Unit <- upure @Unit (TRACE @Unit "ends test" ())
        in upure @M:Nested res;
    choice FetchById (self) (cId: ContractId M:T): Unit
      , controllers Cons @Party [Test:Helper {sig} this] (Nil @Party)
      to Test:run @M:T (fetch_template @M:T cId);
    choice FetchByInterface (self) (cId: ContractId M:Person): Unit
      , controllers Cons @Party [Test:Helper {sig} this] (Nil @Party)
      to Test:run @M:Person (fetch_interface @M:Person cId);
  };

  val createHelper: Party -> Update (ContractId Test:Helper) =
    \(party: Party) -> create @Test:Helper Test:Helper { sig = party, obs = party };

  enum @serializable Prelude = NoPrelude | FetchT | FetchDummy | FetchHuman | ArchiveT | ArchiveDummy | ArchiveHuman
    | CreateT | CreateArchiveT | CreateDummy | CreateArchiveDummy | CreateHuman | CreateArchiveHuman ;
  enum @serializable Action = CreateAction | CreateInterface | ExerciseById | ExerciseInterface | ExerciseInterfaceWithGuard
    | FetchById | FetchInterface ;

  record @serializable Run = {
    prelude: Test:Prelude, action: Test:Action, cid: ContractId M:T,
    sig: Party, obs: Party, party: Party, precondition: Bool, nesting: Int64, argParams: M:Either Int64 Int64
  };

  val newT: Test:Run -> M:T = \(r: Test:Run) -> M:T {
    signatory = Test:Run {sig} r, observer = Test:Run {obs} r,
    precondition = Test:Run {precondition} r, nested = M:buildNested (Test:Run {nesting} r) };
  val newHuman: Test:Run -> M:Human = \(r: Test:Run) -> M:Human {
    person = Test:Run {sig} r, obs = Test:Run {obs} r, ctrl = Test:Run {obs} r,
    precond = Test:Run {precondition} r, nested = M:buildNested (Test:Run {nesting} r) };

  val prelude: Test:Run -> Update (ContractId M:T) = \(r: Test:Run) ->
    let cid: ContractId M:T = Test:Run {cid} r in
    let dummy: ContractId M:Dummy = COERCE_CONTRACT_ID @M:T @M:Dummy cid in
    let human: ContractId M:Human = COERCE_CONTRACT_ID @M:T @M:Human cid in
    case Test:Run {prelude} r of
        Test:Prelude:NoPrelude -> upure @(ContractId M:T) cid
      | Test:Prelude:FetchT -> ubind x: M:T <- fetch_template @M:T cid in upure @(ContractId M:T) cid
      | Test:Prelude:FetchDummy -> ubind x: M:Dummy <- fetch_template @M:Dummy dummy in upure @(ContractId M:T) cid
      | Test:Prelude:FetchHuman -> ubind x: M:Human <- fetch_template @M:Human human in upure @(ContractId M:T) cid
      | Test:Prelude:ArchiveT -> ubind x: Unit <- exercise @M:T Archive cid () in upure @(ContractId M:T) cid
      | Test:Prelude:ArchiveDummy -> ubind x: Unit <- exercise @M:Dummy Archive dummy () in upure @(ContractId M:T) cid
      | Test:Prelude:ArchiveHuman -> ubind x: Unit <- exercise @M:Human Archive human () in upure @(ContractId M:T) cid
      | Test:Prelude:CreateT -> create @M:T (Test:newT r)
      | Test:Prelude:CreateArchiveT ->
          ubind c: ContractId M:T <- create @M:T (Test:newT r) ; x: Unit <- exercise @M:T Archive c ()
          in upure @(ContractId M:T) c
      | Test:Prelude:CreateDummy ->
          ubind c: ContractId M:Dummy <- create @M:Dummy (M:Dummy { signatory = Test:Run {sig} r })
          in upure @(ContractId M:T) (COERCE_CONTRACT_ID @M:Dummy @M:T c)
      | Test:Prelude:CreateArchiveDummy ->
          ubind c: ContractId M:Dummy <- create @M:Dummy (M:Dummy { signatory = Test:Run {sig} r }) ;
                x: Unit <- exercise @M:Dummy Archive c ()
          in upure @(ContractId M:T) (COERCE_CONTRACT_ID @M:Dummy @M:T c)
      | Test:Prelude:CreateHuman ->
          ubind c: ContractId M:Human <- create @M:Human (Test:newHuman r)
          in upure @(ContractId M:T) (COERCE_CONTRACT_ID @M:Human @M:T c)
      | Test:Prelude:CreateArchiveHuman ->
          ubind c: ContractId M:Human <- create @M:Human (Test:newHuman r) ; x: Unit <- exercise @M:Human Archive c ()
          in upure @(ContractId M:T) (COERCE_CONTRACT_ID @M:Human @M:T c);

  val action: Test:Run -> ContractId M:T -> Update Unit = \(r: Test:Run) (cid: ContractId M:T) ->
    let party: Party = Test:Run {party} r in
    let person: ContractId M:Person = COERCE_CONTRACT_ID @M:T @M:Person cid in
    case Test:Run {action} r of
        Test:Action:CreateAction -> Test:run @(ContractId M:T) (create @M:T (Test:newT r))
      | Test:Action:CreateInterface ->
          Test:run @(ContractId M:Person) (create_by_interface @M:Person (to_interface @M:Person @M:Human (Test:newHuman r)))
      | Test:Action:ExerciseById ->
          ubind h: ContractId Test:Helper <- Test:createHelper party ;
                x: M:Nested <- exercise @Test:Helper Exe h (Test:ExeArg { id = cid, argParams = Test:Run {argParams} r })
          in upure @Unit ()
      | Test:Action:ExerciseInterface -> Test:run @Int64 (exercise_interface @M:Person Nap person 42)
      | Test:Action:ExerciseInterfaceWithGuard ->
          Test:run @Int64 (exercise_interface_with_guard @M:Person Nap person 42 (\(x: M:Person) -> TRACE @Bool "interface guard" True))
      | Test:Action:FetchById ->
          ubind h: ContractId Test:Helper <- Test:createHelper party in exercise @Test:Helper FetchById h cid
      | Test:Action:FetchInterface ->
          ubind h: ContractId Test:Helper <- Test:createHelper party in exercise @Test:Helper FetchByInterface h person;

  val f: Text -> Text -> Text = \(x: Text) -> TRACE @(Text -> Text) x (\(y: Text) -> TRACE @Text y (APPEND_TEXT x y));
  val testFold: ((Text -> Text -> Text) -> Text -> List Text -> Text) -> Text =
    \(fold: (Text -> Text -> Text) -> Text -> List Text -> Text) -> fold Test:f "0" (Cons @Text ["1", "2", "3"] (Nil @Text));

  record @serializable Root = { parties: List Party };
  template (this: Root) = {
    precondition True;
    signatories Test:Root {parties} this;
    observers Nil @Party;
    choice Run (self) (r: Test:Run): Unit
      , controllers Test:Root {parties} this
      to ubind cid: ContractId M:T <- Test:prelude r in Test:action r cid;
  };
}

module Extra {
  record @serializable Owned = { owner: Party };
  template (this: Owned) = {
    precondition True;
    signatories Cons @Party [Extra:Owned {owner} this] (Nil @Party);
    observers Nil @Party;
  };

  record @serializable Oops = { message: Text };
  exception Oops = { message \(e: Extra:Oops) -> Extra:Oops {message} e };
  record @serializable Fragile = { p: Party, fine: Bool };
  template (this: Fragile) = {
    precondition case (Extra:Fragile {fine} this) of
        True -> True
      | _ -> throw @Bool @Extra:Oops (Extra:Oops { message = "fragile" });
    signatories Cons @Party [Extra:Fragile {p} this] (Nil @Party);
    observers Nil @Party;
  };

  val sumTo: Int64 -> Int64 = \(n: Int64) ->
    case (EQUAL @Int64 n 0) of True -> 0 | _ -> ADD_INT64 n (Extra:sumTo (SUB_INT64 n 1));
  val countUp: Int64 -> Update Int64 = \(n: Int64) ->
    case (EQUAL @Int64 n 0) of
        True -> upure @Int64 0
      | _ -> ubind x: Int64 <- Extra:countUp (SUB_INT64 n 1) in upure @Int64 (ADD_INT64 x 1);

  record @serializable Box = { a: Party, b: Party };
  template (this: Box) = {
    precondition True;
    signatories Cons @Party [Extra:Box {a} this] (Nil @Party);
    observers Cons @Party [Extra:Box {b} this] (Nil @Party);
    choice @nonConsuming AsB (self) (p: Party): ContractId Extra:Owned
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      , observers Nil @Party
      , authorizers Cons @Party [Extra:Box {b} this] (Nil @Party)
      to create @Extra:Owned (Extra:Owned { owner = p });
    choice @nonConsuming NoAuthorizers (self) (u: Unit): Unit
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      , observers Nil @Party
      , authorizers Nil @Party
      to upure @Unit ();
    choice @nonConsuming NoControllers (self) (u: Unit): Unit
      , controllers Nil @Party
      to upure @Unit ();
    choice @nonConsuming Observed (self) (p: Party): Unit
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      , observers Cons @Party [p] (Nil @Party)
      to upure @Unit ();
    choice @nonConsuming Make (self) (p: Party): ContractId Extra:Owned
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to create @Extra:Owned (Extra:Owned { owner = p });
    choice ConsumeThenFetch (self) (u: Unit): Extra:Box
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to fetch_template @Extra:Box self;
    choice @nonConsuming FetchTwice (self) (u: Unit): Unit
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to ubind x: Extra:Box <- fetch_template @Extra:Box self ; y: Extra:Box <- fetch_template @Extra:Box self in upure @Unit ();
    choice @nonConsuming TryFetch (self) (cid: ContractId Extra:Fragile): Bool
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to try @Bool (ubind x: Extra:Fragile <- fetch_template @Extra:Fragile cid in upure @Bool True)
         catch err -> Some @(Update Bool) (upure @Bool False);
    choice @nonConsuming TryThrow (self) (u: Unit): Bool
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to try @Bool (upure @Bool (throw @Bool @Extra:Oops (Extra:Oops { message = "thrown" })))
         catch err -> Some @(Update Bool) (upure @Bool False);
    choice @nonConsuming Sum (self) (n: Int64): Int64
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to upure @Int64 (Extra:sumTo n);
    choice @nonConsuming CountUp (self) (n: Int64): Int64
      , controllers Cons @Party [Extra:Box {a} this] (Nil @Party)
      to Extra:countUp n;
  };
}
`;

export const semanticsPackage: Package = parsePackage(SOURCE, { minor: '1', selfPackageId: PKG_ID });

const id = (module: string, name: string): TypeConId => ({ packageId: PKG_ID, module, name });
export const T = id('M', 'T');
export const Human = id('M', 'Human');
export const Dummy = id('M', 'Dummy');
export const Person = id('M', 'Person');
export const Root = id('Test', 'Root');
export const Box = id('Extra', 'Box');
export const Owned = id('Extra', 'Owned');
export const Fragile = id('Extra', 'Fragile');

export const alice = 'alice::1220aaaa';
export const bob = 'bob::1220bbbb';
export const charlie = 'charlie::1220cccc';

/** A ledger contract id (as Canton's tests use `V1(hash("test"))`). */
export const cId = '00' + 'a1'.repeat(32) + 'ca';

export type Prelude =
  | 'NoPrelude'
  | 'FetchT'
  | 'FetchDummy'
  | 'FetchHuman'
  | 'ArchiveT'
  | 'ArchiveDummy'
  | 'ArchiveHuman'
  | 'CreateT'
  | 'CreateArchiveT'
  | 'CreateDummy'
  | 'CreateArchiveDummy'
  | 'CreateHuman'
  | 'CreateArchiveHuman';
export type Action =
  | 'CreateAction'
  | 'CreateInterface'
  | 'ExerciseById'
  | 'ExerciseInterface'
  | 'ExerciseInterfaceWithGuard'
  | 'FetchById'
  | 'FetchInterface';

export interface Case {
  /** The authority the case runs with (Canton: the committers). */
  readonly authority: readonly string[];
  readonly prelude?: Prelude;
  readonly action: Action;
  /** For creates: signatory, observer, precondition and the nesting of `nested`. */
  readonly sig?: string;
  readonly obs?: string;
  readonly precondition?: boolean;
  readonly nesting?: number;
  /** The exercising / fetching party (the Helper's signatory). */
  readonly party?: string;
  /** `Left n`: the choice argument nests n deep; `Right n`: the choice result nests n deep. */
  readonly argParams?: { readonly Left: number } | { readonly Right: number };
  /** The ledger's contracts, by id. */
  readonly ledger?: Readonly<Record<string, ContractInstance>>;
}

const party = (p: string): SValue => ({ t: 'party', v: p });
const rec = (tc: TypeConId, f: string[], v: SValue[]): SValue => ({ t: 'record', id: tc, f, v });
const nestedValue: SValue = rec(id('M', 'Nested'), ['f'], [{ t: 'optional', v: null }]);

/** Canton's ledger contracts of the tests: a T (alice signs, bob observes), a Human, a Dummy. */
export function storedT(over: { observer?: string; precondition?: boolean } = {}): ContractInstance {
  const observer = over.observer ?? bob;
  const arg = rec(
    T,
    ['signatory', 'observer', 'precondition', 'nested'],
    [party(alice), party(observer), { t: 'bool', v: over.precondition ?? true }, nestedValue],
  );
  return {
    contractId: cId,
    templateId: T,
    packageName: 'engine-semantics',
    argument: valueToProto(arg),
    signatories: [alice],
    stakeholders: [alice, observer],
    createdAt: 0n,
  };
}
export function storedHuman(): ContractInstance {
  const arg = rec(
    Human,
    ['person', 'obs', 'ctrl', 'precond', 'nested'],
    [party(alice), party(bob), party(alice), { t: 'bool', v: true }, nestedValue],
  );
  return {
    contractId: cId,
    templateId: Human,
    packageName: 'engine-semantics',
    argument: valueToProto(arg),
    signatories: [alice],
    stakeholders: [alice, bob],
    createdAt: 0n,
  };
}
export function storedDummy(): ContractInstance {
  return {
    contractId: cId,
    templateId: Dummy,
    packageName: 'engine-semantics',
    argument: valueToProto(rec(Dummy, ['signatory'], [party(alice)])),
    signatories: [alice],
    stakeholders: [alice],
    createdAt: 0n,
  };
}

export interface Outcome {
  readonly result: EngineResult & { tag: 'done' | 'error' };
  /** TRACE messages and the harness's answers ("queries contract"), from the first "starts test" on. */
  readonly log: readonly string[];
}

export const newEngine = () => new Engine(new CompiledPackages([semanticsPackage]));

export interface Submit {
  readonly actAs: readonly string[];
  readonly ledger?: Readonly<Record<string, ContractInstance>>;
  readonly engine?: Engine;
}

/** Submits commands, answering contract questions from `ledger` (unknown ids: no contract); "queries contract" is logged. */
export function submit(commands: readonly EngineCommand[], s: Submit): Outcome {
  const log: string[] = [];
  const ctx: SubmitContext = {
    actAs: [...s.actAs],
    readAs: [],
    submissionSeed: Buffer.alloc(32, 5),
    participantId: 'participant1::1220ffff',
    preparationTime: 1_754_534_109_899_822n,
    onTrace: (m) => log.push(m),
  };
  let r = (s.engine ?? newEngine()).submit(commands, ctx);
  for (;;) {
    if (r.tag === 'done' || r.tag === 'error') break;
    if (r.tag === 'needContract') {
      log.push('queries contract');
      r = r.resume(s.ledger?.[r.contractId]);
    } else if (r.tag === 'needPackage') r = r.resume(undefined);
    else r = r.resume(0n);
  }
  const start = log.indexOf('starts test');
  return { result: r, log: start < 0 ? log : log.slice(start) };
}

/** Runs a case as `Root.Run` with the case's authority. */
export function runCase(c: Case, engine?: Engine): Outcome {
  const args = c.argParams ?? { Left: 0 };
  const [tag, n] = 'Left' in args ? ['Left', args.Left] : ['Right', args.Right];
  const run = {
    prelude: c.prelude ?? 'NoPrelude',
    action: c.action,
    cid: cId,
    sig: c.sig ?? alice,
    obs: c.obs ?? bob,
    party: c.party ?? alice,
    precondition: c.precondition ?? true,
    nesting: String(c.nesting ?? 0),
    argParams: { tag, value: String(n) },
  };
  const command: EngineCommand = {
    kind: 'createAndExercise',
    templateId: Root,
    createArgument: { json: { parties: c.authority } },
    choice: 'Run',
    choiceArgument: { json: run },
  };
  return submit([command], { actAs: c.authority, ledger: c.ledger, engine });
}

export function errorOf(o: Outcome): EngineError {
  if (o.result.tag !== 'error') throw new Error(`expected an error, got ${o.result.tag} (log: ${o.log.join(' / ')})`);
  return o.result.error;
}
export function doneOf(o: Outcome) {
  if (o.result.tag !== 'done')
    throw new Error(`expected success, got ${JSON.stringify(o.result.error)} (log: ${o.log.join(' / ')})`);
  return o.result;
}
