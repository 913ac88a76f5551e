/**
 * Interfaces on the engine, with a package written in Daml-LF text: commands by interface id (choices, views and methods
 * as controllers and results), exercise and fetch by interface inside choice bodies, conversions between templates,
 * interfaces and required interfaces, interface signatories and template type reps, Any round trips, and Canton's
 * errors for contracts that do not implement the interface (`speedy/Pretty.scala`, `CommandExecutionErrors.scala`).
 */
import { describe, expect, it } from 'vitest';
import {
  CompiledPackages,
  Engine,
  type ContractInstance,
  type EngineCommand,
  type EngineResult,
  type SubmitContext,
  type TypeConId,
} from '@ledgerline/daml-lf';
import { parseExpr, parsePackage } from '@ledgerline/daml-lf/testing';

const PKG = 'a1'.repeat(32);
const SRC = `
metadata ( 'iface-test' : '1.0.0' )
module Iface {
  record @serializable MyUnit = {} ;
  record @serializable TokenView = { owner: Party, amount: Int64 } ;
  interface (this: Root) = { viewtype Iface:MyUnit; } ;
  interface (this: Token) = {
    viewtype Iface:TokenView;
    requires Iface:Root;
    method describe: Text;
    choice Burn (self) (arg: Unit) : Text
      , controllers Cons @Party [Iface:TokenView {owner} (view_interface @Iface:Token this)] (Nil @Party)
      to upure @Text (call_method @Iface:Token describe this);
    choice @nonConsuming ShowTo (self) (viewer: Party) : Text
      , controllers Cons @Party [Iface:TokenView {owner} (view_interface @Iface:Token this)] (Nil @Party)
      , observers Cons @Party [viewer] (Nil @Party)
      to upure @Text (call_method @Iface:Token describe this);
    choice @nonConsuming Amount (self) (arg: Unit) : Int64
      , controllers Cons @Party [Iface:TokenView {owner} (view_interface @Iface:Token this)] (Nil @Party)
      to ubind t : Iface:Token <- fetch_interface @Iface:Token self in
         upure @Int64 (Iface:TokenView {amount} (view_interface @Iface:Token t));
  } ;
  record @serializable Coin = { owner: Party, amount: Int64 } ;
  template (this : Coin) = {
    precondition True;
    signatories Cons @Party [Iface:Coin {owner} this] (Nil @Party);
    observers Nil @Party;
    implements Iface:Root { view = Iface:MyUnit {}; };
    implements Iface:Token {
      view = Iface:TokenView { owner = Iface:Coin {owner} this, amount = Iface:Coin {amount} this };
      method describe = APPEND_TEXT "coin of " (INT64_TO_TEXT (Iface:Coin {amount} this));
    };
  } ;
  record @serializable Badge = { owner: Party } ;
  template (this : Badge) = {
    precondition True;
    signatories Cons @Party [Iface:Badge {owner} this] (Nil @Party);
    observers Nil @Party;
    implements Iface:Root { view = Iface:MyUnit {}; };
  } ;
  record @serializable Driver = { p: Party } ;
  template (this : Driver) = {
    precondition True;
    signatories Cons @Party [Iface:Driver {p} this] (Nil @Party);
    observers Nil @Party;
    choice @nonConsuming BurnIt (self) (cid: ContractId Iface:Token) : Text
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to exercise_interface @Iface:Token Burn cid ();
    choice @nonConsuming AmountViaRoot (self) (cid: ContractId Iface:Root) : Int64
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to ubind r : Iface:Root <- fetch_interface @Iface:Root cid in
         upure @Int64 (Iface:TokenView {amount} (view_interface @Iface:Token (unsafe_from_required_interface @Iface:Root @Iface:Token cid r)));
    choice @nonConsuming IsToken (self) (cid: ContractId Iface:Root) : Bool
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to ubind r : Iface:Root <- fetch_interface @Iface:Root cid in
         upure @Bool (case from_required_interface @Iface:Root @Iface:Token r of None -> False | Some t -> True);
    choice @nonConsuming CoinAmount (self) (cid: ContractId Iface:Root) : Int64
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to ubind r : Iface:Root <- fetch_interface @Iface:Root cid in
         upure @Int64 (Iface:Coin {amount} (unsafe_from_interface @Iface:Root @Iface:Coin cid r));
    choice @nonConsuming KindOf (self) (cid: ContractId Iface:Root) : Text
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to ubind r : Iface:Root <- fetch_interface @Iface:Root cid in
         upure @Text (case EQUAL @TypeRep (interface_template_type_rep @Iface:Root r) (type_rep @Iface:Coin) of True -> "coin" | False -> "not a coin");
    choice @nonConsuming SignatoriesOf (self) (cid: ContractId Iface:Root) : List Party
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to ubind r : Iface:Root <- fetch_interface @Iface:Root cid in upure @(List Party) (signatory_interface @Iface:Root r);
    choice @nonConsuming Mint (self) (amount: Int64) : ContractId Iface:Token
      , controllers Cons @Party [Iface:Driver {p} this] (Nil @Party)
      to create_by_interface @Iface:Token (to_interface @Iface:Token @Iface:Coin (Iface:Coin { owner = Iface:Driver {p} this, amount = amount }));
  } ;
}
`;
const pkg = parsePackage(SRC, { minor: '1', selfPackageId: PKG });
const id = (name: string): TypeConId => ({ packageId: PKG, module: 'Iface', name });
const [COIN, BADGE, DRIVER, ROOT, TOKEN] = ['Coin', 'Badge', 'Driver', 'Root', 'Token'].map(id);

