import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '@ledgerline/server/app';
import { makeLogger, startRuntime, type LedgerRuntime } from '@ledgerline/server/infrastructure/runtime';
import { ed25519WorkerScriptForTests } from '../../support/ed25519-worker-script';
import { allocateActingParty, startTestLedger, ledgerEnd, requestJson, type TestLedger } from '../../support/ledger';
import { wsCollect } from '../../support/ws-client';
import {
  ASSET_FILTER,
  BROKEN_LABEL,
  TOKEN_NAME,
  interfacePackages,
  interfacePackagesDar,
} from '../../support/interface-packages';

/**
 * Interface views of templates from an uploaded package (our LF-text `iv-token` implementing `iv-api`'s `Api:Asset`),
 * on every read path: the submission's own transaction, active contracts (list, page, WebSocket), updates (ACS_DELTA
 * and LEDGER_EFFECTS, list, page, WebSocket, by id), events by contract id. An interface filter selects the templates
 * implementing the interface, each with the view the engine computes; a failing view is a viewStatus.
 */
const pkgs = interfacePackages();
const COIN = `${pkgs.token.id}:Token:Coin`;
const PLAIN = `${pkgs.token.id}:Token:Plain`;
const ASSET = `${pkgs.api.id}:Api:Asset`;

let ledger: TestLedger;
/** A second instance on the same database, started before the upload: it decodes the package when a read needs it. */
let second: { runtime: LedgerRuntime; app: NestFastifyApplication; url: string };
let sync: string;
let issuer: string;
let owner: string;

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = ledger.runtime.identity.defaultSynchronizer.id;
  const runtime = await startRuntime(ledger.config, makeLogger(ledger.config), {
    ed25519WorkerScript: ed25519WorkerScriptForTests(),
  });
  const app = await createApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  second = { runtime, app, url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: await interfacePackagesDar(pkgs),
  });
  expect(up.status, await up.text()).toBe(200);
  const party = (hint: string) => allocateActingParty(ledger, hint, sync);
  issuer = await party('issuer');
  owner = await party('owner');
});

afterAll(async () => {
  await second?.app.close();
  await second?.runtime.close();
  await ledger?.close();
});

const assetFilter = (includeInterfaceView = true) => ({
  filtersByParty: {
    [owner]: {
      cumulative: [
        {
          identifierFilter: {
            InterfaceFilter: {
              value: { interfaceId: ASSET_FILTER, includeInterfaceView, includeCreatedEventBlob: false },
            },
          },
        },
      ],
    },
  },
  verbose: true,
});
const txFormat = (shape: 'ACS_DELTA' | 'LEDGER_EFFECTS', eventFormat = assetFilter()) => ({
  eventFormat,
  transactionShape: `TRANSACTION_SHAPE_${shape}`,
});
const updateFormat = (shape: 'ACS_DELTA' | 'LEDGER_EFFECTS') => ({ includeTransactions: txFormat(shape) });

async function submit(commands: unknown[], transactionFormat = txFormat('ACS_DELTA')) {
  const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands: {
      commands,
      commandId: randomUUID(),
      userId: ledger.config.adminUser,
      actAs: [issuer],
      readAs: [],
      synchronizerId: sync,
    },
    transactionFormat,
  });
  expect(r.status, r.text).toBe(200);
  return r.json.transaction;
}

const createCoin = (label: string) => ({
  CreateCommand: { templateId: COIN, createArguments: { issuer, owner, amount: '12.5', label } },
});
const okView = (label: string) => ({
  interfaceId: ASSET,
  viewStatus: { code: 0, message: '', details: [] },
  viewValue: { holder: owner, amount: '12.5000000000', label },
  implementationPackageId: pkgs.token.id,
});

/** The created events (contract id → event) of a list of updates. */
const createdOf = (updates: any[]) =>
  new Map<string, any>(
    updates
      .flatMap((u) => u.update.Transaction?.value.events ?? [])
      .filter((e: any) => e.CreatedEvent)
      .map((e: any) => [e.CreatedEvent.contractId, e.CreatedEvent]),
  );

