import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { ed25519Signature, ledgerEnd, onboardExternalParty } from '../../support/external-party';
import { EXCEPTIONS_PACKAGE_SRC } from '../../support/exceptions-package';

/**
 * Daml exceptions over HTTP, on a package written in Daml-LF text: a caught exception commits only what was not rolled
 * back, and LEDGER_EFFECTS shows no rollback node and nothing under one, the remaining events keeping the node ids of
 * the whole transaction (Canton's `TransactionTraversalUtils.scala`: ids in execution order, rollback subtrees counted and
 * skipped); FAIL_WITH_STATUS and unhandled exceptions are DAML_FAILURE JsCantonErrors on submit-and-wait and prepare
 * (`CommandExecutionErrors.scala` `FailureStatus`: the status's category, its metadata, `error_id`, `exercise_trace`).
 */
let ledger: TestLedger;
let alice: string;
let noteId: string;
let pkg8: string;
let n = 0;

const commands = (cmds: unknown[], over: Record<string, unknown> = {}) => ({
  commands: cmds,
  commandId: `exc-${n++}`,
  actAs: [alice],
  ...over,
});
const createAndExercise = (choice: string) => ({
  CreateAndExerciseCommand: {
    templateId: noteId,
    createArguments: { owner: alice, n: '0' },
    choice,
    choiceArgument: {},
  },
});
const wildcard = {
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
};
const format = (shape: string) => ({
  eventFormat: { filtersByParty: { [alice]: wildcard }, verbose: false },
  transactionShape: shape,
});

beforeAll(async () => {
  ledger = await startTestLedger();
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json.partyDetails
    .party as string;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }, { kind: { CanReadAs: { value: { party: alice } } } }],
  });
  const { dar, main } = await encodeDar(parsePackage(EXCEPTIONS_PACKAGE_SRC, { minor: '2' }));
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar,
  });
  expect(up.status, await up.text()).toBe(200);
  noteId = `${main.packageId}:Ex:Note`;
  pkg8 = main.packageId.slice(0, 8);
});
afterAll(async () => {
  await ledger?.close();
});

describe('a caught exception', () => {
  it('commits only the nodes outside rolled-back scopes; their events keep the transaction’s node ids', async () => {
    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      {
        commands: commands([createAndExercise('Nested')]),
        transactionFormat: format('TRANSACTION_SHAPE_LEDGER_EFFECTS'),
      },
      { as: 'app' },
    );
    expect(r.status, r.text).toBe(200);
    // The transaction: create (0), exercise Nested (1) → [rollback (2) → [create 1 (3), rollback (4) → [create 2 (5)], create 3 (6)], create 4 (7)]
    const events = r.json.transaction.events as Array<Record<string, any>>;
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['CreatedEvent', 'ExercisedEvent', 'CreatedEvent']);
    expect(events[0].CreatedEvent).toMatchObject({ nodeId: 0, createArgument: { owner: alice, n: '0' } });
    expect(events[1].ExercisedEvent).toMatchObject({
      nodeId: 1,
      choice: 'Nested',
      consuming: false,
      lastDescendantNodeId: 7,
    });
    expect(events[2].CreatedEvent).toMatchObject({ nodeId: 7, createArgument: { owner: alice, n: '4' } });

    // ACS_DELTA: the two creates; the active contracts: no contract created under a rollback.
    const byId = await ledger.call(
      'POST',
      '/v2/updates/update-by-id',
      {
        updateId: r.json.transaction.updateId,
        updateFormat: { includeTransactions: format('TRANSACTION_SHAPE_ACS_DELTA') },
      },
      { as: 'app' },
    );
    expect(byId.status, byId.text).toBe(200);
    const delta = byId.json.update.Transaction.value.events as Array<Record<string, any>>;
    expect(delta.map((e) => [Object.keys(e)[0], e.CreatedEvent?.nodeId])).toEqual([
      ['CreatedEvent', 0],
      ['CreatedEvent', 7],
    ]);
    const acs = await ledger.call(
      'POST',
      '/v2/state/active-contracts',
      {
        eventFormat: { filtersByParty: { [alice]: wildcard } },
        activeAtOffset: r.json.transaction.offset,
      },
      { as: 'app' },
    );
    expect(acs.status, acs.text).toBe(200);
    const created = (acs.json as Array<Record<string, any>>).map(
      (c) => c.contractEntry.JsActiveContract.createdEvent.createArgument.n,
    );
    expect(created.sort()).toEqual(['0', '4']);
  });

  it('rollback shapes are normalized as Canton does (a leading rolled-back scope splits, a trailing one merges)', async () => {
    const tree = async (choice: string) => {
      const r = await ledger.call(
        'POST',
        '/v2/commands/submit-and-wait-for-transaction',
        {
          commands: commands([createAndExercise(choice)]),
          transactionFormat: format('TRANSACTION_SHAPE_LEDGER_EFFECTS'),
        },
        { as: 'app' },
      );
      expect(r.status, r.text).toBe(200);
      return (r.json.transaction.events as Array<Record<string, any>>).map((e) =>
        e.CreatedEvent
          ? `create ${e.CreatedEvent.nodeId}`
          : `exercise ${e.ExercisedEvent.nodeId}..${e.ExercisedEvent.lastDescendantNodeId}`,
      );
    };
    // exercise (1) → [rollback (2) → [create (3)], rollback (4) → [create (5)]]
    expect(await tree('Leading')).toEqual(['create 0', 'exercise 1..5']);
    // exercise (1) → [rollback (2) → [create (3)]], create (4)
    expect(await tree('Empty')).toEqual(['create 0', 'exercise 1..2', 'create 2']);
  });
});