const alice = 'alice::1220aaaa';
const bob = 'bob::1220bbbb';
const ctx = (over: Partial<SubmitContext> = {}): SubmitContext => ({
  actAs: [alice],
  readAs: [],
  submissionSeed: Buffer.alloc(32, 5),
  participantId: 'participant1::1220ffff',
  preparationTime: 1_754_534_109_899_822n,
  ...over,
});

type Node = NonNullable<Extract<ReturnType<typeof nodesOf>[number], object>>;
function nodesOf(r: Extract<EngineResult, { tag: 'done' }>) {
  return r.transaction.nodes.map((n) => (n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined));
}

/** A ledger of the contracts the engine created, answering the engine's contract questions. */
class Ledger {
  readonly engine = new Engine(new CompiledPackages([pkg]));
  private readonly contracts = new Map<string, ContractInstance>();
  private seed = 0;

  submit(commands: EngineCommand[], over: Partial<SubmitContext> = {}): EngineResult {
    let r = this.engine.submit(commands, ctx({ submissionSeed: Buffer.alloc(32, ++this.seed), ...over }));
    while (r.tag === 'needContract') r = r.resume(this.contracts.get(r.contractId));
    if (r.tag === 'done') this.commit(r);
    return r;
  }

  private commit(r: Extract<EngineResult, { tag: 'done' }>): void {
    for (const n of nodesOf(r)) {
      if (n?.oneofKind === 'create') {
        const c = n.create;
        const t = c.templateId!;
        this.contracts.set(c.contractId, {
          contractId: c.contractId,
          templateId: { packageId: t.packageId, module: t.moduleName, name: t.entityName },
          packageName: c.packageName,
          argument: c.argument!,
          signatories: c.signatories,
          stakeholders: c.stakeholders,
          createdAt: 0n,
        });
      }
      if (n?.oneofKind === 'exercise' && n.exercise.consuming) this.contracts.delete(n.exercise.contractId);
    }
  }

  create(templateId: TypeConId, json: unknown, actAs = [alice]): string {
    const r = done(this.submit([{ kind: 'create', templateId, argument: { json } }], { actAs }));
    const n = nodesOf(r)[0];
    if (n?.oneofKind !== 'create') throw new Error('not a create');
    return n.create.contractId;
  }

