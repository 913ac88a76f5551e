import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProjections, rebuildProjections } from '@ledgerline/store';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer, ledgerEnd } from '../../support/external-party';
import { wsCollect } from '../../support/ws-client';
import { waitFor } from '../../support/wait-for';
import { expectCantonError } from '../../support/canton-error';

/**
 * Command completions: POST /v2/commands/completions (the list form: limit, stream_idle_timeout_ms, 413) and the
 * WebSocket; which completions a request sees (its user, its parties, actAs cut down), the request's checks in order,
 * and OffsetCheckpoints.
 */
let ledger: TestLedger;
let alice: string;
let bob: string;
const MEMO = '#memo-pkg:Main:Memo';

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_HTTP_LIST_MAX_ELEMENTS: '5' });
  const sync = await defaultSynchronizer(ledger);
  const local = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await local('alice');
  bob = await local('bob');
  const act = (party: string) => ({ kind: { CanActAs: { value: { party } } } });
  await ledger.call('POST', '/v2/users', { user: { id: 'app' }, rights: [act(alice), act(bob)] });
  await ledger.call('POST', '/v2/users', { user: { id: 'other' }, rights: [act(alice)] });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'auditor' },
    rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
  });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'bob-reader' },
    rights: [{ kind: { CanReadAs: { value: { party: bob } } } }],
  });
});
afterAll(async () => {
  await ledger?.close();
});

let n = 0;
const submit = (actAs: string[], as = 'app', path = 'submit-and-wait') =>
  ledger.call(
    'POST',
    `/v2/commands/${path}`,
    {
      commands: [{ CreateCommand: { templateId: MEMO, createArguments: { owner: actAs[0] } } }],
      commandId: `c-${n++}`,
      actAs,
    },
    { as },
  );
const list = (body: Record<string, unknown>, query = 'stream_idle_timeout_ms=150', as = 'app') =>
  ledger.call('POST', `/v2/commands/completions?${query}`, body, { as });
const completionsOf = (elements: any[]) =>
  elements.filter((e) => e.completionResponse.Completion).map((e) => e.completionResponse.Completion.value);

