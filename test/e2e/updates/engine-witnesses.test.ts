import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { allocateActingParty, startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * Who sees the consequences of an engine-run exercise in LEDGER_EFFECTS: a node nested in an exercise is witnessed by
 * its own informees (stakeholders of a create) and by every witness of the exercise it is part of — Canton's
 * disclosure (`community/daml-lf/interpreter/.../lf/ledger/BlindingTransaction.scala`, stored as event witnesses by
 * `community/ledger/ledger-api-core/.../store/backend/UpdateToDbDto.scala`). ACS_DELTA stays with the stakeholders. Our own package, in LF text:
 * - `Hub` (signatory owner, observer viewer), consuming `Spawn` controlled by any `actor`: creates a `Note` of the owner;
 * - `Desk` (signatory clerk, observer guest), non-consuming `Open` controlled by the guest: exercises `Spawn` on a Hub.
 */
const PACKAGE = `
metadata ( 'engine-witnesses' : '1.0.0' )
module Main {
  record @serializable Hub = { owner: Party, viewer: Party } ;
  record @serializable Note = { owner: Party } ;
  record @serializable Spawn = { actor: Party } ;
  record @serializable Desk = { clerk: Party, guest: Party } ;
  record @serializable Open = { hub: ContractId Main:Hub } ;
  template (this : Hub) = {
    precondition True;
    signatories Cons @Party [Main:Hub {owner} this] (Nil @Party);
    observers Cons @Party [Main:Hub {viewer} this] (Nil @Party);
    choice Spawn (self) (arg: Main:Spawn) : ContractId Main:Note
      , controllers Cons @Party [Main:Spawn {actor} arg] (Nil @Party)
      , observers Nil @Party
      to create @Main:Note (Main:Note { owner = Main:Hub {owner} this });
  } ;
  template (this : Note) = {
    precondition True;
    signatories Cons @Party [Main:Note {owner} this] (Nil @Party);
    observers Nil @Party;
  } ;
  template (this : Desk) = {
    precondition True;
    signatories Cons @Party [Main:Desk {clerk} this] (Nil @Party);
    observers Cons @Party [Main:Desk {guest} this] (Nil @Party);
    choice @nonConsuming Open (self) (arg: Main:Open) : ContractId Main:Note
      , controllers Cons @Party [Main:Desk {guest} this] (Nil @Party)
      , observers Nil @Party
      to exercise @Main:Hub Spawn (Main:Open {hub} arg) (Main:Spawn { actor = Main:Desk {guest} this });
  } ;
}`;

let ledger: TestLedger;
let sync: string;
let pkg: string;
let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = ledger.runtime.identity.defaultSynchronizer.id;
  const dar = await encodeDar(parsePackage(PACKAGE));
  pkg = dar.main.packageId;
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar.dar,
  });
  expect(up.status, await up.text()).toBe(200);
  const party = (hint: string) => allocateActingParty(ledger, hint, sync);
  alice = await party('alice');
  bob = await party('bob');
  carol = await party('carol');
});
afterAll(async () => ledger?.close());

const tid = (entity: string) => `${pkg}:Main:${entity}`;
const format = (parties: string[], shape = 'TRANSACTION_SHAPE_LEDGER_EFFECTS') => ({
  eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])), verbose: true },
  transactionShape: shape,
});
async function submit(cmds: unknown[], actAs: string[], parties: string[], shape?: string): Promise<any> {
  const commands = {
    commands: cmds,
    commandId: randomUUID(),
    userId: ledger.config.adminUser,
    actAs,
    synchronizerId: sync,
  };
  const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands,
    transactionFormat: format(parties, shape),
  });
  expect(r.status, r.text).toBe(200);
  return r.json.transaction;
}
const create = (entity: string, createArguments: unknown) => ({
  CreateCommand: { templateId: tid(entity), createArguments },
});
const exercise = (entity: string, contractId: string, choice: string, choiceArgument: unknown) => ({
  ExerciseCommand: { templateId: tid(entity), contractId, choice, choiceArgument },
});
const witnesses = (tx: any) =>
  tx.events.map((e: any) => [
    Object.keys(e)[0],
    (e.CreatedEvent ?? e.ExercisedEvent ?? e.ArchivedEvent).nodeId,
    [...(e.CreatedEvent ?? e.ExercisedEvent ?? e.ArchivedEvent).witnessParties].sort(),
  ]);