describe('interface views of an uploaded package', () => {
  let gold: string;
  let broken: string;
  let plain: string;

  beforeAll(async () => {
    const tx = await submit(
      [
        createCoin('gold'),
        createCoin(BROKEN_LABEL),
        { CreateCommand: { templateId: PLAIN, createArguments: { issuer, owner } } },
      ],
      {
        eventFormat: { filtersByParty: { [issuer]: { cumulative: [] } }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    );
    [gold, broken, plain] = tx.events.map((e: any) => e.CreatedEvent.contractId);
  });

  it('the submission’s own transaction in an interface-filtered format carries the view', async () => {
    const tx = await submit([createCoin('fresh')]);
    expect(tx.events).toHaveLength(1);
    expect(tx.events[0].CreatedEvent).toMatchObject({
      templateId: COIN,
      packageName: TOKEN_NAME,
      witnessParties: [owner],
      interfaceViews: [okView('fresh')],
    });
  });

  it('active contracts: the implementing templates with their views; a failing view as its viewStatus', async () => {
    const r = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: assetFilter(),
    });
    expect(r.status, r.text).toBe(200);
    const byId = new Map<string, any>(
      r.json.map((e: any) => [
        e.contractEntry.JsActiveContract.createdEvent.contractId,
        e.contractEntry.JsActiveContract.createdEvent,
      ]),
    );
    expect(byId.has(plain)).toBe(false);
    expect(byId.get(gold).interfaceViews).toEqual([okView('gold')]);
    const [failed] = byId.get(broken).interfaceViews;
    expect(failed).toMatchObject({ interfaceId: ASSET, viewValue: null, implementationPackageId: pkgs.token.id });
    expect(failed.viewStatus.code).toBe(9);
    expect(failed.viewStatus.message).toBe(
      'INTERPRETATION_USER_ERROR(9,0): Interpretation error: Error: User abort: no view of a broken coin',
    );
    expect(failed.viewStatus.details.map((d: any) => d.typeUrl)).toEqual(['type.googleapis.com/google.rpc.ErrorInfo']);
    // The page and the WebSocket forms agree with the list.
    const page = await ledger.call('POST', '/v2/state/active-contracts-page', {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: assetFilter(),
      maxPageSize: 100,
    });
    expect(page.status, page.text).toBe(200);
    expect(page.json.activeContracts.map((e: any) => e.contractEntry)).toEqual(r.json.map((e: any) => e.contractEntry));
    const ws = await wsCollect(ledger.url, '/v2/state/active-contracts', await ledger.token(), {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: assetFilter(),
    });
    expect(ws.closeCode).toBe(1000);
    expect(ws.messages.map((e: any) => e.contractEntry)).toEqual(r.json.map((e: any) => e.contractEntry));
  });

  it('without includeInterfaceView the same contracts are selected, with no views', async () => {
    const r = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: await ledgerEnd(ledger),
      eventFormat: assetFilter(false),
    });
    expect(r.status, r.text).toBe(200);
    const events = r.json.map((e: any) => e.contractEntry.JsActiveContract.createdEvent);
    expect(events.map((e: any) => e.contractId)).toContain(gold);
    expect(events.map((e: any) => e.templateId).every((t: string) => t === COIN)).toBe(true);
    expect(events.every((e: any) => e.interfaceViews.length === 0)).toBe(true);
  });

  it('updates: ACS_DELTA and LEDGER_EFFECTS, list, page and WebSocket, with the views', async () => {
    for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
      const body = { beginExclusive: 0, endInclusive: await ledgerEnd(ledger), updateFormat: updateFormat(shape) };
      const list = await ledger.call('POST', '/v2/updates', body);
      expect(list.status, list.text).toBe(200);
      const created = createdOf(list.json);
      expect(created.has(plain)).toBe(false);
      expect(created.get(gold).interfaceViews).toEqual([okView('gold')]);
      expect(created.get(broken).interfaceViews[0].viewStatus.code).toBe(9);
      const ws = await wsCollect(ledger.url, '/v2/updates', await ledger.token(), body);
      expect(ws.closeCode).toBe(1000);
      expect(ws.messages).toEqual(list.json);
      const page = await ledger.call('POST', '/v2/updates/get-updates-page', {
        beginOffsetExclusive: 0,
        endOffsetInclusive: body.endInclusive,
        maxPageSize: 100,
        updateFormat: updateFormat(shape),
      });
      expect(page.status, page.text).toBe(200);
      expect(page.json.updates).toEqual(list.json);
      const updateId = list.json.find((u: any) => createdOf([u]).has(gold)).update.Transaction.value.updateId;
      const byId = await ledger.call('POST', '/v2/updates/update-by-id', {
        updateId,
        updateFormat: updateFormat(shape),
      });
      expect(byId.status, byId.text).toBe(200);
      expect(createdOf([byId.json]).get(gold).interfaceViews).toEqual([okView('gold')]);
    }
  });

  it('events by contract id: the create with its view; a contract no filter selects is not found', async () => {
    const r = await ledger.call('POST', '/v2/events/events-by-contract-id', {
      contractId: gold,
      eventFormat: assetFilter(),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.created.createdEvent.interfaceViews).toEqual([okView('gold')]);
    const none = await ledger.call('POST', '/v2/events/events-by-contract-id', {
      contractId: plain,
      eventFormat: assetFilter(),
    });
    expect(none.status, none.text).toBe(404);
    expect(none.json.code).toBe('CONTRACT_EVENTS_NOT_FOUND');
  });

  it('an instance that did not take the upload renders the same views', async () => {
    const body = { activeAtOffset: await ledgerEnd(ledger), eventFormat: assetFilter() };
    const here = await ledger.call('POST', '/v2/state/active-contracts', body);
    const there = await requestJson(
      `${second.url}/v2/state/active-contracts`,
      'POST',
      { authorization: `Bearer ${await ledger.token()}` },
      body,
    );
    expect(there.status, there.text).toBe(200);
    expect(there.json.map((e: any) => e.contractEntry)).toEqual(here.json.map((e: any) => e.contractEntry));
    expect(
      there.json.some(
        (e: any) => e.contractEntry.JsActiveContract.createdEvent.interfaceViews[0]?.viewValue?.label === 'gold',
      ),
    ).toBe(true);
  });

  it('archiving: the archived and exercised events name the matched interface', async () => {
    const coin = (await submit([createCoin('burnt')])).events[0].CreatedEvent.contractId;
    const exercise = { ExerciseCommand: { templateId: COIN, contractId: coin, choice: 'Burn', choiceArgument: {} } };
    const effects = await submit([exercise], txFormat('LEDGER_EFFECTS'));
    expect(effects.events[0].ExercisedEvent).toMatchObject({
      contractId: coin,
      choice: 'Burn',
      implementedInterfaces: [ASSET],
    });
    const updateId = effects.updateId;
    const delta = await ledger.call('POST', '/v2/updates/update-by-id', {
      updateId,
      updateFormat: updateFormat('ACS_DELTA'),
    });
    expect(delta.status, delta.text).toBe(200);
    expect(delta.json.update.Transaction.value.events[0].ArchivedEvent).toMatchObject({
      contractId: coin,
      implementedInterfaces: [ASSET],
    });
  });
});
