import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, redactUrl, StartRefusedError } from '@ledgerline/server/config';
import { createTestDatabase } from '../../support/database';
import { openTestLedger, TEST_JWT_SECRET } from '../../support/ledger';
import { ensureBuilt, ROOT, SERVER_MAIN } from '../../support/server-process';

/**
 * Starts that must stop with one clear line and exit code 2, never echoing a secret:
 *  - a malformed DATABASE_URL, LEDGER_READ_DATABASE_URL or LEDGER_JWKS_URL names the variable and the problem with the
 *    password (and secret query parameters) replaced by `***`;
 *  - a wall-clock start on a ledger whose last record time is ahead of the wall clock (it ran in static time in the
 *    future) names the stored time and the choices, unless LEDGER_ALLOW_RECORD_TIME_AHEAD=true.
 */

/** Runs the built server with `env` until it exits (killed after 60 s: a start that was not refused). */
function runServer(env: Record<string, string>): Promise<{ code: number | string; stderr: string; stdout: string }> {
  ensureBuilt();
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [SERVER_MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    proc.stderr.on('data', (d) => (stderr += d));
    proc.stdout.on('data', (d) => (stdout += d));
    const kill = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.once('exit', (code, signal) => {
      clearTimeout(kill);
      resolve({ code: code ?? signal ?? -1, stderr, stdout });
    });
  });
}

const PASSWORD = 'Sup3r-s3cret/pw@x';

describe('malformed URLs are named, never echoed with their password', () => {
  const cases: Array<[string, string]> = [
    ['DATABASE_URL', `postgres://ledger:${PASSWORD}@db.example:54x32/ledger`],
    ['DATABASE_URL', `mysql://ledger:${PASSWORD}@db.example/ledger`],
    ['DATABASE_URL', `postgres://db.example:port/ledger?password=${encodeURIComponent(PASSWORD)}&sslmode=require`],
    ['LEDGER_READ_DATABASE_URL', `postgres://replica:${PASSWORD}@standby:5433/ledger`],
    ['LEDGER_JWKS_URL', `https://svc:${PASSWORD}@idp.example:443x/jwks?token=${encodeURIComponent(PASSWORD)}`],
  ];

  it.each(cases)('%s = %s: one problem naming the variable, the password redacted', (name, value) => {
    const env: Record<string, string> = { LEDGER_JWT_SECRET: TEST_JWT_SECRET, [name]: value };
    if (name === 'LEDGER_READ_DATABASE_URL') {
      env.DATABASE_URL = 'postgres://primary:x@127.0.0.1:5432/db';
      env[name] = `postgres://ok@standby:5432/db,${value}`;
    }
    let problems: string[] = [];
    try {
      loadConfig(env);
    } catch (e) {
      problems = (e as { problems: string[] }).problems;
    }
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name} must be`));
    expect(problems[0]).toContain('***');
    expect(problems[0]).not.toContain('s3cret');
    expect(problems[0]).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('redactUrl keeps the user, host and path and hides what follows the user name up to the last @', () => {
    expect(redactUrl('postgres://ledger:pw@host:5432/db')).toBe('postgres://ledger:***@host:5432/db');
    expect(redactUrl(`postgres://ledger:${PASSWORD}@h:x/db`)).toBe('postgres://ledger:***@h:x/db');
    expect(redactUrl('postgres://ledger@host/db')).toBe('postgres://ledger@host/db');
    expect(redactUrl('ledger:pw@host/db')).toBe('ledger:***@host/db');
    expect(redactUrl('https://idp/jwks?a=1&access_token=abc&b=2')).toBe('https://idp/jwks?a=1&access_token=***&b=2');
  });

  it('the process exits with code 2 and prints the redacted line only', async () => {
    const value = `postgres://ledger:${PASSWORD}@db.example:54x32/ledger`;
    const run = await runServer({ DATABASE_URL: value, LEDGER_JWT_SECRET: TEST_JWT_SECRET, PORT: '1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DATABASE_URL must be a postgres: or postgresql: URL: it does not parse as a URL');
    expect(run.stderr).toContain("(got 'postgres://ledger:***@db.example:54x32/ledger')");
    expect(run.stderr + run.stdout).not.toContain('s3cret');
  }, 90_000);
});

describe('a wall-clock start on a ledger whose record time is ahead of the wall clock', () => {
  let databaseUrl: string;
  const FUTURE = '2030-01-01T00:00:00Z';

  beforeAll(async () => {
    databaseUrl = (await createTestDatabase()).url;
    // The ledger runs in static time in 2030 and commits an update there.
    const ledger = await openTestLedger(databaseUrl, { LEDGER_TIME_MODE: 'static', LEDGER_STATIC_TIME_START: FUTURE });
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    expect((await ledger.call('POST', '/v2/parties', { partyIdHint: 'future', synchronizerId: sync })).status).toBe(
      200,
    );
    await ledger.close();
  });

  it('is refused in process with the stored time and the choices', async () => {
    const refusal = await openTestLedger(databaseUrl, { LEDGER_TIME_MODE: 'wall' }).then(
      async (l) => {
        await l.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(StartRefusedError);
    const message = (refusal as Error).message;
    expect(message).toMatch(/last record time 2030-01-01T00:00:00(\.\d+)?Z is ahead of the wall clock/);
    expect(message).toContain('ledgerctl reset');
    expect(message).toContain('LEDGER_TIME_MODE=static');
    expect(message).toContain('LEDGER_ALLOW_RECORD_TIME_AHEAD=true');
    expect(message).not.toContain('\n');
  });

  it('stops the process with exit code 2 and one line on stderr', async () => {
    const run = await runServer({
      DATABASE_URL: databaseUrl,
      LEDGER_JWT_SECRET: TEST_JWT_SECRET,
      LEDGER_LOG_LEVEL: 'silent',
      PORT: '1',
    });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Ledgerline refused to start: LEDGER_TIME_MODE=wall: the ledger's last record time 2030-/,
    );
  }, 90_000);

  it('starts with LEDGER_ALLOW_RECORD_TIME_AHEAD=true, and in static mode', async () => {
    const envs: Array<Record<string, string>> = [
      { LEDGER_ALLOW_RECORD_TIME_AHEAD: 'true' },
      { LEDGER_TIME_MODE: 'static' },
    ];
    for (const env of envs) {
      const ledger = await openTestLedger(databaseUrl, env);
      try {
        expect((await ledger.call('GET', '/v2/state/ledger-end')).status).toBe(200);
      } finally {
        await ledger.close();
      }
    }
  });

  it('a ledger whose record time is behind the wall clock starts in wall mode', async () => {
    const fresh = (await createTestDatabase()).url;
    const ledger = await openTestLedger(fresh, {
      LEDGER_TIME_MODE: 'static',
      LEDGER_STATIC_TIME_START: '2020-01-01T00:00:00Z',
    });
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    expect((await ledger.call('POST', '/v2/parties', { partyIdHint: 'past', synchronizerId: sync })).status).toBe(200);
    await ledger.close();
    const wall = await openTestLedger(fresh, {});
    await wall.close();
  });
});
