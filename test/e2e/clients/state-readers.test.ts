import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcsService } from '@canton-network/core-acs-reader';
import { LedgerProvider } from '@canton-network/core-provider-ledger';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { HOLDING, tokenCatalogFile } from '../../support/token-catalog';
import { ALICE, BOB, created, tx, txEvent } from '../../support/updates-scenario';

/**
 * The unmodified public reader: core-acs-reader's AcsService (what wallet-sdk's `ledger.acs.read` and
 * `token.utxos.list` run) reads the active contract set through LedgerProvider, and lists holdings through the token
 * standard's Holding interface, whose view the template catalog declares as a mapping from the create arguments.
 */
let ledger: TestLedger;
let acs: AcsService;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_TEMPLATE_CATALOG: tokenCatalogFile() });
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: 'wallet' },
        rights: [{ kind: { CanReadAs: { value: { party: ALICE } } } }],
      })
    ).status,
  ).toBe(200);
  const token = await ledger.token('wallet');
  const provider = new LedgerProvider({
    baseUrl: ledger.url,
    accessTokenProvider: { getAccessToken: async () => token, getAuthContext: async () => ({}) as never },
  });
  acs = new AcsService(provider);
  const store = ledger.runtime.eventStore;
  await store.append([
    txEvent('t:1', tx('tok-1', [{ CreatedEvent: created(1, 'token', [ALICE], []) }], [ALICE]), [ALICE]),
  ]);
  await store.append([
    txEvent('i:2', tx('iou-2', [{ CreatedEvent: created(2, 'iou', [ALICE], []) }], [ALICE]), [ALICE]),
  ]);
  await store.append([txEvent('t:3', tx('tok-3', [{ CreatedEvent: created(3, 'token', [BOB], []) }], [BOB]), [BOB])]);
});
afterAll(async () => ledger?.close());

describe('core-acs-reader against the server', () => {
  it('reads the active contract set of a party', async () => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const list = await acs.getActiveContracts({ offset: end, parties: [ALICE], filterByParty: true });
    expect(list.map((e: any) => e.contractEntry.JsActiveContract.createdEvent.offset)).toEqual([1, 2]);
  });

  it('lists holdings through the catalog-declared Holding interface view', async () => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const list = await acs.getActiveContracts({
      offset: end,
      parties: [ALICE],
      filterByParty: true,
      interfaceIds: [HOLDING],
    });
    expect(list).toHaveLength(1);
    const ev = (list[0] as any).contractEntry.JsActiveContract.createdEvent;
    expect(ev.templateId.endsWith(':Token.Main:Token')).toBe(true);
    expect(ev.createdEventBlob).not.toBe('');
    expect(ev.interfaceViews).toHaveLength(1);
    expect(ev.interfaceViews[0]).toMatchObject({
      interfaceId: expect.stringMatching(/^[0-9a-f]{64}:Splice\.Api\.Token\.HoldingV1:Holding$/),
      viewStatus: { code: 0, message: '', details: [] },
      viewValue: {
        owner: ALICE,
        instrumentId: { admin: BOB, id: 'TOK' },
        amount: '1.0000000000',
        lock: null,
        meta: { values: {} },
      },
    });
    // the same view on the update stream and on events by contract id
    const format = {
      filtersByParty: {
        [ALICE]: {
          cumulative: [
            { identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true } } } },
          ],
        },
      },
    };
    const events = await ledger.call(
      'POST',
      '/v2/events/events-by-contract-id',
      { contractId: ev.contractId, eventFormat: format },
      { as: 'wallet' },
    );
    expect(events.json.created.createdEvent.interfaceViews).toEqual(ev.interfaceViews);
    const updates = await ledger.call(
      'POST',
      '/v2/updates',
      {
        beginExclusive: 0,
        endInclusive: end,
        updateFormat: { includeTransactions: { eventFormat: format, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
      },
      { as: 'wallet' },
    );
    expect(updates.json.map((u: any) => u.update.Transaction.value.events[0].CreatedEvent.interfaceViews)).toEqual([
      ev.interfaceViews,
    ]);
    // a template the catalog does not declare matches no interface filter
    expect(events.status).toBe(200);
    const iou = await ledger.call(
      'POST',
      '/v2/events/events-by-contract-id',
      { contractId: created(2, 'iou', [ALICE], []).contractId, eventFormat: format },
      { as: 'wallet' },
    );
    expect(iou.json.code).toBe('CONTRACT_EVENTS_NOT_FOUND');
  });
});
