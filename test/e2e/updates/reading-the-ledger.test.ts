import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedEvent } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import {
  ALICE,
  BOB,
  CAROL,
  cid,
  IOU,
  IOU_NAME,
  IOU_PKG,
  PARTICIPANT,
  S1,
  S2,
  TOKEN,
  TOKEN_NAME,
  writeScenario,
} from '../../support/updates-scenario';
import { wsCollect } from '../../support/ws-client';
import { expectSameFrameworkEdges } from '../../support/framework-edges';
import { PageRenderer } from '@ledgerline/server/streaming/rendering/page-renderer';
import { expectCantonError } from '../../support/canton-error';

// The list maximum is lowered to 7 so that the 413 edges are reachable with the 11-update scenario.
const MAX = 7;
let ledger: TestLedger;
let committed: CommittedEvent[];
const idAt = (offset: number) => committed.find((e) => e.update?.offset === offset)!.update!.updateId;

async function createUser(id: string, rights: unknown[]) {
  const r = await ledger.call('POST', '/v2/users', { user: { id }, rights });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_HTTP_LIST_MAX_ELEMENTS: String(MAX) });
  committed = await writeScenario(ledger.runtime.eventStore);
  const readAs = (party: string) => ({ kind: { CanReadAs: { value: { party } } } });
  await createUser('alice-reader', [readAs(ALICE)]);
  await createUser('bob-reader', [readAs(BOB)]);
  await createUser('carol-actor', [{ kind: { CanActAs: { value: { party: CAROL } } } }]);
  await createUser('all-reader', [readAs(ALICE), readAs(BOB), readAs(CAROL)]);
  await createUser('any-reader', [{ kind: { CanReadAsAnyParty: { value: {} } } }]);
  await createUser('nobody', []);
});
afterAll(async () => ledger?.close());

const legacy = (party: string, filters: unknown = {}, extra: Record<string, unknown> = {}) => ({
  beginExclusive: 0,
  endInclusive: 11,
  filter: { filtersByParty: { [party]: filters } },
  ...extra,
});
const anyPartyLegacy = { beginExclusive: 0, endInclusive: 11, filter: { filtersForAnyParty: {} } };
const format = (updateFormat: unknown, extra: Record<string, unknown> = {}) => ({
  beginExclusive: 0,
  endInclusive: 11,
  updateFormat,
  ...extra,
});
const txFormat = (filtersByParty: Record<string, unknown>, shape = 'TRANSACTION_SHAPE_ACS_DELTA') => ({
  includeTransactions: { eventFormat: { filtersByParty, verbose: false }, transactionShape: shape },
});
const wildcard = (includeCreatedEventBlob = false) => ({
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob } } } }],
});
const template = (templateId: string, includeCreatedEventBlob = false) => ({
  cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob } } } }],
});

async function flats(body: unknown, as: string, query = '') {
  return ledger.call('POST', `/v2/updates/flats${query}`, body, { as });
}
async function ok(body: unknown, as: string, query = ''): Promise<any[]> {
  const r = await flats(body, as, query);
  expect(r.status, r.text).toBe(200);
  return r.json;
}
const offsets = (list: any[]) => list.map((u) => Object.values(u.update as Record<string, any>)[0].value.offset);
const kinds = (list: any[]) => list.map((u) => Object.keys(u.update)[0]);

