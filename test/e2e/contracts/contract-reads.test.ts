import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedEvent } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { ALICE, BOB, CAROL, cid, IOU_NAME, S1, S2, TOKEN_NAME, writeScenario } from '../../support/updates-scenario';
import { wsCollect } from '../../support/ws-client';
import { expectCantonError } from '../../support/canton-error';

/**
 * The contract and update reads on the fixed scenario (offsets 1…11): the active contract set (list, page, WebSocket),
 * events by contract id, contract by id, update by id / offset, transaction by offset and the updates page; every
 * rejection with its code and status, rights, and the list-size limit.
 */
const MAX = 3;
let ledger: TestLedger;
let committed: CommittedEvent[];
const idAt = (offset: number) => committed.find((e) => e.update?.offset === offset)!.update!.updateId;

const wildcard = (includeCreatedEventBlob = false) => ({
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob } } } }],
});
const byParty = (...parties: string[]) => ({
  filtersByParty: Object.fromEntries(parties.map((p) => [p, wildcard()])),
  verbose: false,
});
const anyParty = { filtersForAnyParty: wildcard(), verbose: false };

async function createUser(id: string, rights: unknown[]) {
  expect((await ledger.call('POST', '/v2/users', { user: { id }, rights })).status).toBe(200);
}

/** A GET with a JSON body (fetch cannot send one). */
function getWithBody(
  path: string,
  body: unknown,
  token: string | null,
): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(data)),
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request(ledger.url + path, { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, json, text });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_HTTP_LIST_MAX_ELEMENTS: String(MAX) });
  committed = await writeScenario(ledger.runtime.eventStore);
  const readAs = (party: string) => ({ kind: { CanReadAs: { value: { party } } } });
  await createUser('alice-reader', [readAs(ALICE)]);
  await createUser('carol-actor', [{ kind: { CanActAs: { value: { party: CAROL } } } }]);
  await createUser('all-reader', [readAs(ALICE), readAs(BOB), readAs(CAROL)]);
  await createUser('any-reader', [{ kind: { CanReadAsAnyParty: { value: {} } } }]);
  await createUser('nobody', []);
});
afterAll(async () => ledger?.close());

const acs = (body: unknown, as = 'any-reader', query = '') =>
  ledger.call('POST', `/v2/state/active-contracts${query}`, body, { as });
const withoutTokens = (list: any[]) => list.map((e) => ({ ...e, streamContinuationToken: undefined }));
/** An answer without its per-request trace ids (errors carry them). */
const withoutTraces = (json: any) =>
  json && typeof json === 'object' && 'traceId' in json
    ? { ...json, traceId: undefined, context: { ...json.context, tid: undefined } }
    : json;
const contractIds = (list: any[]) => list.map((e) => Object.values<any>(e.contractEntry)[0].createdEvent.contractId);

