/**
 * Authorization of creates, exercises and fetches, restating the cases of Canton's `speedy/AuthorizationTest.scala`
 * (contract keys aside: LF 2.1 has none) plus the rules of `AuthorizationChecker.scala` the cases do not reach (no
 * signatories, no controllers, explicit choice authorizers). The failure is DAML_AUTHORIZATION_ERROR with Canton's
 * rendering (`speedy/Pretty.scala`): node ids count the `Root` create and `Run` exercise the harness adds (0 and 1).
 */
import { describe, expect, it } from 'vitest';
import {
  Box,
  Human,
  Owned,
  T,
  alice,
  bob,
  cId,
  charlie,
  doneOf,
  errorOf,
  runCase,
  storedHuman,
  storedT,
  submit,
  type Case,
} from './semantics-package';
import { qualifiedNameToString, type TypeConId } from '@ledgerline/daml-lf';

const tid = (id: TypeConId) => qualifiedNameToString(id);
const denied = (c: Case) => {
  const e = errorOf(runCase(c));
  expect(e.code).toBe('DAML_AUTHORIZATION_ERROR');
  expect(e.category).toBe(8);
  return e.message;
};
const interp = (m: string) => `Interpretation error: Error: ${m}`;
const missing = (node: number, id: TypeConId, required: string, given: string) =>
  interp(`node NodeId(${node}) (${tid(id)}) requires authorizers ${required}, but only ${given} were given`);
const fetchMissing = (node: number, stakeholders: string, authorizers: string) =>
  interp(
    `node NodeId(${node}) requires one of the stakeholders ${stakeholders} of the fetched contract to be an authorizer, but authorizers were ${authorizers}`,
  );

describe('create', () => {
  it('a create signed by alice with only bob’s authority', () => {
    expect(denied({ authority: [bob], action: 'CreateAction', sig: alice, obs: bob })).toBe(missing(2, T, alice, bob));
  });

  it('a create by interface signed by alice with only bob’s authority (the template is named)', () => {
    expect(denied({ authority: [bob], action: 'CreateInterface', sig: alice, obs: bob })).toBe(
      missing(2, Human, alice, bob),
    );
  });

  it('at the root the submitters are a Scala Set: listed in actAs order, not sorted', () => {
    const create = { kind: 'create' as const, templateId: Owned, argument: { json: { owner: alice } } };
    expect(errorOf(submit([create], { actAs: [charlie, bob] })).message).toBe(
      missing(0, Owned, alice, `${charlie},${bob}`),
    );
    expect(doneOf(submit([create], { actAs: [charlie, alice] })).transaction.nodes).toHaveLength(1);
  });
});

describe('exercise', () => {
  // Canton: the Helper of charlie exercises T's Choice, which alice controls; committers alice and charlie.
  const exe = (prelude: Case['prelude']): Case => ({
    authority: [alice, charlie],
    prelude,
    party: charlie,
    sig: alice,
    obs: bob,
    action: 'ExerciseById',
    ledger: { [cId]: storedT() },
  });

  it('of a ledger contract not read before', () => {
    expect(denied(exe('NoPrelude'))).toBe(missing(4, T, alice, charlie));
  });

  it('of a ledger contract read before (fetched first)', () => {
    expect(denied(exe('FetchT'))).toBe(missing(5, T, alice, charlie));
  });

  it('of a contract created in the transaction', () => {
    expect(denied(exe('CreateT'))).toBe(missing(5, T, alice, charlie));
  });

  for (const action of ['ExerciseInterface', 'ExerciseInterfaceWithGuard'] as const) {
    describe(`by interface (${action})`, () => {
      it('of a ledger contract not read before: the template’s id, the interface choice’s controller', () => {
        expect(denied({ authority: [charlie], action, ledger: { [cId]: storedHuman() } })).toBe(
          missing(2, Human, alice, charlie),
        );
      });

      it('of a ledger contract read before', () => {
        expect(denied({ authority: [bob], prelude: 'FetchHuman', action, ledger: { [cId]: storedHuman() } })).toBe(
          missing(3, Human, alice, bob),
        );
      });

      it('of a contract created in the transaction (controller bob, authority alice)', () => {
        expect(denied({ authority: [alice], prelude: 'CreateHuman', sig: alice, obs: bob, action })).toBe(
          missing(3, Human, bob, alice),
        );
      });
    });
  }
});

