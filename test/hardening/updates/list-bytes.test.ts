import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer } from '../../support/external-party';
import { wsCollect } from '../../support/ws-client';

/**
 * One HTTP list answer holds at most LEDGER_HTTP_LIST_MAX_BYTES of payload (here 8 KiB): the update lists (/v2/updates,
 * flats, trees, ascending and descending), the active contract set and the completions. One that would hold more is a
 * 413 JsCantonError that names the WebSocket form; the WebSocket form of the same request delivers it all. Lists within
 * the bound are unchanged.
 */
const MAX = 8192;
const NOTE = 600;
let ledger: TestLedger;
let alice: string;
let begin: number;
let end: number;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_HTTP_LIST_MAX_BYTES: String(MAX) });
  const sync = await defaultSynchronizer(ledger);
  alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json.partyDetails
    .party;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app', primaryParty: alice },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
  begin = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
  for (let i = 0; i < 6; i++) {
    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait',
      {
        commands: [
          {
            CreateCommand: {
              templateId: '#memo-pkg:Main:Memo',
              createArguments: { owner: alice, note: `${i}`.padEnd(NOTE, 'x') },
            },
          },
        ],
        commandId: `big-${i}`,
        actAs: [alice],
      },
      { as: 'app' },
    );
    expect(r.status, r.text).toBe(200);
  }
  end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
});
afterAll(async () => {
  await ledger?.close();
});

const format = () => ({
  includeTransactions: {
    eventFormat: { filtersByParty: { [alice]: {} }, verbose: true },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});
const range = (from: number, to: number) => ({ beginExclusive: from, endInclusive: to, updateFormat: format() });

function tooLarge(r: { status: number; json: any; text: string }, webSocket: string) {
  expectCantonError(r, 413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
  expect(r.json.cause).toContain(`more than ${MAX} bytes`);
  expect(r.json.cause).toContain(`GET ${webSocket}`);
}

describe('LEDGER_HTTP_LIST_MAX_BYTES', () => {
  it.each([
    ['/v2/updates', '/v2/updates'],
    ['/v2/updates/flats', '/v2/updates'],
    ['/v2/updates/trees', '/v2/updates/trees'],
  ])('%s: over the bound → 413 naming the WebSocket form', async (path, ws) => {
    tooLarge(await ledger.call('POST', path, range(begin, end), { as: 'app' }), ws);
    // Open-ended (tailing) and descending lists are bounded alike.
    tooLarge(
      await ledger.call(
        'POST',
        `${path}?stream_idle_timeout_ms=200`,
        { beginExclusive: begin, updateFormat: format() },
        { as: 'app' },
      ),
      ws,
    );
    tooLarge(
      await ledger.call(
        'POST',
        `${path}?limit=6`,
        { beginExclusive: begin, endInclusive: end, updateFormat: format(), descendingOrder: true },
        { as: 'app' },
      ),
      ws,
    );
  });

  it('within the bound the list is answered as before', async () => {
    const r = await ledger.call('POST', '/v2/updates', range(begin, begin + 2), { as: 'app' });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toHaveLength(2);
    // A limit that stops the list within the bound: the same range answers.
    const limited = await ledger.call('POST', '/v2/updates?limit=2', range(begin, end), { as: 'app' });
    expect(limited.status, limited.text).toBe(200);
    expect(limited.json.map((u: any) => u.update.Transaction.value.offset)).toEqual([begin + 1, begin + 2]);
  });

  it('the WebSocket form delivers what the list refuses', async () => {
    const r = await wsCollect(ledger.url, '/v2/updates', await ledger.token('app'), range(begin, end));
    expect(r.closeCode).toBe(1000);
    expect(r.messages.filter((m) => m.update?.Transaction)).toHaveLength(end - begin);
  });

  it('the active contract set list', async () => {
    const body = { activeAtOffset: end, eventFormat: { filtersByParty: { [alice]: {} }, verbose: true } };
    tooLarge(
      await ledger.call('POST', '/v2/state/active-contracts', body, { as: 'app' }),
      '/v2/state/active-contracts',
    );
    const r = await ledger.call('POST', '/v2/state/active-contracts?limit=2', body, { as: 'app' });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toHaveLength(2);
  });

  it('the completions list', async () => {
    // Completions are small: enough of them pass the bound.
    const pad = 'c'.repeat(200);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        ledger.call(
          'POST',
          '/v2/commands/submit-and-wait',
          {
            commands: [{ CreateCommand: { templateId: '#memo-pkg:Main:Memo', createArguments: { owner: alice } } }],
            commandId: `${pad}-${i}`,
            actAs: [alice],
          },
          { as: 'app' },
        ),
      ),
    );
    const body = { userId: 'app', parties: [alice], beginExclusive: begin };
    tooLarge(
      await ledger.call('POST', '/v2/commands/completions?stream_idle_timeout_ms=200', body, { as: 'app' }),
      '/v2/commands/completions',
    );
    const r = await ledger.call('POST', '/v2/commands/completions?limit=3&stream_idle_timeout_ms=200', body, {
      as: 'app',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toHaveLength(3);
  });
});
