import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { summarize, updateFormat, updateOf } from '../../../apps/explorer/src/ledger';
import { allocateActingParty, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ledgerWithPingDar, PING, PING_PKG } from '../../support/ping-dar';
import { wsCollect } from '../../support/ws-client';

/**
 * An engine-run multi-node transaction read back through every path: one submission by the responder of a Bong round's
 * `ProcessMerge` (two fetches, two nested consuming exercises, a create) followed by a Ping's `Respond`, as the
 * submit-and-wait-for-transaction answer, the update stream (LEDGER_EFFECTS and ACS_DELTA), update-by-id, the trees
 * list and transaction-tree-by-id/-by-offset, the WebSocket update stream and the explorer's update page request.
 * Templates and choices as `community/participant/src/main/daml/canton-builtin-admin-workflow-ping/Canton/Internal/`
 * `Bong.daml` and `Ping.daml` define them; event fields as Canton's JSON API v2 OpenAPI document (`ExercisedEvent`,
 * `ArchivedEvent`, `CreatedEvent`, `JsTransactionTree`) lists them.
 */
const bong = (entity: string) => `${PING_PKG}:Canton.Internal.Bong:${entity}`;
const TIMEOUT = '2007-04-05T14:30:05Z';

/** Canton's ExercisedEvent fields, the optional ones included (Canton writes `interfaceId: null` for a template choice). */
const EXERCISED_FIELDS = [
  'acsDelta',
  'actingParties',
  'choice',
  'choiceArgument',
  'consuming',
  'contractId',
  'exerciseResult',
  'implementedInterfaces',
  'interfaceId',
  'lastDescendantNodeId',
  'nodeId',
  'offset',
  'packageName',
  'templateId',
  'witnessParties',
];
const ARCHIVED_REQUIRED = ['contractId', 'nodeId', 'offset', 'packageName', 'templateId', 'witnessParties'];

