/**
 * The order in which the engine evaluates a node's pieces, asks for contracts and checks activeness, types,
 * authorization and value nesting — and so which error wins — restating Canton's `speedy/EvaluationOrderTest.scala`
 * without contract keys (as its LF 2.2 suite runs). Each case's log is the TRACE messages of the package's labelled
 * expressions, with "queries contract" where the engine asked for the contract, from "starts test" on.
 *
 * Canton's logs also record when the authorization checker runs ("authorizes create" …). No API observes that moment
 * directly; what is observable is that a failing check stops at exactly that point, so the logs below keep Canton's
 * entries, `observable()` drops them, and each success case has a denied twin whose log ends where the entry stood.
 */
import { describe, expect, it } from 'vitest';
import { valueToProto, type ContractInstance } from '@ledgerline/daml-lf';
import { parseExpr } from '@ledgerline/daml-lf/testing';
import {
  Box,
  Dummy,
  Fragile,
  Human,
  PKG_ID,
  Person,
  T,
  alice,
  bob,
  cId,
  charlie,
  doneOf,
  errorOf,
  newEngine,
  runCase,
  storedDummy,
  storedHuman,
  storedT,
  submit,
  type Case,
  type Outcome,
} from './semantics-package';

const AUTHORIZES = /^authorizes /;
const observable = (log: string[]) => log.filter((m) => !AUTHORIZES.test(m));
/** Canton's log up to (not including) its authorization entry: where a denied twin stops. */
const untilAuthorization = (log: string[]) =>
  log.slice(
    0,
    log.findIndex((m) => AUTHORIZES.test(m)),
  );

