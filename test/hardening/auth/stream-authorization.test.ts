import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { UsersRepository } from '@ledgerline/store';
import { StreamLimiter } from '@ledgerline/server/streaming/stream-limiter';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer } from '../../support/external-party';

/**
 * Open streams do not outlive the rights that opened them (Canton's UserBasedOngoingAuthorization): with the rights
 * re-checked every 200 ms here (LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS), a revoked right, a granted one, a deactivated
 * user end an open WebSocket or open-ended HTTP list with STALE_STREAM_AUTHORIZATION, and an expired token with
 * ACCESS_TOKEN_EXPIRED. A stream whose rights stay as they were keeps delivering. Waits are bounded; nothing is timed.
 */
let ledger: TestLedger;
let alice: string;
let bob: string;
let n = 0;

const readAlice = (party = alice) => ({ kind: { CanReadAs: { value: { party } } } });

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS: '200' });
  const sync = await defaultSynchronizer(ledger);
  const party = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await party('alice');
  bob = await party('bob');
  await ledger.call('POST', '/v2/users', {
    user: { id: 'writer' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
});
afterAll(async () => {
  await ledger?.close();
});

async function reader(rights: unknown[] = [readAlice()]): Promise<string> {
  const id = `reader-${n++}`;
  const r = await ledger.call('POST', '/v2/users', { user: { id }, rights });
  expect(r.status, r.text).toBe(200);
  return id;
}

const commit = async () => {
  const r = await ledger.call(
    'POST',
    '/v2/commands/submit-and-wait',
    {
      commands: [{ CreateCommand: { templateId: '#memo-pkg:Main:Memo', createArguments: { owner: alice } } }],
      commandId: `c-${n++}`,
      actAs: [alice],
    },
    { as: 'writer' },
  );
  expect(r.status, r.text).toBe(200);
};

const request = () => ({
  beginExclusive: 0,
  updateFormat: {
    includeTransactions: {
      eventFormat: { filtersByParty: { [alice]: {} }, verbose: false },
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    },
  },
});

/** An open-ended WebSocket on /v2/updates: its messages, and its close (with a bounded wait). */
function openStream(token: string) {
  const ws = new WebSocket(ledger.url.replace(/^http/, 'ws') + '/v2/updates', ['daml.ws.auth', `jwt.token.${token}`]);
  const messages: any[] = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    ws.on('open', () => {
      ws.send(JSON.stringify(request()));
      resolve();
    });
    ws.on('error', reject);
  });
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const waitFor = async (pred: () => boolean, what: string, ms = 15_000) => {
    const until = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > until)
        throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const ended = async (code: string) => {
    const closeCode = await Promise.race([
      closed,
      new Promise<number>((_, reject) =>
        setTimeout(() => reject(new Error(`stream still open; got ${JSON.stringify(messages).slice(0, 500)}`)), 15_000),
      ),
    ]);
    expect(closeCode).toBe(1000);
    expect(messages.at(-1)?.code).toBe(code);
  };
  return { ws, messages, opened, waitFor, ended };
}

const checkpoints = (m: any[]) => m.filter((x) => x.update?.OffsetCheckpoint).length;

describe('WebSocket streams re-check their authorization', () => {
  it('a revoked right ends the stream with STALE_STREAM_AUTHORIZATION', async () => {
    const user = await reader();
    await commit();
    const s = openStream(await ledger.token(user));
    await s.opened;
    await s.waitFor(() => checkpoints(s.messages) > 0, 'the first checkpoint');
    const r = await ledger.call('PATCH', `/v2/users/${user}/rights`, { rights: [readAlice()] });
    expect(r.json.newlyRevokedRights, r.text).toHaveLength(1);
    await s.ended('STALE_STREAM_AUTHORIZATION');
  });

  it('a deactivated user ends the stream', async () => {
    const user = await reader();
    const s = openStream(await ledger.token(user));
    await s.opened;
    await s.waitFor(() => checkpoints(s.messages) > 0, 'the first checkpoint');
    const r = await ledger.call('PATCH', `/v2/users/${user}`, {
      user: { id: user, isDeactivated: true },
      updateMask: { paths: ['is_deactivated'] },
    });
    expect(r.status, r.text).toBe(200);
    await s.ended('STALE_STREAM_AUTHORIZATION');
  });

  it('a granted right ends it too (the client reopens it with its new rights)', async () => {
    const user = await reader();
    const s = openStream(await ledger.token(user));
    await s.opened;
    await s.waitFor(() => checkpoints(s.messages) > 0, 'the first checkpoint');
    expect((await ledger.call('POST', `/v2/users/${user}/rights`, { rights: [readAlice(bob)] })).status).toBe(200);
    await s.ended('STALE_STREAM_AUTHORIZATION');
  });

  it('an expired token ends the stream with ACCESS_TOKEN_EXPIRED', async () => {
    const user = await reader();
    const s = openStream(await ledger.token(user, { expiresInSeconds: 2 }));
    await s.opened;
    await s.ended('ACCESS_TOKEN_EXPIRED');
  });

  it('rights that stay as they were: the stream keeps delivering across many checks', async () => {
    const user = await reader();
    const s = openStream(await ledger.token(user));
    await s.opened;
    await s.waitFor(() => checkpoints(s.messages) > 0, 'the first checkpoint');
    // Several checks pass: each is the service's periodic read of the user's authorization.
    const reads = vi.spyOn(UsersRepository.prototype, 'streamAuthorizationOf');
    try {
      await s.waitFor(
        () => reads.mock.calls.filter(([, userId]) => userId === user).length >= 5,
        'five checks of the user',
      );
    } finally {
      reads.mockRestore();
    }
    const before = s.messages.length;
    await commit();
    await s.waitFor(() => s.messages.slice(before).some((m) => m.update?.Transaction), 'the new transaction');
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    s.ws.close();
  });
});

describe('open-ended HTTP lists re-check their authorization', () => {
  it('an expired token ends a waiting list with ACCESS_TOKEN_EXPIRED', async () => {
    const user = await reader();
    const token = await ledger.token(user, { expiresInSeconds: 2 });
    const r = await fetch(`${ledger.url}/v2/updates?stream_idle_timeout_ms=30000&limit=1000`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...request(),
        beginExclusive: (await ledger.call('GET', '/v2/state/ledger-end')).json.offset,
      }),
    });
    const body = (await r.json()) as { code?: string };
    expect(body.code, JSON.stringify(body)).toBe('ACCESS_TOKEN_EXPIRED');
    expect(r.status).toBeGreaterThanOrEqual(400);
  });

  it('a revoked right ends a waiting list with STALE_STREAM_AUTHORIZATION', async () => {
    const user = await reader();
    const list = ledger.call(
      'POST',
      '/v2/updates?stream_idle_timeout_ms=30000&limit=1000',
      { ...request(), beginExclusive: (await ledger.call('GET', '/v2/state/ledger-end')).json.offset },
      { as: user },
    );
    // Once the list holds its stream slot, it is open and waiting.
    const limiter = ledger.app.get(StreamLimiter);
    for (const until = Date.now() + 15_000; limiter.count(user) === 0;) {
      if (Date.now() > until) throw new Error('the list never opened');
      await new Promise((r) => setTimeout(r, 10));
    }
    await ledger.call('PATCH', `/v2/users/${user}/rights`, { rights: [readAlice()] });
    const r = await list;
    expect(r.json?.code, r.text).toBe('STALE_STREAM_AUTHORIZATION');
  });
});
