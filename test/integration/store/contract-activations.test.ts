import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dumpProjections, EventStore, pruneLedger, rebuildProjections, type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';
import { ALICE, created, S1, scenarioEvents, tx, txEvent } from '../../support/updates-scenario';

/**
 * The contract activations (migration 0014) are a projection like any other: a rebuild recreates them row for row, and
 * the migration's backfill from the event log writes the same rows as the live projection, pruning included.
 */
let database: Database;
let store: EventStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = new EventStore(database.db, { participantId: `p::1220${'ef'.repeat(32)}` });
  for (const e of scenarioEvents()) await store.append([e]);
  await pruneLedger(store, 6);
  // more activity after the pruning: creates, and an archive in the same batch as its create
  const later = created(50, 'iou', [ALICE], []);
  await store.append([
    txEvent('c:50', tx('create-50', [{ CreatedEvent: later }], [ALICE]), [ALICE]),
    txEvent(
      'a:50',
      tx(
        'archive-50',
        [
          {
            ArchivedEvent: {
              nodeId: 0,
              contractId: later.contractId,
              templateId: later.templateId,
              packageName: later.packageName,
              stakeholders: [ALICE],
              implementedInterfaces: [],
            },
          },
        ],
        [ALICE],
      ),
      [ALICE],
      S1,
    ),
    txEvent('c:51', tx('create-51', [{ CreatedEvent: created(51, 'token', [ALICE], []) }], [ALICE]), [ALICE]),
  ]);
});
afterAll(async () => database?.close());

const tables = (d: Record<string, unknown[]>) => ({
  a: d.contract_activations,
  p: d.contract_activation_parties,
  r: d.reassignments,
});

describe('contract activations', () => {
  it('hold one row per activation, closed by the next deactivation, minus those closed at or below the pruning offset', async () => {
    const { rows } = await sql<{
      activated_offset: string;
      contract_id: string;
      deactivated_offset: string | null;
      open_contract: string | null;
    }>`
      SELECT activated_offset, contract_id, deactivated_offset, open_contract FROM contract_activations ORDER BY activated_offset, node_id`.execute(
      database.db,
    );
    // offset 4 (token created, unassigned at 8) and 5 (iou2, archived at 10) survive pruning at 6; 9 is the token's
    // assignment; 12 is archived at 13 in the same batch
    expect(
      rows.map((r) => [
        Number(r.activated_offset),
        r.deactivated_offset === null ? null : Number(r.deactivated_offset),
      ]),
    ).toEqual([
      [4, 8],
      [5, 10],
      [9, null],
      [12, 13],
      [14, null],
    ]);
    expect(rows.filter((r) => r.open_contract !== null).map((r) => r.open_contract)).toEqual(
      rows.filter((r) => r.deactivated_offset === null).map((r) => r.contract_id),
    );
  });

  it('a rebuild recreates them; the migration backfill writes the same rows', async () => {
    const live = await dumpProjections(database.db);
    await rebuildProjections(database.db);
    expect(tables(await dumpProjections(database.db))).toEqual(tables(live));
    const migration = fs.readFileSync(
      path.resolve(__dirname, '../../../migrations/0014_contract_activations.sql'),
      'utf8',
    );
    const backfill = migration.slice(migration.indexOf('-- Backfill'));
    await sql`TRUNCATE contract_activations, contract_activation_parties`.execute(database.db);
    await sql`UPDATE reassignments SET workflow_id = 'x'`.execute(database.db);
    await sql.raw(backfill).execute(database.db);
    expect(tables(await dumpProjections(database.db))).toEqual(tables(live));
  });
});
