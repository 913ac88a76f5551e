import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allocateActingParty, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ledgerWithPingDar, PING, PING_PKG } from '../../support/ping-dar';

/**
 * Canton's ping DAR (`canton-builtin-admin-workflow-ping`) run on the engine over HTTP: a `Ping` created with the
 * template's signatories and observers and a typed argument, `Respond` exercised by the responder, and the refusals Canton
 * gives (authorization, archived contract, ill-typed argument). Templates and choices as
 * `community/participant/src/main/daml/canton-builtin-admin-workflow-ping/Canton/Internal/Ping.daml` defines them.
 */
describeWithDars('the ping DAR on the engine (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  let bob: string;
  let carol: string;

  beforeAll(async () => {
    ({ ledger, sync } = await ledgerWithPingDar(darsRoot));
    const party = (hint: string) => allocateActingParty(ledger, hint, sync);
    alice = await party('alice');
    bob = await party('bob');
    carol = await party('carol');
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
  const ledgerEffects = (parties: string[]) => ({
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])), verbose: true },
  });
  const submit = (cmds: unknown[], actAs: string[], parties = actAs) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: commands(cmds, actAs),
      transactionFormat: ledgerEffects(parties),
    });
  const createPing = (id: string, initiator: string, responder: string) => ({
    CreateCommand: { templateId: PING, createArguments: { id, initiator, responder } },
  });
  const exercise = (contractId: string, choice: string, choiceArgument: unknown = {}) => ({
    ExerciseCommand: { templateId: PING, contractId, choice, choiceArgument },
  });

  async function newPing(id: string): Promise<string> {
    const r = await submit([createPing(id, alice, bob)], [alice]);
    expect(r.status, r.text).toBe(200);
    return r.json.transaction.events[0].CreatedEvent.contractId;
  }

  it('creates a Ping with the template’s signatories, observers and a typed argument', async () => {
    const r = await submit([createPing('ping-1', alice, bob)], [alice], [alice, bob]);
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toHaveLength(1);
    const created = r.json.transaction.events[0].CreatedEvent;
    expect(created).toMatchObject({
      templateId: PING,
      packageName: 'canton-builtin-admin-workflow-ping',
      representativePackageId: PING_PKG,
      signatories: [alice],
      observers: [bob],
      createArgument: { id: 'ping-1', initiator: alice, responder: bob },
    });
    expect(Object.keys(created.createArgument)).toEqual(['id', 'initiator', 'responder']);
    expect([...created.witnessParties].sort()).toEqual([alice, bob].sort());
    // the responder sees it among its active contracts
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: { filtersByParty: { [bob]: { cumulative: [] } }, verbose: true },
    });
    expect(acs.status, acs.text).toBe(200);
    const entries = acs.json.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
    expect(entries.find((e: any) => e.contractId === created.contractId)).toMatchObject({
      signatories: [alice],
      observers: [bob],
      createArgument: { id: 'ping-1' },
    });
  });

  it('Respond by the responder: an exercised event with Canton’s LEDGER_EFFECTS fields', async () => {
    const cid = await newPing('ping-respond');
    const r = await submit([exercise(cid, 'Respond')], [bob], [alice, bob]);
    expect(r.status, r.text).toBe(200);
    const events = r.json.transaction.events;
    expect(events).toHaveLength(1);
    const exercised = events[0].ExercisedEvent;
    expect(exercised).toMatchObject({
      contractId: cid,
      templateId: PING,
      packageName: 'canton-builtin-admin-workflow-ping',
      choice: 'Respond',
      choiceArgument: {},
      exerciseResult: {},
      actingParties: [bob],
      consuming: true,
      nodeId: 0,
      lastDescendantNodeId: 0,
    });
    expect([...exercised.witnessParties].sort()).toEqual([alice, bob].sort());
    // the contract is archived: a second Respond finds it gone
    const again = await submit([exercise(cid, 'Respond')], [bob]);
    expect(again.status, again.text).toBe(404);
    expect(again.json.code).toBe('CONTRACT_NOT_FOUND');
  });

  it('AbortPing with a typed choice argument by any party that is a stakeholder', async () => {
    const cid = await newPing('ping-abort');
    const r = await submit([exercise(cid, 'AbortPing', { anyone: alice })], [alice]);
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events[0].ExercisedEvent).toMatchObject({
      choice: 'AbortPing',
      choiceArgument: { anyone: alice },
      actingParties: [alice],
      consuming: true,
      exerciseResult: {},
    });
  });

  it('a create whose actAs does not cover the signatories → DAML_AUTHORIZATION_ERROR', async () => {
    const r = await submit([createPing('ping-unauth', alice, bob)], [bob]);
    expect(r.status, r.text).toBe(400);
    expect(r.json.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(r.json.cause).toBe(
      `Interpretation error: Error: node NodeId(0) (${PING}) requires authorizers ${alice}, but only ${bob} were given`,
    );
  });

  it('an exercise by a non-controller → DAML_AUTHORIZATION_ERROR', async () => {
    const cid = await newPing('ping-noncontroller');
    const r = await submit([exercise(cid, 'Respond')], [alice]);
    expect(r.status, r.text).toBe(400);
    expect(r.json.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(r.json.cause).toBe(
      `Interpretation error: Error: node NodeId(0) (${PING}) requires authorizers ${bob}, but only ${alice} were given`,
    );
    // the contract is still active: bob can respond
    expect((await submit([exercise(cid, 'Respond')], [bob])).status).toBe(200);
  });

  it('an exercise on a contract the submitter cannot see → CONTRACT_NOT_FOUND', async () => {
    const cid = await newPing('ping-invisible');
    const r = await submit([exercise(cid, 'Respond')], [carol]);
    expect(r.status, r.text).toBe(404);
    expect(r.json.code).toBe('CONTRACT_NOT_FOUND');
  });

  it('a contract consumed earlier in the same submission → CONTRACT_NOT_ACTIVE', async () => {
    const cid = await newPing('ping-twice');
    const r = await submit([exercise(cid, 'Respond'), exercise(cid, 'Respond')], [bob]);
    expect(r.status, r.text).toBe(404);
    expect(r.json.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(r.json.cause).toBe(
      // speedy/Pretty.scala prints the template as `Module:Name@` and the package id's first 8 characters
      `Interpretation error: Error: Update failed due to fetch of an inactive contract ${cid} (Canton.Internal.Ping:Ping@${PING_PKG.slice(0, 8)}).\nThe contract had been consumed in sub-transaction #NodeId(0):`,
    );
    // nothing was committed: the Ping is still active
    expect((await submit([exercise(cid, 'Respond')], [bob])).status).toBe(200);
  });

  it('CreateAndExerciseCommand: a Ping created and responded to in one transaction by both parties', async () => {
    const r = await submit(
      [
        {
          CreateAndExerciseCommand: {
            templateId: PING,
            createArguments: { id: 'ping-cae', initiator: alice, responder: bob },
            choice: 'Respond',
            choiceArgument: {},
          },
        },
      ],
      [alice, bob],
    );
    expect(r.status, r.text).toBe(200);
    const [created, exercised] = r.json.transaction.events;
    expect(created.CreatedEvent).toMatchObject({
      nodeId: 0,
      signatories: [alice],
      observers: [bob],
      createArgument: { id: 'ping-cae' },
    });
    expect(exercised.ExercisedEvent).toMatchObject({
      nodeId: 1,
      contractId: created.CreatedEvent.contractId,
      choice: 'Respond',
      actingParties: [bob],
      consuming: true,
    });
  });

  it('a choice the template does not have → INVALID_ARGUMENT as Canton’s JSON layer words it; nothing changes', async () => {
    const cid = await newPing('ping-nochoice');
    const r = await submit([exercise(cid, 'NoSuchChoice')], [bob]);
    expect(r.status, r.text).toBe(400);
    expect(r.json.code).toBe('INVALID_ARGUMENT');
    expect(r.json.cause).toBe(
      `The submitted request has invalid arguments: Invalid template:${PING} or choice:NoSuchChoice`,
    );
    expect((await submit([exercise(cid, 'Respond')], [bob])).status).toBe(200);
  });

  it('an ill-typed create argument → COMMAND_PREPROCESSING_FAILED', async () => {
    const missing = await submit(
      [{ CreateCommand: { templateId: PING, createArguments: { id: 'x', initiator: alice } } }],
      [alice],
    );
    expect(missing.status, missing.text).toBe(400);
    expect(missing.json.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(missing.json.cause).toContain('responder');
  });

  it('one Bong round as Bong.daml defines it: proposal, accept, explode, merge with fetches and nested exercises, ack', async () => {
    const bong = (entity: string) => `${PING_PKG}:Canton.Internal.Bong:${entity}`;
    const timeout = '2007-04-05T14:30:05Z';
    const ex = (entity: string, contractId: string, choice: string, choiceArgument: unknown) => ({
      ExerciseCommand: { templateId: bong(entity), contractId, choice, choiceArgument },
    });
    const kinds = (events: any[]) =>
      events.map((e) =>
        e.CreatedEvent
          ? `created ${e.CreatedEvent.templateId.split(':').pop()}`
          : `exercised ${e.ExercisedEvent.choice}`,
      );

    const proposal = await submit(
      [
        {
          CreateCommand: {
            templateId: bong('BongProposal'),
            createArguments: {
              id: 'bong-1',
              initiator: alice,
              candidates: [alice],
              validators: [],
              responders: [bob],
              maxLevel: '1',
              timeout,
            },
          },
        },
      ],
      [alice],
    );
    expect(proposal.status, proposal.text).toBe(200);
    const proposalEvent = proposal.json.transaction.events[0].CreatedEvent;
    expect(proposalEvent).toMatchObject({
      signatories: [alice],
      createArgument: { maxLevel: '1', timeout: '2007-04-05T14:30:05Z', validators: [] },
    });
    expect(proposalEvent.observers).toEqual([bob]); // stakeholders that are not signatories

    const accepted = await submit(
      [ex('BongProposal', proposalEvent.contractId, 'Accept', { validator: alice })],
      [alice],
    );
    expect(accepted.status, accepted.text).toBe(200);
    expect(kinds(accepted.json.transaction.events)).toEqual(['exercised Accept', 'created Explode']);
    const explode = accepted.json.transaction.events[1].CreatedEvent;
    expect(accepted.json.transaction.events[0].ExercisedEvent).toMatchObject({
      nodeId: 0,
      lastDescendantNodeId: 1,
      exerciseResult: { tag: 'Right', value: explode.contractId },
    });
    expect(explode).toMatchObject({ nodeId: 1, createArgument: { validators: [alice], responders: [bob], path: '' } });

    const exploded = await submit(
      [ex('Explode', explode.contractId, 'ProcessExplode', { winner: bob })],
      [bob],
      [alice, bob],
    );
    expect(exploded.status, exploded.text).toBe(200);
    expect(kinds(exploded.json.transaction.events)).toEqual([
      'exercised ProcessExplode',
      'created Merge',
      'created Collapse',
      'created Collapse',
    ]);
    const [, merge, left, right] = exploded.json.transaction.events.map((e: any) => e.CreatedEvent);
    expect(exploded.json.transaction.events[0].ExercisedEvent.exerciseResult).toEqual({
      _1: merge.contractId,
      _2: { tag: 'Right', value: { _1: left.contractId, _2: right.contractId } },
    });

    const merged = await submit(
      [
        ex('Merge', merge.contractId, 'ProcessMerge', {
          winner: bob,
          leftId: left.contractId,
          rightId: right.contractId,
        }),
      ],
      [bob],
      [alice, bob],
    );
    expect(merged.status, merged.text).toBe(200);
    expect(kinds(merged.json.transaction.events)).toEqual([
      'exercised ProcessMerge',
      'exercised ProcessCollapse',
      'exercised ProcessCollapse',
      'created Bong',
    ]);
    const bongEvent = merged.json.transaction.events[3].CreatedEvent;
    expect(bongEvent).toMatchObject({
      createArgument: { initiator: alice, responder: bob, observers: [bob], validators: [alice] },
    });
    expect([...bongEvent.signatories].sort()).toEqual([alice, bob].sort());
    expect(merged.json.transaction.events[0].ExercisedEvent).toMatchObject({
      lastDescendantNodeId: 5,
      exerciseResult: { tag: 'Left', value: bongEvent.contractId },
    });

    const acked = await submit([ex('Bong', bongEvent.contractId, 'Ack', {})], [alice]);
    expect(acked.status, acked.text).toBe(200);
    expect(acked.json.transaction.events[0].ExercisedEvent).toMatchObject({
      choice: 'Ack',
      consuming: true,
      actingParties: [alice],
    });
  });
});
