import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dumpProjections, rebuildProjections, type Database } from '@ledgerline/store';
import { buildDar, lfArchive } from '../../support/dars';
import { defaultSynchronizer } from '../../support/external-party';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { wsCollect } from '../../support/ws-client';

let ledger: TestLedger;
let sync: string;
let n = 0;

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = await defaultSynchronizer(ledger);
});
afterAll(async () => ledger?.close());

const admin = (method: string, path: string, body?: unknown, as?: string) =>
  ledger.call(method, `/v2/admin${path}`, body, as ? { as } : {});
const ledgerEnd = async (l = ledger) => (await l.call('GET', '/v2/state/ledger-end')).json.offset as number;

/** Parties, a user with rights, a DAR and a contract: a write to every part of the ledger. */
async function writeSome(tag: string): Promise<string> {
  const party = (await ledger.call('POST', '/v2/parties', { partyIdHint: `${tag}-${n++}`, synchronizerId: sync })).json
    .partyDetails.party as string;
  const user = `${tag}-user-${n++}`;
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: user },
        rights: [{ kind: { CanActAs: { value: { party } } } }],
      })
    ).status,
  ).toBe(200);
  const dar = await buildDar({
    main: lfArchive({ name: `${tag}-pkg`, version: `1.0.${n++}`, templates: ['Main:Memo'] }),
  });
  const up = await fetch(`${ledger.url}/v2/dars?synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}`, 'content-type': 'application/octet-stream' },
    body: dar,
  });
  expect(up.status, await up.text()).toBe(200);
  const created = await ledger.call(
    'POST',
    '/v2/commands/submit-and-wait',
    {
      commands: [{ CreateCommand: { templateId: '#memo:Main:Memo', createArguments: { owner: party, note: tag } } }],
      commandId: `c-${tag}-${n++}`,
      actAs: [party],
    },
    { as: user },
  );
  expect(created.status, created.text).toBe(200);
  return party;
}

/** Everything a restore must give back: the log, the head, every projection, and what clients read. */
async function wholeLedger(db: Database['db']) {
  const log = await sql.raw('SELECT to_jsonb(e) AS row FROM event_log e ORDER BY seq').execute(db);
  const head = await sql.raw('SELECT * FROM ledger_head').execute(db);
  const end = await ledgerEnd();
  const reads = {
    end,
    parties: (await ledger.call('GET', '/v2/parties')).json,
    users: (await ledger.call('GET', '/v2/users')).json,
    packages: (await ledger.call('GET', '/v2/packages')).json,
    updates: (
      await ledger.call(
        'POST',
        '/v2/updates',
        {
          beginExclusive: 0,
          endInclusive: end,
          updateFormat: {
            includeTransactions: {
              eventFormat: { filtersForAnyParty: {} },
              transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
            },
            includeTopologyEvents: { includeParticipantAuthorizationEvents: {} },
          },
        },
        { as: 'snap-reader' },
      )
    ).json,
    acs: (
      await ledger.call(
        'POST',
        '/v2/state/active-contracts',
        { activeAtOffset: end, eventFormat: { filtersForAnyParty: {} } },
        { as: 'snap-reader' },
      )
    ).json,
  };
  return { log: log.rows, head: head.rows, projections: await dumpProjections(db), reads };
}

