import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testLedgers, type TestLedgerHandle, type TestLedgers } from '@ledgerline/testing';
import { defaultSynchronizer } from '../../support/external-party';
import { requestJson, startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { wsCollect } from '../../support/ws-client';

/** Ledgers hosted by one process under /ledgers/<id>, through the test helper (@ledgerline/testing). */

let root: TestLedger;
let ledgers: TestLedgers;
let sync: string;

beforeAll(async () => {
  root = await startTestLedger();
  sync = await defaultSynchronizer(root);
  ledgers = testLedgers({ url: root.url, secret: TEST_JWT_SECRET });
});
afterAll(async () => root?.close());

const call = async (l: TestLedgerHandle, method: string, path: string, body?: unknown, user?: string) =>
  requestJson(l.url + path, method, { authorization: `Bearer ${await l.token(user)}` }, body);
const partyHints = async (l: TestLedgerHandle) =>
  ((await call(l, 'GET', '/v2/parties')).json.partyDetails as { party: string }[])
    .map((p) => p.party.split('::')[0])
    .sort();
const userIds = async (l: TestLedgerHandle) =>
  ((await call(l, 'GET', '/v2/users')).json.users as { id: string }[]).map((u) => u.id).sort();
const rootEnd = async () => (await root.call('GET', '/v2/state/ledger-end')).json.offset as number;

describe('a ledger per test', () => {
  it('is created from a snapshot, independent of the root, streams under its prefix, and is gone once dropped', async () => {
    expect((await root.call('POST', '/v2/parties', { partyIdHint: 'seeded', synchronizerId: sync })).status).toBe(200);
    await ledgers.snapshot('seed');
    const endBefore = await rootEnd();
    const ledger = await ledgers.create({ snapshot: 'seed' });
    expect(ledger.url).toBe(`${root.url}/ledgers/${ledger.ledgerId}`);
    expect(await partyHints(ledger)).toEqual(['seeded']);
    const r = await call(ledger, 'POST', '/v2/parties', { partyIdHint: 'only-here', synchronizerId: sync });
    expect(r.status, r.text).toBe(200);
    expect(await partyHints(ledger)).toEqual(['only-here', 'seeded']);
    expect(await rootEnd()).toBe(endBefore);
    expect(((await root.call('GET', '/v2/parties')).json.partyDetails as unknown[]).length).toBe(1);

    // A WebSocket stream under the prefix reads this ledger's updates.
    expect(
      (
        await call(ledger, 'POST', '/v2/users', {
          user: { id: 'reader' },
          rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
        })
      ).status,
    ).toBe(200);
    const ws = await wsCollect(ledger.url, '/v2/updates', await ledger.token('reader'), {
      beginExclusive: 0,
      endInclusive: endBefore + 1,
      updateFormat: { includeTopologyEvents: { includeParticipantAuthorizationEvents: {} } },
    });
    expect(
      ws.messages.map((m) => Object.keys(m.update ?? m)[0]),
      JSON.stringify(ws.messages),
    ).toEqual(['TopologyTransaction', 'TopologyTransaction']);
    expect(ws.closeCode).toBe(1000);
    // Authentication is the ledger's own: its user does not exist on the root (and the other way round).
    expect((await root.call('GET', '/v2/state/ledger-end', undefined, { as: 'reader' })).status).toBe(403);

    const listed = (await root.call('GET', '/v2/admin/ledgers')).json.ledgers.map(
      (l: { ledgerId: string }) => l.ledgerId,
    );
    expect(listed).toContain(ledger.ledgerId);
    await ledger.drop();
    const gone = await call(ledger, 'GET', '/v2/parties');
    expect({ status: gone.status, code: gone.json.code }).toEqual({ status: 404, code: 'HOSTED_LEDGER_NOT_FOUND' });
    const again = await root.call('DELETE', `/v2/admin/ledgers/${ledger.ledgerId}`);
    expect(again.status).toBe(404);
  });

  it('an empty ledger has only the admin user; a non-admin may not create ledgers; an unknown snapshot is 404', async () => {
    const ledger = await ledgers.create();
    try {
      expect(await userIds(ledger)).toEqual([root.config.adminUser]);
      expect(await partyHints(ledger)).toEqual([]);
      // A hosted ledger neither snapshots itself nor hosts ledgers: both are the root's.
      const snap = await call(ledger, 'POST', '/v2/admin/snapshots', { name: 'inner' });
      expect({ status: snap.status, code: snap.json.code }).toEqual({ status: 400, code: 'TESTING_API_DISABLED' });
      expect((await call(ledger, 'POST', '/v2/admin/ledgers', {})).json.code).toBe('TESTING_API_DISABLED');
    } finally {
      await ledger.drop();
    }
    await root.call('POST', '/v2/users', { user: { id: 'nobody' } });
    expect((await root.call('POST', '/v2/admin/ledgers', {}, { as: 'nobody' })).status).toBe(403);
    const missing = await root.call('POST', '/v2/admin/ledgers', { snapshot: 'no-such' });
    expect({ status: missing.status, code: missing.json.code }).toEqual({ status: 404, code: 'SNAPSHOT_NOT_FOUND' });
    const bad = await root.call('POST', '/v2/admin/ledgers', { ledgerId: 'Bad Id' });
    expect(bad.status).toBe(400);
  });
});

describe('many ledgers in one process under concurrent use', () => {
  it('never see each other’s data (random operations, bounded)', async () => {
    type Op = { ledger: number; kind: 'party' | 'user' | 'read'; name: string };
    const op = fc.record({
      ledger: fc.integer({ min: 0, max: 2 }),
      kind: fc.constantFrom<'party' | 'user' | 'read'>('party', 'user', 'read'),
      name: fc.stringMatching(/^[a-z]{1,8}$/),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops: Op[]) => {
        run++;
        const handles = await Promise.all([0, 1, 2].map(() => ledgers.create()));
        try {
          const parties = handles.map(() => new Set<string>());
          const users = handles.map(() => new Set<string>([root.config.adminUser]));
          // All operations at once, on all ledgers.
          await Promise.all(
            ops.map(async (o, i) => {
              const l = handles[o.ledger];
              const name = `${o.name}-${run}-${i}`;
              if (o.kind === 'party') {
                const r = await call(l, 'POST', '/v2/parties', { partyIdHint: name, synchronizerId: sync });
                expect(r.status, r.text).toBe(200);
                parties[o.ledger].add(name);
              } else if (o.kind === 'user') {
                const r = await call(l, 'POST', '/v2/users', { user: { id: name } });
                expect(r.status, r.text).toBe(200);
                users[o.ledger].add(name);
              } else {
                const r = await call(l, 'GET', '/v2/parties');
                expect(r.status).toBe(200);
                // What a ledger shows is always a subset of what was written to it.
                const seen = (r.json.partyDetails as { party: string }[]).map((p) => p.party.split('::')[0]);
                for (const s of seen)
                  expect(
                    ops.some((x, j) => x.ledger === o.ledger && x.kind === 'party' && `${x.name}-${run}-${j}` === s),
                  ).toBe(true);
              }
            }),
          );
          for (let k = 0; k < handles.length; k++) {
            expect(await partyHints(handles[k])).toEqual([...parties[k]].sort());
            expect(await userIds(handles[k])).toEqual([...users[k]].sort());
          }
        } finally {
          await Promise.all(handles.map((h) => h.drop()));
        }
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 180_000);
});
