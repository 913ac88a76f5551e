import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedEvent } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { ALICE, BOB, CAROL, cid, IOU_NAME, S1, writeScenario } from '../../support/updates-scenario';
import { wsCollect } from '../../support/ws-client';
import { expectCantonError } from '../../support/canton-error';

/**
 * The deprecated tree forms on the fixed scenario (offsets 1…11): the trees list and WebSocket, transaction-tree-by-id
 * and -by-offset. Their transactions are the LEDGER_EFFECTS transactions of the update stream keyed by node id; every
 * rejection with its code and status, and rights.
 */
let ledger: TestLedger;
let committed: CommittedEvent[];
const idAt = (offset: number) => committed.find((e) => e.update?.offset === offset)!.update!.updateId;

const wildcard = {
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
};
const effects = (...parties: string[]) => ({
  includeTransactions: {
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, wildcard])) },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  },
});

beforeAll(async () => {
  ledger = await startTestLedger();
  committed = await writeScenario(ledger.runtime.eventStore);
  const readAs = (party: string) => ({ kind: { CanReadAs: { value: { party } } } });
  for (const [id, rights] of [
    ['alice-reader', [readAs(ALICE)]],
    ['all-reader', [readAs(ALICE), readAs(BOB), readAs(CAROL)]],
  ] as const) {
    expect((await ledger.call('POST', '/v2/users', { user: { id }, rights })).status).toBe(200);
  }
});
afterAll(async () => ledger?.close());

/** The flat LEDGER_EFFECTS transaction at `offset` for `parties`, as the update stream renders it. */
async function flatAt(offset: number, ...parties: string[]) {
  const r = await ledger.call(
    'POST',
    '/v2/updates/update-by-offset',
    { offset, updateFormat: effects(...parties) },
    { as: 'all-reader' },
  );
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.update.Transaction.value;
}

/** A flat transaction's events keyed by node id, as a tree shows them. */
function asEventsById(flat: any) {
  return Object.fromEntries(
    flat.events.map((e: any) =>
      e.CreatedEvent
        ? [String(e.CreatedEvent.nodeId), { CreatedTreeEvent: { value: e.CreatedEvent } }]
        : [String(e.ExercisedEvent.nodeId), { ExercisedTreeEvent: { value: e.ExercisedEvent } }],
    ),
  );
}