const pretty = (id: { module: string; name: string }) => `${id.module}:${id.name}@${PKG_ID.slice(0, 8)}`;
const ok = (o: Outcome, log: string[]) => {
  doneOf(o);
  expect(o.log).toEqual(observable(log));
};
const fails = (o: Outcome, code: string, log: string[]) => {
  expect(errorOf(o).code).toBe(code);
  expect(o.log).toEqual(log);
  return errorOf(o);
};
const CID = '00[0-9a-f]{64}(?:ca)?';
const notActive = (o: Outcome, template: typeof T) => {
  const e = fails(o, 'CONTRACT_NOT_ACTIVE', ['starts test']);
  expect(e.message).toMatch(
    new RegExp(
      `^Interpretation error: Error: Update failed due to fetch of an inactive contract ${CID} \\(${pretty(template)}\\)\\.\\nThe contract had been consumed in sub-transaction #NodeId\\(\\d+\\):$`,
    ),
  );
};
const wronglyTyped = (o: Outcome, log: string[]) => {
  const e = fails(o, 'WRONGLY_TYPED_CONTRACT', log);
  expect(e.message).toMatch(
    new RegExp(
      `^Interpretation error: Error: Update failed due to wrongly typed contract id ${CID}\nExpected contract of type ${pretty(T)} but got ${pretty(Dummy)}$`,
    ),
  );
};
const notImplementing = (o: Outcome, log: string[]) => {
  const e = fails(o, 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE', log);
  expect(e.message).toMatch(
    new RegExp(
      `^Interpretation error: Error: Update failed due to contract ${CID} not implementing an interface\nExpected contract to implement interface ${pretty(Person)} but contract has type ${pretty(Dummy)}$`,
    ),
  );
};

const CONTRACT_INFO = ['precondition', 'contract signatories', 'contract observers'];

describe('native folds evaluate as their LF definitions do', () => {
  const traced = (fold: string) => {
    const log: string[] = [];
    const r = newEngine().interpreter.evaluate(
      parseExpr(`Test:testFold (${fold})`, { minor: '1', selfPackageId: PKG_ID }),
      { onTrace: (m) => log.push(m) },
    );
    expect(r).toMatchObject({ tag: 'done', value: { t: 'text' } });
    return log;
  };
  it('FOLDL', () => {
    expect(traced('M:foldl @Text @Text')).toEqual(['0', '1', '01', '2', '012', '3']);
    expect(traced('FOLDL @Text @Text')).toEqual(traced('M:foldl @Text @Text'));
  });
  it('FOLDR', () => {
    expect(traced('M:foldr @Text @Text')).toEqual(['3', '0', '2', '30', '1', '230']);
    expect(traced('FOLDR @Text @Text')).toEqual(traced('M:foldr @Text @Text'));
  });
});

for (const action of ['CreateAction', 'CreateInterface'] as const) {
  describe(action === 'CreateAction' ? 'create' : 'create by interface', () => {
    const create = (over: Partial<Case> = {}) => runCase({ authority: [alice], action, sig: alice, obs: bob, ...over });
    const log = ['starts test', ...CONTRACT_INFO, 'authorizes create', 'ends test'];

    it('success: precondition, signatories, observers, authorization', () => {
      ok(create(), log);
      fails(create({ authority: [bob] }), 'DAML_AUTHORIZATION_ERROR', untilAuthorization(log));
    });

    it('a precondition that is False stops before the signatories', () => {
      const e = fails(create({ precondition: false }), 'TEMPLATE_PRECONDITION_VIOLATED', [
        'starts test',
        'precondition',
      ]);
      expect(e.message).toContain(`Update failed due to precondition violation when creating`);
    });

    it('an argument nested too deep is refused after the observers, before authorization', () => {
      const e = fails(create({ nesting: 100, authority: [bob] }), 'VALUE_NESTING', ['starts test', ...CONTRACT_INFO]);
      expect(e.message).toBe('Interpretation error: Error: Value exceeds maximum nesting value of 100');
    });
  });
}

describe('exercise', () => {
  const exe = (over: Partial<Case>) =>
    runCase({ authority: [alice], action: 'ExerciseById', party: alice, sig: alice, obs: bob, ...over });
  const choice = [
    'template choice controllers',
    'template choice observers',
    'template choice authorizers',
    'authorizes exercise',
    'choice body',
    'ends test',
  ];

  describe('a ledger contract not read before', () => {
    const ledger = { [cId]: storedT() };
    const log = ['starts test', 'queries contract', ...CONTRACT_INFO, ...choice];

    it('success: the contract is asked for, its metadata recomputed, then the choice runs', () => {
      ok(exe({ ledger }), log);
      fails(
        exe({ ledger, authority: [alice, charlie], party: charlie }),
        'DAML_AUTHORIZATION_ERROR',
        untilAuthorization(log),
      );
    });
    it('its precondition, recomputed, is False: TEMPLATE_PRECONDITION_VIOLATED', () =>
      fails(exe({ ledger: { [cId]: storedT({ precondition: false }) } }), 'TEMPLATE_PRECONDITION_VIOLATED', [
        'starts test',
        'queries contract',
        'precondition',
      ]));
    it('its recomputed parties differ from the stored ones: INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED', () => {
      const e = fails(
        exe({ ledger: { [cId]: { ...storedT(), signatories: [bob] } } }),
        'INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED',
        ['starts test', 'queries contract', ...CONTRACT_INFO],
      );
      expect(e.message.split('\n').slice(0, 1)).toEqual([
        `Interpretation error: Error: Validation fails when trying to upgrade the contract ${cId} from ${pretty(T)} to ${pretty(T)}`,
      ]);
      expect(e.message).toContain(`original signatories are { '${bob}' }\noriginal observers are { '${alice}' }\n`);
      expect(e.message).toContain(`recomputed signatories are { '${alice}' }\nrecomputed observers are { '${bob}' }`);
    });
    it('an exception its metadata throws cannot be caught (Canton: SEPreventCatch), unlike the choice body’s own', () => {
      const onBox = (choice: string, argument: unknown, ledger = {}) =>
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
          { actAs: [alice], ledger },
        );
      expect(doneOf(onBox('TryThrow', {})).results[0]).toEqual({ t: 'bool', v: false });
      const fragile = (fine: boolean): ContractInstance => ({
        contractId: cId,
        templateId: Fragile,
        packageName: 'engine-semantics',
        argument: valueToProto({
          t: 'record',
          id: Fragile,
          f: ['p', 'fine'],
          v: [
            { t: 'party', v: alice },
            { t: 'bool', v: fine },
          ],
        }),
        signatories: [alice],
        stakeholders: [alice],
        createdAt: 0n,
      });
      expect(doneOf(onBox('TryFetch', cId, { [cId]: fragile(true) })).results[0]).toEqual({ t: 'bool', v: true });
      expect(errorOf(onBox('TryFetch', cId, { [cId]: fragile(false) }))).toMatchObject({
        code: 'DAML_FAILURE',
        metadata: { error_id: 'UNHANDLED_EXCEPTION/Extra:Oops' },
      });
    });
    it('a contract of another template: WRONGLY_TYPED_CONTRACT before its metadata', () =>
      wronglyTyped(exe({ ledger: { [cId]: storedDummy() } }), ['starts test', 'queries contract']));
    it('an unknown contract: CONTRACT_NOT_FOUND', () =>
      fails(exe({}), 'CONTRACT_NOT_FOUND', ['starts test', 'queries contract']));
    it('a choice argument nested too deep is refused after the choice authorizers, before authorization', () =>
      fails(
        exe({ ledger, argParams: { Left: 100 }, authority: [alice, charlie], party: charlie }),
        'VALUE_NESTING',
        untilAuthorization(log),
      ));
    it('a choice result nested too deep is refused after the body', () =>
      fails(exe({ ledger, argParams: { Right: 100 } }), 'VALUE_NESTING', observable(log).slice(0, -1)));
  });

  describe('a ledger contract read before', () => {
    const ledger = { [cId]: storedT() };
    it('success: no second question, no second metadata', () =>
      ok(exe({ ledger, prelude: 'FetchT' }), ['starts test', ...choice]));
    it('archived: CONTRACT_NOT_ACTIVE', () => notActive(exe({ ledger, prelude: 'ArchiveT' }), T));
    it('of another template: WRONGLY_TYPED_CONTRACT', () =>
      wronglyTyped(exe({ ledger: { [cId]: storedDummy() }, prelude: 'FetchDummy' }), ['starts test']));
    it('of another template and archived: activeness is checked first', () =>
      notActive(exe({ ledger: { [cId]: storedDummy() }, prelude: 'ArchiveDummy' }), Dummy));
  });

  describe('a contract created in the transaction', () => {
    it('success', () => ok(exe({ prelude: 'CreateT' }), ['starts test', ...choice]));
    it('archived: CONTRACT_NOT_ACTIVE', () => notActive(exe({ prelude: 'CreateArchiveT' }), T));
    it('of another template: WRONGLY_TYPED_CONTRACT', () =>
      wronglyTyped(exe({ prelude: 'CreateDummy' }), ['starts test']));
    it('of another template and archived: activeness is checked first', () =>
      notActive(exe({ prelude: 'CreateArchiveDummy' }), Dummy));
  });
});