describeWithDars(
  'an engine-run multi-node transaction read back on every path (LEDGERLINE_CONFORMANCE_DARS)',
  (darsRoot) => {
    let ledger: TestLedger;
    let sync: string;
    let alice: string;
    let bob: string;
    let carol: string;
    /** The answer of submit-and-wait-for-transaction for the ProcessMerge + Respond submission (LEDGER_EFFECTS, alice and bob). */
    let tx: any;
    let ids: { merge: string; left: string; right: string; ping: string };

    const filters = (parties: string[]) => ({
      filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])),
      verbose: true,
    });
    const txFormat = (parties: string[], shape = 'TRANSACTION_SHAPE_LEDGER_EFFECTS') => ({
      eventFormat: filters(parties),
      transactionShape: shape,
    });
    const commands = (cmds: unknown[], actAs: string[]) => ({
      commands: cmds,
      commandId: randomUUID(),
      userId: ledger.config.adminUser,
      actAs,
      readAs: [],
      synchronizerId: sync,
    });
    async function submit(cmds: unknown[], actAs: string[], parties = actAs): Promise<any> {
      const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
        commands: commands(cmds, actAs),
        transactionFormat: txFormat(parties),
      });
      expect(r.status, r.text).toBe(200);
      return r.json.transaction;
    }
    const ex = (templateId: string, contractId: string, choice: string, choiceArgument: unknown) => ({
      ExerciseCommand: { templateId, contractId, choice, choiceArgument },
    });
    const created = (t: any, i: number) => t.events[i].CreatedEvent.contractId as string;

    beforeAll(async () => {
      ({ ledger, sync } = await ledgerWithPingDar(darsRoot));
      const party = (hint: string) => allocateActingParty(ledger, hint, sync);
      alice = await party('alice');
      bob = await party('bob');
      carol = await party('carol');
      const reader = await ledger.call('POST', '/v2/users', {
        user: { id: 'any-reader' },
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
      });
      expect(reader.status, reader.text).toBe(200);
      // A Bong round up to its merge (Bong.daml's explodeScript, maxLevel 1), and a Ping alice sends bob.
      const proposal = await submit(
        [
          {
            CreateCommand: {
              templateId: bong('BongProposal'),
              createArguments: {
                id: 'bong-reads',
                initiator: alice,
                candidates: [alice],
                validators: [],
                responders: [bob],
                maxLevel: '1',
                timeout: TIMEOUT,
              },
            },
          },
        ],
        [alice],
      );
      const accepted = await submit(
        [ex(bong('BongProposal'), created(proposal, 0), 'Accept', { validator: alice })],
        [alice],
      );
      const exploded = await submit(
        [ex(bong('Explode'), created(accepted, 1), 'ProcessExplode', { winner: bob })],
        [bob],
      );
      const ping = await submit(
        [
          {
            CreateCommand: {
              templateId: PING,
              createArguments: { id: 'ping-reads', initiator: alice, responder: bob },
            },
          },
        ],
        [alice],
      );
      ids = {
        merge: created(exploded, 1),
        left: created(exploded, 2),
        right: created(exploded, 3),
        ping: created(ping, 0),
      };
      tx = await submit(
        [
          ex(bong('Merge'), ids.merge, 'ProcessMerge', { winner: bob, leftId: ids.left, rightId: ids.right }),
          ex(PING, ids.ping, 'Respond', {}),
        ],
        [bob],
        [alice, bob],
      );
    });
    afterAll(async () => {
      await ledger?.close();
    });

    /** The update stream's one update at the transaction's offset, for `body`'s format. */
    async function streamed(updateFormat: unknown): Promise<any> {
      const r = await ledger.call('POST', '/v2/updates', {
        beginExclusive: tx.offset - 1,
        endInclusive: tx.offset,
        updateFormat,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toHaveLength(1);
      return r.json[0].update.Transaction.value;
    }
    const effects = (parties: string[]) => ({ includeTransactions: txFormat(parties) });
    const delta = (parties: string[]) => ({ includeTransactions: txFormat(parties, 'TRANSACTION_SHAPE_ACS_DELTA') });

    it('LEDGER_EFFECTS: node ids in pre-order over both roots, fetches counted but not shown, every exercised field', () => {
      const events = tx.events;
      const kinds = events.map((e: any) =>
        e.CreatedEvent
          ? ['created', e.CreatedEvent.nodeId]
          : ['exercised', e.ExercisedEvent.nodeId, e.ExercisedEvent.lastDescendantNodeId],
      );
      // 0 ProcessMerge (1, 2 its fetches; 3, 4 its ProcessCollapse exercises; 5 the Bong), 6 Respond
      expect(kinds).toEqual([
        ['exercised', 0, 5],
        ['exercised', 3, 3],
        ['exercised', 4, 4],
        ['created', 5],
        ['exercised', 6, 6],
      ]);
      const [merge, collapseL, collapseR, bongCreated, respond] = events.map(
        (e: any) => e.ExercisedEvent ?? e.CreatedEvent,
      );
      expect(merge).toEqual({
        offset: tx.offset,
        nodeId: 0,
        contractId: ids.merge,
        templateId: bong('Merge'),
        packageName: 'canton-builtin-admin-workflow-ping',
        interfaceId: null,
        choice: 'ProcessMerge',
        choiceArgument: { winner: bob, leftId: ids.left, rightId: ids.right },
        actingParties: [bob],
        consuming: true,
        witnessParties: merge.witnessParties,
        lastDescendantNodeId: 5,
        exerciseResult: { tag: 'Left', value: bongCreated.contractId },
        implementedInterfaces: [],
        acsDelta: true,
      });
      for (const e of events)
        expect(Object.keys(e.ExercisedEvent ?? {}).sort()).toEqual(e.ExercisedEvent ? EXERCISED_FIELDS : []);
      for (const [x, cid] of [
        [collapseL, ids.left],
        [collapseR, ids.right],
      ] as const) {
        expect(x).toMatchObject({
          contractId: cid,
          templateId: bong('Collapse'),
          choice: 'ProcessCollapse',
          choiceArgument: { winner: bob },
          exerciseResult: {},
          actingParties: [bob],
          consuming: true,
          acsDelta: true,
        });
      }
      expect(bongCreated).toMatchObject({
        templateId: bong('Bong'),
        createArgument: {
          id: 'bong-reads',
          initiator: alice,
          validators: [alice],
          responder: bob,
          observers: [bob],
          timeout: TIMEOUT,
        },
        acsDelta: true,
      });
      expect(respond).toMatchObject({
        contractId: ids.ping,
        templateId: PING,
        choice: 'Respond',
        choiceArgument: {},
        exerciseResult: {},
        actingParties: [bob],
        consuming: true,
      });
      // every node is witnessed by both: alice signs every contract, bob acts (and observes)
      for (const e of [merge, collapseL, collapseR, bongCreated, respond])
        expect([...e.witnessParties].sort()).toEqual([alice, bob].sort());
    });

    it('the update stream and update-by-id answer the same LEDGER_EFFECTS transaction; a party sees what it witnesses', async () => {
      expect(await streamed(effects([alice, bob]))).toEqual(tx);
      const byId = await ledger.call('POST', '/v2/updates/update-by-id', {
        updateId: tx.updateId,
        updateFormat: effects([alice, bob]),
      });
      expect(byId.status, byId.text).toBe(200);
      expect(byId.json.update.Transaction.value).toEqual(tx);
      const bobs = await streamed(effects([bob]));
      expect(bobs.events.map((e: any) => (e.ExercisedEvent ?? e.CreatedEvent).witnessParties)).toEqual(
        tx.events.map(() => [bob]),
      );
      // carol is no stakeholder or actor of anything here: nothing to show her
      const none = await ledger.call('POST', '/v2/updates', {
        beginExclusive: tx.offset - 1,
        endInclusive: tx.offset,
        updateFormat: effects([carol]),
      });
      expect(none.status, none.text).toBe(200);
      expect(none.json.filter((u: any) => u.update.Transaction)).toEqual([]);
    });

    it('ACS_DELTA: only the archives and the create, with the node ids of the tree', async () => {
      const flat = await streamed(delta([alice, bob]));
      expect(
        flat.events.map((e: any) => [
          Object.keys(e)[0],
          (e.ArchivedEvent ?? e.CreatedEvent).nodeId,
          (e.ArchivedEvent ?? e.CreatedEvent).contractId,
        ]),
      ).toEqual([
        ['ArchivedEvent', 0, ids.merge],
        ['ArchivedEvent', 3, ids.left],
        ['ArchivedEvent', 4, ids.right],
        ['CreatedEvent', 5, tx.events[3].CreatedEvent.contractId],
        ['ArchivedEvent', 6, ids.ping],
      ]);
      const archived = flat.events[0].ArchivedEvent;
      expect(archived).toMatchObject({
        offset: tx.offset,
        templateId: bong('Merge'),
        packageName: 'canton-builtin-admin-workflow-ping',
      });
      for (const k of ARCHIVED_REQUIRED) expect(archived).toHaveProperty(k);
      expect(Object.keys(archived)).not.toContain('choice');
      expect(flat.events[3].CreatedEvent).toEqual(tx.events[3].CreatedEvent);
      expect({ ...flat, events: undefined }).toEqual({ ...tx, events: undefined });
      // the same shape from submit-and-wait-for-transaction: another Ping responded to, read as bob only
      const ping = await submit(
        [
          {
            CreateCommand: {
              templateId: PING,
              createArguments: { id: 'ping-delta', initiator: alice, responder: bob },
            },
          },
        ],
        [alice],
      );
      const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
        commands: commands([ex(PING, created(ping, 0), 'Respond', {})], [bob]),
        transactionFormat: txFormat([bob], 'TRANSACTION_SHAPE_ACS_DELTA'),
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.transaction.events).toEqual([
        {
          ArchivedEvent: {
            offset: r.json.transaction.offset,
            nodeId: 0,
            contractId: created(ping, 0),
            templateId: PING,
            packageName: 'canton-builtin-admin-workflow-ping',
            witnessParties: [bob],
            implementedInterfaces: [],
          },
        },
      ]);
    });

    it('trees: the list, transaction-tree-by-id, -by-offset and submit-and-wait-for-transaction-tree key the events by node id', async () => {
      const eventsById = Object.fromEntries(
        tx.events.map((e: any) =>
          e.CreatedEvent
            ? [String(e.CreatedEvent.nodeId), { CreatedTreeEvent: { value: e.CreatedEvent } }]
            : [String(e.ExercisedEvent.nodeId), { ExercisedTreeEvent: { value: e.ExercisedEvent } }],
        ),
      );
      expect(Object.keys(eventsById)).toEqual(['0', '3', '4', '5', '6']);
      const list = await ledger.call('POST', '/v2/updates/trees', {
        beginExclusive: tx.offset - 1,
        endInclusive: tx.offset,
        updateFormat: effects([alice, bob]),
      });
      expect(list.status, list.text).toBe(200);
      expect(list.json).toHaveLength(1);
      const tree = list.json[0].update.TransactionTree.value;
      expect(tree.eventsById).toEqual(eventsById);
      expect(tree).toMatchObject({
        updateId: tx.updateId,
        offset: tx.offset,
        commandId: tx.commandId,
        effectiveAt: tx.effectiveAt,
        synchronizerId: sync,
        recordTime: tx.recordTime,
      });
      const parties = `parties=${encodeURIComponent(alice)}&parties=${encodeURIComponent(bob)}`;
      const byId = await ledger.call('GET', `/v2/updates/transaction-tree-by-id/${tx.updateId}?${parties}`);
      expect(byId.status, byId.text).toBe(200);
      expect(byId.json.transaction).toEqual(tree);
      const byOffset = await ledger.call('GET', `/v2/updates/transaction-tree-by-offset/${tx.offset}?${parties}`);
      expect(byOffset.json).toEqual(byId.json);
      // submit-and-wait-for-transaction-tree: the tree of the actAs parties, as transaction-tree-by-id shows it to them
      const ping = await submit(
        [
          {
            CreateCommand: { templateId: PING, createArguments: { id: 'ping-tree', initiator: alice, responder: bob } },
          },
        ],
        [alice],
      );
      const answered = await ledger.call(
        'POST',
        '/v2/commands/submit-and-wait-for-transaction-tree',
        commands([ex(PING, created(ping, 0), 'Respond', {})], [bob]),
      );
      expect(answered.status, answered.text).toBe(200);
      const answeredTree = answered.json.transactionTree;
      expect(answeredTree.eventsById['0'].ExercisedTreeEvent.value).toMatchObject({
        choice: 'Respond',
        actingParties: [bob],
        witnessParties: [bob],
        consuming: true,
        lastDescendantNodeId: 0,
        exerciseResult: {},
      });
      const bobsTree = await ledger.call(
        'GET',
        `/v2/updates/transaction-tree-by-id/${answeredTree.updateId}?parties=${encodeURIComponent(bob)}`,
      );
      expect(bobsTree.json.transaction).toEqual(answeredTree);
    });

    it('the WebSocket update stream sends the same transactions as the list, in both shapes', async () => {
      const token = await ledger.token();
      for (const format of [effects([alice, bob]), delta([alice, bob])]) {
        const body = { beginExclusive: tx.offset - 1, endInclusive: tx.offset, updateFormat: format };
        const ws = await wsCollect(ledger.url, '/v2/updates', token, body);
        expect(ws.closeCode).toBe(1000);
        expect(ws.messages).toEqual((await ledger.call('POST', '/v2/updates', body)).json);
        expect(ws.messages[0].update.Transaction.value.events).toHaveLength(5);
      }
    });

    it("the explorer's update page: its update-by-id request shows every node with its argument and result", async () => {
      const readers = { any: false as const, parties: [alice, bob] };
      const r = await ledger.call('POST', '/v2/updates/update-by-id', {
        updateId: tx.updateId,
        updateFormat: updateFormat(readers, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'),
      });
      expect(r.status, r.text).toBe(200);
      const update = updateOf(r.json)!;
      expect(update).toMatchObject({ kind: 'Transaction', offset: tx.offset, updateId: tx.updateId });
      expect((update.value as any).events).toEqual(tx.events);
      expect(summarize(update)).toEqual({
        what: '4 consumed, 1 created',
        templates: [
          'Canton.Internal.Bong:Merge',
          'Canton.Internal.Bong:Collapse',
          'Canton.Internal.Bong:Bong',
          'Canton.Internal.Ping:Ping',
        ],
        parties: expect.any(Array),
      });
      expect([...summarize(update).parties].sort()).toEqual([alice, bob].sort());
      // the live view's default shape (ACS_DELTA) for a reader of any party
      const any = await ledger.call(
        'POST',
        '/v2/updates/update-by-id',
        { updateId: tx.updateId, updateFormat: updateFormat({ any: true }) },
        { as: 'any-reader' },
      );
      expect(any.status, any.text).toBe(200);
      expect(summarize(updateOf(any.json)!).what).toBe('4 archived, 1 created');
    });
  },
);
