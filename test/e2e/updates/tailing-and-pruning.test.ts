import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dumpProjections, EventStore, rebuildProjections } from '@ledgerline/store';
import type { CommittedEvent } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { ALICE, BOB, created, tx, txEvent, writeScenario } from '../../support/updates-scenario';
import { wsCollect } from '../../support/ws-client';
import { UpdatesReader } from '@ledgerline/server/streaming/update-stream';

let ledger: TestLedger;
let committed: CommittedEvent[];
let next = 1000;
const createFor = (party: string) => {
  const n = next++;
  return txEvent(`c:${n}`, tx(`cmd-${n}`, [{ CreatedEvent: created(n, 'iou', [party], []) }], [party]), [party]);
};
const ledgerEnd = async () => (await ledger.call('GET', '/v2/state/ledger-end')).json.offset as number;
const kind = (u: any) => Object.keys(u.update)[0];
const offsetOf = (u: any) => (Object.values(u.update)[0] as any).value.offset as number;

beforeAll(async () => {
  ledger = await startTestLedger();
  committed = await writeScenario(ledger.runtime.eventStore);
  await ledger.call('POST', '/v2/users', {
    user: { id: 'reader' },
    rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
  });
});
afterAll(async () => ledger?.close());

const anyParty = (beginExclusive: number, extra: Record<string, unknown> = {}) => ({
  beginExclusive,
  filter: { filtersForAnyParty: {} },
  ...extra,
});

describe('tailing (open-ended) requests', () => {
  it('an open-ended list ends with an OffsetCheckpoint at the ledger end; a bounded one has none', async () => {
    const end = await ledgerEnd();
    const open = await ledger.call('POST', '/v2/updates/flats?stream_idle_timeout_ms=50', anyParty(7), {
      as: 'reader',
    });
    expect(open.status).toBe(200);
    expect(open.json.map(kind)).toEqual([
      'Reassignment',
      'Reassignment',
      'Transaction',
      'TopologyTransaction',
      'OffsetCheckpoint',
    ]);
    const cp = open.json.at(-1).update.OffsetCheckpoint.value;
    expect(cp.offset).toBe(end);
    expect(cp.synchronizerTimes.map((s: any) => s.synchronizerId)).toEqual(
      ledger.runtime.identity.synchronizers.map((s) => s.id),
    );
    for (const s of cp.synchronizerTimes) expect(s.recordTime >= committed.at(-1)!.update!.recordTime).toBe(true);
    const bounded = await ledger.call('POST', '/v2/updates/flats', anyParty(7, { endInclusive: end }), {
      as: 'reader',
    });
    expect(bounded.json.map(kind)).not.toContain('OffsetCheckpoint');
    // Nothing new after the end: no checkpoint below or at beginExclusive either.
    const idle = await ledger.call('POST', '/v2/updates/flats?stream_idle_timeout_ms=20', anyParty(end), {
      as: 'reader',
    });
    expect(idle.json).toEqual([]);
  });

  it('a request waiting at the ledger end is woken by a commit of this instance', async () => {
    const end = await ledgerEnd();
    const pending = ledger.call('POST', '/v2/updates/flats?limit=1&stream_idle_timeout_ms=60000', anyParty(end), {
      as: 'reader',
    });
    // A long poll gives no sign that it reached the wait; 100 ms lets it (if not, the commit is read on its first page).
    await new Promise((r) => setTimeout(r, 100));
    const [e] = await ledger.runtime.eventStore.append([createFor(ALICE)]);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json.map(offsetOf)).toEqual([e.update!.offset]);
  });

  it('a request waiting at the ledger end is woken by another instance’s commit (LISTEN/NOTIFY)', async () => {
    const other = new EventStore(ledger.runtime.db, { participantId: ledger.participantId });
    const end = await ledgerEnd();
    const pending = ledger.call('POST', '/v2/updates?limit=1&stream_idle_timeout_ms=60000', anyParty(end), {
      as: 'reader',
    });
    // As above: lets the long poll reach the wait.
    await new Promise((r) => setTimeout(r, 100));
    const [e] = await other.append([createFor(BOB)]);
    const r = await pending;
    expect(r.json.map(offsetOf)).toEqual([e.update!.offset]);
    await other.close();
  });

  it('a WebSocket tail sees every one of 5,000 updates written by 16 concurrent writers exactly once, in order', async () => {
    const begin = await ledgerEnd();
    const total = 5000;
    const token = await ledger.token('reader');
    const tail = wsCollect(
      ledger.url,
      '/v2/updates',
      token,
      anyParty(begin),
      (msgs) => msgs.filter((m) => kind(m) !== 'OffsetCheckpoint').length >= total,
    );
    // A party-filtered tail (alice only) runs alongside.
    const aliceTail = wsCollect(
      ledger.url,
      '/v2/updates/flats',
      token,
      { beginExclusive: begin, filter: { filtersByParty: { [ALICE]: {} } } },
      (msgs) => msgs.filter((m) => kind(m) !== 'OffsetCheckpoint').length >= total / 2,
    );
    let written = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        while (written < total) {
          written++;
          await ledger.runtime.eventStore.append([createFor(w % 2 === 0 ? ALICE : BOB)]);
        }
      }),
    );
    const { messages } = await tail;
    const updates = messages.filter((m) => kind(m) !== 'OffsetCheckpoint');
    expect(updates.map(offsetOf)).toEqual(Array.from({ length: total }, (_, i) => begin + i + 1));
    // Checkpoints, when present, never go backwards and never precede an update they claim to cover.
    let last = begin;
    for (const m of messages) {
      const o = offsetOf(m);
      if (kind(m) === 'OffsetCheckpoint') expect(o).toBeGreaterThanOrEqual(last);
      else expect(o).toBeGreaterThan(last);
      last = o;
    }
    const alice = (await aliceTail).messages.filter((m) => kind(m) !== 'OffsetCheckpoint');
    const aliceOffsets = alice.map(offsetOf);
    expect(aliceOffsets).toEqual([...aliceOffsets].sort((a, b) => a - b));
    expect(new Set(aliceOffsets).size).toBe(aliceOffsets.length);
    for (const u of alice) expect(u.update.Transaction.value.events[0].CreatedEvent.signatories).toEqual([ALICE]);
  });
});