  exercise(templateId: TypeConId, contractId: string, choice: string, json: unknown, actAs = [alice]): EngineResult {
    return this.submit([{ kind: 'exercise', templateId, contractId, choice, argument: { json } }], { actAs });
  }
}

function done(r: EngineResult): Extract<EngineResult, { tag: 'done' }> {
  if (r.tag !== 'done') throw new Error(`expected done, got ${JSON.stringify(r.tag === 'error' ? r.error : r.tag)}`);
  return r;
}
function errorOf(r: EngineResult) {
  if (r.tag !== 'error') throw new Error(`expected an error, got ${r.tag}`);
  return r.error;
}
const identifier = (t: TypeConId) => ({ packageId: t.packageId, moduleName: t.module, entityName: t.name });
const pretty = (t: TypeConId) => `Iface:${t.name}@${PKG.slice(0, 8)}`;

describe('commands by interface id', () => {
  it('runs the interface choice on the contract’s template: controllers from the view, result from a method', () => {
    const l = new Ledger();
    const coin = l.create(COIN, { owner: alice, amount: '5' });
    const r = done(l.exercise(TOKEN, coin, 'Burn', {}));
    expect(r.results[0]).toEqual({ t: 'text', v: 'coin of 5' });
    const [ex] = nodesOf(r) as Node[];
    expect(ex.oneofKind === 'exercise' && ex.exercise).toMatchObject({
      templateId: identifier(COIN),
      interfaceId: identifier(TOKEN),
      choiceId: 'Burn',
      consuming: true,
      actingParties: [alice],
    });
    expect(r.metadata.usedPackages).toEqual([PKG]);
    // consumed: exercising it again does not find it
    expect(errorOf(l.exercise(TOKEN, coin, 'Burn', {})).code).toBe('CONTRACT_NOT_FOUND');
  });

  it('authorizes the interface choice’s controllers (the view’s owner), not the submitter', () => {
    const l = new Ledger();
    const coin = l.create(COIN, { owner: alice, amount: '5' });
    const e = errorOf(l.exercise(TOKEN, coin, 'Burn', {}, [bob]));
    expect(e.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(e.message).toContain(`requires authorizers ${alice}, but only ${bob} were given`);
  });

  it('a non-consuming interface choice fetching by interface: a fetch node naming the interface', () => {
    const l = new Ledger();
    const coin = l.create(COIN, { owner: alice, amount: '8' });
    const r = done(l.exercise(TOKEN, coin, 'Amount', {}));
    expect(r.results[0]).toEqual({ t: 'int64', v: 8n });
    const [ex, fetch] = nodesOf(r) as Node[];
    expect(ex.oneofKind === 'exercise' && [ex.exercise.consuming, ex.exercise.interfaceId]).toEqual([
      false,
      identifier(TOKEN),
    ]);
    expect(fetch.oneofKind === 'fetch' && [fetch.fetch.templateId, fetch.fetch.interfaceId]).toEqual([
      identifier(COIN),
      identifier(TOKEN),
    ]);
  });

  it('an interface choice’s observers are the exercise node’s choice observers', () => {
    const l = new Ledger();
    const coin = l.create(COIN, { owner: alice, amount: '9' });
    const r = done(l.exercise(TOKEN, coin, 'ShowTo', bob));
    expect(r.results[0]).toEqual({ t: 'text', v: 'coin of 9' });
    const [ex] = nodesOf(r) as Node[];
    expect(
      ex.oneofKind === 'exercise' && [ex.exercise.choiceObservers, ex.exercise.stakeholders, ex.exercise.interfaceId],
    ).toEqual([[bob], [alice], identifier(TOKEN)]);
  });

  it('a contract whose template lacks the interface → CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE as Canton renders it', () => {
    const l = new Ledger();
    const badge = l.create(BADGE, { owner: alice });
    const e = errorOf(l.exercise(TOKEN, badge, 'Burn', {}));
    expect(e).toEqual({
      code: 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
      category: 8,
      message:
        `Interpretation error: Error: Update failed due to contract ${badge} not implementing an interface\n` +
        `Expected contract to implement interface ${pretty(TOKEN)} but contract has type ${pretty(BADGE)}`,
      resources: [
        ['CONTRACT_ID', badge],
        ['TEMPLATE_ID', `${PKG}:Iface:Badge`],
        ['INTERFACE_ID', `${PKG}:Iface:Token`],
      ],
    });
  });

  it('a choice the interface does not have is a preprocessing error; a create needs a template', () => {
    const l = new Ledger();
    const coin = l.create(COIN, { owner: alice, amount: '5' });
    expect(errorOf(l.exercise(ROOT, coin, 'Burn', {})).code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(
      errorOf(l.submit([{ kind: 'create', templateId: TOKEN, argument: { json: { owner: alice, amount: '1' } } }]))
        .code,
    ).toBe('COMMAND_PREPROCESSING_FAILED');
  });
});

describe('interfaces inside choice bodies', () => {
  it('exercise by interface from a template choice: nested node with the interface id', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const coin = l.create(COIN, { owner: alice, amount: '3' });
    const r = done(l.exercise(DRIVER, driver, 'BurnIt', coin));
    expect(r.results[0]).toEqual({ t: 'text', v: 'coin of 3' });
    const [outer, inner] = nodesOf(r) as Node[];
    expect(outer.oneofKind === 'exercise' && outer.exercise.interfaceId).toBeUndefined();
    expect(
      inner.oneofKind === 'exercise' && [
        inner.exercise.templateId,
        inner.exercise.interfaceId,
        inner.exercise.choiceId,
      ],
    ).toEqual([identifier(COIN), identifier(TOKEN), 'Burn']);
  });

  it('create by interface: the template’s create node', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const r = done(l.exercise(DRIVER, driver, 'Mint', '4'));
    const created = (nodesOf(r) as Node[])[1];
    expect(created.oneofKind === 'create' && created.create.templateId).toEqual(identifier(COIN));
  });

  it('required interfaces: from_required_interface and unsafe_from_required_interface', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const coin = l.create(COIN, { owner: alice, amount: '6' });
    const badge = l.create(BADGE, { owner: alice });
    expect(done(l.exercise(DRIVER, driver, 'IsToken', coin)).results[0]).toEqual({ t: 'bool', v: true });
    expect(done(l.exercise(DRIVER, driver, 'IsToken', badge)).results[0]).toEqual({ t: 'bool', v: false });
    expect(done(l.exercise(DRIVER, driver, 'AmountViaRoot', coin)).results[0]).toEqual({ t: 'int64', v: 6n });
    expect(errorOf(l.exercise(DRIVER, driver, 'AmountViaRoot', badge))).toEqual({
      code: 'CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE',
      category: 8,
      message:
        `Interpretation error: Error: Update failed due to contract ${badge} not implementing the requiring interface\n` +
        `Expected contract to implement interface ${pretty(TOKEN)} requirring the interface ${pretty(ROOT)} but contract has type ${pretty(BADGE)}`,
      resources: [
        ['CONTRACT_ID', badge],
        ['TEMPLATE_ID', `${PKG}:Iface:Badge`],
        ['INTERFACE_ID', `${PKG}:Iface:Root`],
        ['INTERFACE_ID', `${PKG}:Iface:Token`],
      ],
    });
  });

  it('fetch by interface of a contract whose template lacks it → CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const e = errorOf(l.exercise(DRIVER, driver, 'IsToken', driver));
    expect([e.code, e.message]).toEqual([
      'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
      `Interpretation error: Error: Update failed due to contract ${driver} not implementing an interface\n` +
        `Expected contract to implement interface ${pretty(ROOT)} but contract has type ${pretty(DRIVER)}`,
    ]);
  });

  it('unsafe_from_interface: the template’s record, or WRONGLY_TYPED_CONTRACT', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const coin = l.create(COIN, { owner: alice, amount: '2' });
    const badge = l.create(BADGE, { owner: alice });
    expect(done(l.exercise(DRIVER, driver, 'CoinAmount', coin)).results[0]).toEqual({ t: 'int64', v: 2n });
    expect(errorOf(l.exercise(DRIVER, driver, 'CoinAmount', badge))).toEqual({
      code: 'WRONGLY_TYPED_CONTRACT',
      category: 9,
      message: `Interpretation error: Error: Update failed due to wrongly typed contract id ${badge}\nExpected contract of type ${pretty(COIN)} but got ${pretty(BADGE)}`,
      resources: [
        ['CONTRACT_ID', badge],
        ['TEMPLATE_ID', `${PKG}:Iface:Coin`],
        ['TEMPLATE_ID', `${PKG}:Iface:Badge`],
      ],
    });
  });

  it('interface template type reps and signatories', () => {
    const l = new Ledger();
    const driver = l.create(DRIVER, { p: alice });
    const coin = l.create(COIN, { owner: alice, amount: '2' });
    const badge = l.create(BADGE, { owner: bob }, [bob]);
    expect(done(l.exercise(DRIVER, driver, 'KindOf', coin)).results[0]).toEqual({ t: 'text', v: 'coin' });
    expect(done(l.exercise(DRIVER, driver, 'SignatoriesOf', coin)).results[0]).toEqual({
      t: 'list',
      v: { h: { t: 'party', v: alice }, tl: null },
    });
    expect(done(l.exercise(DRIVER, driver, 'KindOf', l.create(BADGE, { owner: alice }))).results[0]).toEqual({
      t: 'text',
      v: 'not a coin',
    });
    // bob's badge: inside alice's choice the authorizers are the driver's signatory and controller, whoever submits
    const e = errorOf(
      l.submit(
        [{ kind: 'exercise', templateId: DRIVER, contractId: driver, choice: 'KindOf', argument: { json: badge } }],
        { actAs: [alice, bob] },
      ),
    );
    expect([e.code, e.message]).toEqual([
      'DAML_AUTHORIZATION_ERROR',
      `Interpretation error: Error: node NodeId(1) requires one of the stakeholders TreeSet(${bob}) of the fetched contract to be an authorizer, but authorizers were TreeSet(${alice})`,
    ]);
  });
});

