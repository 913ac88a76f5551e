import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { startTestLedger, type TestLedger } from './ledger';

/** Canton's ping DAR (`canton-builtin-admin-workflow-ping`, 3.4.0) in the conformance folder, and its `Ping` template. */
export const PING_DAR = 'canton/canton-builtin-admin-workflow-ping.dar';
export const PING_PKG = 'de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54';
export const PING = `${PING_PKG}:Canton.Internal.Ping:Ping`;

/** A test ledger with the ping DAR uploaded and vetted on its default synchronizer (`root`: the conformance folder). */
export async function ledgerWithPingDar(root: string): Promise<{ ledger: TestLedger; sync: string }> {
  const ledger = await startTestLedger();
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: fs.readFileSync(path.join(root, PING_DAR)),
  });
  expect(up.status, await up.text()).toBe(200);
  return { ledger, sync };
}
