import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import { allocateActingParty, ledgerEnd, startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * Splice's test token (`splice-test-token-v1`, token standard v1) on the engine over HTTP: its templates created through
 * the JSON API with the signatories and observers their Daml defines, and the token standard's interfaces read back with
 * the views the Daml interface instances compute. Templates and views as
 * `token-standard/examples/splice-test-token-v1/daml/Splice/Testing/Tokens/TestTokenV1.daml` defines them: a `Token`'s
 * Holding view is its `holding` field; a `TokenAllocation`'s Holding view is its transfer leg locked for the settlement.
 */
const MODULE = 'Splice.Testing.Tokens.TestTokenV1';
const TOKEN = `#splice-test-token-v1:${MODULE}:Token`;
const ALLOCATION = `#splice-test-token-v1:${MODULE}:TokenAllocation`;
const RULES = `#splice-test-token-v1:${MODULE}:TokenRules`;
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const ALLOCATION_IFACE = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
const API_DARS = [
  'metadata',
  'holding',
  'allocation',
  'allocation-instruction',
  'allocation-request',
  'transfer-instruction',
].map((n) => `splice/splice-api-token-${n}-v1-1.0.0.dar`);
const TEST_TOKEN_DAR = 'splice/splice-test-token-v1-1.0.0.dar';

describeWithDars('the splice test token and its interface views (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let admin: string;
  let alice: string;
  let bob: string;
  let executor: string;

  beforeAll(async () => {
    ledger = await startTestLedger();
    sync = ledger.runtime.identity.defaultSynchronizer.id;
    for (const dar of [...API_DARS, TEST_TOKEN_DAR]) {
      const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await ledger.token()}` },
        body: fs.readFileSync(path.join(darsRoot, dar)),
      });
      expect(up.status, `${dar}: ${await up.text()}`).toBe(200);
    }
    const party = (hint: string) => allocateActingParty(ledger, hint, sync);
    admin = await party('token-admin');
    alice = await party('alice');
    bob = await party('bob');
    executor = await party('executor');
  });
  afterAll(async () => {
    await ledger?.close();
  });

  const create = async (templateId: string, createArguments: unknown, actAs: string[]) => {
    const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: [{ CreateCommand: { templateId, createArguments } }],
        commandId: randomUUID(),
        userId: ledger.config.adminUser,
        actAs,
        readAs: [],
        synchronizerId: sync,
      },
      transactionFormat: {
        eventFormat: { filtersByParty: { [admin]: { cumulative: [] } }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toHaveLength(1);
    return r.json.transaction.events[0].CreatedEvent;
  };

  const instrumentId = () => ({ admin, id: 'TestToken' });
  const noMeta = { values: {} };
  const sorted = (...ps: string[]) => [...ps].sort();
  const interfaceFilter = (party: string, interfaceId: string) => ({
    filtersByParty: {
      [party]: {
        cumulative: [
          {
            identifierFilter: {
              InterfaceFilter: { value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false } },
            },
          },
        ],
      },
    },
    verbose: true,
  });

  let token: any;
  let allocation: any;
  let rules: any;

  it('creates a Token, a TokenAllocation and TokenRules with the signatories and observers their templates define', async () => {
    token = await create(
      TOKEN,
      { holding: { owner: alice, instrumentId: instrumentId(), amount: '100.0', lock: null, meta: noMeta } },
      [alice, admin],
    );
    expect(token).toMatchObject({
      packageName: 'splice-test-token-v1',
      signatories: sorted(admin, alice),
      observers: [],
    });
    expect(token.templateId).toMatch(new RegExp(`^[0-9a-f]{64}:${MODULE.replace(/\./g, '\\.')}:Token$`));

    const spec = {
      settlement: {
        executor,
        settlementRef: { id: 'trade-7', cid: null },
        requestedAt: '2026-01-01T00:00:00Z',
        allocateBefore: '2030-01-01T00:00:00Z',
        settleBefore: '2030-06-01T00:00:00Z',
        meta: noMeta,
      },
      transferLegId: 'leg-1',
      transferLeg: { sender: alice, receiver: bob, amount: '25.0', instrumentId: instrumentId(), meta: noMeta },
    };
    allocation = await create(ALLOCATION, { allocation: spec }, [alice, admin]);
    // signatory the sender and the instrument admin; observer the settlement's executor
    expect(allocation).toMatchObject({ signatories: sorted(admin, alice), observers: [executor] });

    rules = await create(RULES, { admin }, [admin]);
    expect(rules).toMatchObject({ signatories: [admin], observers: [] });
  });

  const tokenView = () => ({
    owner: alice,
    instrumentId: instrumentId(),
    amount: '100.0000000000',
    lock: null,
    meta: noMeta,
  });
  const allocationHoldingView = () => ({
    owner: alice,
    instrumentId: instrumentId(),
    amount: '25.0000000000',
    lock: {
      holders: [alice, admin],
      expiresAt: allocation.createArgument.allocation.settlement.settleBefore,
      expiresAfter: null,
      context: 'allocation for settlement of trade-7',
    },
    meta: noMeta,
  });

  it('active contracts by the Holding interface: the holdings with the views the Daml computes', async () => {
    const r = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: interfaceFilter(admin, HOLDING),
    });
    expect(r.status, r.text).toBe(200);
    const events = new Map<string, any>(
      r.json.map((e: any) => [
        e.contractEntry.JsActiveContract.createdEvent.contractId,
        e.contractEntry.JsActiveContract.createdEvent,
      ]),
    );
    // TokenRules implements the factories, not Holding.
    expect([...events.keys()].sort()).toEqual(sorted(token.contractId, allocation.contractId));
    const [tv] = events.get(token.contractId).interfaceViews;
    expect(tv.interfaceId).toMatch(/^[0-9a-f]{64}:Splice\.Api\.Token\.HoldingV1:Holding$/);
    expect(tv).toMatchObject({
      viewStatus: { code: 0, message: '', details: [] },
      implementationPackageId: token.templateId.split(':')[0],
    });
    expect(tv.viewValue).toEqual(tokenView());
    const [av] = events.get(allocation.contractId).interfaceViews;
    expect(av.viewValue).toEqual(allocationHoldingView());
  });

  it('the Allocation interface selects the allocation only, with its allocation view', async () => {
    const r = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: interfaceFilter(admin, ALLOCATION_IFACE),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toHaveLength(1);
    const ev = r.json[0].contractEntry.JsActiveContract.createdEvent;
    expect(ev.contractId).toBe(allocation.contractId);
    expect(ev.interfaceViews[0].viewValue).toEqual({
      allocation: allocation.createArgument.allocation,
      holdingCids: [],
      meta: noMeta,
    });
  });

  it('updates by the Holding interface: the creates with the same views', async () => {
    const r = await ledger.call('POST', '/v2/updates', {
      beginExclusive: 0,
      endInclusive: await ledgerEnd(ledger),
      updateFormat: {
        includeTransactions: {
          eventFormat: interfaceFilter(alice, HOLDING),
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    expect(r.status, r.text).toBe(200);
    const created = r.json
      .flatMap((u: any) => u.update.Transaction?.value.events ?? [])
      .map((e: any) => e.CreatedEvent);
    expect(created.map((e: any) => e.contractId)).toEqual([token.contractId, allocation.contractId]);
    expect(created.map((e: any) => e.interfaceViews[0].viewValue)).toEqual([tokenView(), allocationHoldingView()]);
  });
});
