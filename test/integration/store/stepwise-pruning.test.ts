import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { LEDGER_PRUNED } from '@ledgerline/domain';
import { dumpProjections, EventStore, pruneLedger, type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';
import { ALICE, created, scenarioEvents, tx, txEvent } from '../../support/updates-scenario';

/**
 * A prune runs in steps, each its own writer work: the result is the same whatever the step size, a bad request changes
 * nothing, and writes queued while it runs commit between its steps instead of waiting for its end.
 */
const PARTICIPANT = `p::1220${'ef'.repeat(32)}`;
const opened: Database[] = [];
async function ledger(): Promise<{ database: Database; store: EventStore }> {
  const database = await openTestDatabase();
  opened.push(database);
  const store = new EventStore(database.db, { participantId: PARTICIPANT });
  for (const e of scenarioEvents()) await store.append([e]);
  for (let n = 100; n < 130; n++)
    await store.append([
      txEvent(`c:${n}`, tx(`create-${n}`, [{ CreatedEvent: created(n, 'iou', [ALICE], []) }], [ALICE]), [ALICE]),
    ]);
  return { database, store };
}
afterAll(async () => Promise.all(opened.map((d) => d.close())));

const prunedEvents = async (database: Database) =>
  (
    await sql<{
      seq: string;
      data: { prunedUpTo: number };
    }>`SELECT seq, data FROM event_log WHERE type = ${LEDGER_PRUNED} ORDER BY seq`.execute(database.db)
  ).rows;

async function kept(database: Database) {
  const d = await dumpProjections(database.db);
  const pick = (table: string, ...cols: string[]) =>
    (d[table] as Array<Record<string, unknown>>).map((r) => cols.map((c) => r[c]).join('/')).sort();
  return {
    updates: pick('ledger_updates', 'ledger_offset'),
    parties: pick('ledger_update_parties', 'party', 'ledger_offset'),
    activations: pick('contract_activations', 'activated_offset', 'node_id', 'deactivated_offset'),
    activationParties: pick('contract_activation_parties', 'party', 'activated_offset'),
    completions: pick('command_completions', 'completion_offset'),
    pruning: pick('ledger_pruning', 'pruned_up_to'),
  };
}

describe('pruning in steps', () => {
  let one: { database: Database; store: EventStore };
  let stepped: { database: Database; store: EventStore };
  beforeAll(async () => {
    [one, stepped] = await Promise.all([ledger(), ledger()]);
  });

  it('leaves the same projections as one prune, one LedgerPruned event per step', async () => {
    const end = 30;
    expect(await pruneLedger(one.store, end, { stepOffsets: 1_000 })).toBe(end);
    const steps: number[] = [];
    expect(await pruneLedger(stepped.store, end, { stepOffsets: 7, onStep: (p) => steps.push(p) })).toBe(end);
    expect(steps).toEqual([7, 14, 21, 28, 30]);
    expect((await prunedEvents(stepped.database)).map((r) => r.data.prunedUpTo)).toEqual([7, 14, 21, 28, 30]);
    // the two ledgers differ only in record times and the ids made from them: compare what pruning deletes by key
    expect(await kept(stepped.database)).toEqual(await kept(one.database));
    expect((await kept(one.database)).updates.length).toBeGreaterThan(0);
    // what is kept at or below the offset is exactly the creations of contracts not archived
    const { rows: keptRows } = await sql<{
      o: number;
    }>`SELECT ledger_offset AS o FROM ledger_updates WHERE ledger_offset <= ${end} ORDER BY 1`.execute(
      stepped.database.db,
    );
    const { rows: creations } = await sql<{ o: number }>`
      SELECT DISTINCT created_offset AS o FROM contracts WHERE status <> 'archived' AND created_offset <= ${end} ORDER BY 1`.execute(
      stepped.database.db,
    );
    expect(keptRows.map((r) => Number(r.o))).toEqual(creations.map((r) => Number(r.o)));
    // pruning again at or below the pruning offset is a no-op
    expect(await pruneLedger(stepped.store, 12, { stepOffsets: 7 })).toBe(end);
    expect(await prunedEvents(stepped.database)).toHaveLength(5);
  });

  it('a request beyond the ledger end fails at its first step and prunes nothing', async () => {
    const fresh = await ledger();
    await expect(pruneLedger(fresh.store, 10_000, { stepOffsets: 5 })).rejects.toThrow(/after the ledger end/);
    expect(await prunedEvents(fresh.database)).toHaveLength(0);
  });

  it('writes queued during a prune commit between its steps', async () => {
    const fresh = await ledger();
    const writes: Array<Promise<unknown>> = [];
    let n = 500;
    await pruneLedger(fresh.store, 30, {
      stepOffsets: 10,
      // queued while the prune is under way: each is taken before the next step, not after the last one
      onStep: () =>
        writes.push(
          fresh.store.append([
            txEvent(`c:${n}`, tx(`create-${n}`, [{ CreatedEvent: created(n++, 'iou', [ALICE], []) }], [ALICE]), [
              ALICE,
            ]),
          ]),
        ),
    });
    await Promise.all(writes);
    const prunes = (await prunedEvents(fresh.database)).map((r) => Number(r.seq));
    const { rows } = await sql<{ seq: string }>`SELECT seq FROM event_log WHERE stream = 'c:500'`.execute(
      fresh.database.db,
    );
    expect(prunes).toHaveLength(3);
    expect(Number(rows[0].seq)).toBeGreaterThan(prunes[0]);
    expect(Number(rows[0].seq)).toBeLessThan(prunes[2]);
  });
});