describe('snapshot → writes → restore', () => {
  it('gives back exactly the snapshot’s ledger (log, projections, end, parties, users, packages, reads)', async () => {
    await ledger.call('POST', '/v2/users', {
      user: { id: 'snap-reader' },
      rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
    });
    await writeSome('before');
    const taken = await admin('POST', '/snapshots', { name: 'base' });
    expect(taken.status, taken.text).toBe(200);
    const before = await wholeLedger(ledger.runtime.db);
    expect(taken.json).toMatchObject({ name: 'base', ledgerEnd: before.reads.end });
    expect(before.reads.end).toBeGreaterThan(0);

    await writeSome('after');
    await writeSome('after');
    expect(await ledgerEnd()).toBeGreaterThan(before.reads.end);

    const restored = await admin('POST', '/snapshots/base/restore');
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json).toEqual({ restored: 'base', ledgerEnd: before.reads.end });
    const after = await wholeLedger(ledger.runtime.db);
    expect(after).toEqual(before);

    // The rebuild check: replaying the restored log gives the restored projections.
    await rebuildProjections(ledger.runtime.db);
    expect(await dumpProjections(ledger.runtime.db)).toEqual(before.projections);

    // Restored ledgers keep working: a write after the restore continues from the snapshot's end.
    await writeSome('again');
    expect(await ledgerEnd()).toBeGreaterThan(before.reads.end);
    const list = await admin('GET', '/snapshots');
    expect(list.json.snapshots.map((s: { name: string }) => s.name)).toEqual(['base']);
  });

  it('streams open across a restore end with LEDGER_STATE_REPLACED; an offset past the new end is refused', async () => {
    await writeSome('stream');
    expect((await admin('POST', '/snapshots', { name: 'streams' })).status).toBe(200);
    await writeSome('stream');
    const end = await ledgerEnd();
    const token = await ledger.token('snap-reader');
    const request = {
      beginExclusive: end,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersForAnyParty: {} },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    };
    const ws = wsCollect(ledger.url, '/v2/updates', token, request);
    const poll = ledger.call('POST', '/v2/updates?stream_idle_timeout_ms=60000', request, { as: 'snap-reader' });
    // Neither stream signals that it waits at the ledger end; 300 ms lets both get there before the restore.
    await new Promise((r) => setTimeout(r, 300));
    const restored = await admin('POST', '/snapshots/streams/restore');
    expect(restored.status, restored.text).toBe(200);
    const [wsResult, pollResult] = await Promise.all([ws, poll]);
    expect(wsResult.messages.at(-1)).toMatchObject({ code: 'LEDGER_STATE_REPLACED' });
    expect(wsResult.closeCode).toBe(1012);
    expect(pollResult.status).toBe(400);
    expect(pollResult.json).toMatchObject({ code: 'LEDGER_STATE_REPLACED' });
    // The offset the client held is now after the ledger end: a client that goes on from it is told, never served less.
    expect(await ledgerEnd()).toBe(restored.json.ledgerEnd);
    const again = await ledger.call('POST', '/v2/updates', { ...request, endInclusive: end }, { as: 'snap-reader' });
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('OFFSET_AFTER_LEDGER_END');
  });
});

describe('operations at once', () => {
  it('run one after the other, each answered, while other requests wait and then succeed', async () => {
    expect((await admin('POST', '/snapshots', { name: 'conc-0' })).status).toBe(200);
    const [a, b, read, c] = await Promise.all([
      admin('POST', '/snapshots', { name: 'conc-a' }),
      admin('POST', '/snapshots', { name: 'conc-b' }),
      ledger.call('GET', '/v2/state/ledger-end'),
      admin('POST', '/snapshots/conc-0/restore'),
    ]);
    expect([a.status, b.status, read.status, c.status], [a.text, b.text, c.text].join('\n')).toEqual([
      200, 200, 200, 200,
    ]);
    expect(a.json.ledgerEnd).toBe(b.json.ledgerEnd);
  });
});

describe('reset', () => {
  it('to empty: ledger end 0, same participant, the admin and its tokens still work; to a snapshot: its ledger', async () => {
    await writeSome('reset');
    expect((await admin('POST', '/snapshots', { name: 'resetme' })).status).toBe(200);
    const snapEnd = await ledgerEnd();
    const participant = ledger.runtime.identity.participantId;
    const empty = await admin('POST', '/reset', {});
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json).toEqual({ ledgerEnd: 0 });
    expect(await ledgerEnd()).toBe(0);
    const users = (await ledger.call('GET', '/v2/users')).json.users.map((u: { id: string }) => u.id);
    expect(users).toEqual([ledger.config.adminUser]);
    expect((await ledger.call('GET', '/v2/parties')).json.partyDetails).toEqual([]);
    expect((await ledger.call('GET', '/v2/parties/participant-id')).json.participantId).toBe(participant);
    const back = await admin('POST', '/reset', { snapshot: 'resetme' });
    expect(back.status, back.text).toBe(200);
    expect(await ledgerEnd()).toBe(snapEnd);
  });
});

