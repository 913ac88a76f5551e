import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { AMULET_DAR, WALLET_DAR } from '../../support/canton-coin';

/**
 * The README's "Canton Coin locally" walk-through (`scripts/canton-coin-demo.sh`: a tap, a preapproval accepted by the
 * validator's automation, a transfer through it, with curl and jq) against a ledger started with the profile on the
 * wall clock, as `npm start` runs it.
 */
const SCRIPT = path.resolve(__dirname, '../../../scripts/canton-coin-demo.sh');

describeWithDars('scripts/canton-coin-demo.sh (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger({
      LEDGER_CANTON_COIN: 'dev',
      LEDGER_CANTON_COIN_DARS: [AMULET_DAR, WALLET_DAR].map((d) => path.join(darsRoot, d)).join(','),
      LEDGER_CANTON_COIN_POLL_MS: '50',
    });
  }, 300_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('taps 1,000 CC for the validator and pays Alice 100 through her preapproval', async () => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LEDGERLINE_URL: ledger.url,
      TOKEN: await ledger.token('validator'),
    };
    const { stdout } = await promisify(execFile)('bash', [SCRIPT], { env, timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^validator validator::\S+ holds 1000\.0000000000 CC$/);
    expect(lines[1]).toMatch(/^alice alice-\d+::\S+ holds 100\.0000000000 CC$/);
    expect(lines[2]).toMatch(/^validator validator::\S+ holds 900\.0000000000 CC$/);
  });
});