describe('filters, shapes and witnesses on the fixed scenario', () => {
  it('legacy filter for one party: ACS_DELTA transactions, its reassignments and (seed) its topology events', async () => {
    expect(offsets(await ok(legacy(ALICE), 'alice-reader'))).toEqual([1, 3, 5, 10]);
    expect(offsets(await ok(legacy(BOB), 'bob-reader'))).toEqual([2, 3, 4, 5, 8, 9]);
    expect(offsets(await ok(legacy(CAROL), 'carol-actor'))).toEqual([2, 4, 5, 8, 9, 10, 11]);
    expect(kinds(await ok(legacy(CAROL), 'carol-actor'))).toEqual([
      'TopologyTransaction',
      'Transaction',
      'Transaction',
      'Reassignment',
      'Reassignment',
      'Transaction',
      'TopologyTransaction',
    ]);
  });

  it('renders a JsTransaction exactly: header from the update, offsets injected, witnesses = stakeholders ∩ requested', async () => {
    const [, , transfer] = await ok(legacy(ALICE), 'alice-reader');
    expect(transfer).toEqual({
      update: {
        Transaction: {
          value: {
            updateId: idAt(5),
            commandId: 'cmd-transfer',
            workflowId: 'wf-cmd-transfer',
            effectiveAt: '2025-05-01T10:00:00.000000Z',
            events: [
              {
                ArchivedEvent: {
                  offset: 5,
                  nodeId: 0,
                  contractId: cid(1),
                  templateId: IOU,
                  witnessParties: [ALICE],
                  packageName: 'iou-model',
                  implementedInterfaces: [],
                },
              },
              {
                CreatedEvent: {
                  offset: 5,
                  nodeId: 2,
                  contractId: cid(3),
                  templateId: IOU,
                  contractKey: null,
                  contractKeyHash: '',
                  createArgument: { owner: ALICE, amount: '3.0000000000' },
                  createdEventBlob: '',
                  interfaceViews: [],
                  witnessParties: [ALICE],
                  signatories: [ALICE],
                  observers: [CAROL],
                  createdAt: '2025-05-01T10:00:00.000000Z',
                  packageName: 'iou-model',
                  representativePackageId: IOU_PKG,
                  acsDelta: true,
                },
              },
            ],
            offset: 5,
            synchronizerId: S1,
            traceContext: null,
            recordTime: committed[4].update!.recordTime,
            externalTransactionHash: null,
            paidTrafficCost: null,
            transactionHash: null,
          },
        },
      },
    });
  });

  it('the command id is shown to the submitting parties only', async () => {
    const bob = await ok(legacy(BOB), 'bob-reader');
    const at = (o: number) =>
      bob.find((u) => Object.values(u.update as Record<string, any>)[0].value.offset === o).update.Transaction.value;
    expect(at(3).commandId).toBe('');
    expect(at(4).commandId).toBe('cmd-create-token');
    expect(at(5).commandId).toBe('');
    const alice = await ok(legacy(ALICE), 'alice-reader');
    expect(alice[1].update.Transaction.value.commandId).toBe('cmd-create-iou');
  });

  it('renders reassignments: JsUnassignedEvent wrapped in value, JsAssignmentEvent not; synchronizer from the header', async () => {
    const list = await ok(legacy(BOB), 'bob-reader');
    const [unassign, assign] = list.slice(4);
    expect(unassign.update.Reassignment.value).toEqual({
      updateId: idAt(8),
      commandId: 'cmd-unassign',
      workflowId: '',
      offset: 8,
      events: [
        {
          JsUnassignedEvent: {
            value: {
              reassignmentId: '00' + 'cd'.repeat(16),
              contractId: cid(2),
              templateId: TOKEN,
              source: S1,
              target: S2,
              submitter: BOB,
              reassignmentCounter: 1,
              assignmentExclusivity: null,
              witnessParties: [BOB],
              packageName: 'token-model',
              offset: 8,
              nodeId: 0,
            },
          },
        },
      ],
      traceContext: null,
      recordTime: committed[7].update!.recordTime,
      synchronizerId: S1,
      paidTrafficCost: null,
    });
    const a = assign.update.Reassignment.value;
    expect(a.synchronizerId).toBe(S2);
    expect(Object.keys(a.events[0])).toEqual(['JsAssignmentEvent']);
    expect(a.events[0].JsAssignmentEvent).toMatchObject({
      source: S1,
      target: S2,
      submitter: BOB,
      reassignmentCounter: 1,
    });
    expect(a.events[0].JsAssignmentEvent.createdEvent).toMatchObject({
      offset: 9,
      contractId: cid(2),
      witnessParties: [BOB],
      acsDelta: true,
    });
  });

  it('renders topology transactions with the requested parties’ events only', async () => {
    const [topo] = await ok(legacy(BOB), 'bob-reader');
    expect(topo).toEqual({
      update: {
        TopologyTransaction: {
          value: {
            updateId: idAt(2),
            offset: 2,
            synchronizerId: S1,
            recordTime: committed[1].update!.recordTime,
            events: [
              {
                event: {
                  ParticipantAuthorizationAdded: {
                    value: {
                      partyId: BOB,
                      participantId: PARTICIPANT,
                      participantPermission: 'PARTICIPANT_PERMISSION_SUBMISSION',
                    },
                  },
                },
              },
            ],
            traceContext: null,
          },
        },
      },
    });
  });

  it('party-wildcard (filtersForAnyParty): every visible update, witnesses = all stakeholders', async () => {
    const list = await ok({ ...anyPartyLegacy, endInclusive: 5 }, 'any-reader');
    expect(offsets(list)).toEqual([1, 2, 3, 4, 5]);
    expect(list[1].update.TopologyTransaction.value.events).toHaveLength(2);
    const transfer = list[4].update.Transaction.value;
    expect(transfer.events.map((e: any) => Object.values(e)[0])).toMatchObject([
      { witnessParties: [ALICE, BOB] },
      { witnessParties: [ALICE, CAROL] },
    ]);
    expect(transfer.commandId).toBe('cmd-transfer');
    const rest = await ok({ ...anyPartyLegacy, beginExclusive: 5 }, 'any-reader');
    expect(offsets(rest)).toEqual([8, 9, 10, 11]);
  });

  it('ACS_DELTA leaves out non-consuming exercises and transient contracts; LEDGER_EFFECTS shows them with acsDelta flags', async () => {
    const acs = await ok(format(txFormat({ [CAROL]: {} })), 'carol-actor');
    expect(offsets(acs)).toEqual([4, 5, 10]);
    const effects = await ok(format(txFormat({ [CAROL]: {} }, 'TRANSACTION_SHAPE_LEDGER_EFFECTS')), 'carol-actor');
    expect(offsets(effects)).toEqual([4, 5, 6, 7, 10]);
    const events = (o: number) =>
      effects.find((u) => u.update.Transaction.value.offset === o).update.Transaction.value.events;
    // 5: carol is not an informee of the Transfer exercise, only a stakeholder of the new Iou.
    expect(events(5).map((e: any) => Object.keys(e)[0])).toEqual(['CreatedEvent']);
    // 6: carol acts on bob's Token without being a stakeholder of a consumed contract.
    expect(events(6)).toEqual([
      {
        ExercisedEvent: {
          offset: 6,
          nodeId: 0,
          contractId: cid(2),
          templateId: TOKEN,
          interfaceId: null,
          choice: 'Inspect',
          choiceArgument: {},
          actingParties: [CAROL],
          consuming: false,
          witnessParties: [CAROL],
          lastDescendantNodeId: 0,
          exerciseResult: null,
          packageName: 'token-model',
          implementedInterfaces: [],
          acsDelta: false,
        },
      },
    ]);
    expect(events(7).map((e: any) => [Object.keys(e)[0], (Object.values(e)[0] as any).acsDelta])).toEqual([
      ['CreatedEvent', false],
      ['ExercisedEvent', false],
    ]);
    expect((events(10)[0] as any).ExercisedEvent).toMatchObject({
      choice: 'Archive',
      consuming: true,
      acsDelta: true,
      witnessParties: [CAROL],
    });
    // bob, an informee of the Transfer but not a stakeholder of anything it consumes? He is a stakeholder: acsDelta true.
    const bobEffects = await ok(format(txFormat({ [BOB]: {} }, 'TRANSACTION_SHAPE_LEDGER_EFFECTS')), 'bob-reader');
    const transfer = bobEffects.find((u) => u.update.Transaction.value.offset === 5).update.Transaction.value;
    expect(transfer.events).toMatchObject([
      { ExercisedEvent: { choice: 'Transfer', acsDelta: true, witnessParties: [BOB] } },
    ]);
  });

  it('template filters by package name select events (and the reassignments of the legacy filter); blobs on request', async () => {
    const tokens = await ok(legacy(BOB, template(TOKEN_NAME)), 'bob-reader');
    expect(offsets(tokens)).toEqual([2, 4, 8, 9]);
    const ious = await ok(format(txFormat({ [ALICE]: template(IOU_NAME, true) })), 'alice-reader');
    expect(offsets(ious)).toEqual([3, 5, 10]);
    expect(ious[0].update.Transaction.value.events[0].CreatedEvent.createdEventBlob).toBe(
      Buffer.from('blob-1').toString('base64'),
    );
    const noBlob = await ok(format(txFormat({ [ALICE]: template(IOU_NAME) })), 'alice-reader');
    expect(noBlob[0].update.Transaction.value.events[0].CreatedEvent.createdEventBlob).toBe('');
    // Cumulative: a wildcard with a blob merges with a template filter.
    const merged = await ok(
      format(txFormat({ [BOB]: { cumulative: [...template(IOU_NAME).cumulative, ...wildcard(true).cumulative] } })),
      'bob-reader',
    );
    expect(offsets(merged)).toEqual([3, 4, 5]);
    expect(merged[1].update.Transaction.value.events[0].CreatedEvent.createdEventBlob).toBe(
      Buffer.from('blob-2').toString('base64'),
    );
    // Empty entries alone are a template wildcard; an unknown package name matches nothing.
    expect(
      offsets(
        await ok(format(txFormat({ [BOB]: { cumulative: [{ identifierFilter: { Empty: {} } }] } })), 'bob-reader'),
      ),
    ).toEqual([3, 4, 5]);
    expect(await ok(format(txFormat({ [BOB]: template('#no-such-package:A:B') })), 'bob-reader')).toEqual([]);
    // Interface filters are accepted and match nothing.
    const iface = {
      cumulative: [
        {
          identifierFilter: {
            InterfaceFilter: { value: { interfaceId: '#iou-model:Iou:IIou', includeInterfaceView: true } },
          },
        },
      ],
    };
    expect(await ok(format(txFormat({ [BOB]: iface })), 'bob-reader')).toEqual([]);
  });

  it('a template filter for any party prevails whoever the stakeholders are', async () => {
    const body = format({
      includeTransactions: {
        eventFormat: { filtersForAnyParty: template(TOKEN_NAME) },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    });
    const list = await ok(body, 'any-reader');
    expect(offsets(list)).toEqual([4]);
    expect(list[0].update.Transaction.value.events[0].CreatedEvent.witnessParties).toEqual([BOB, CAROL]);
  });

  it('updateFormat selects kinds: reassignments only, topology only (empty list = all parties)', async () => {
    expect(
      offsets(await ok(format({ includeReassignments: { filtersByParty: { [CAROL]: {} } } }), 'carol-actor')),
    ).toEqual([8, 9]);
    const topo = await ok(
      format({ includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } } }),
      'any-reader',
    );
    expect(offsets(topo)).toEqual([1, 2, 11]);
    const mine = await ok(
      format({ includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [ALICE] } } }),
      'alice-reader',
    );
    expect(offsets(mine)).toEqual([1]);
  });

  it('several parties: witnesses are the stakeholders among them; updates read once', async () => {
    const list = await ok(format(txFormat({ [ALICE]: {}, [BOB]: {} })), 'all-reader');
    expect(offsets(list)).toEqual([3, 4, 5, 10]);
    expect(list[0].update.Transaction.value.events[0].CreatedEvent.witnessParties).toEqual([ALICE, BOB]);
  });
});