describe('active contracts on the fixed scenario', () => {
  it('is exact at each offset: creates, archives, the unassigned token in flight, then active on the target', async () => {
    expect((await acs({ activeAtOffset: 0, eventFormat: anyParty })).json).toEqual([]);
    expect(contractIds((await acs({ activeAtOffset: 4, eventFormat: anyParty })).json)).toEqual([cid(1), cid(2)]);
    expect(contractIds((await acs({ activeAtOffset: 5, eventFormat: anyParty })).json)).toEqual([cid(2), cid(3)]);
    const at8 = (await acs({ activeAtOffset: 8, eventFormat: anyParty })).json;
    expect(at8.map((e: any) => Object.keys(e.contractEntry)[0])).toEqual([
      'JsActiveContract',
      'JsIncompleteUnassigned',
    ]);
    const inFlight = at8[1];
    expect(inFlight.contractEntry.JsIncompleteUnassigned.createdEvent).toMatchObject({
      contractId: cid(2),
      offset: 4,
      nodeId: 0,
      acsDelta: true,
    });
    expect(inFlight.contractEntry.JsIncompleteUnassigned.unassignedEvent).toMatchObject({
      contractId: cid(2),
      source: S1,
      target: S2,
      reassignmentCounter: 1,
      offset: 8,
      nodeId: 0,
      submitter: BOB,
    });
    const at11 = (await acs({ activeAtOffset: 11, eventFormat: anyParty })).json;
    expect(at11).toHaveLength(1);
    expect(at11[0].contractEntry.JsActiveContract).toMatchObject({
      synchronizerId: S2,
      reassignmentCounter: 1,
      createdEvent: { contractId: cid(2), offset: 9, nodeId: 0 },
    });
    expect(at11[0].streamContinuationToken).not.toBe('');
  });

  it('filters: party, template, blob, witnesses; legacy filter form', async () => {
    const alice = (await acs({ activeAtOffset: 5, eventFormat: byParty(ALICE) }, 'alice-reader')).json;
    expect(contractIds(alice)).toEqual([cid(3)]);
    expect(alice[0].contractEntry.JsActiveContract.createdEvent.witnessParties).toEqual([ALICE]);
    expect(alice[0].contractEntry.JsActiveContract.createdEvent.createdEventBlob).toBe('');
    const tokens = {
      filtersForAnyParty: {
        cumulative: [
          {
            identifierFilter: { TemplateFilter: { value: { templateId: TOKEN_NAME, includeCreatedEventBlob: true } } },
          },
        ],
      },
    };
    const t = (await acs({ activeAtOffset: 5, eventFormat: tokens })).json;
    expect(contractIds(t)).toEqual([cid(2)]);
    expect(t[0].contractEntry.JsActiveContract.createdEvent.createdEventBlob).not.toBe('');
    expect(t[0].contractEntry.JsActiveContract.createdEvent.witnessParties).toEqual([BOB, CAROL]);
    const legacy = (
      await acs({ activeAtOffset: 5, filter: { filtersByParty: { [ALICE]: {} } }, verbose: true }, 'alice-reader')
    ).json;
    expect(withoutTokens(legacy)).toEqual(withoutTokens(alice));
    const ious = {
      filtersByParty: {
        [CAROL]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: IOU_NAME } } } }] },
      },
    };
    expect(contractIds((await acs({ activeAtOffset: 5, eventFormat: ious }, 'carol-actor')).json)).toEqual([cid(3)]);
  });

  it('resumes after a continuation token; the WebSocket agrees with the list', async () => {
    const all = (await acs({ activeAtOffset: 8, eventFormat: anyParty })).json;
    const rest = (
      await acs({ activeAtOffset: 8, eventFormat: anyParty, streamContinuationToken: all[0].streamContinuationToken })
    ).json;
    expect(rest).toEqual(all.slice(1));
    const ws = await wsCollect(ledger.url, '/v2/state/active-contracts', await ledger.token('any-reader'), {
      activeAtOffset: 8,
      eventFormat: anyParty,
    });
    expect(ws.messages).toEqual(all);
    expect(ws.closeCode).toBe(1000);
    const bad = await wsCollect(ledger.url, '/v2/state/active-contracts', await ledger.token('any-reader'), {
      activeAtOffset: 99,
      eventFormat: anyParty,
    });
    expect(bad.messages[0].code).toBe('OFFSET_AFTER_LEDGER_END');
  });

  it('rejections in the reference order, with their codes and statuses', async () => {
    const usage = 'Please use either backwards compatible arguments (filter and verbose) or event_format';
    const prefix = 'The submitted request has invalid arguments: ';
    expectCantonError(await acs({ activeAtOffset: 1 }), 400, 'INVALID_ARGUMENT', {
      cause: `${prefix}Either filter/verbose or event_format is required. ${usage}.`,
    });
    expectCantonError(
      await acs({ eventFormat: anyParty, filter: { filtersForAnyParty: {} } }),
      400,
      'INVALID_ARGUMENT',
      { cause: `${prefix}Both event_format and filter are set. ${usage}, but not both.` },
    );
    expectCantonError(await acs({ eventFormat: anyParty, verbose: true }), 400, 'INVALID_ARGUMENT', {
      cause: `${prefix}Both event_format and verbose are set. ${usage}, but not both.`,
    });
    // the JSON layer's matrix comes before authorization
    expectCantonError(await acs({ activeAtOffset: 1 }, 'nobody'), 400, 'INVALID_ARGUMENT');
    expectCantonError(await acs({ activeAtOffset: -1, eventFormat: {} }), 400, 'INVALID_ARGUMENT', {
      cause: `${prefix}filtersByParty and filtersForAnyParty cannot be empty simultaneously`,
    });
    expectCantonError(await acs({ activeAtOffset: -1, eventFormat: anyParty }), 400, 'NEGATIVE_OFFSET');
    const after = await acs({ activeAtOffset: 12, eventFormat: anyParty });
    expectCantonError(after, 400, 'OFFSET_AFTER_LEDGER_END', {
      cause: 'active_at_offset offset (12) is after ledger end (11)',
    });
    expect(after.json.retryInfo).toBe('1 second');
    expectCantonError(
      await acs(
        {
          eventFormat: {
            filtersByParty: {
              [ALICE]: {
                cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'abc:Iou:Iou' } } } }],
              },
            },
          },
        },
        'alice-reader',
      ),
      400,
      'INVALID_FIELD',
    );
    expectCantonError(await acs({ eventFormat: anyParty, streamContinuationToken: '!!' }), 400, 'INVALID_FIELD');
    const token = (await acs({ activeAtOffset: 8, eventFormat: anyParty })).json[0].streamContinuationToken;
    expectCantonError(
      await acs({ activeAtOffset: 8, eventFormat: byParty(ALICE), streamContinuationToken: token }, 'all-reader'),
      400,
      'INVALID_CONTINUATION_TOKEN',
    );
    const bad = await ledger.call(
      'POST',
      '/v2/state/active-contracts?limit=x',
      { eventFormat: anyParty },
      { as: 'any-reader' },
    );
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^Invalid value for: query parameter limit/);
  });

  it('rights: redacted 403 for a party not readable, 401 without a token', async () => {
    const denied = await acs({ activeAtOffset: 5, eventFormat: byParty(BOB) }, 'alice-reader');
    expectCantonError(denied, 403, 'NA');
    expectCantonError(await acs({ activeAtOffset: 5, eventFormat: anyParty }, 'alice-reader'), 403, 'NA');
    expectCantonError(await acs({ activeAtOffset: 5, eventFormat: byParty(ALICE) }, null as never), 401, 'NA');
    // CanActAs implies ReadAs; admin alone reads no party
    expect((await acs({ activeAtOffset: 5, eventFormat: byParty(CAROL) }, 'carol-actor')).status).toBe(200);
    expectCantonError(
      await acs({ activeAtOffset: 5, eventFormat: byParty(CAROL) }, ledger.config.adminUser),
      403,
      'NA',
    );
  });

  it('the page form: GET with a body, chained pages equal the list, token rules', async () => {
    const token = await ledger.token('any-reader');
    const list = (await acs({ activeAtOffset: 8, eventFormat: anyParty })).json;
    const p1 = await getWithBody(
      '/v2/state/active-contracts-page',
      { activeAtOffset: 8, eventFormat: anyParty, maxPageSize: 1 },
      token,
    );
    expect(p1.status, p1.text).toBe(200);
    expect(p1.json.activeAtOffset).toBe(8);
    expect(p1.json.activeContracts).toHaveLength(1);
    expect(p1.json.activeContracts[0].streamContinuationToken).toBe('');
    const p2 = await getWithBody(
      '/v2/state/active-contracts-page',
      { eventFormat: anyParty, maxPageSize: 5, pageToken: p1.json.nextPageToken },
      token,
    );
    expect(p2.status, p2.text).toBe(200);
    expect(p2.json.nextPageToken).toBeNull();
    expect(withoutTokens([...p1.json.activeContracts, ...p2.json.activeContracts])).toEqual(withoutTokens(list));
    // absent offset: the ledger end, reported
    expect(
      (await getWithBody('/v2/state/active-contracts-page', { eventFormat: anyParty }, token)).json.activeAtOffset,
    ).toBe(11);
    expectCantonError(
      await getWithBody(
        '/v2/state/active-contracts-page',
        { activeAtOffset: 7, eventFormat: anyParty, pageToken: p1.json.nextPageToken },
        token,
      ),
      400,
      'INVALID_ACS_PAGE_TOKEN',
    );
    expectCantonError(
      await getWithBody('/v2/state/active-contracts-page', { eventFormat: anyParty, maxPageSize: 0 }, token),
      400,
      'INVALID_ARGUMENT',
      { cause: 'The submitted request has invalid arguments: Requested page size must be positive, but got 0' },
    );
    expectCantonError(
      await getWithBody('/v2/state/active-contracts-page', { eventFormat: anyParty, maxPageSize: 10001 }, token),
      400,
      'INVALID_ARGUMENT',
    );
    expectCantonError(await getWithBody('/v2/state/active-contracts-page', {}, token), 400, 'MISSING_FIELD');
    const bare = await getWithBody('/v2/state/active-contracts-page', undefined, token);
    expect(bare.status).toBe(400);
    expect(bare.text).toMatch(/^Invalid value for: body/);
    expectCantonError(
      await getWithBody(
        '/v2/state/active-contracts-page',
        { eventFormat: anyParty },
        await ledger.token('alice-reader'),
      ),
      403,
      'NA',
    );
  });
});