describe('forks', () => {
  it('are independent of the ledger in both directions', async () => {
    const { startRuntime, makeLogger } = await import('@ledgerline/server/infrastructure/runtime');
    const { loadConfig } = await import('@ledgerline/server/config');
    await ledger.call('POST', '/v2/users', {
      user: { id: 'snap-reader' },
      rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
    });
    await writeSome('forkbase');
    expect((await admin('POST', '/snapshots', { name: 'forkbase' })).status).toBe(200);
    const forked = await admin('POST', '/snapshots/forkbase/fork', { name: 'f1' });
    expect(forked.status, forked.text).toBe(200);
    expect(forked.json).toEqual({
      name: 'f1',
      fromSnapshot: 'forkbase',
      database: ledger.runtime.snapshots.forkDatabase('f1'),
    });
    const [fork] = (await ledger.runtime.snapshots.listForks()).filter((f) => f.name === 'f1');
    const config = loadConfig({
      DATABASE_URL: fork.databaseUrl,
      LEDGER_JWT_SECRET: 'test-secret-for-ledgerline-tests',
      LEDGER_LOG_LEVEL: 'silent',
      LEDGER_ED25519_WORKER: 'false',
    });
    const other = await startRuntime(config, makeLogger(config));
    try {
      const forkEnd = async () =>
        Number(
          (await sql.raw<{ o: string }>('SELECT ledger_offset AS o FROM ledger_head').execute(other.db)).rows[0].o,
        );
      const startEnd = await ledgerEnd();
      expect(await forkEnd()).toBe(startEnd);
      expect(other.identity.participantId).toBe(ledger.runtime.identity.participantId);
      const forkProjections = await dumpProjections(other.db);
      await writeSome('main-only');
      expect(await forkEnd()).toBe(startEnd);
      expect(await dumpProjections(other.db)).toEqual(forkProjections);
      const mainProjections = await dumpProjections(ledger.runtime.db);
      const mainEnd = await ledgerEnd();
      await other.eventStore.execute(async (tx) => {
        const { decideCreateUser } = await import('@ledgerline/domain');
        await tx.append(
          decideCreateUser(
            { user: null, rights: [] } as never,
            { id: 'fork-only', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' },
            [],
          ),
        );
      });
      const userIds = async (db: Database['db']) =>
        (await sql.raw<{ id: string }>('SELECT id FROM users ORDER BY id').execute(db)).rows.map((r) => r.id);
      expect(await userIds(other.db)).toContain('fork-only');
      expect(await userIds(ledger.runtime.db)).not.toContain('fork-only');
      expect(await ledgerEnd()).toBe(mainEnd);
      expect(await dumpProjections(ledger.runtime.db)).toEqual(mainProjections);
    } finally {
      await other.close();
    }
    expect((await admin('GET', '/forks')).json.forks.map((f: { name: string }) => f.name)).toEqual(['f1']);
    expect((await admin('DELETE', '/forks/f1')).status).toBe(200);
    expect((await admin('GET', '/forks')).json.forks).toEqual([]);
  });
});

describe('refusals', () => {
  it('non-admins get 403; bad names 400; unknown snapshots 404; a taken name 409; delete works once', async () => {
    await ledger.call('POST', '/v2/users', { user: { id: 'plain' } });
    expect((await admin('GET', '/snapshots', undefined, 'plain')).status).toBe(403);
    expect((await admin('POST', '/snapshots', { name: 'x' }, 'plain')).status).toBe(403);
    expect((await admin('POST', '/reset', {}, 'plain')).status).toBe(403);
    const end = await ledgerEnd();
    const bad = await admin('POST', '/snapshots', { name: 'Bad Name' });
    expect({ status: bad.status, code: bad.json.code }).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
    const missing = await admin('POST', '/snapshots/nope/restore');
    expect({ status: missing.status, code: missing.json.code }).toEqual({ status: 404, code: 'SNAPSHOT_NOT_FOUND' });
    expect((await admin('POST', '/snapshots', { name: 'dup' })).status).toBe(200);
    const dup = await admin('POST', '/snapshots', { name: 'dup' });
    expect({ status: dup.status, code: dup.json.code }).toEqual({ status: 409, code: 'SNAPSHOT_ALREADY_EXISTS' });
    expect((await admin('POST', '/snapshots', { name: 'dup', replace: true })).status).toBe(200);
    expect((await admin('DELETE', '/snapshots/dup')).status).toBe(200);
    expect((await admin('DELETE', '/snapshots/dup')).status).toBe(404);
    expect(await ledgerEnd()).toBe(end);
  });

  it('with LEDGER_TESTING_API=false every operation is refused with TESTING_API_DISABLED', async () => {
    const off = await startTestLedger({ LEDGER_TESTING_API: 'false' });
    try {
      const r = await off.call('POST', '/v2/admin/snapshots', { name: 'x' });
      expect({ status: r.status, code: r.json.code }).toEqual({ status: 400, code: 'TESTING_API_DISABLED' });
      expect((await off.call('GET', '/v2/admin/snapshots')).json.code).toBe('TESTING_API_DISABLED');
    } finally {
      await off.close();
    }
  });
});
