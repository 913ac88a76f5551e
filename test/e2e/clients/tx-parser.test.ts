import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionParser, TxKindMetaKey } from '@canton-network/core-tx-parser';
import { LedgerProvider } from '@canton-network/core-provider-ledger';
import type { StoredExercisedEvent } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { HOLDING, tokenCatalogFile } from '../../support/token-catalog';
import { ALICE, BOB, cid, created, tx, txEvent, TOKEN } from '../../support/updates-scenario';

/**
 * The unmodified public parser: core-tx-parser's TransactionParser (wallet-sdk's transaction history) reads a
 * LEDGER_EFFECTS transaction and, for each consumed holding, asks events-by-contract-id (through LedgerProvider) for the
 * contract's created and archived events and their Holding interface view, which the template catalog declares.
 */
let ledger: TestLedger;
let provider: LedgerProvider;

const holdingFormat = {
  filtersByParty: {
    [ALICE]: {
      cumulative: [
        { identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true } } } },
      ],
    },
  },
};

function consume(
  n: number,
  choice: string,
  lastDescendantNodeId: number,
  choiceArgument: unknown,
): { ArchivedEvent: unknown } | { ExercisedEvent: StoredExercisedEvent } {
  return {
    ExercisedEvent: {
      nodeId: 0,
      contractId: cid(n),
      templateId: TOKEN,
      interfaceId: null,
      packageName: 'token-model',
      choice,
      choiceArgument,
      actingParties: [ALICE],
      consuming: true,
      informees: [ALICE],
      stakeholders: [ALICE],
      lastDescendantNodeId,
      exerciseResult: {},
      implementedInterfaces: [],
      acsDelta: true,
    },
  };
}
const archived = (n: number) => ({
  ArchivedEvent: {
    nodeId: 0,
    contractId: cid(n),
    templateId: TOKEN,
    packageName: 'token-model',
    stakeholders: [ALICE],
    implementedInterfaces: [],
  },
});

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
  provider = new LedgerProvider({
    baseUrl: ledger.url,
    accessTokenProvider: { getAccessToken: async () => token, getAuthContext: async () => ({}) as never },
  });
  const store = ledger.runtime.eventStore;
  // 1: alice's holding of 10; 2: split into 4 and 6 (a merge-split by its tx-kind meta); 3: the holding of 4 archived
  await store.append([
    txEvent('t:10', tx('mint', [{ CreatedEvent: created(10, 'token', [ALICE], []) }], [ALICE]), [ALICE]),
  ]);
  const split = [
    archived(10),
    consume(10, 'Token_Split', 2, { meta: { values: { [TxKindMetaKey]: 'merge-split' } } }),
    { CreatedEvent: created(4, 'token', [ALICE], [], { nodeId: 1 }) },
    { CreatedEvent: created(6, 'token', [ALICE], [], { nodeId: 2 }) },
  ];
  await store.append([txEvent('t:10', tx('split', split as never, [ALICE]), [ALICE])]);
  await store.append([
    txEvent('t:4', tx('archive', [archived(4), consume(4, 'Archive', 0, {})] as never, [ALICE]), [ALICE]),
  ]);
  // bob's holding, which alice never sees
  await store.append([txEvent('t:7', tx('bob', [{ CreatedEvent: created(7, 'token', [BOB], []) }], [BOB]), [BOB])]);
});
afterAll(async () => ledger?.close());

/** The transaction at `offset` as a wallet reads it: LEDGER_EFFECTS, alice's holdings with their views. */
async function transactionAt(offset: number) {
  const r = await ledger.call(
    'POST',
    '/v2/updates/update-by-offset',
    {
      offset,
      updateFormat: {
        includeTransactions: { eventFormat: holdingFormat, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
      },
    },
    { as: 'wallet' },
  );
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.update.Transaction.value;
}

const holding = (n: number) =>
  expect.objectContaining({
    contractId: cid(n),
    owner: ALICE,
    amount: `${n}.0000000000`,
    instrumentId: { admin: BOB, id: 'TOK' },
  });

describe('core-tx-parser against the server', () => {
  it('parses a merge-split: the consumed holding comes from events-by-contract-id', async () => {
    const t = await transactionAt(2);
    // the consuming exercise names the Holding interface the filter matched: the parser looks the holding up by it
    expect(t.events[0].ExercisedEvent.implementedInterfaces).toEqual([
      expect.stringMatching(/:Splice\.Api\.Token\.HoldingV1:Holding$/),
    ]);
    const parsed = await new TransactionParser(provider as never, t, ALICE, false).parseTransaction();
    expect(parsed).toMatchObject({ updateId: t.updateId, offset: 2 });
    expect(parsed.events).toHaveLength(1);
    const [e] = parsed.events as any[];
    expect(e.label).toMatchObject({ type: 'MergeSplit', burnAmount: '0', mintAmount: '0' });
    expect(e.unlockedHoldingsChange.creates).toEqual([holding(4), holding(6)]);
    expect(e.unlockedHoldingsChange.archives).toEqual([holding(10)]);
    expect(e.unlockedHoldingsChangeSummaries).toEqual([
      {
        instrumentId: { admin: BOB, id: 'TOK' },
        amountChange: '0',
        numOutputs: 2,
        outputAmount: '10',
        numInputs: 1,
        inputAmount: '10',
      },
    ]);
  });

  it("parses an archive through the archived contract's events, and skips a contract the server does not know", async () => {
    const t = await transactionAt(3);
    const parsed = await new TransactionParser(provider as never, t, ALICE, false).parseTransaction();
    expect(parsed.events).toHaveLength(1);
    expect((parsed.events[0] as any).label).toMatchObject({
      type: 'Archive',
      contractId: cid(4),
      payload: { owner: ALICE, amount: '4.0000000000' },
    });
    // events-by-contract-id answers CONTRACT_EVENTS_NOT_FOUND, which the parser treats as "not a holding of mine"
    const unknown = { ...t, events: [{ ExercisedEvent: { ...t.events[0].ExercisedEvent, contractId: cid(99) } }] };
    expect((await new TransactionParser(provider as never, unknown, ALICE, false).parseTransaction()).events).toEqual(
      [],
    );
    // and so is a holding alice does not see: bob's
    const bobs = { ...t, events: [{ ExercisedEvent: { ...t.events[0].ExercisedEvent, contractId: cid(7) } }] };
    expect((await new TransactionParser(provider as never, bobs, ALICE, false).parseTransaction()).events).toEqual([]);
  });
});