describe('POST /v2/state/active-contracts-page (Canton 3.5.10; the GET form is deprecated there)', () => {
  const page = (body: unknown, as: string | null = 'any-reader') =>
    ledger.call('POST', '/v2/state/active-contracts-page', body, { as });

  it('answers what the GET form answers: pages, chaining, errors and rights', async () => {
    const token = await ledger.token('any-reader');
    for (const body of [
      { activeAtOffset: 8, eventFormat: anyParty, maxPageSize: 1 },
      { activeAtOffset: 8, eventFormat: anyParty, maxPageSize: 5 },
      { eventFormat: byParty(ALICE) },
      { eventFormat: anyParty, maxPageSize: 0 },
      { eventFormat: anyParty, maxPageSize: 10001 },
      {},
    ]) {
      const [post, get] = [await page(body), await getWithBody('/v2/state/active-contracts-page', body, token)];
      expect([post.status, withoutTraces(post.json)], JSON.stringify(body)).toEqual([
        get.status,
        withoutTraces(get.json),
      ]);
    }
    const p1 = await page({ activeAtOffset: 8, eventFormat: anyParty, maxPageSize: 1 });
    expect(p1.json.activeContracts).toHaveLength(1);
    const p2 = await page({ eventFormat: anyParty, maxPageSize: 5, pageToken: p1.json.nextPageToken });
    expect(p2.status, p2.text).toBe(200);
    expect(withoutTokens([...p1.json.activeContracts, ...p2.json.activeContracts])).toEqual(
      withoutTokens((await acs({ activeAtOffset: 8, eventFormat: anyParty })).json),
    );
    const bare = await ledger.call('POST', '/v2/state/active-contracts-page', undefined, { as: 'any-reader' });
    expect(bare.status).toBe(400);
    expect(bare.text).toMatch(/^Invalid value for: body/);
    expectCantonError(await page({ eventFormat: anyParty }, 'alice-reader'), 403, 'NA');
    expectCantonError(await page({ eventFormat: anyParty }, null), 401, 'NA');
  });
});