for (const action of ['ExerciseInterface', 'ExerciseInterfaceWithGuard'] as const) {
  describe(action === 'ExerciseInterface' ? 'exercise by interface' : 'exercise by interface with a guard', () => {
    const exe = (over: Partial<Case>) => runCase({ authority: [alice], action, sig: alice, obs: alice, ...over });
    const withGuard = (log: string[]) =>
      action === 'ExerciseInterface' ? log.filter((m) => m !== 'interface guard') : log;
    const choice = withGuard([
      'interface guard',
      'interface choice controllers',
      'interface choice observers',
      'authorizes exercise',
      'choice body',
      'ends test',
    ]);

    it('a ledger contract not read before: asked for, metadata, guard, controllers, observers, body', () => {
      const log = ['starts test', 'queries contract', ...CONTRACT_INFO, ...choice];
      ok(exe({ ledger: { [cId]: storedHuman() } }), log);
      fails(
        exe({ ledger: { [cId]: storedHuman() }, authority: [bob] }),
        'DAML_AUTHORIZATION_ERROR',
        untilAuthorization(log),
      );
    });
    it('a ledger contract not implementing the interface', () =>
      notImplementing(exe({ ledger: { [cId]: storedDummy() } }), ['starts test', 'queries contract']));
    it('a ledger contract read before', () =>
      ok(exe({ ledger: { [cId]: storedHuman() }, prelude: 'FetchHuman' }), ['starts test', ...choice]));
    it('a ledger contract archived before', () =>
      notActive(exe({ ledger: { [cId]: storedHuman() }, prelude: 'ArchiveHuman' }), Human));
    it('a ledger contract read before, not implementing the interface', () =>
      notImplementing(exe({ ledger: { [cId]: storedDummy() }, prelude: 'FetchDummy' }), ['starts test']));
    it('a ledger contract archived before, not implementing the interface: activeness first', () =>
      notActive(exe({ ledger: { [cId]: storedDummy() }, prelude: 'ArchiveDummy' }), Dummy));
    it('a contract created in the transaction', () => ok(exe({ prelude: 'CreateHuman' }), ['starts test', ...choice]));
    it('a contract created and archived in the transaction', () =>
      notActive(exe({ prelude: 'CreateArchiveHuman' }), Human));
    it('a contract created in the transaction, not implementing the interface', () =>
      notImplementing(exe({ prelude: 'CreateDummy' }), ['starts test']));
    it('a contract created and archived, not implementing the interface: activeness first', () =>
      notActive(exe({ prelude: 'CreateArchiveDummy' }), Dummy));
  });
}