describe('page reads', () => {
  it('an HTTP list reads only the page it needs (no page read ahead for nothing); a WebSocket stream reads its range in pages', async () => {
    const end = await ledgerEnd();
    expect(end).toBeGreaterThan(1000);
    const repo = ledger.app.get(UpdatesReader).repo;
    const page = repo.page.bind(repo);
    const reads: Array<{ after: number; limit: number }> = [];
    repo.page = (db, q) => {
      reads.push({ after: q.after, limit: q.limit });
      return page(db, q);
    };
    try {
      // Within the 5,000 creates of the test above: every update is visible, so one page of 100 holds the answer.
      const r = await ledger.call('POST', '/v2/updates/flats?limit=100', anyParty(end - 3000, { endInclusive: end }), {
        as: 'reader',
      });
      expect(r.json.map(offsetOf)).toEqual(Array.from({ length: 100 }, (_, i) => end - 2999 + i));
      expect(reads).toEqual([{ after: end - 3000, limit: 100 }]);
      reads.length = 0;
      const { messages } = await wsCollect(
        ledger.url,
        '/v2/updates',
        await ledger.token('reader'),
        anyParty(end - 1000, { endInclusive: end }),
      );
      expect(messages.map(offsetOf)).toEqual(Array.from({ length: 1000 }, (_, i) => end - 999 + i));
      // Keyset pages, each after the previous one's last offset; the last one reaches the end.
      expect(reads[0].after).toBe(end - 1000);
      for (let i = 1; i < reads.length; i++) expect(reads[i].after).toBeGreaterThan(reads[i - 1].after);
      expect(reads.length).toBeLessThanOrEqual(Math.ceil(1000 / reads[0].limit) + 1);
    } finally {
      repo.page = page;
    }
  });
});