describe('events by contract id and contract by id', () => {
  const events = (body: unknown, as = 'any-reader') =>
    ledger.call('POST', '/v2/events/events-by-contract-id', body, { as });

  it('created and archived events equal the transaction stream and the ACS', async () => {
    const r = await events({ contractId: cid(3), eventFormat: byParty(CAROL) }, 'carol-actor');
    expect(r.status, r.text).toBe(200);
    expect(r.json.created.synchronizerId).toBe(S1);
    expect(r.json.created.createdEvent).toMatchObject({
      contractId: cid(3),
      offset: 5,
      nodeId: 2,
      witnessParties: [CAROL],
      acsDelta: true,
    });
    expect(r.json.archived.archivedEvent).toMatchObject({ contractId: cid(3), offset: 10, witnessParties: [CAROL] });
    const acsEntry = (await acs({ activeAtOffset: 5, eventFormat: byParty(CAROL) }, 'carol-actor')).json.find(
      (e: any) => e.contractEntry.JsActiveContract.createdEvent.contractId === cid(3),
    );
    expect(acsEntry.contractEntry.JsActiveContract.createdEvent).toEqual(r.json.created.createdEvent);
    const active = await events({ contractId: cid(2), eventFormat: anyParty });
    expect(active.json.archived).toBeNull();
  });

  it('a transient contract: its create (acsDelta false) and its consuming exercise as the archive, for its stakeholders', async () => {
    // Canton answers from its witnessed events (EventReaderQueries.fetchContractIdEvents, lookupTransientArchived).
    const r = await events({ contractId: cid(4), eventFormat: byParty(CAROL) }, 'carol-actor');
    expect(r.status, r.text).toBe(200);
    expect(r.json.created).toEqual({
      createdEvent: expect.objectContaining({
        contractId: cid(4),
        offset: 7,
        nodeId: 0,
        witnessParties: [CAROL],
        acsDelta: false,
      }),
      synchronizerId: S1,
    });
    expect(r.json.archived).toEqual({
      archivedEvent: {
        offset: 7,
        nodeId: 1,
        contractId: cid(4),
        templateId: expect.stringMatching(/:Iou:Iou$/),
        witnessParties: [CAROL],
        packageName: 'iou-model',
        implementedInterfaces: [],
      },
      synchronizerId: S1,
    });
    const any = await events({ contractId: cid(4), eventFormat: anyParty });
    expect(any.json.archived.archivedEvent.witnessParties).toEqual([CAROL]);
    // Not a stakeholder: not visible, as for any other contract.
    expectCantonError(
      await events({ contractId: cid(4), eventFormat: byParty(ALICE) }, 'alice-reader'),
      404,
      'CONTRACT_EVENTS_NOT_FOUND',
    );
  });

  it('not found: unknown, not a stakeholder, template filtered; rejections; rights', async () => {
    const missing = await events({ contractId: cid(77), eventFormat: anyParty });
    expectCantonError(missing, 404, 'CONTRACT_EVENTS_NOT_FOUND', {
      cause: 'Contract events not found, or not visible.',
    });
    expect(missing.json.resources).toEqual([['CONTRACT_ID', cid(77)]]);
    expectCantonError(
      await events({ contractId: cid(2), eventFormat: byParty(ALICE) }, 'alice-reader'),
      404,
      'CONTRACT_EVENTS_NOT_FOUND',
    );
    expectCantonError(
      await events({
        contractId: cid(4),
        eventFormat: {
          filtersForAnyParty: {
            cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: TOKEN_NAME } } } }],
          },
        },
      }),
      404,
      'CONTRACT_EVENTS_NOT_FOUND',
    );
    expectCantonError(await events({ contractId: '', eventFormat: anyParty }), 400, 'MISSING_FIELD');
    expectCantonError(await events({ contractId: 'zz', eventFormat: anyParty }), 400, 'INVALID_FIELD', {
      cause:
        'The submitted command has a field with invalid value: Invalid field contract_id: cannot parse ContractId "zz"',
    });
    expectCantonError(await events({ contractId: cid(3), requestingParties: [ALICE] }), 400, 'MISSING_FIELD');
    expectCantonError(await events({ contractId: cid(3), eventFormat: byParty(BOB) }, 'alice-reader'), 403, 'NA');
  });

  it('contract by id: witnesses, blob, fixed fields; not found; ReadAsAnyParty without parties', async () => {
    const r = await ledger.call(
      'POST',
      '/v2/contracts/contract-by-id',
      { contractId: cid(3), queryingParties: [CAROL] },
      { as: 'carol-actor' },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.createdEvent).toMatchObject({
      contractId: cid(3),
      offset: 1,
      nodeId: 0,
      acsDelta: false,
      witnessParties: [CAROL],
    });
    expect(r.json.createdEvent.createdEventBlob).not.toBe('');
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/contracts/contract-by-id',
        { contractId: cid(3), queryingParties: [] },
        { as: 'carol-actor' },
      ),
      403,
      'NA',
    );
    expect(
      (await ledger.call('POST', '/v2/contracts/contract-by-id', { contractId: cid(3) }, { as: 'any-reader' })).json
        .createdEvent.witnessParties,
    ).toEqual([ALICE, CAROL]);
    const nf = await ledger.call(
      'POST',
      '/v2/contracts/contract-by-id',
      { contractId: cid(2), queryingParties: [ALICE] },
      { as: 'alice-reader' },
    );
    expectCantonError(nf, 404, 'CONTRACT_PAYLOAD_NOT_FOUND', { cause: 'Contract payload not found, or not visible.' });
    expect(nf.json.resources).toEqual([['CONTRACT_ID', cid(2)]]);
  });
});

