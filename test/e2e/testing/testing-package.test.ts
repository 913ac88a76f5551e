import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database';
import { LEDGERCTL_MAIN, ROOT, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * `@ledgerline/testing` as a user outside this repository gets it: `npm pack` of libs/testing, the tarball installed
 * into a scratch project in the system's temporary folder (no registry: the package has no dependencies), and a vitest
 * file and a node:test file of that project run against the built server, authenticated by `LEDGERLINE_TOKEN` from
 * `ledgerctl token` (the server runs on its generated secret, which the project never sees). Also what the package
 * says when credentials are missing or refused.
 */
const run = promisify(execFile);
const WAIT = 180_000;

let server: ServerProcess;
let scratch: string;
let tarball: string;
let adminToken: string;

const VITEST_FILE = `
import { ledgerPerTest } from '@ledgerline/testing';

const ledger = ledgerPerTest({ beforeEach, afterEach });

async function call(l, method, path, body, user) {
  const r = await fetch(l.url + path, {
    method,
    headers: { authorization: 'Bearer ' + (await l.token(user)), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}
const hints = async (l) => (await call(l, 'GET', '/v2/parties')).json.partyDetails.map((p) => p.party.split('::')[0]);

test('allocates a party in its own ledger', async () => {
  const l = ledger.current();
  expect((await call(l, 'POST', '/v2/parties', { partyIdHint: 'only-in-first' })).status).toBe(200);
  expect(await hints(l)).toEqual(['only-in-first']);
});

test("does not see the first test's party; a user of its own gets a token", async () => {
  const l = ledger.current();
  expect(await hints(l)).toEqual([]);
  expect((await call(l, 'POST', '/v2/users', { user: { id: 'alice' } })).status).toBe(200);
  expect((await call(l, 'GET', '/v2/authenticated-user', undefined, 'alice')).json.user.id).toBe('alice');
});
`;

const NODE_TEST_FILE = `
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { ledgerPerTest } from '@ledgerline/testing';

const ledger = ledgerPerTest({ beforeEach, afterEach });

test('reads its ledger end', async () => {
  const l = ledger.current();
  const r = await fetch(l.url + '/v2/state/ledger-end', { headers: { authorization: 'Bearer ' + (await l.token()) } });
  assert.equal(r.status, 200);
  assert.equal(typeof (await r.json()).offset, 'number');
});
`;

beforeAll(async () => {
  const { url: databaseUrl } = await createTestDatabase();
  server = await startServerProcess({ DATABASE_URL: databaseUrl, LEDGER_TESTING_API: 'true' });
  const minted = await run(process.execPath, [LEDGERCTL_MAIN, 'token', '--user', 'participant_admin'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl, LEDGER_LOG_LEVEL: 'silent' },
  });
  adminToken = minted.stdout.trim();

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-testing-'));
  const env = { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}` };
  const packed = await run('npm', ['pack', '--json', '--pack-destination', tmp], {
    cwd: path.join(ROOT, 'libs/testing'),
    env,
  });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  expect(info.files.map((f) => f.path).sort()).toEqual(['dist/index.d.ts', 'dist/index.js', 'package.json']);
  tarball = path.join(tmp, info.filename);
  scratch = path.join(tmp, 'scratch');
  fs.mkdirSync(scratch);
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: scratch, env });
  fs.writeFileSync(path.join(scratch, 'ledger.test.mjs'), VITEST_FILE);
  fs.writeFileSync(path.join(scratch, 'ledger.node-test.mjs'), NODE_TEST_FILE);
  fs.writeFileSync(
    path.join(scratch, 'vitest.config.mjs'),
    "export default { test: { globals: true, include: ['ledger.test.mjs'], testTimeout: 60000, hookTimeout: 60000 } };\n",
  );
}, WAIT);

afterAll(async () => {
  await server?.stop();
  if (tarball) fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
});

/** Runs `args` with node in the scratch project, with `env` on top of a plain environment. */
async function inScratch(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, args, {
      cwd: scratch,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout + x.stderr };
  }
}

describe('@ledgerline/testing installed from its tarball', () => {
  it(
    'runs a vitest file with a ledger per test, authenticated by LEDGERLINE_TOKEN',
    async () => {
      const r = await inScratch(
        [
          path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--config',
          'vitest.config.mjs',
          '--reporter',
          'verbose',
        ],
        { LEDGERLINE_URL: server.url, LEDGERLINE_TOKEN: adminToken },
      );
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/Tests\s+2 passed/);
      // Each test's ledger was dropped after it.
      const left = await fetch(`${server.url}/v2/admin/ledgers`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(((await left.json()) as { ledgers: unknown[] }).ledgers).toEqual([]);
    },
    WAIT,
  );

  it(
    'runs a node:test file the same way',
    async () => {
      const r = await inScratch(['--test', 'ledger.node-test.mjs'], {
        LEDGERLINE_URL: server.url,
        LEDGERLINE_TOKEN: adminToken,
      });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/# pass 1/);
    },
    WAIT,
  );

  it(
    'says what is missing without a token, and when the server refuses one',
    async () => {
      const probe = `
      const { testLedgers } = require('@ledgerline/testing');
      (async () => {
        try { await testLedgers().create(); } catch (e) { console.log(e.name + ': ' + e.message); }
      })();`;
      const none = await inScratch(['-e', probe], { LEDGERLINE_URL: server.url });
      expect(none.out).toContain('TestLedgerError: @ledgerline/testing has no credentials: set LEDGERLINE_TOKEN');
      const bad = await inScratch(['-e', probe], { LEDGERLINE_URL: server.url, LEDGERLINE_TOKEN: 'not-a-token' });
      expect(bad.out).toContain(`TestLedgerError: ${server.url} refused the token (401`);
      const noServer = await inScratch(['-e', probe], { LEDGERLINE_URL: 'http://127.0.0.1:1', LEDGERLINE_TOKEN: 'x' });
      expect(noServer.out).toContain('no Ledgerline server answers at http://127.0.0.1:1');
    },
    WAIT,
  );

  it(
    'mints tokens for hosted ledgers only for a ParticipantAdmin, within the expiry bounds',
    async () => {
      const post = async (body: unknown, token = adminToken) => {
        const r = await fetch(`${server.url}/v2/admin/ledgers/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await r.text();
        return { status: r.status, json: r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
      };
      const ok = await post({ userId: 'bob', expiresInSeconds: 60 });
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      const claims = JSON.parse(Buffer.from(ok.json.token.split('.')[1], 'base64url').toString());
      expect(claims.sub).toBe('bob');
      expect(claims.exp - claims.iat).toBe(60);
      // Bodies that do not decode: Canton's plain-text 400.
      expect(await post({ userId: 'bob', expiresInSeconds: 86_401 })).toMatchObject({ status: 400 });
      expect(await post({})).toMatchObject({ status: 400 });
      // A user without rights may not mint.
      const users = await fetch(`${server.url}/v2/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user: { id: 'carol' } }),
      });
      expect(users.status).toBe(200);
      const carol = (await post({ userId: 'carol' })).json.token as string;
      expect((await post({ userId: 'participant_admin' }, carol)).status).toBe(403);
    },
    WAIT,
  );
});