describe('fetch', () => {
  // Canton: the Helper of charlie fetches T (stakeholders alice and bob); inside a choice the authorizers are a TreeSet.
  const fetch = (prelude: Case['prelude']): Case => ({
    authority: [alice, charlie],
    prelude,
    party: charlie,
    sig: alice,
    obs: bob,
    action: 'FetchById',
    ledger: { [cId]: storedT() },
  });
  const stakeholders = `TreeSet(${alice}, ${bob})`;

  it('of a ledger contract not read before', () => {
    expect(denied(fetch('NoPrelude'))).toBe(fetchMissing(4, stakeholders, `TreeSet(${charlie})`));
  });

  it('of a ledger contract read before', () => {
    expect(denied(fetch('FetchT'))).toBe(fetchMissing(5, stakeholders, `TreeSet(${charlie})`));
  });

  it('of a contract created in the transaction', () => {
    expect(denied(fetch('CreateT'))).toBe(fetchMissing(5, stakeholders, `TreeSet(${charlie})`));
  });

  it('by a stakeholder: the fetch node’s acting parties are the authorizers among the stakeholders', () => {
    const d = doneOf(
      runCase({ authority: [alice, charlie], prelude: 'FetchT', action: 'ExerciseById', ledger: { [cId]: storedT() } }),
    );
    const fetchNode = d.transaction.nodes[2].versionedNode;
    expect(
      fetchNode.oneofKind === 'v1' &&
        fetchNode.v1.nodeType.oneofKind === 'fetch' &&
        fetchNode.v1.nodeType.fetch.actingParties,
    ).toEqual([alice]);
  });
});

describe('choice controllers, observers and explicit authorizers', () => {
  const onBox = (choice: string, argument: unknown, actAs: string[]) =>
    submit(
      [
        {
          kind: 'createAndExercise',
          templateId: Box,
          createArgument: { json: { a: alice, b: bob } },
          choice,
          choiceArgument: { json: argument },
        },
      ],
      { actAs },
    );
  const exerciseNode = (o: ReturnType<typeof onBox>) => {
    const n = doneOf(o).transaction.nodes[1].versionedNode;
    if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'exercise') throw new Error('not an exercise');
    return n.v1.nodeType.exercise;
  };

  it('a choice without controllers is refused', () => {
    expect(errorOf(onBox('NoControllers', {}, [alice])).message).toBe(
      interp(`node NodeId(1) (${tid(Box)}) has no controllers`),
    );
  });

  it('explicit authorizers must not be empty', () => {
    expect(errorOf(onBox('NoAuthorizers', {}, [alice])).message).toBe(
      interp(`node NodeId(1) (${tid(Box)}) has no authorizers`),
    );
  });

  it('explicit authorizers are required with the controllers', () => {
    expect(errorOf(onBox('AsB', bob, [alice])).message).toBe(missing(1, Box, [alice, bob].sort().join(','), alice));
  });

  it('the body has the explicit authorizers’ authority only, not the signatories’ and controllers’', () => {
    const created = exerciseNode(onBox('AsB', bob, [alice, bob]));
    expect(created.actingParties).toEqual([alice]);
    expect(errorOf(onBox('AsB', alice, [alice, bob])).message).toBe(missing(2, Owned, alice, bob));
  });

  it('without explicit authorizers the body has the signatories’ and controllers’ authority', () => {
    expect(errorOf(onBox('Make', bob, [alice, bob])).message).toBe(missing(2, Owned, bob, alice));
    expect(doneOf(onBox('Make', alice, [alice])).transaction.nodes).toHaveLength(3);
  });

  it('choice observers are evaluated and recorded on the exercise node', () => {
    expect(exerciseNode(onBox('Observed', charlie, [alice])).choiceObservers).toEqual([charlie]);
  });
});
