import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Keeps README.md true: every environment variable the service reads is a row of its Configuration table. */
describe('README configuration table', () => {
  it('documents every variable read by apps/server/src/config.ts', () => {
    const root = path.resolve(__dirname, '../../..');
    const config = fs.readFileSync(path.join(root, 'apps/server/src/config.ts'), 'utf8');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const vars = [
      ...new Set([...config.matchAll(/'((?:LEDGER_[A-Z0-9_]+)|DATABASE_URL|PORT|HOST)'/g)].map((m) => m[1])),
    ];
    expect(vars.length).toBeGreaterThan(15);
    const undocumented = vars.filter((v) => !readme.includes(`| \`${v}\` |`));
    expect(undocumented).toEqual([]);
  });
});
