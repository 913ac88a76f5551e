import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ledgerWithPingDar, PING } from '../../support/ping-dar';
import { ledgerEnd } from '../../support/external-party';

/**
 * Canton's ping DAR on the engine, driven by the unmodified clients over HTTP: a `Canton.Internal.Ping:Ping` create
 * submitted by a local party through @canton-network/core-ledger-client (submit-and-wait-for-transaction, then
 * `awaitCompletion` over async/submit), and the same create by an external party through @canton-network/wallet-sdk's
 * prepare → sign → execute; then an exercise (`AbortPing`) by each client, awaited to its completion. Signatories and
 * observers come from the template (`signatory initiator`, `observer responder` in `Canton/Internal/Ping.daml`), not
 * from the submitter.
 */
const USER = 'pc-app';
const silent = {
  child: () => silent,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describeWithDars('the ping DAR through the unmodified clients (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  let bob: string;
  let client: any;
  let awaitCompletion: any;
  let sdk: any;

  beforeAll(async () => {
    ({ ledger, sync } = await ledgerWithPingDar(darsRoot));
    const party = async (hint: string) => {
      const r = await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync });
      expect(r.status, r.text).toBe(200);
      return r.json.partyDetails.party as string;
    };
    alice = await party('pc-alice');
    bob = await party('pc-bob');
    const user = await ledger.call('POST', '/v2/users', {
      user: { id: USER },
      rights: [{ kind: { CanActAs: { value: { party: alice } } } }, { kind: { CanReadAs: { value: { party: bob } } } }],
    });
    expect(user.status, user.text).toBe(200);

    const mod = await import('@canton-network/core-ledger-client');
    awaitCompletion = mod.awaitCompletion;
    const token = await ledger.token(USER);
    client = new mod.LedgerClient({
      baseUrl: new URL(ledger.url),
      logger: silent as never,
      accessTokenProvider: { getAccessToken: async () => token } as never,
    });
    await client.init();

    const { SDK, CustomLogAdapter } = await import('@canton-network/wallet-sdk');
    sdk = await SDK.create({
      auth: {
        method: 'self_signed' as const,
        issuer: 'unsafe-auth',
        credentials: {
          clientId: ledger.config.adminUser,
          clientSecret: TEST_JWT_SECRET,
          audience: `https://daml.com/jwt/aud/participant/${ledger.participantId}`,
          scope: '',
        },
      },
      ledgerClientUrl: ledger.url,
      logAdapter: new CustomLogAdapter(() => undefined),
    });
  }, 60_000);
  afterAll(async () => {
    await ledger?.close();
  });

  const createPing = (id: string, initiator: string, responder: string) => ({
    CreateCommand: { templateId: PING, createArguments: { id, initiator, responder } },
  });

  it('core-ledger-client: a local party’s Ping create carries the template’s signatory and observer', async () => {
    const begin = await ledgerEnd(ledger);
    const commandId = `pc-${randomUUID()}`;
    const r = await client.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: [createPing('pc-ping-1', alice, bob)],
        commandId,
        userId: USER,
        actAs: [alice],
        readAs: [],
        synchronizerId: sync,
      },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: { [alice]: { cumulative: [] }, [bob]: { cumulative: [] } }, verbose: true },
      },
    });
    expect(r.transaction).toMatchObject({ commandId, offset: begin + 1, synchronizerId: sync });
    expect(r.transaction.events).toHaveLength(1);
    const created = r.transaction.events[0].CreatedEvent;
    expect(created).toMatchObject({
      templateId: PING,
      packageName: 'canton-builtin-admin-workflow-ping',
      signatories: [alice],
      observers: [bob],
      createArgument: { id: 'pc-ping-1', initiator: alice, responder: bob },
    });
    expect([...created.witnessParties].sort()).toEqual([alice, bob].sort());
    const completion = await awaitCompletion(client, begin, alice, USER, commandId);
    expect(completion).toMatchObject({
      commandId,
      updateId: r.transaction.updateId,
      offset: begin + 1,
      status: { code: 0 },
    });
  });

  it('core-ledger-client: async/submit of a Ping create, awaitCompletion, and the responder sees it as observer', async () => {
    const begin = await ledgerEnd(ledger);
    const commandId = `pc-async-${randomUUID()}`;
    expect(
      await client.post('/v2/commands/async/submit', {
        commands: [createPing('pc-ping-2', alice, bob)],
        commandId,
        actAs: [alice],
        userId: USER,
      }),
    ).toEqual({});
    const completion = await awaitCompletion(client, begin, alice, USER, commandId);
    expect(completion).toMatchObject({ commandId, status: { code: 0 }, offset: begin + 1 });
    const acs = await client.post('/v2/state/active-contracts', {
      activeAtOffset: completion.offset,
      eventFormat: { filtersByParty: { [bob]: { cumulative: [] } }, verbose: true },
    });
    const entries = acs.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
    const ping = entries.find((e: any) => e.createArgument?.id === 'pc-ping-2');
    expect(ping).toMatchObject({
      templateId: PING,
      signatories: [alice],
      observers: [bob],
      createArgument: { initiator: alice, responder: bob },
    });
  });

  it('wallet-sdk: an external party’s Ping create through prepare → sign → execute is committed with the template’s parties', async () => {
    const keys = sdk.keys.generate();
    const party = await sdk.party.external
      .create(keys.publicKey, { partyHint: 'pc-ext' })
      .sign(keys.privateKey)
      .execute();
    const start = await ledgerEnd(ledger);
    const executed = await sdk.ledger
      .prepare({ partyId: party.partyId, commands: [createPing('pc-ping-ext', party.partyId, bob)] })
      .sign(keys.privateKey)
      .execute({ partyId: party.partyId });
    expect(executed.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(executed.completionOffset).toBe(start + 1);

    const update = await ledger.call('POST', '/v2/updates/update-by-id', {
      updateId: executed.updateId,
      updateFormat: {
        includeTransactions: {
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          // the SDK granted the admin user CanActAs for the new party only; bob is not readable by it
          eventFormat: { filtersByParty: { [party.partyId]: { cumulative: [] } }, verbose: true },
        },
      },
    });
    expect(update.status, update.text).toBe(200);
    const tx = update.json.update.Transaction.value;
    expect(tx.offset).toBe(start + 1);
    expect(tx.events).toHaveLength(1);
    const created = tx.events[0].CreatedEvent;
    expect(created).toMatchObject({
      templateId: PING,
      signatories: [party.partyId],
      observers: [bob],
      createArgument: { id: 'pc-ping-ext', initiator: party.partyId, responder: bob },
    });
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', '=', created.contractId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'active',
      signatories: [party.partyId],
      package_name: 'canton-builtin-admin-workflow-ping',
    });
  }, 60_000);

  it('core-ledger-client: async/submit of an exercise (AbortPing), awaitCompletion, the Ping archived', async () => {
    const created = await client.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: [createPing('pc-ping-abort', alice, bob)],
        commandId: `pc-${randomUUID()}`,
        userId: USER,
        actAs: [alice],
        readAs: [],
        synchronizerId: sync,
      },
    });
    const cid = created.transaction.events[0].CreatedEvent.contractId as string;
    const begin = await ledgerEnd(ledger);
    const commandId = `pc-abort-${randomUUID()}`;
    const exercise = {
      ExerciseCommand: { templateId: PING, contractId: cid, choice: 'AbortPing', choiceArgument: { anyone: alice } },
    };
    expect(
      await client.post('/v2/commands/async/submit', { commands: [exercise], commandId, actAs: [alice], userId: USER }),
    ).toEqual({});
    const completion = await awaitCompletion(client, begin, alice, USER, commandId);
    expect(completion).toMatchObject({ commandId, status: { code: 0 }, offset: begin + 1 });
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', '=', cid)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('archived');
  });

  it('wallet-sdk: an external party exercises AbortPing on its Ping through prepare → sign → execute', async () => {
    const keys = sdk.keys.generate();
    const party = await sdk.party.external
      .create(keys.publicKey, { partyHint: 'pc-ext-abort' })
      .sign(keys.privateKey)
      .execute();
    const made = await sdk.ledger
      .prepare({ partyId: party.partyId, commands: [createPing('pc-ping-ext-abort', party.partyId, bob)] })
      .sign(keys.privateKey)
      .execute({ partyId: party.partyId });
    const [ping] = await ledger.runtime.db
      .selectFrom('contracts')
      .select('contract_id')
      .where('created_offset', '=', made.completionOffset)
      .execute();
    expect(ping).toBeDefined();
    const start = await ledgerEnd(ledger);
    const exercise = {
      ExerciseCommand: {
        templateId: PING,
        contractId: ping.contract_id,
        choice: 'AbortPing',
        choiceArgument: { anyone: party.partyId },
      },
    };
    const executed = await sdk.ledger
      .prepare({ partyId: party.partyId, commands: [exercise] })
      .sign(keys.privateKey)
      .execute({ partyId: party.partyId });
    expect(executed.completionOffset).toBe(start + 1);
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', '=', ping.contract_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('archived');
  }, 60_000);
});
