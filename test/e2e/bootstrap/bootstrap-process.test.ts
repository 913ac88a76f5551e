import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database';
import { buildDar, lfArchive } from '../../support/dars';
import { TEST_JWT_SECRET } from '../../support/ledger';
import {
  callJson,
  ensureBuilt,
  freePort,
  LEDGERCTL_MAIN,
  ROOT,
  SERVER_MAIN,
  scopeToken,
  startServerProcess,
} from '../../support/server-process';

/**
 * The built server and ledgerctl: an invalid bootstrap file (or an entry the ledger refuses) stops the start with one
 * line per problem and exit code 2; a valid one creates everything once across restarts and `ledgerctl bootstrap`; the
 * static time survives a restart and `ledgerctl time` moves it under a running server.
 */
let dir: string;
let token: string;
const base = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/root',
  LEDGER_JWT_SECRET: TEST_JWT_SECRET,
  LEDGER_LOG_LEVEL: 'warn',
  LEDGER_GRPC_PORT: 'off',
});
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const run = (main: string, env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, [main, ...args], {
    cwd: ROOT,
    env: { ...base(), HOST: '127.0.0.1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

beforeAll(async () => {
  ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-bootstrap-proc-'));
  fs.writeFileSync(
    path.join(dir, 'model.dar'),
    await buildDar({ main: lfArchive({ name: 'proc-model', version: '1.0.0' }) }),
  );
  token = await scopeToken();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('an invalid bootstrap file stops the start', () => {
  it('one line per problem, exit code 2, nothing written', async () => {
    const { url } = await createTestDatabase();
    const file = write(
      'invalid.yaml',
      'parties: [alice, alice]\nusers:\n  - id: app\n    rights: [{ actAs: carol }]\ndars: [missing.dar]\n',
    );
    const r = run(SERVER_MAIN, { DATABASE_URL: url, LEDGER_BOOTSTRAP_FILE: file, PORT: String(await freePort()) });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      [
        'Invalid configuration:',
        "  - LEDGER_BOOTSTRAP_FILE: parties[1]: party 'alice' is declared twice",
        "  - LEDGER_BOOTSTRAP_FILE: users[0].rights[0].actAs: party 'carol' is not declared in parties (declare it, or give its full id name::fingerprint)",
        '  - LEDGER_BOOTSTRAP_FILE: dars[0]: cannot read missing.dar (ENOENT)',
        '',
      ].join('\n'),
    );
    const ctl = run(LEDGERCTL_MAIN, { DATABASE_URL: url }, 'bootstrap', write('invalid.json', '{"parties": "alice"}'));
    expect([ctl.status, ctl.stderr]).toEqual([
      2,
      `Invalid bootstrap file ${path.join(dir, 'invalid.json')}:\n  - parties: must be a list\n`,
    ]);
  });

  it('an entry the ledger refuses: one line each, exit code 2', async () => {
    const { url } = await createTestDatabase();
    const stranger = `nobody::1220${'ab'.repeat(32)}`;
    const file = write(
      'refused.yaml',
      `contracts:\n  - key: c1\n    templateId: "#m:Main:T"\n    actAs: "${stranger}"\n    arguments: {}\n`,
    );
    const r = run(SERVER_MAIN, { DATABASE_URL: url, LEDGER_BOOTSTRAP_FILE: file, PORT: String(await freePort()) });
    expect(r.status, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('Bootstrap (LEDGER_BOOTSTRAP_FILE) refused:');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}- contracts\[0\] 'c1': [A-Z_]+: /)]);
  });
});

describe('a valid bootstrap file, static time, restarts and ledgerctl', () => {
  it('creates everything once; ledgerctl applies it again without duplicates; time is kept across a restart', async () => {
    const { url } = await createTestDatabase();
    const file = write(
      'ledger.yaml',
      [
        'parties: [alice, bob]',
        'users: [{ id: alice-app, primaryParty: alice, rights: [{ actAs: alice }] }]',
        'dars: [model.dar]',
        'contracts:',
        '  - { key: memo, templateId: "#proc-model:Main:Memo", actAs: alice, arguments: { owner: "${alice}", reader: "${bob}" } }',
        '',
      ].join('\n'),
    );
    const env = {
      DATABASE_URL: url,
      LEDGER_BOOTSTRAP_FILE: file,
      LEDGER_TIME_MODE: 'static',
      LEDGER_STATIC_TIME_START: '2030-06-01T12:00:00Z',
    };
    const state = async (serverUrl: string) => {
      const end = (await callJson(serverUrl, 'GET', '/v2/state/ledger-end', token)).json.offset as number;
      const parties = (await callJson(serverUrl, 'GET', '/v2/parties', token)).json.partyDetails.length as number;
      const time = (await callJson(serverUrl, 'GET', '/v2/admin/time', token)).json.currentTime as string;
      return { end, parties, time };
    };

    const first = await startServerProcess({ ...base(), ...env });
    let afterFirst;
    try {
      afterFirst = await state(first.url);
      expect(afterFirst.parties).toBe(2);
      expect(afterFirst.time).toBe('2030-06-01T12:00:00.000000Z');
      expect((await callJson(first.url, 'GET', '/v2/users/alice-app', token)).json.user.primaryParty).toMatch(
        /^alice::1220/,
      );
      // ledgerctl next to the running server: nothing new; and it moves the time, which the server follows.
      const ctl = run(LEDGERCTL_MAIN, env, 'bootstrap', file);
      expect([ctl.status, ctl.stdout.trim()], ctl.stderr).toEqual([
        0,
        'parties allocated: 0, users created: 0, DARs applied: 1, contracts created: 0',
      ]);
      const adv = run(LEDGERCTL_MAIN, env, 'time', 'advance', '1h');
      expect([adv.status, adv.stdout.trim()], adv.stderr).toEqual([0, '2030-06-01T13:00:00.000000Z']);
      const back = run(LEDGERCTL_MAIN, env, 'time', 'set', '2030-06-01T12:30:00Z');
      expect(back.status).toBe(1);
      expect(back.stderr).toContain('Setting time backwards is not allowed.');
      const deadline = Date.now() + 5000;
      while ((await state(first.url)).time !== '2030-06-01T13:00:00.000000Z' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      expect((await state(first.url)).time).toBe('2030-06-01T13:00:00.000000Z');
      expect((await state(first.url)).end).toBe(afterFirst.end);
    } finally {
      await first.stop();
    }

    const second = await startServerProcess({ ...base(), ...env });
    try {
      expect(await state(second.url)).toEqual({ end: afterFirst.end, parties: 2, time: '2030-06-01T13:00:00.000000Z' });
      expect(run(LEDGERCTL_MAIN, env, 'time').stdout.trim()).toBe('2030-06-01T13:00:00.000000Z');
    } finally {
      await second.stop();
    }
  });
});