for (const action of ['FetchById', 'FetchInterface'] as const) {
  describe(action === 'FetchById' ? 'fetch' : 'fetch by interface', () => {
    const byInterface = action === 'FetchInterface';
    const stored = byInterface ? storedHuman() : storedT();
    const fetch = (over: Partial<Case>) =>
      runCase({ authority: [alice], action, party: alice, sig: alice, obs: bob, ...over });
    const wrong = (o: Outcome, log: string[]) => (byInterface ? notImplementing(o, log) : wronglyTyped(o, log));
    const [readBefore, archiveBefore, create, createArchive] = byInterface
      ? (['FetchHuman', 'ArchiveHuman', 'CreateHuman', 'CreateArchiveHuman'] as const)
      : (['FetchT', 'ArchiveT', 'CreateT', 'CreateArchiveT'] as const);

    it('a ledger contract not read before: asked for, metadata, authorization', () => {
      const log = ['starts test', 'queries contract', ...CONTRACT_INFO, 'authorizes fetch', 'ends test'];
      ok(fetch({ ledger: { [cId]: stored } }), log);
      fails(
        fetch({ ledger: { [cId]: stored }, authority: [alice, charlie], party: charlie }),
        'DAML_AUTHORIZATION_ERROR',
        untilAuthorization(log),
      );
    });
    it('a ledger contract of another template', () =>
      wrong(fetch({ ledger: { [cId]: storedDummy() } }), ['starts test', 'queries contract']));
    it('an unknown contract', () => fails(fetch({}), 'CONTRACT_NOT_FOUND', ['starts test', 'queries contract']));
    it('a ledger contract read before', () =>
      ok(fetch({ ledger: { [cId]: stored }, prelude: readBefore }), ['starts test', 'authorizes fetch', 'ends test']));
    it('a ledger contract archived before', () =>
      notActive(fetch({ ledger: { [cId]: stored }, prelude: archiveBefore }), byInterface ? Human : T));
    it('a ledger contract read before, of another template', () =>
      wrong(fetch({ ledger: { [cId]: storedDummy() }, prelude: 'FetchDummy' }), ['starts test']));
    it('a ledger contract archived before, of another template: activeness first', () =>
      notActive(fetch({ ledger: { [cId]: storedDummy() }, prelude: 'ArchiveDummy' }), Dummy));
    it('a contract created in the transaction', () =>
      ok(fetch({ prelude: create }), ['starts test', 'authorizes fetch', 'ends test']));
    it('a contract created and archived in the transaction', () =>
      notActive(fetch({ prelude: createArchive }), byInterface ? Human : T));
    it('a contract created in the transaction, of another template', () =>
      wrong(fetch({ prelude: 'CreateDummy' }), ['starts test']));
    it('a contract created and archived, of another template: activeness first', () =>
      notActive(fetch({ prelude: 'CreateArchiveDummy' }), Dummy));
  });
}