describe('Any and TypeRep', () => {
  const engine = new Engine(new CompiledPackages([pkg]));
  const ev = (src: string) => {
    const r = engine.interpreter.evaluate(parseExpr(src, { minor: '1', selfPackageId: PKG }));
    if (r.tag !== 'done') throw new Error(JSON.stringify(r.tag === 'error' ? r.error : r.tag));
    return r.value;
  };

  it('to_any / from_any round-trips a value of the same type and refuses another', () => {
    expect(ev('from_any @Int64 (to_any @Int64 7)')).toEqual({ t: 'optional', v: { t: 'int64', v: 7n } });
    expect(ev('from_any @Text (to_any @Int64 7)')).toEqual({ t: 'optional', v: null });
    expect(ev('from_any @(List Int64) (to_any @(List Int64) (Cons @Int64 [1] (Nil @Int64)))')).toMatchObject({
      t: 'optional',
      v: { t: 'list' },
    });
    expect(ev('from_any @(List Text) (to_any @(List Int64) (Nil @Int64))')).toEqual({ t: 'optional', v: null });
    expect(ev('from_any @Iface:MyUnit (to_any @Iface:MyUnit (Iface:MyUnit {}))')).toMatchObject({
      t: 'optional',
      v: { t: 'record' },
    });
  });

  it('type reps compare by type', () => {
    expect(ev('EQUAL @TypeRep (type_rep @Iface:Coin) (type_rep @Iface:Coin)')).toEqual({ t: 'bool', v: true });
    expect(ev('EQUAL @TypeRep (type_rep @Iface:Coin) (type_rep @Iface:Badge)')).toEqual({ t: 'bool', v: false });
    expect(ev('EQUAL @TypeRep (type_rep @(List Int64)) (type_rep @(List Text))')).toEqual({ t: 'bool', v: false });
  });
});
