import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer, ledgerEnd } from '../../support/external-party';

/**
 * The unmodified @canton-network/core-ledger-client against Ledgerline: a local party submits through the client's own
 * HTTP client (async/submit and submit-and-wait), and `awaitCompletion` — which polls POST /v2/commands/completions with
 * `{userId, parties, beginExclusive}`, `?limit=100&stream_idle_timeout_ms=1000`, and decodes a rejection
 * from its google.rpc.ErrorInfo detail — finds the success, and turns a rejection into its error.
 */
let ledger: TestLedger;
let client: any;
let awaitCompletion: any;
let alice: string;
const MEMO = '#memo-pkg:Main:Memo';
const silent = {
  child: () => silent,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

beforeAll(async () => {
  ledger = await startTestLedger();
  const sync = await defaultSynchronizer(ledger);
  alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'cl-alice', synchronizerId: sync })).json
    .partyDetails.party;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'cl-app' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
  const mod = await import('@canton-network/core-ledger-client');
  awaitCompletion = mod.awaitCompletion;
  const token = await ledger.token('cl-app');
  client = new mod.LedgerClient({
    baseUrl: new URL(ledger.url),
    logger: silent as never,
    accessTokenProvider: { getAccessToken: async () => token } as never,
  });
  await client.init();
});
afterAll(async () => {
  await ledger?.close();
});

describe('core-ledger-client', () => {
  it('submits with async/submit and awaits the completion; a duplicate ends in a rejection it decodes', async () => {
    const begin = await ledgerEnd(ledger);
    const commandId = `cl-${Date.now()}`;
    const commands = {
      commands: [{ CreateCommand: { templateId: MEMO, createArguments: { owner: alice } } }],
      commandId,
      actAs: [alice],
      userId: 'cl-app',
    };
    expect(await client.post('/v2/commands/async/submit', commands)).toEqual({});
    const completion = await awaitCompletion(client, begin, alice, 'cl-app', commandId);
    expect(completion).toMatchObject({
      commandId,
      userId: 'cl-app',
      actAs: [alice],
      status: { code: 0 },
      offset: begin + 1,
    });
    expect(completion.updateId).toMatch(/^1220/);

    // The same change again: accepted, then rejected at commit; awaitCompletion throws the decoded status.
    const end = await ledgerEnd(ledger);
    expect(await client.post('/v2/commands/async/submit', { ...commands, submissionId: 'second-try' })).toEqual({});
    const failure = await awaitCompletion(client, end, alice, 'cl-app', 'second-try').then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ code: 6, errorInfo: { reason: 'DUPLICATE_COMMAND' } });
    expect(failure.errorInfo.metadata.completion_offset).toBe(String(begin + 1));
    expect(failure.message).toMatch(/^DUPLICATE_COMMAND\(10,second-t\): /);
  });

  it('submit-and-wait through the client, then the completion is found from an earlier offset', async () => {
    const begin = await ledgerEnd(ledger);
    const commandId = `cl-wait-${Date.now()}`;
    const r = await client.post('/v2/commands/submit-and-wait', {
      commands: [{ CreateCommand: { templateId: MEMO, createArguments: { owner: alice } } }],
      commandId,
      actAs: [alice],
    });
    expect(r.completionOffset).toBe(begin + 1);
    const completion = await awaitCompletion(client, begin, alice, 'cl-app', commandId);
    expect([completion.updateId, completion.offset]).toEqual([r.updateId, r.completionOffset]);
  });
});
