import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Metadata_InputContract } from '@canton-network/core-ledger-proto';
import { allocateActingParty, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ledgerWithPingDar, PING, PING_PKG } from '../../support/ping-dar';

/**
 * Contract ids the engine's transactions commit with: the local id with Canton's V12 suffix (`ca12` ‖ `1220` ‖ 32 bytes,
 * `CantonContractIdVersion.scala`), the same id everywhere the transaction names it (exercised contracts it created,
 * exercise results, created-event blobs), through submit-and-wait and async submit; a command naming the unsuffixed id
 * is refused as Canton's preprocessor refuses it (`engine/refinement/ValueTranslator.scala`).
 */
const SUFFIXED = /^00[0-9a-f]{64}ca121220[0-9a-f]{64}$/;

describeWithDars('committed contract ids on the engine (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    ({ ledger, sync } = await ledgerWithPingDar(darsRoot));
    const party = (hint: string) => allocateActingParty(ledger, hint, sync);
    alice = await party('alice');
    bob = await party('bob');
  });
  afterAll(async () => {
    await ledger?.close();
  });

  const commands = (cmds: unknown[], actAs: string[]) => ({
    commands: cmds,
    commandId: randomUUID(),
    userId: ledger.config.adminUser,
    actAs,
    readAs: [],
    synchronizerId: sync,
  });
  const effects = (parties: string[]) => ({
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    eventFormat: {
      filtersByParty: Object.fromEntries(
        parties.map((p) => [
          p,
          { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] },
        ]),
      ),
      verbose: true,
    },
  });
  const submit = (cmds: unknown[], actAs: string[], parties = actAs) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: commands(cmds, actAs),
      transactionFormat: effects(parties),
    });
  const bong = (entity: string) => `${PING_PKG}:Canton.Internal.Bong:${entity}`;
  const blobContractId = (blob: string) => {
    const ic = Metadata_InputContract.fromBinary(Buffer.from(blob, 'base64'));
    return ic.contract.oneofKind === 'v1' ? ic.contract.v1.contractId : undefined;
  };

  it('CreateAndExercise: the exercised contract, the result and the blobs carry the suffixed ids of this transaction', async () => {
    const proposal = {
      id: 'cids',
      initiator: alice,
      candidates: [alice],
      validators: [],
      responders: [bob],
      maxLevel: '2',
      timeout: '2007-04-05T14:30:05Z',
    };
    const r = await submit(
      [
        {
          CreateAndExerciseCommand: {
            templateId: bong('BongProposal'),
            createArguments: proposal,
            choice: 'Accept',
            choiceArgument: { validator: alice },
          },
        },
      ],
      [alice],
    );
    expect(r.status, r.text).toBe(200);
    const [created, exercised, explode] = r.json.transaction.events;
    for (const c of [created.CreatedEvent, explode.CreatedEvent]) {
      expect(c.contractId).toMatch(SUFFIXED);
      expect(blobContractId(c.createdEventBlob)).toBe(c.contractId);
    }
    expect(exercised.ExercisedEvent).toMatchObject({
      contractId: created.CreatedEvent.contractId,
      choice: 'Accept',
      exerciseResult: { tag: 'Right', value: explode.CreatedEvent.contractId },
    });

    // The next command names the suffixed id; its results name the ids it created.
    const next = await submit(
      [
        {
          ExerciseCommand: {
            templateId: bong('Explode'),
            contractId: explode.CreatedEvent.contractId,
            choice: 'ProcessExplode',
            choiceArgument: { winner: bob },
          },
        },
      ],
      [bob],
      [alice, bob],
    );
    expect(next.status, next.text).toBe(200);
    const [root, merge, left, right] = next.json.transaction.events;
    expect(root.ExercisedEvent.contractId).toBe(explode.CreatedEvent.contractId);
    for (const e of [merge, left, right]) expect(e.CreatedEvent.contractId).toMatch(SUFFIXED);
    expect(root.ExercisedEvent.exerciseResult).toEqual({
      _1: merge.CreatedEvent.contractId,
      _2: { tag: 'Left', value: { _1: left.CreatedEvent.contractId, _2: right.CreatedEvent.contractId } },
    });
  });

  it('async submit commits the suffixed id, which a later command exercises', async () => {
    const body = commands(
      [{ CreateCommand: { templateId: PING, createArguments: { id: 'async', initiator: alice, responder: bob } } }],
      [alice],
    );
    const r = await ledger.call('POST', '/v2/commands/async/submit', body);
    expect(r.status, r.text).toBe(200);
    const row = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('payload')
      .where('command_id', '=', body.commandId)
      .executeTakeFirstOrThrow();
    const cid = (row.payload as any).events[0].CreatedEvent.contractId as string;
    expect(cid).toMatch(SUFFIXED);
    const respond = await submit(
      [{ ExerciseCommand: { templateId: PING, contractId: cid, choice: 'Respond', choiceArgument: {} } }],
      [bob],
    );
    expect(respond.status, respond.text).toBe(200);
  });

  it('a command naming a committed contract by its unsuffixed id → COMMAND_PREPROCESSING_FAILED, as an id inside an argument', async () => {
    const made = await submit(
      [{ CreateCommand: { templateId: PING, createArguments: { id: 'local', initiator: alice, responder: bob } } }],
      [alice],
    );
    const cid = made.json.transaction.events[0].CreatedEvent.contractId as string;
    const local = cid.slice(0, 66);
    const cause = `Illegal Contract ID "${local}", non-suffixed V1 Contract IDs are forbidden`;
    const r = await submit(
      [{ ExerciseCommand: { templateId: PING, contractId: local, choice: 'Respond', choiceArgument: {} } }],
      [bob],
    );
    expect([r.status, r.json.code, r.json.cause]).toEqual([400, 'COMMAND_PREPROCESSING_FAILED', cause]);
    const merge = { winner: bob, leftId: local, rightId: cid };
    const m = await submit(
      [
        {
          ExerciseCommand: {
            templateId: bong('Merge'),
            contractId: cid,
            choice: 'ProcessMerge',
            choiceArgument: merge,
          },
        },
      ],
      [bob],
    );
    expect([m.status, m.json.code, m.json.cause]).toEqual([400, 'COMMAND_PREPROCESSING_FAILED', cause]);
  });
});
