import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder of real DARs and Canton outputs (LEDGERLINE_CONFORMANCE_DARS; CI sets it). Without it, outside CI the
 * tests that need it are skipped with a banner; under CI=true they fail.
 */
export type DarsAvailability = { present: true; dir: string } | { present: false; required: boolean; reason: string };

export function conformanceDars(suite: string): DarsAvailability {
  const dir = process.env.LEDGERLINE_CONFORMANCE_DARS;
  if (dir && fs.existsSync(path.join(dir, 'fixtures'))) return { present: true, dir: path.resolve(dir) };
  const required = process.env.CI === 'true';
  const reason = dir ? `LEDGERLINE_CONFORMANCE_DARS=${dir} has no fixtures/ folder` : 'LEDGERLINE_CONFORMANCE_DARS is not set (locally: /work/shared/dars)';
  if (!required) {
    const line = '!'.repeat(100);
    console.warn(`\n${line}\n[${suite}] SKIPPED: ${reason}\n${line}\n`);
  }
  return { present: false, required, reason };
}