describe('endpoints agree', () => {
  const bodies = [
    () => legacy(ALICE),
    () => legacy(CAROL, template(IOU_NAME, true)),
    () => format(txFormat({ [CAROL]: {}, [BOB]: wildcard() }, 'TRANSACTION_SHAPE_LEDGER_EFFECTS')),
    () => ({ ...anyPartyLegacy, beginExclusive: 3, endInclusive: 8 }),
  ];

  it('flats, POST /v2/updates and both WebSocket channels give the same updates; descending is the exact reverse', async () => {
    const token = await ledger.token('any-reader');
    for (const make of bodies) {
      const body = make();
      const viaFlats = await ok(body, 'any-reader');
      const viaUpdates = await ledger.call('POST', '/v2/updates', body, { as: 'any-reader' });
      expect(viaUpdates.status).toBe(200);
      expect(viaUpdates.json).toEqual(viaFlats);
      for (const path of ['/v2/updates', '/v2/updates/flats']) {
        const ws = await wsCollect(ledger.url, path, token, body);
        expect(ws.closeCode).toBe(1000);
        expect(ws.messages).toEqual(viaFlats);
      }
      const descending = await ok({ ...body, descendingOrder: true }, 'any-reader');
      expect(descending).toEqual([...viaFlats].reverse());
    }
  });

  it('WebSocket pages are rendered on the worker thread; if the worker dies the stream goes on in-thread with the same messages', async () => {
    const renderer = ledger.app.get(PageRenderer);
    expect(renderer.threaded).toBe(true);
    const token = await ledger.token('any-reader');
    const body = format(txFormat({ [CAROL]: {}, [BOB]: wildcard() }, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'));
    const viaFlats = await ok(body, 'any-reader');
    expect((await wsCollect(ledger.url, '/v2/updates', token, body)).messages).toEqual(viaFlats);
    // Kill the worker while a stream is being served: pages then render in-thread, nothing is lost or duplicated.
    const worker = (renderer as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const some = { ...anyPartyLegacy, beginExclusive: 3, endInclusive: 8 };
    const [collected] = await Promise.all([wsCollect(ledger.url, '/v2/updates', token, some), worker.terminate()]);
    expect(collected.closeCode).toBe(1000);
    expect(collected.messages).toEqual(await ok(some, 'any-reader'));
    expect(renderer.threaded).toBe(false);
    expect((await wsCollect(ledger.url, '/v2/updates/flats', token, body)).messages).toEqual(viaFlats);
  });

  it('transaction-by-id (requestingParties) returns what the legacy stream shows, for every transaction of the stream', async () => {
    for (const party of [ALICE, BOB, CAROL]) {
      const stream = await ok(legacy(party), 'all-reader');
      for (const u of stream.filter((x) => 'Transaction' in x.update)) {
        const r = await ledger.call(
          'POST',
          '/v2/updates/transaction-by-id',
          { updateId: u.update.Transaction.value.updateId, requestingParties: [party] },
          { as: 'all-reader' },
        );
        expect(r.status).toBe(200);
        expect(r.json).toEqual({ transaction: u.update.Transaction.value });
      }
    }
  });

  it('transaction-by-id with a transactionFormat (LEDGER_EFFECTS) equals the stream element', async () => {
    const body = format(txFormat({ [CAROL]: {} }, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'));
    const stream = await ok(body, 'carol-actor');
    const six = stream.find((u) => u.update.Transaction.value.offset === 6).update.Transaction.value;
    const r = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId: idAt(6), transactionFormat: (body.updateFormat as any).includeTransactions },
      { as: 'carol-actor' },
    );
    expect(r.status).toBe(200);
    expect(r.json.transaction).toEqual(six);
  });
});

describe('transaction-by-id errors', () => {
  const call = (body: unknown, as = 'all-reader') => ledger.call('POST', '/v2/updates/transaction-by-id', body, { as });
  const notFound = (r: any, id: string) => {
    expectCantonError(r, 404, 'UPDATE_NOT_FOUND', { cause: 'Update not found, or not visible.', category: 11 });
    expect(r.json.resources).toEqual([['UPDATE_ID', id]]);
    expect(r.json.grpcCodeValue).toBe(5);
  };

  it('not found: unknown id, a reassignment, a topology transaction, nothing visible, only a non-consuming exercise', async () => {
    const unknown = '1220' + 'ff'.repeat(32);
    notFound(await call({ updateId: unknown, requestingParties: [ALICE] }), unknown);
    notFound(await call({ updateId: idAt(8), requestingParties: [BOB] }), idAt(8));
    notFound(await call({ updateId: idAt(1), requestingParties: [ALICE] }), idAt(1));
    notFound(await call({ updateId: idAt(4), requestingParties: [ALICE] }), idAt(4));
    notFound(await call({ updateId: idAt(6), requestingParties: [BOB] }), idAt(6));
    notFound(await call({ updateId: idAt(7), requestingParties: [CAROL] }), idAt(7));
  });

  it('both or neither of requestingParties and transactionFormat', async () => {
    const tf = { eventFormat: { filtersByParty: { [ALICE]: {} } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' };
    expectCantonError(
      await call({ updateId: idAt(3), requestingParties: [ALICE], transactionFormat: tf }),
      400,
      'INVALID_ARGUMENT',
      {
        cause:
          'The submitted request has invalid arguments: Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.',
        category: 8,
      },
    );
    expectCantonError(await call({ updateId: idAt(3) }), 400, 'INVALID_ARGUMENT', {
      cause:
        'The submitted request has invalid arguments: Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
      category: 8,
    });
  });

  it('update id syntax: missing, not hex, not a SHA-256 multihash', async () => {
    expectCantonError(await call({ requestingParties: [ALICE] }), 400, 'MISSING_FIELD', {
      cause: 'The submitted command is missing a mandatory field: update_id',
      category: 8,
    });
    expectCantonError(await call({ updateId: 'not-hex', requestingParties: [ALICE] }), 400, 'INVALID_ARGUMENT', {
      cause: 'The submitted request has invalid arguments: Failed to parse hex string: not-hex',
      category: 8,
    });
    const r = await call({ updateId: '1221' + 'ab'.repeat(32), requestingParties: [ALICE] });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_ARGUMENT');
    const short = await call({ updateId: '1220abcd', requestingParties: [ALICE] });
    expect(short.json.code).toBe('INVALID_ARGUMENT');
  });

  it('authorization comes before the lookup: ReadAs for every requesting party', async () => {
    const unknown = '1220' + 'ee'.repeat(32);
    const r = await call({ updateId: unknown, requestingParties: [ALICE] }, 'bob-reader');
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('NA');
    expect((await call({ updateId: 'zz', requestingParties: [ALICE, BOB] }, 'alice-reader')).status).toBe(403);
    expect((await call({ updateId: idAt(3), requestingParties: [ALICE] }, 'any-reader')).status).toBe(200);
    expect((await call({ updateId: idAt(3), requestingParties: [ALICE] }, 'nobody')).status).toBe(403);
    expect(
      (
        await ledger.call(
          'POST',
          '/v2/updates/transaction-by-id',
          { updateId: idAt(3), requestingParties: [ALICE] },
          { as: null },
        )
      ).status,
    ).toBe(401);
  });
});

describe('update list validation (JsUpdateService, UpdateServiceRequestValidator, FormatValidator), in the reference order', () => {
  const USE = 'Please use either backwards compatible arguments (filter and verbose) or update_format';
  const IA = 'The submitted request has invalid arguments: ';

  it('legacy filter versus updateFormat', async () => {
    const uf = txFormat({ [ALICE]: {} });
    expectCantonError(await flats({ ...legacy(ALICE), updateFormat: uf }, 'alice-reader'), 400, 'INVALID_ARGUMENT', {
      cause: `${IA}Both update_format and filter are set. ${USE}, but not both.`,
      category: 8,
    });
    expectCantonError(await flats(format(uf, { verbose: true }), 'alice-reader'), 400, 'INVALID_ARGUMENT', {
      cause: `${IA}Both update_format and verbose are set. ${USE}, but not both.`,
      category: 8,
    });
    expectCantonError(await flats({ beginExclusive: 0 }, 'alice-reader'), 400, 'INVALID_ARGUMENT', {
      cause: `${IA}Either filter/verbose or update_format is required. ${USE}.`,
      category: 8,
    });
    expect(offsets(await ok(format(uf, { verbose: false }), 'alice-reader'))).toEqual([3, 5, 10]);
  });

  it('offsets: negative, descending without end, non-positive end, after the ledger end, out of range, empty', async () => {
    expectCantonError(await flats(legacy(ALICE, {}, { beginExclusive: -1 }), 'alice-reader'), 400, 'NEGATIVE_OFFSET', {
      cause:
        'Offset -1 in begin_exclusive is a negative integer: the offset in begin_exclusive field has to be a non-negative integer (>=0)',
      category: 8,
    });
    const noEnd = await flats(
      { beginExclusive: 0, descendingOrder: true, filter: { filtersByParty: { [ALICE]: {} } } },
      'alice-reader',
    );
    expect(noEnd.status).toBe(400);
    expect(noEnd.json.code).toBe('DESCENDING_ORDER_MISSING_END');
    expect(noEnd.json.errorCategory).toBe(8);
    expectCantonError(await flats(legacy(ALICE, {}, { endInclusive: 0 }), 'alice-reader'), 400, 'NON_POSITIVE_OFFSET', {
      cause:
        'Offset 0 in end_inclusive is not a positive integer: the offset has to be either a positive integer (>0) or not defined at all',
      category: 8,
    });
    const begin = await flats(legacy(ALICE, {}, { beginExclusive: 12, endInclusive: 20 }), 'alice-reader');
    expectCantonError(begin, 400, 'OFFSET_AFTER_LEDGER_END', {
      cause: 'Begin offset (12) is after ledger end (11)',
      category: 12,
    });
    expect(begin.json.retryInfo).toBe('1 second');
    expect(begin.json.grpcCodeValue).toBe(11);
    expectCantonError(
      await flats(legacy(ALICE, {}, { endInclusive: 20 }), 'alice-reader'),
      400,
      'OFFSET_AFTER_LEDGER_END',
      { cause: 'End offset (20) is after ledger end (11)', category: 12 },
    );
    expectCantonError(
      await flats(legacy(ALICE, {}, { beginExclusive: 5, endInclusive: 3 }), 'alice-reader'),
      400,
      'OFFSET_OUT_OF_RANGE',
      { cause: 'End offset 3 is before begin offset 5.', category: 9 },
    );
    expect(await ok(legacy(ALICE, {}, { beginExclusive: 5, endInclusive: 5 }), 'alice-reader')).toEqual([]);
    // int64 as a decimal string is accepted.
    expect(offsets(await ok(legacy(ALICE, {}, { beginExclusive: '3', endInclusive: '5' }), 'alice-reader'))).toEqual([
      5,
    ]);
  });

  it('order: the C.2 matrix, then authorization, then the offsets, then the format', async () => {
    // both filter and updateFormat beats a negative offset
    expect(
      (
        await flats(
          { ...legacy(ALICE, {}, { beginExclusive: -1 }), updateFormat: txFormat({ [ALICE]: {} }) },
          'alice-reader',
        )
      ).json.code,
    ).toBe('INVALID_ARGUMENT');
    // authorization beats a negative offset
    expect((await flats(legacy(ALICE, {}, { beginExclusive: -1 }), 'bob-reader')).status).toBe(403);
    // offsets beat the format
    expect(
      (
        await flats(
          format(
            {
              includeTransactions: {
                eventFormat: { filtersByParty: {} },
                transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
              },
            },
            { beginExclusive: -1 },
          ),
          'any-reader',
        )
      ).json.code,
    ).toBe('NEGATIVE_OFFSET');
    expect((await flats(legacy(ALICE, {}, { beginExclusive: 12, endInclusive: 3 }), 'alice-reader')).json.code).toBe(
      'OFFSET_AFTER_LEDGER_END',
    );
  });

  it('a filter or format naming no party is authorized for any user, then rejected by the format check (400, not 403)', async () => {
    const empty = `${IA}filtersByParty and filtersForAnyParty cannot be empty simultaneously`;
    const acsDelta = { eventFormat: { filtersByParty: {} }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' };
    const noParty = [
      { beginExclusive: 0, endInclusive: 11, filter: { filtersByParty: {} } },
      { beginExclusive: 0, endInclusive: 11, filter: {} },
      { beginExclusive: 0, endInclusive: 11, filter: { filtersByParty: {} }, verbose: true },
      format({ includeTransactions: acsDelta }),
      format({ includeReassignments: { filtersByParty: {} } }),
    ];
    for (const body of noParty) {
      for (const path of ['/v2/updates/flats', '/v2/updates']) {
        for (const as of ['alice-reader', 'nobody'])
          expectCantonError(await ledger.call('POST', path, body, { as }), 400, 'INVALID_ARGUMENT', {
            cause: empty,
            category: 8,
          });
      }
    }
    // The WebSocket channels answer the same, as their one JsCantonError frame.
    const nobody = await ledger.token('nobody');
    for (const path of ['/v2/updates', '/v2/updates/flats']) {
      for (const body of [noParty[0], noParty[3]]) {
        const r = await wsCollect(ledger.url, path, nobody, body);
        expect(r.messages).toHaveLength(1);
        expect(r.messages[0]).toMatchObject({ code: 'INVALID_ARGUMENT', cause: empty, errorCategory: 8 });
      }
    }
    // transaction-by-id: a transactionFormat naming no party passes authorization and the id check, then fails the format.
    const byId = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId: idAt(1), transactionFormat: acsDelta },
      { as: 'nobody' },
    );
    expectCantonError(byId, 400, 'INVALID_ARGUMENT', { cause: empty, category: 8 });
    // A party the user may not read is still refused first, and filtersForAnyParty still needs ReadAsAnyParty.
    expect((await flats({ ...noParty[0], filter: { filtersByParty: { [BOB]: {} } } }, 'alice-reader')).status).toBe(
      403,
    );
    expect(
      (await flats({ ...noParty[0], filter: { filtersByParty: {}, filtersForAnyParty: {} } }, 'alice-reader')).status,
    ).toBe(403);
  });

  it('event formats: empty filters, unspecified shape, package-id templates, malformed identifiers and enums, bad party ids', async () => {
    expectCantonError(
      await flats(
        format({
          includeTransactions: { eventFormat: { filtersByParty: {} }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
        }),
        'any-reader',
      ),
      400,
      'INVALID_ARGUMENT',
      { cause: `${IA}filtersByParty and filtersForAnyParty cannot be empty simultaneously`, category: 8 },
    );
    expectCantonError(
      await flats(format(txFormat({ [ALICE]: {} }, 'TRANSACTION_SHAPE_UNSPECIFIED')), 'alice-reader'),
      400,
      'MISSING_FIELD',
      { cause: 'The submitted command is missing a mandatory field: transaction_shape', category: 8 },
    );
    expectCantonError(await flats(format(txFormat({ [ALICE]: template(IOU) })), 'alice-reader'), 400, 'INVALID_FIELD', {
      cause: `The submitted command has a field with invalid value: Invalid field packageId: Received an identifier with package ID ${IOU_PKG}, but expected a package name.`,
      category: 8,
    });
    const malformed = await flats(format(txFormat({ [ALICE]: template('no-colons') })), 'alice-reader');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(malformed.text).toBe(
      `Invalid value for: body (Invalid identifier format (no-colons) not matching the expected format (<package>:<moduleName>:<entityName>) at 'updateFormat.includeTransactions.eventFormat.filtersByParty.${ALICE}.cumulative[0].identifierFilter.TemplateFilter.value.templateId')`,
    );
    const shape = await flats(format(txFormat({ [ALICE]: {} }, 'TRANSACTION_SHAPE_FANCY')), 'alice-reader');
    expect(shape.status).toBe(400);
    expect(shape.text).toMatch(/^Invalid value for: body \(/);
    const wrongType = await flats(
      { beginExclusive: 'abc', filter: { filtersByParty: { [ALICE]: {} } } },
      'alice-reader',
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.text).toMatch(/^Invalid value for: body/);
    const badParty = await flats(legacy('no/slashes', {}), 'any-reader');
    expect(badParty.status).toBe(400);
    expect(badParty.json.code).toBe('INVALID_FIELD');
    // Unknown (well-formed) parties match nothing.
    expect(await ok(legacy(`dave::${'1220' + '00'.repeat(32)}`), 'any-reader')).toEqual([]);
    const q = await ledger.call('POST', '/v2/updates/flats?limit=abc', legacy(ALICE), { as: 'alice-reader' });
    expect(q.status).toBe(400);
    expect(q.text).toBe('Invalid value for: query parameter limit');
  });
});

describe('limit and the 413 edges (maximum lowered to 7)', () => {
  it('limit 0, limit below, limit = max, exactly max without limit, max + 1 → 413, limit above max → 413', async () => {
    expect(await ok(anyPartyLegacy, 'any-reader', '?limit=0')).toEqual([]);
    expect(offsets(await ok(anyPartyLegacy, 'any-reader', '?limit=2'))).toEqual([1, 2]);
    expect(offsets(await ok(anyPartyLegacy, 'any-reader', `?limit=${MAX}`))).toEqual([1, 2, 3, 4, 5, 8, 9]);
    // carol sees exactly 7 updates: no 413 without a limit
    expect(offsets(await ok(legacy(CAROL), 'carol-actor'))).toHaveLength(MAX);
    const over = await flats(anyPartyLegacy, 'any-reader');
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({
      code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      cause: `The number of matching elements (${MAX + 1}) is greater than the node limit (${MAX}).`,
      context: {},
      resources: [],
      errorCategory: 2,
      grpcCodeValue: 10,
      retryInfo: '1 second',
      definiteAnswer: false,
    });
    expect((await flats(anyPartyLegacy, 'any-reader', '?limit=100')).status).toBe(413);
    expect(offsets(await ok({ ...anyPartyLegacy, descendingOrder: true }, 'any-reader', '?limit=2'))).toEqual([11, 10]);
  });
});

describe('authorization of the update list (Canton UpdateServiceAuthorization)', () => {
  it('ReadAs per party, ReadAsAnyParty for party-wildcard and all-party topology, 401 without a token', async () => {
    expect((await flats(legacy(ALICE), 'bob-reader')).status).toBe(403);
    expect((await flats(legacy(ALICE), 'alice-reader')).status).toBe(200);
    expect((await flats(legacy(CAROL), 'carol-actor')).status).toBe(200);
    expect((await flats(format(txFormat({ [ALICE]: {}, [BOB]: {} })), 'alice-reader')).status).toBe(403);
    expect((await flats(anyPartyLegacy, 'all-reader')).status).toBe(403);
    expect((await flats({ ...anyPartyLegacy, endInclusive: 5 }, 'any-reader')).status).toBe(200);
    expect(
      (
        await flats(
          format({ includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } } }),
          'all-reader',
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await flats(
          format({ includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [BOB] } } }),
          'bob-reader',
        )
      ).status,
    ).toBe(200);
    expect(
      (await flats(format({ includeReassignments: { filtersByParty: { [BOB]: {} } } }), 'alice-reader')).status,
    ).toBe(403);
    // The participant admin has no party rights.
    expect((await flats(legacy(ALICE), ledger.config.adminUser)).status).toBe(403);
    expect((await ledger.call('POST', '/v2/updates/flats', legacy(ALICE), { as: null })).status).toBe(401);
    expect((await ledger.call('POST', '/v2/updates', legacy(ALICE), { as: 'nobody' })).status).toBe(403);
  });

  it('WebSocket: the token travels in the sub-protocol; refusals are HTTP before the upgrade or an error message', async () => {
    const none = await wsCollect(ledger.url, '/v2/updates', null, legacy(ALICE));
    expect(none.rejectedStatus).toBe(401);
    expect(JSON.parse(none.rejectedBody!).code).toBe('NA');
    const bad = await wsCollect(ledger.url, '/v2/updates', 'not-a-jwt', legacy(ALICE));
    expect(bad.rejectedStatus).toBe(401);
    const ghost = await wsCollect(ledger.url, '/v2/updates', await ledger.token('no-such-user'), legacy(ALICE));
    expect(ghost.rejectedStatus).toBe(403);
    expect(JSON.parse(ghost.rejectedBody!).context).toEqual({ ledger_api_error: 'invalid token' });
    const denied = await wsCollect(ledger.url, '/v2/updates', await ledger.token('bob-reader'), legacy(ALICE));
    expect(denied.messages).toHaveLength(1);
    expect(denied.messages[0]).toMatchObject({ code: 'NA', grpcCodeValue: 7, errorCategory: -1 });
    const plain = await ledger.call('GET', '/v2/updates', undefined, { as: 'alice-reader' });
    expect(plain.status).toBe(400);
    expect(plain.text).toBe('Invalid value for: header Upgrade');
    const allowed = await wsCollect(ledger.url, '/v2/updates/flats', await ledger.token('alice-reader'), legacy(ALICE));
    expect(offsets(allowed.messages)).toEqual([1, 3, 5, 10]);
  });

  it('WebSocket: validation errors arrive as one JsCantonError message', async () => {
    const token = await ledger.token('alice-reader');
    const neg = await wsCollect(ledger.url, '/v2/updates', token, legacy(ALICE, {}, { beginExclusive: -1 }));
    expect(neg.messages).toHaveLength(1);
    expect(neg.messages[0]).toMatchObject({ code: 'NEGATIVE_OFFSET', errorCategory: 8 });
    const both = await wsCollect(ledger.url, '/v2/updates', token, {
      ...legacy(ALICE),
      updateFormat: txFormat({ [ALICE]: {} }),
    });
    expect(both.messages[0].code).toBe('INVALID_ARGUMENT');
    const junk = await wsCollect(ledger.url, '/v2/updates', token, '{not json');
    expect(junk.messages[0].code).toBe('INVALID_ARGUMENT');
    expect(junk.messages[0].cause).toMatch(/^Invalid value for: body/);
  });
});

describe('transaction-by-id is a direct route: the framework edges answer as on a controller route', () => {
  const TX = '/v2/updates/transaction-by-id';

  it('malformed JSON, a body of the wrong type, no token, a bad token, an empty Bearer, a GET (compared with flats)', async () => {
    await expectSameFrameworkEdges(ledger, TX, '/v2/updates/flats', 'all-reader', { updateId: 5, beginExclusive: 'x' });
  });

  it('is listed in the served OpenAPI document with its request schema, and counted in the HTTP metrics', async () => {
    const doc = (await ledger.call('GET', '/docs/openapi')).json;
    expect(doc.paths[TX].post.requestBody.content['application/json'].schema.properties).toHaveProperty('updateId');
    await ledger.call('POST', TX, { updateId: idAt(3), requestingParties: [ALICE] }, { as: 'alice-reader' });
    const metrics = (await ledger.call('GET', '/metrics')).text;
    expect(metrics).toMatch(
      /route="\/v2\/updates\/transaction-by-id"[^\n]*status="200"|status="200"[^\n]*route="\/v2\/updates\/transaction-by-id"/,
    );
  });
});
