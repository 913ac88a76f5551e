import { createHmac } from 'node:crypto';

/**
 * A ledger of its own for each test: `testLedgers()` talks to a Ledgerline server with the testing API on
 * (LEDGER_TESTING_API), `create()` makes a ledger hosted by that server under /ledgers/<id> (a copy of a snapshot, or
 * empty), `drop()` removes it. Works with any test runner (vitest, jest, node:test): it is plain async code, and
 * `ledgerPerTest` wires it into a runner's `beforeEach`/`afterEach`. No dependencies.
 *
 * Authentication: a token of a ParticipantAdmin user of the server (`LEDGERLINE_TOKEN`, e.g. from
 * `npm run -s ledgerctl -- token --user participant_admin`); tokens for other users come from the server
 * (`POST /v2/admin/ledgers/tokens`). Alternatively the server's HS256 secret (`secret`), with which tokens are minted here.
 */
export interface TestLedgersOptions {
  /** The server's base URL; default `LEDGERLINE_URL`, else http://localhost:7575. */
  url?: string;
  /** A ParticipantAdmin token of the server; default `LEDGERLINE_TOKEN`. */
  token?: string;
  /** Instead of a token: the server's HS256 secret (LEDGER_JWT_SECRET); tokens are then minted locally. */
  secret?: string;
  /** The admin user (LEDGER_ADMIN_USER) tokens minted with `secret` name; default participant_admin. */
  adminUser?: string;
}

export interface TestLedgerHandle {
  ledgerId: string;
  /** Base URL of this ledger's JSON Ledger API: use it where you would use the server's URL. */
  url: string;
  /** A token valid on this ledger for `userId` (default: the admin) for an hour. */
  token(userId?: string): Promise<string>;
  /** Stops the ledger and drops its database. */
  drop(): Promise<void>;
}

export interface TestLedgers {
  /** A new ledger: a copy of snapshot `snapshot` of the server's ledger, or empty (with the admin user). */
  create(opts?: { snapshot?: string; ledgerId?: string }): Promise<TestLedgerHandle>;
  /** Saves the server's own ledger as snapshot `name` (replacing one of that name). */
  snapshot(name: string): Promise<void>;
}

/** A failure to reach or authenticate to the server, saying what is missing. */
export class TestLedgerError extends Error {
  override name = 'TestLedgerError';
}

const HOW_TO_GET_A_TOKEN =
  'set LEDGERLINE_TOKEN to a token of a ParticipantAdmin user of the server ' +
  '(in the Ledgerline checkout: npm run -s ledgerctl -- token --user participant_admin), or pass { token } or { secret }';

export function testLedgers(options: TestLedgersOptions = {}): TestLedgers {
  const base = (options.url ?? process.env.LEDGERLINE_URL ?? 'http://localhost:7575').replace(/\/+$/, '');
  const adminUser = options.adminUser ?? 'participant_admin';
  const secret = options.secret;
  const adminToken = options.token ?? (secret ? undefined : process.env.LEDGERLINE_TOKEN);
  if (!adminToken && !secret)
    throw new TestLedgerError(`@ledgerline/testing has no credentials: ${HOW_TO_GET_A_TOKEN}`);

  const admin = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken ?? mintHs256(secret!, adminUser)}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new TestLedgerError(
        `no Ledgerline server answers at ${base} (${(e as Error).message}): start one (npm start) or set LEDGERLINE_URL`,
      );
    }
    const text = await res.text();
    if (res.status === 401)
      throw new TestLedgerError(`${base} refused the token (401 ${causeOf(text)}): ${HOW_TO_GET_A_TOKEN}`);
    if (res.status === 403)
      throw new TestLedgerError(
        `${base} refused ${method} ${path} (403 ${causeOf(text)}): the token's user needs the ParticipantAdmin right`,
      );
    if (!res.ok) throw new TestLedgerError(`${method} ${base}${path} failed with ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  // Tokens from the server, kept until ten minutes before they expire.
  const tokens = new Map<string, { token: string; until: number }>();
  const token = async (userId?: string): Promise<string> => {
    if (secret) return mintHs256(secret, userId ?? adminUser);
    // The given token is the admin's: the default user's token as it is.
    if (userId === undefined) return adminToken!;
    const cached = tokens.get(userId);
    if (cached && cached.until > Date.now()) return cached.token;
    const r = await admin('POST', '/v2/admin/ledgers/tokens', { userId, expiresInSeconds: 3600 });
    tokens.set(userId, { token: r.token as string, until: Date.now() + 50 * 60_000 });
    return r.token as string;
  };

  return {
    async create(opts = {}) {
      const info = await admin('POST', '/v2/admin/ledgers', opts);
      const ledgerId = info.ledgerId as string;
      let dropped = false;
      return {
        ledgerId,
        url: `${base}${info.path as string}`,
        token,
        async drop() {
          if (dropped) return;
          dropped = true;
          await admin('DELETE', `/v2/admin/ledgers/${encodeURIComponent(ledgerId)}`);
        },
      };
    },
    async snapshot(name) {
      await admin('POST', '/v2/admin/snapshots', { name, replace: true });
    },
  };
}

/** A runner's hooks: vitest's, jest's and node:test's `beforeEach`/`afterEach` all fit. */
export interface RunnerHooks {
  beforeEach(fn: () => Promise<void>): unknown;
  afterEach(fn: () => Promise<void>): unknown;
}

/**
 * A fresh ledger for every test: created in `beforeEach` (from `snapshot`, or empty), dropped in `afterEach`.
 * `current()` is the running test's ledger.
 */
export function ledgerPerTest(
  hooks: RunnerHooks,
  opts: TestLedgersOptions & { snapshot?: string } = {},
): { current(): TestLedgerHandle } {
  let ledgers: TestLedgers | undefined;
  let ledger: TestLedgerHandle | undefined;
  hooks.beforeEach(async () => {
    ledgers ??= testLedgers(opts);
    ledger = await ledgers.create(opts.snapshot ? { snapshot: opts.snapshot } : {});
  });
  hooks.afterEach(async () => {
    const l = ledger;
    ledger = undefined;
    await l?.drop();
  });
  return {
    current() {
      if (!ledger) throw new TestLedgerError('ledgerPerTest: current() is only defined while a test runs');
      return ledger;
    },
  };
}

function causeOf(text: string): string {
  try {
    const j = JSON.parse(text) as { cause?: string; code?: string };
    return [j.code, j.cause].filter(Boolean).join(': ') || text;
  } catch {
    return text;
  }
}

/** Canton's scope-based user token (scope daml_ledger_api, no audience), valid on any participant, for an hour. */
function mintHs256(secret: string, userId: string): string {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ scope: 'daml_ledger_api', sub: userId, iat: now, exp: now + 3600 })}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}