describe('pruning', () => {
  let main: TestLedger;
  beforeAll(() => {
    main = ledger;
  });
  afterAll(async () => {
    await ledger.close();
    ledger = main;
  });

  it('is admin-only, bounded by the ledger end, event-sourced, and makes reads below it fail', async () => {
    // A ledger of its own: just the scenario.
    ledger = await startTestLedger();
    committed = await writeScenario(ledger.runtime.eventStore);
    await ledger.call('POST', '/v2/users', {
      user: { id: 'reader' },
      rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
    });
    const call = (body: unknown, as?: string) => ledger.call('POST', '/v2/admin/prune', body, { as });
    expect((await call({ pruneUpTo: 5 }, 'reader')).status).toBe(403);
    const end = await ledgerEnd();
    const beyond = await call({ pruneUpTo: end + 1 });
    expect(beyond.status).toBe(400);
    expect(beyond.json.code).toBe('INVALID_ARGUMENT');
    expect((await call({ pruneUpTo: 0 })).json.code).toBe('NON_POSITIVE_OFFSET');
    expect((await call({})).status).toBe(400);

    const before = await ledger.call('POST', '/v2/updates/flats', anyParty(5, { endInclusive: 11 }), { as: 'reader' });
    const r = await call({ pruneUpTo: 5 });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ prunedUpTo: 5 });
    expect((await call({ pruneUpTo: 3 })).json).toEqual({ prunedUpTo: 5 });
    expect((await ledger.call('GET', '/v2/state/latest-pruned-offsets')).json).toEqual({
      participantPrunedUpToInclusive: 5,
      allDivulgedContractsPrunedUpToInclusive: 5,
    });

    const pruned = await ledger.call('POST', '/v2/updates/flats', anyParty(4, { endInclusive: 11 }), { as: 'reader' });
    expect(pruned.status).toBe(400);
    expect(pruned.json).toMatchObject({
      code: 'PARTICIPANT_PRUNED_DATA_ACCESSED',
      cause: 'Updates request from 4 to 11 precedes pruned offset 5',
      errorCategory: 9,
    });
    expect(pruned.json.context.earliest_offset).toBe('5');
    const ws = await wsCollect(
      ledger.url,
      '/v2/updates',
      await ledger.token('reader'),
      anyParty(0, { endInclusive: 11 }),
    );
    expect(ws.messages[0].code).toBe('PARTICIPANT_PRUNED_DATA_ACCESSED');
    // From the pruning offset on, nothing changed.
    const after = await ledger.call('POST', '/v2/updates/flats', anyParty(5, { endInclusive: 11 }), { as: 'reader' });
    expect(after.json).toEqual(before.json);

    // Archived contracts' updates are gone; the creation of the still-active Token (offset 4) stays readable.
    const lookup = (offset: number) =>
      ledger.call(
        'POST',
        '/v2/updates/transaction-by-id',
        { updateId: committed[offset - 1].update!.updateId, requestingParties: [BOB] },
        { as: 'reader' },
      );
    expect((await lookup(3)).json.code).toBe('UPDATE_NOT_FOUND');
    expect((await lookup(5)).json.code).toBe('UPDATE_NOT_FOUND');
    expect((await lookup(4)).json.transaction.offset).toBe(4);
    const { rows } = await sql<{
      o: string;
    }>`SELECT ledger_offset AS o FROM ledger_updates WHERE ledger_offset <= 5 ORDER BY 1`.execute(ledger.runtime.db);
    expect(rows.map((x) => Number(x.o))).toEqual([4]);
    const parties = await sql<{
      o: string;
    }>`SELECT DISTINCT ledger_offset AS o FROM ledger_update_parties WHERE ledger_offset <= 5`.execute(
      ledger.runtime.db,
    );
    expect(parties.rows.map((x) => Number(x.o))).toEqual([4]);
    const { rows: log } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM event_log WHERE type = 'LedgerPruned'`.execute(ledger.runtime.db);
    expect(log[0].n).toBe(1);

    // The projections are a fold of the log: a rebuild gives the same rows.
    const live = await dumpProjections(ledger.runtime.db);
    await rebuildProjections(ledger.runtime.db);
    expect(await dumpProjections(ledger.runtime.db)).toEqual(live);
  });
});
