import { SignJWT } from 'jose';

/**
 * A ledger of its own for each test: `testLedgers({ url, secret })` talks to a Ledgerline server with the testing API on
 * (LEDGER_TESTING_API), `create()` makes a ledger hosted by that server under /ledgers/<id> (a copy of a snapshot, or
 * empty), `drop()` removes it. Works with any test runner (vitest, jest, node:test): it is plain async code.
 */
export interface TestLedgersOptions {
  /** The server's base URL, e.g. http://localhost:7575. */
  url: string;
  /** The server's HS256 secret (LEDGER_JWT_SECRET, or `ledgerctl token`'s generated one): tokens are minted with it. */
  secret: string;
  /** The admin user (LEDGER_ADMIN_USER); default participant_admin. */
  adminUser?: string;
}

export interface TestLedgerHandle {
  ledgerId: string;
  /** Base URL of this ledger's JSON Ledger API: use it where you would use the server's URL. */
  url: string;
  /** A token for `userId` (default: the admin) valid on this ledger, for an hour. */
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

export function testLedgers(options: TestLedgersOptions): TestLedgers {
  const base = options.url.replace(/\/+$/, '');
  const adminUser = options.adminUser ?? 'participant_admin';
  const key = new TextEncoder().encode(options.secret);
  // Canton's scope-based user token (scope daml_ledger_api, no audience): valid on any participant, so no id lookup.
  const token = (userId = adminUser) =>
    new SignJWT({ scope: 'daml_ledger_api' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await token()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} failed with ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
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