/** The update at `offset` through the update stream, for `parties` in `shape`. */
async function streamed(offset: number, parties: string[], shape = 'TRANSACTION_SHAPE_LEDGER_EFFECTS'): Promise<any> {
  const r = await ledger.call('POST', '/v2/updates', {
    beginExclusive: offset - 1,
    endInclusive: offset,
    updateFormat: { includeTransactions: format(parties, shape) },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.find((u: any) => u.update.Transaction)?.update.Transaction.value ?? null;
}

describe('LEDGER_EFFECTS witnesses of an engine-run exercise', () => {
  it('the actor of a choice witnesses what the choice creates, though no stakeholder of it', async () => {
    const hub = (await submit([create('Hub', { owner: alice, viewer: bob })], [alice], [alice])).events[0].CreatedEvent
      .contractId;
    const tx = await submit([exercise('Hub', hub, 'Spawn', { actor: bob })], [bob], [bob]);
    expect(witnesses(tx)).toEqual([
      ['ExercisedEvent', 0, [bob]],
      ['CreatedEvent', 1, [bob]],
    ]);
    expect(tx.events[1].CreatedEvent).toMatchObject({
      templateId: tid('Note'),
      signatories: [alice],
      observers: [],
      createArgument: { owner: alice },
    });
    expect(await streamed(tx.offset, [bob])).toEqual(tx);
    const both = await streamed(tx.offset, [alice, bob]);
    expect(witnesses(both)).toEqual([
      ['ExercisedEvent', 0, [alice, bob].sort()],
      ['CreatedEvent', 1, [alice, bob].sort()],
    ]);
    // ACS_DELTA: the Hub's archive to its stakeholders, the Note to its owner only
    expect(witnesses(await streamed(tx.offset, [alice, bob], 'TRANSACTION_SHAPE_ACS_DELTA'))).toEqual([
      ['ArchivedEvent', 0, [alice, bob].sort()],
      ['CreatedEvent', 1, [alice]],
    ]);
    const tree = await ledger.call(
      'GET',
      `/v2/updates/transaction-tree-by-id/${tx.updateId}?parties=${encodeURIComponent(bob)}`,
    );
    expect(tree.status, tree.text).toBe(200);
    expect(Object.keys(tree.json.transaction.eventsById)).toEqual(['0', '1']);
    expect(tree.json.transaction.eventsById['1'].CreatedTreeEvent.value.witnessParties).toEqual([bob]);
  });

  it('a nested exercise and its create are witnessed by the informees of the enclosing non-consuming exercise', async () => {
    const hub = (await submit([create('Hub', { owner: alice, viewer: bob })], [alice], [alice])).events[0].CreatedEvent
      .contractId;
    const desk = (await submit([create('Desk', { clerk: carol, guest: bob })], [carol], [carol])).events[0].CreatedEvent
      .contractId;
    const tx = await submit([exercise('Desk', desk, 'Open', { hub })], [bob], [alice, bob, carol]);
    // 0 Open (carol signs the Desk, bob acts), 1 Spawn (alice's Hub, bob acts), 2 the Note of alice
    expect(witnesses(tx)).toEqual([
      ['ExercisedEvent', 0, [bob, carol].sort()],
      ['ExercisedEvent', 1, [alice, bob, carol].sort()],
      ['CreatedEvent', 2, [alice, bob, carol].sort()],
    ]);
    expect(tx.events.map((e: any) => e.ExercisedEvent?.lastDescendantNodeId ?? null)).toEqual([2, 2, null]);
    expect(tx.events[1].ExercisedEvent).toMatchObject({
      choice: 'Spawn',
      choiceArgument: { actor: bob },
      actingParties: [bob],
      consuming: true,
      exerciseResult: tx.events[2].CreatedEvent.contractId,
    });
    // carol alone: all three nodes, as the clerk of the Desk the guest used
    expect(witnesses(await streamed(tx.offset, [carol]))).toEqual([
      ['ExercisedEvent', 0, [carol]],
      ['ExercisedEvent', 1, [carol]],
      ['CreatedEvent', 2, [carol]],
    ]);
    // alice is no informee of Open: she sees the Spawn on her Hub and its Note
    expect(witnesses(await streamed(tx.offset, [alice]))).toEqual([
      ['ExercisedEvent', 1, [alice]],
      ['CreatedEvent', 2, [alice]],
    ]);
    // ACS_DELTA shows carol nothing: she is a stakeholder of neither the Hub nor the Note
    expect(await streamed(tx.offset, [carol], 'TRANSACTION_SHAPE_ACS_DELTA')).toBeNull();
    const trees = await ledger.call('POST', '/v2/updates/trees', {
      beginExclusive: tx.offset - 1,
      endInclusive: tx.offset,
      updateFormat: { includeTransactions: format([carol]) },
    });
    expect(trees.status, trees.text).toBe(200);
    expect(Object.keys(trees.json[0].update.TransactionTree.value.eventsById)).toEqual(['0', '1', '2']);
  });
});
