import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestLedger, type TestLedger } from '../../support/ledger';

// A separate file: passport registers its JWT strategy globally, so two ledgers in one process would share one.
let ledger: TestLedger;
beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'only' });
});
afterAll(async () => {
  await ledger?.close();
});

it('a participant with exactly one synchronizer allocates without synchronizerId', async () => {
  const r = await ledger.call('POST', '/v2/parties', { partyIdHint: 'solo' });
  expect(r.status).toBe(200);
  const only = ledger.runtime.identity.synchronizers[0].id;
  const { rows } = await sql<{ synchronizer_id: string }>`SELECT synchronizer_id FROM party_details`.execute(
    ledger.runtime.db,
  );
  expect(rows).toEqual([{ synchronizer_id: only }]);
  const upd = await sql<{
    synchronizer_id: string;
    kind: string;
  }>`SELECT synchronizer_id, kind FROM ledger_updates ORDER BY ledger_offset DESC LIMIT 1`.execute(ledger.runtime.db);
  expect(upd.rows).toEqual([{ synchronizer_id: only, kind: 'TopologyTransaction' }]);
});