/** The bounded update stream over the WebSocket (the list's maximum is lowered for the 413 test). */
async function updatesStream(updateFormat: unknown): Promise<any[]> {
  const ws = await wsCollect(ledger.url, '/v2/updates', await ledger.token('any-reader'), {
    beginExclusive: 0,
    endInclusive: 11,
    updateFormat,
  });
  expect(ws.closeCode).toBe(1000);
  return ws.messages;
}

describe('update lookups and pages', () => {
  const acsDelta = (ef: unknown) => ({
    includeTransactions: { eventFormat: ef, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    includeReassignments: ef,
  });

  it('by id and by offset render the element of the update stream', async () => {
    const stream = await updatesStream(acsDelta(anyParty));
    expect(stream).toHaveLength(6);
    for (const element of stream) {
      const [, { value }] = Object.entries<any>(element.update)[0];
      const byId = await ledger.call(
        'POST',
        '/v2/updates/update-by-id',
        { updateId: value.updateId, updateFormat: acsDelta(anyParty) },
        { as: 'any-reader' },
      );
      expect(byId.json).toEqual(element);
      const byOffset = await ledger.call(
        'POST',
        '/v2/updates/update-by-offset',
        { offset: value.offset, updateFormat: acsDelta(anyParty) },
        { as: 'any-reader' },
      );
      expect(byOffset.json).toEqual(element);
    }
    const tx = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-offset',
      { offset: 5, requestingParties: [ALICE] },
      { as: 'alice-reader' },
    );
    const byTxId = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId: idAt(5), requestingParties: [ALICE] },
      { as: 'alice-reader' },
    );
    expect(tx.status).toBe(200);
    expect(tx.json).toEqual(byTxId.json);
  });

  it('not found and rejections', async () => {
    const nf = await ledger.call(
      'POST',
      '/v2/updates/update-by-offset',
      { offset: 99, updateFormat: acsDelta(anyParty) },
      { as: 'any-reader' },
    );
    expectCantonError(nf, 404, 'UPDATE_NOT_FOUND', { cause: 'Update not found, or not visible.' });
    expect(nf.json.resources).toEqual([['OFFSET', '99']]);
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/update-by-offset',
        { offset: 1, updateFormat: acsDelta(anyParty) },
        { as: 'any-reader' },
      ),
      404,
      'UPDATE_NOT_FOUND',
    );
    expectCantonError(
      await ledger.call('POST', '/v2/updates/update-by-offset', { offset: 3, updateFormat: {} }, { as: 'any-reader' }),
      404,
      'UPDATE_NOT_FOUND',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/update-by-offset',
        { offset: 0, updateFormat: acsDelta(anyParty) },
        { as: 'any-reader' },
      ),
      400,
      'NON_POSITIVE_OFFSET',
      { cause: 'Offset 0 in offset is not a positive integer: the offset has to be a positive integer (>0)' },
    );
    expectCantonError(
      await ledger.call('POST', '/v2/updates/update-by-offset', { offset: 3 }, { as: 'any-reader' }),
      400,
      'MISSING_FIELD',
    );
    const byId = await ledger.call(
      'POST',
      '/v2/updates/update-by-id',
      { updateId: idAt(4), updateFormat: acsDelta(byParty(ALICE)) },
      { as: 'alice-reader' },
    );
    expectCantonError(byId, 404, 'UPDATE_NOT_FOUND');
    expect(byId.json.resources).toEqual([['UPDATE_ID', idAt(4)]]);
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/update-by-id',
        { updateId: 'xyz', updateFormat: acsDelta(anyParty) },
        { as: 'any-reader' },
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/update-by-id',
        { updateId: idAt(4), updateFormat: acsDelta(byParty(BOB)) },
        { as: 'alice-reader' },
      ),
      403,
      'NA',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/transaction-by-offset',
        { offset: 8, requestingParties: [BOB] },
        { as: 'all-reader' },
      ),
      404,
      'UPDATE_NOT_FOUND',
    );
    expectCantonError(
      await ledger.call('POST', '/v2/updates/transaction-by-offset', { offset: 5 }, { as: 'all-reader' }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('updates pages chained by their tokens equal the bounded list, both directions', async () => {
    const format = acsDelta(anyParty);
    const list = await updatesStream(format);
    for (const descendingOrder of [false, true]) {
      const got: any[] = [];
      let pageToken: string | null = null;
      for (let i = 0; i < 20; i++) {
        const r: any = await ledger.call(
          'POST',
          '/v2/updates/get-updates-page',
          {
            beginOffsetExclusive: 0,
            endOffsetInclusive: 11,
            maxPageSize: 2,
            updateFormat: format,
            descendingOrder,
            pageToken,
          },
          { as: 'any-reader' },
        );
        expect(r.status, r.text).toBe(200);
        got.push(...r.json.updates);
        pageToken = r.json.nextPageToken;
        if (!pageToken) break;
      }
      expect(got).toEqual(descendingOrder ? [...list].reverse() : list);
    }
    const r = await ledger.call(
      'POST',
      '/v2/updates/get-updates-page',
      { maxPageSize: 2, updateFormat: format },
      { as: 'any-reader' },
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/get-updates-page',
        { maxPageSize: 3, updateFormat: format, pageToken: r.json.nextPageToken },
        { as: 'any-reader' },
      ),
      400,
      'INVALID_UPDATES_PAGE_TOKEN',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/get-updates-page',
        { maxPageSize: 2001, updateFormat: format },
        { as: 'any-reader' },
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/get-updates-page',
        { endOffsetInclusive: 12, updateFormat: format },
        { as: 'any-reader' },
      ),
      400,
      'OFFSET_AFTER_LEDGER_END',
    );
    expectCantonError(
      await ledger.call(
        'POST',
        '/v2/updates/get-updates-page',
        { beginOffsetExclusive: 5, endOffsetInclusive: 4, updateFormat: format },
        { as: 'any-reader' },
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('the list-size limit', () => {
  it('more than the maximum is a 413; a limit truncates; exactly the maximum is served', async () => {
    const { createContracts } = await import('../../support/contracts');
    await createContracts(
      ledger.runtime.eventStore,
      [1, 2, 3].map((i) => ({ seed: `extra-${i}`, signatories: [ALICE], synchronizerId: S1 })),
    );
    const at = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const over = await acs({ activeAtOffset: at, eventFormat: anyParty });
    expectCantonError(over, 413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED', {
      cause: `The number of matching elements (${MAX + 1}) is greater than the node limit (${MAX}).`,
    });
    expect((await acs({ activeAtOffset: at, eventFormat: anyParty }, 'any-reader', '?limit=2')).json).toHaveLength(2);
    expect((await acs({ activeAtOffset: at, eventFormat: byParty(ALICE) }, 'alice-reader')).json).toHaveLength(MAX);
    const ws = await wsCollect(ledger.url, '/v2/state/active-contracts', await ledger.token('any-reader'), {
      activeAtOffset: at,
      eventFormat: anyParty,
    });
    expect(ws.messages).toHaveLength(MAX + 1);
  });
});