describe('transaction-tree-by-offset and transaction-tree-by-id', () => {
  it('answer the LEDGER_EFFECTS transaction keyed by node id, with the tree fields only', async () => {
    const r = await ledger.call(
      'GET',
      `/v2/updates/transaction-tree-by-offset/5?parties=${encodeURIComponent(ALICE)}`,
      undefined,
      { as: 'alice-reader' },
    );
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const tree = r.json.transaction;
    expect(Object.keys(tree).sort()).toEqual([
      'commandId',
      'effectiveAt',
      'eventsById',
      'offset',
      'recordTime',
      'synchronizerId',
      'traceContext',
      'updateId',
      'workflowId',
    ]);
    expect(tree).toMatchObject({
      updateId: idAt(5),
      commandId: 'cmd-transfer',
      workflowId: 'wf-cmd-transfer',
      offset: 5,
      synchronizerId: S1,
      traceContext: null,
    });
    // the consuming exercise (node 0) and the new Iou (node 2), as the update stream shows them to alice
    expect(Object.keys(tree.eventsById)).toEqual(['0', '2']);
    expect(tree.eventsById['0'].ExercisedTreeEvent.value).toMatchObject({
      choice: 'Transfer',
      consuming: true,
      witnessParties: [ALICE],
      lastDescendantNodeId: 2,
    });
    expect(tree.eventsById['2'].CreatedTreeEvent.value).toMatchObject({
      contractId: cid(3),
      witnessParties: [ALICE],
      acsDelta: true,
    });
    const flat = await flatAt(5, ALICE);
    expect(tree.eventsById).toEqual(asEventsById(flat));
    const header = Object.fromEntries(
      Object.entries(flat).filter(
        ([k]) => !['events', 'externalTransactionHash', 'paidTrafficCost', 'transactionHash'].includes(k),
      ),
    );
    expect({ ...tree, eventsById: undefined }).toEqual({ ...header, eventsById: undefined });

    const byId = await ledger.call(
      'GET',
      `/v2/updates/transaction-tree-by-id/${idAt(5)}?parties=${encodeURIComponent(ALICE)}`,
      undefined,
      { as: 'alice-reader' },
    );
    expect(byId.status).toBe(200);
    expect(byId.json).toEqual(r.json);
  });

  it('show what the listed parties witness: a non-consuming exercise to its informees; several parties', async () => {
    // offset 6: carol exercises a non-consuming choice on bob's Token; ACS_DELTA shows nothing of it
    const six = await ledger.call(
      'GET',
      `/v2/updates/transaction-tree-by-offset/6?parties=${encodeURIComponent(BOB)}`,
      undefined,
      { as: 'all-reader' },
    );
    expect(six.status).toBe(200);
    expect(six.json.transaction.eventsById['0'].ExercisedTreeEvent.value).toMatchObject({
      choice: 'Inspect',
      consuming: false,
      witnessParties: [BOB],
      acsDelta: false,
    });
    const both = await ledger.call(
      'GET',
      `/v2/updates/transaction-tree-by-offset/5?parties=${encodeURIComponent(ALICE)}&parties=${encodeURIComponent(CAROL)}`,
      undefined,
      { as: 'all-reader' },
    );
    expect(both.json.transaction.eventsById['2'].CreatedTreeEvent.value.witnessParties).toEqual([ALICE, CAROL]);
    expect(both.json.transaction.eventsById).toEqual(asEventsById(await flatAt(5, ALICE, CAROL)));
  });

  it('reject as the reference: no party, offsets, ids, invisible or other updates, rights', async () => {
    const a = `?parties=${encodeURIComponent(ALICE)}`;
    const get = (path: string, as: string | null = 'alice-reader') => ledger.call('GET', path, undefined, { as });
    expectCantonError(await get('/v2/updates/transaction-tree-by-offset/5'), 400, 'INVALID_ARGUMENT', {
      cause:
        'The submitted request has invalid arguments: filtersByParty and filtersForAnyParty cannot be empty simultaneously',
    });
    expectCantonError(await get(`/v2/updates/transaction-tree-by-id/${idAt(5)}`), 400, 'INVALID_ARGUMENT');
    expectCantonError(await get(`/v2/updates/transaction-tree-by-offset/0${a}`), 400, 'NON_POSITIVE_OFFSET');
    expectCantonError(await get(`/v2/updates/transaction-tree-by-offset/-3${a}`), 400, 'NON_POSITIVE_OFFSET');
    const bad = await get(`/v2/updates/transaction-tree-by-offset/five${a}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(bad.text).toMatch(/^Invalid value for: path parameter offset/);
    // a topology transaction, a reassignment, beyond the ledger end, not witnessed by alice
    for (const offset of [1, 8, 99, 4]) {
      const r = await get(`/v2/updates/transaction-tree-by-offset/${offset}${a}`);
      expectCantonError(r, 404, 'UPDATE_NOT_FOUND', { cause: 'Update not found, or not visible.' });
      expect(r.json.resources).toEqual([['OFFSET', String(offset)]]);
    }
    const unknown = '1220' + '0f'.repeat(32);
    const nf = await get(`/v2/updates/transaction-tree-by-id/${unknown}${a}`);
    expectCantonError(nf, 404, 'UPDATE_NOT_FOUND');
    expect(nf.json.resources).toEqual([['UPDATE_ID', unknown]]);
    expectCantonError(await get(`/v2/updates/transaction-tree-by-id/${idAt(4)}${a}`), 404, 'UPDATE_NOT_FOUND');
    expectCantonError(await get(`/v2/updates/transaction-tree-by-id/not-hex${a}`), 400, 'INVALID_ARGUMENT');
    // rights come first: bob's tree for alice's reader is a redacted 403 even for an id that does not parse
    expect((await get(`/v2/updates/transaction-tree-by-offset/5?parties=${encodeURIComponent(BOB)}`)).status).toBe(403);
    expect((await get(`/v2/updates/transaction-tree-by-id/not-hex?parties=${encodeURIComponent(BOB)}`)).json.code).toBe(
      'NA',
    );
    expect((await get(`/v2/updates/transaction-tree-by-offset/5${a}`, null)).status).toBe(401);
  });
});

describe('the trees list and WebSocket', () => {
  const legacy = {
    beginExclusive: 0,
    endInclusive: 11,
    filter: {
      filtersByParty: {
        [CAROL]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: IOU_NAME } } } }] },
      },
    },
  };
  const shape = (list: any[]) =>
    list.map((e) => [Object.keys(e.update)[0], Object.values<any>(e.update)[0].value.offset]);

  it('the legacy filter reads LEDGER_EFFECTS with a wildcard added, reassignments, no topology', async () => {
    const r = await ledger.call('POST', '/v2/updates/trees', legacy, { as: 'all-reader' });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(shape(r.json)).toEqual([
      ['TransactionTree', 4], // carol observes bob's Token: the template filter got a wildcard
      ['TransactionTree', 5],
      ['TransactionTree', 6], // a non-consuming exercise carol acts in
      ['TransactionTree', 7], // the transient Iou: its create and its archive
      ['Reassignment', 8],
      ['Reassignment', 9],
      ['TransactionTree', 10],
    ]);
    for (const e of r.json.filter((x: any) => x.update.TransactionTree)) {
      const tree = e.update.TransactionTree.value;
      expect(tree.eventsById).toEqual(asEventsById(await flatAt(tree.offset, CAROL)));
    }
    expect(Object.keys(r.json[3].update.TransactionTree.value.eventsById)).toEqual(['0', '1']);
    // the same elements as the update stream's reassignments
    const flats = await ledger.call(
      'POST',
      '/v2/updates',
      { ...legacy, filter: { filtersByParty: { [CAROL]: wildcard } } },
      { as: 'all-reader' },
    );
    expect(r.json.filter((x: any) => x.update.Reassignment)).toEqual(
      flats.json.filter((x: any) => x.update.Reassignment),
    );
  });

  it('an updateFormat is used as given; the list, limit and the WebSocket agree', async () => {
    const body = { beginExclusive: 3, endInclusive: 10, updateFormat: effects(BOB) };
    const list = await ledger.call('POST', '/v2/updates/trees', body, { as: 'all-reader' });
    expect(shape(list.json)).toEqual([
      ['TransactionTree', 4],
      ['TransactionTree', 5],
      ['TransactionTree', 6],
    ]);
    const ws = await wsCollect(ledger.url, '/v2/updates/trees', await ledger.token('all-reader'), body);
    expect(ws.closeCode).toBe(1000);
    expect(ws.messages).toEqual(list.json);
    const limited = await ledger.call('POST', '/v2/updates/trees?limit=2', body, { as: 'all-reader' });
    expect(limited.json).toEqual(list.json.slice(0, 2));
  });

  it('rejects as the update stream does, and a format with topology events', async () => {
    const both = await ledger.call(
      'POST',
      '/v2/updates/trees',
      { ...legacy, updateFormat: effects(CAROL) },
      { as: 'all-reader' },
    );
    expectCantonError(both, 400, 'INVALID_ARGUMENT', {
      cause:
        'The submitted request has invalid arguments: Both update_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.',
    });
    expectCantonError(
      await ledger.call('POST', '/v2/updates/trees', { beginExclusive: 0 }, { as: 'all-reader' }),
      400,
      'INVALID_ARGUMENT',
    );
    const topology = {
      beginExclusive: 0,
      endInclusive: 11,
      updateFormat: {
        ...effects(CAROL),
        includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [CAROL] } },
      },
    };
    expectCantonError(
      await ledger.call('POST', '/v2/updates/trees', topology, { as: 'all-reader' }),
      400,
      'INVALID_ARGUMENT',
    );
    const ws = await wsCollect(ledger.url, '/v2/updates/trees', await ledger.token('all-reader'), topology);
    expect(ws.messages).toHaveLength(1);
    expect(ws.messages[0].code).toBe('INVALID_ARGUMENT');
    expectCantonError(
      await ledger.call('POST', '/v2/updates/trees', { ...legacy, endInclusive: 99 }, { as: 'all-reader' }),
      400,
      'OFFSET_AFTER_LEDGER_END',
    );
    expect((await ledger.call('POST', '/v2/updates/trees', legacy, { as: 'alice-reader' })).status).toBe(403);
    expect((await ledger.call('POST', '/v2/updates/trees', legacy, { as: null })).status).toBe(401);
    const notNumber = await ledger.call('POST', '/v2/updates/trees?limit=x', legacy, { as: 'all-reader' });
    expect(notNumber.status).toBe(400);
    expect(notNumber.text).toMatch(/^Invalid value for: query parameter limit/);
  });
});