describe('the completion list', () => {
  it('a user sees its own completions of commands with an actAs party among the requested ones, actAs cut down', async () => {
    const begin = await ledgerEnd(ledger);
    const a = await submit([alice]);
    const ab = await submit([alice, bob]);
    const o = await submit([alice], 'other');
    await submit([bob]);
    // No Content-Type, as core-ledger-client sends it.
    const res = await fetch(`${ledger.url}/v2/commands/completions?limit=100&stream_idle_timeout_ms=150`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token('app')}` },
      body: JSON.stringify({ userId: 'app', parties: [alice], beginExclusive: begin }),
    });
    const elements = (await res.json()) as any[];
    const seen = completionsOf(elements);
    expect(seen.map((c: any) => [c.offset, c.actAs, c.updateId])).toEqual([
      [a.json.completionOffset, [alice], a.json.updateId],
      [ab.json.completionOffset, [alice], ab.json.updateId],
    ]);
    expect(seen[0]).toMatchObject({
      userId: 'app',
      status: { code: 0 },
      synchronizerTime: { synchronizerId: expect.stringMatching(/::1220/) },
      paidTrafficCost: 0,
      transactionHash: '',
    });
    // The list tails: it ends at the idle timeout with a checkpoint at the ledger end.
    const cp = elements.at(-1).completionResponse.OffsetCheckpoint.value;
    expect(cp.offset).toBe(await ledgerEnd(ledger));
    // The other user sees only its own; the empty user id is the token's.
    expect(
      completionsOf((await list({ parties: [alice], beginExclusive: begin }, undefined, 'other')).json).map(
        (c: any) => c.offset,
      ),
    ).toEqual([o.json.completionOffset]);
    // A reader of any party may name any user; bob's reader sees app's commands with bob acting.
    expect(
      completionsOf(
        (await list({ userId: 'app', parties: [alice, bob], beginExclusive: begin }, undefined, 'auditor')).json,
      ),
    ).toHaveLength(3);
    expect(
      completionsOf(
        (await list({ userId: 'app', parties: [bob], beginExclusive: begin }, undefined, 'auditor')).json,
      ).map((c: any) => c.actAs),
    ).toEqual([[bob], [bob]]);
  });

  it('limit truncates; more than the maximum without a limit is 413; the list waits for a completion that comes', async () => {
    const begin = await ledgerEnd(ledger);
    for (let i = 0; i < 6; i++) await submit([alice]);
    let r = await list({ parties: [alice], beginExclusive: begin }, 'limit=2&stream_idle_timeout_ms=100');
    expect(completionsOf(r.json)).toHaveLength(2);
    r = await list({ parties: [alice], beginExclusive: begin });
    expect([r.status, r.json.code]).toEqual([413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED']);
    const end = await ledgerEnd(ledger);
    const waiting = list({ parties: [alice], beginExclusive: end }, 'limit=1&stream_idle_timeout_ms=5000');
    // A long poll gives no sign that it reached the wait; 100 ms lets it (if not, the commit is read on its first page).
    await new Promise((res) => setTimeout(res, 100));
    const c = await submit([alice], 'app', 'async/submit');
    expect(c.json).toEqual({});
    const got = (await waiting).json;
    expect(got).toHaveLength(1);
    expect(got[0].completionResponse.Completion.value.offset).toBe(end + 1);
  });

  it('the request checks, in order: authorization, user id, parties, offsets', async () => {
    const end = await ledgerEnd(ledger);
    expectCantonError(await list({ userId: 'other', parties: [alice] }), 403, 'NA');
    expectCantonError(await list({ parties: [bob] }, undefined, 'other'), 403, 'NA');
    expectCantonError(
      await list({ userId: 'bad user!', parties: [alice] }, undefined, 'auditor'),
      400,
      'INVALID_FIELD',
    );
    expectCantonError(await list({ parties: ['bad party!'] }, undefined, 'auditor'), 400, 'INVALID_ARGUMENT');
    expectCantonError(await list({ parties: [alice], beginExclusive: -1 }), 400, 'NEGATIVE_OFFSET');
    expectCantonError(await list({ parties: [alice], beginExclusive: end + 5 }), 400, 'OFFSET_AFTER_LEDGER_END');
    expectCantonError(await list({ parties: [] }), 400, 'MISSING_FIELD');
    const r = await ledger.call('POST', '/v2/commands/completions?limit=x', { parties: [alice] }, { as: 'app' });
    expect([r.status, r.text]).toEqual([400, 'Invalid value for: query parameter limit']);
  });

  it('the completions table equals a replay of the log', async () => {
    const live = await dumpProjections(ledger.runtime.db);
    await rebuildProjections(ledger.runtime.db);
    expect((await dumpProjections(ledger.runtime.db)).command_completions).toEqual(live.command_completions);
    expect(live.command_completions.length).toBeGreaterThan(10);
  });
});

describe('command-completions (GetCompletions): no user id, parties optional', () => {
  const get = (body: Record<string, unknown>, as: string, query = 'stream_idle_timeout_ms=150') =>
    ledger.call('POST', `/v2/commands/command-completions?${query}`, body, { as });

  it("every user's completions of the requested parties, actAs cut down; with no party, all of them, actAs whole", async () => {
    const begin = await ledgerEnd(ledger);
    const a = await submit([alice]);
    const ab = await submit([alice, bob]);
    const o = await submit([alice], 'other');
    const b = await submit([bob], 'app', 'async/submit');
    expect(b.json).toEqual({});
    const forAlice = completionsOf((await get({ parties: [alice], beginExclusive: begin }, 'auditor')).json);
    expect(forAlice.map((c: any) => [c.offset, c.userId, c.actAs])).toEqual([
      [a.json.completionOffset, 'app', [alice]],
      [ab.json.completionOffset, 'app', [alice]],
      [o.json.completionOffset, 'other', [alice]],
    ]);
    const all = completionsOf((await get({ beginExclusive: begin }, 'auditor')).json);
    expect(all.map((c: any) => c.actAs)).toEqual([[alice], [alice, bob], [alice], [bob]]);
    // A reader of bob sees the commands bob acted in, whoever submitted them; a userId key is not part of the request.
    const forBob = completionsOf(
      (await get({ userId: 'other', parties: [bob], beginExclusive: begin }, 'bob-reader')).json,
    );
    expect(forBob.map((c: any) => [c.offset, c.actAs])).toEqual([
      [ab.json.completionOffset, [bob]],
      [all[3].offset, [bob]],
    ]);
    // The list tails: it ends at the idle timeout with a checkpoint at the ledger end.
    const elements = (await get({ beginExclusive: begin }, 'auditor')).json;
    expect(elements.at(-1).completionResponse.OffsetCheckpoint.value.offset).toBe(await ledgerEnd(ledger));
  });

  it('the request checks, in order: ReadAs per party (the any-party right for none), parties, offsets; the list limit', async () => {
    const end = await ledgerEnd(ledger);
    expectCantonError(await get({}, 'app'), 403, 'NA');
    expectCantonError(await get({ parties: [alice] }, 'bob-reader'), 403, 'NA');
    expectCantonError(await get({ parties: ['bad party!'] }, 'auditor'), 400, 'INVALID_ARGUMENT');
    expectCantonError(await get({ parties: [alice], beginExclusive: -1 }, 'app'), 400, 'NEGATIVE_OFFSET');
    expectCantonError(await get({ beginExclusive: end + 5 }, 'auditor'), 400, 'OFFSET_AFTER_LEDGER_END');
    let r = await get({ beginExclusive: 0 }, 'auditor');
    expect([r.status, r.json.code]).toEqual([413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED']);
    r = await get({ beginExclusive: 0 }, 'auditor', 'limit=2&stream_idle_timeout_ms=100');
    expect(completionsOf(r.json)).toHaveLength(2);
    r = await ledger.call('POST', '/v2/commands/command-completions?stream_idle_timeout_ms=x', {}, { as: 'auditor' });
    expect([r.status, r.text]).toEqual([400, 'Invalid value for: query parameter stream_idle_timeout_ms']);
  });

  it('the WebSocket streams and tails; a bad request is one error frame', async () => {
    const begin = await ledgerEnd(ledger);
    await submit([bob]);
    const token = await ledger.token('auditor');
    let received = 0;
    const streaming = wsCollect(
      ledger.url,
      '/v2/commands/command-completions',
      token,
      { beginExclusive: begin },
      (m) => (received = completionsOf(m).length) >= 2,
    );
    // The first completion arrived: the stream is at the ledger end, so the next one is tailed.
    await waitFor(() => received >= 1, { message: 'the first completion' });
    expect((await submit([alice], 'other', 'async/submit')).json).toEqual({});
    const seen = completionsOf((await streaming).messages);
    expect(seen.map((c: any) => [c.offset, c.userId])).toEqual([
      [begin + 1, 'app'],
      [begin + 2, 'other'],
    ]);
    const bad = await wsCollect(ledger.url, '/v2/commands/command-completions', await ledger.token('app'), {
      parties: [],
    });
    expect(bad.messages.map((m) => m.code)).toEqual(['NA']);
  });
});

describe('the completion WebSocket', () => {
  it('streams completions and checkpoints, tails, and answers a bad request with one error frame', async () => {
    const begin = await ledgerEnd(ledger);
    await submit([alice]);
    const token = await ledger.token('app');
    let received = 0;
    const streaming = wsCollect(
      ledger.url,
      '/v2/commands/completions',
      token,
      { userId: 'app', parties: [alice], beginExclusive: begin },
      (m) => (received = completionsOf(m).length) >= 2,
    );
    await waitFor(() => received >= 1, { message: 'the first completion' });
    const second = await submit([alice], 'app', 'async/submit');
    expect(second.json).toEqual({});
    const { messages } = await streaming;
    expect(completionsOf(messages).map((c: any) => c.offset)).toEqual([begin + 1, begin + 2]);
    const checkpoints = messages
      .filter((m) => m.completionResponse.OffsetCheckpoint)
      .map((m) => m.completionResponse.OffsetCheckpoint.value.offset);
    expect(checkpoints.length).toBeGreaterThan(0);
    for (const o of checkpoints) expect(o).toBeGreaterThan(begin);
    // wallet-sdk's path has an empty segment first.
    const bad = await wsCollect(ledger.url, '//v2/commands/completions', token, {
      parties: [alice],
      beginExclusive: -1,
    });
    expect(bad.messages.map((m) => m.code)).toEqual(['NEGATIVE_OFFSET']);
    expect(bad.closeCode).toBe(1000);
    const denied = await wsCollect(ledger.url, '/v2/commands/completions', null, { parties: [alice] });
    expect(denied.rejectedStatus).toBe(401);
  });
});