describe('a caught exception through prepare and execute (an external party)', () => {
  it('the prepared transaction holds the normalized rollback nodes and seeds; executed, it commits what was not rolled back', async () => {
    const ext = await onboardExternalParty(ledger, 'ext-exc');
    const grant = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
      rights: [{ kind: { CanActAs: { value: { party: ext.partyId } } } }],
    });
    expect(grant.status, grant.text).toBe(200);
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    const run = async (command: unknown) => {
      const prepared = await ledger.call('POST', '/v2/interactive-submission/prepare', {
        commandId: randomUUID(),
        actAs: [ext.partyId],
        synchronizerId: sync,
        commands: [command],
      });
      expect(prepared.status, prepared.text).toBe(200);
      const hash = Buffer.from(prepared.json.preparedTransactionHash, 'base64');
      const executed = await ledger.call('POST', '/v2/interactive-submission/executeAndWaitForTransaction', {
        preparedTransaction: prepared.json.preparedTransaction,
        partySignatures: {
          signatures: [{ party: ext.partyId, signatures: [ed25519Signature(ext.key, hash, ext.fingerprint)] }],
        },
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          eventFormat: { filtersByParty: { [ext.partyId]: { cumulative: [] } }, verbose: false },
        },
      });
      expect(executed.status, executed.text).toBe(200);
      return {
        pt: PreparedTransaction.fromBinary(Buffer.from(prepared.json.preparedTransaction, 'base64')),
        events: executed.json.transaction.events as Array<Record<string, any>>,
      };
    };
    const note = (await run({ CreateCommand: { templateId: noteId, createArguments: { owner: ext.partyId, n: '0' } } }))
      .events[0].CreatedEvent.contractId as string;

    const { pt, events } = await run({
      ExerciseCommand: { templateId: noteId, contractId: note, choice: 'Nested', choiceArgument: {} },
    });
    // exercise (0) → [rollback (1) → [create 1 (2), rollback (3) → [create 2 (4)], create 3 (5)], create 4 (6)]
    const kinds = pt.transaction!.nodes.map(
      (x) => `${x.nodeId} ${x.versionedNode.oneofKind === 'v1' ? x.versionedNode.v1.nodeType.oneofKind : '?'}`,
    );
    expect(kinds).toEqual(['0 exercise', '1 rollback', '2 create', '3 rollback', '4 create', '5 create', '6 create']);
    expect(pt.transaction!.nodeSeeds.map((x) => x.nodeId)).toEqual([0, 2, 4, 5, 6]);
    expect(
      events.map((e) =>
        e.CreatedEvent
          ? `create ${e.CreatedEvent.nodeId} ${e.CreatedEvent.createArgument.n}`
          : `exercise ${e.ExercisedEvent.nodeId}..${e.ExercisedEvent.lastDescendantNodeId}`,
      ),
    ).toEqual(['exercise 0..6', 'create 6 4']);
  });
});

describe('DAML_FAILURE', () => {
  async function refused(path: string, body: unknown) {
    const before = await ledgerEnd(ledger);
    const r = await ledger.call('POST', path, body, { as: 'app' });
    expect(await ledgerEnd(ledger)).toBe(before);
    return r;
  }

  for (const path of ['/v2/commands/submit-and-wait', '/v2/interactive-submission/prepare']) {
    it(`FAIL_WITH_STATUS on ${path}: the status's error id, category and metadata`, async () => {
      const body = commands([createAndExercise('Status')]);
      const r = await refused(path, body);
      expect(r.status, r.text).toBe(400);
      expect(r.json).toMatchObject({
        code: 'DAML_FAILURE',
        cause:
          'Interpretation error: Error: User failure: LEDGERLINE_TEST_FAILURE (error category 8): the status message',
        errorCategory: 8,
        grpcCodeValue: 3,
      });
      expect(r.json.context).toMatchObject({
        k1: 'v1',
        k2: 'v2',
        error_id: 'LEDGERLINE_TEST_FAILURE',
        exercise_trace: expect.stringMatching(
          new RegExp(
            `^    in choice ${pkg8}:Ex:Note:Status on contract 00[0-9a-f]{8} \\(#1\\)\n    in create-and-exercise command ${pkg8}:Ex:Note:Status\\.\n$`,
          ),
        ),
      });
    });

    it(`an unhandled exception on ${path}: UNHANDLED_EXCEPTION/<Module>:<Exception> and its message`, async () => {
      const body = commands([createAndExercise('Unhandled')]);
      const r = await refused(path, body);
      expect(r.status, r.text).toBe(400);
      expect(r.json).toMatchObject({
        code: 'DAML_FAILURE',
        cause:
          'Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Ex:Boom (error category 9): nobody catches this',
        errorCategory: 9,
        grpcCodeValue: 9,
      });
      expect(r.json.context).toMatchObject({
        error_id: 'UNHANDLED_EXCEPTION/Ex:Boom',
        exercise_trace: expect.stringContaining(`in choice ${pkg8}:Ex:Note:Unhandled on contract 00`),
      });
    });
  }
});
