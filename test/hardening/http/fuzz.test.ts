import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { dumpProjections, rebuildProjections } from '@ledgerline/store';
import { PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { buildDar, lfArchive } from '../../support/dars';

/**
 * Property-based fuzzing of every endpoint the server itself documents (GET /docs/openapi): mutated bodies, query
 * strings, path parameters (malformed percent-encoding included), empty path segments, methods, headers and tokens.
 * Every answer must be a 4xx JsCantonError or the 400 text/plain decode error (the Splice endpoints of the Canton Coin
 * profile under /api/ and the token registry's routes: also Splice's `{"error": …}` body, which the wallet SDK reads)
 * (or a 2xx for inputs that happen to be valid) — never a 5xx, never a hang — and afterwards the projections must still
 * equal a replay of the log. Runs per operation: FUZZ_RUNS (default 25).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let ledger: TestLedger;
let operations: Array<{ method: string; path: string; bodySchema?: Record<string, unknown>; binary: boolean }>;
/** A well-formed DAR: uploads are fuzzed with random bytes and with this DAR's bytes damaged. */
let validDar: Buffer;
let tried = 0;
const successes: string[] = [];

beforeAll(async () => {
  // A small list byte bound, so that fuzzed list requests meet it too.
  ledger = await startTestLedger({
    LEDGER_MAX_BODY_BYTES: String(1024 * 1024),
    LEDGER_HTTP_LIST_MAX_BYTES: String(4096),
  });
  await ledger.call('POST', '/v2/users', { user: { id: 'fuzz-user' } });
  const doc = (await ledger.call('GET', '/docs/openapi', undefined, { as: null })).json;
  operations = [];
  for (const [path, ops] of Object.entries<
    Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>
  >(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (path === '/docs/openapi' || path === '/metrics') continue;
      const content = op.requestBody?.content;
      operations.push({
        method: method.toUpperCase(),
        path,
        bodySchema: content?.['application/json']?.schema,
        binary: content?.['application/octet-stream'] !== undefined,
      });
    }
  }
  validDar = await buildDar({
    main: lfArchive({ name: 'fuzz-main', version: '1.0.0' }),
    deps: [lfArchive({ name: 'fuzz-dep', version: '1.0.0' })],
  });
});

afterAll(async () => {
  console.log(`[fuzz] ${tried} inputs tried over ${operations?.length ?? 0} operations; ${successes.length} accepted`);
  await ledger?.close();
});

/** A value that fits a JSON schema roughly, so that mutations reach past the first type check. */
function sampleFor(schema: Record<string, unknown> | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return {};
  if (Array.isArray(schema.anyOf)) return sampleFor(schema.anyOf[0] as Record<string, unknown>, depth + 1);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {}))
        out[k] = sampleFor(v, depth + 1);
      return out;
    }
    case 'array':
      return [sampleFor(schema.items as Record<string, unknown>, depth + 1)];
    case 'string':
      return Array.isArray(schema.enum) ? schema.enum[0] : 'x';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return {};
  }
}

const nasty = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    2 ** 53 + 1,
    '9223372036854775808',
    '-9223372036854775809',
    2 ** 63 /* 9223372036854775807 as a JSON number: the nearest double */,
    1e308,
    -0,
    null,
    true,
    '',
    '::',
    '1220',
    'x'.repeat(70_000),
    'a\u0000b',
    '\ud800',
    'x\udc00y',
  ),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 4 }),
);

/** Mutates a JSON value: replace a node, drop a key, add a key, wrong type, deep nesting, huge arrays. */
function mutate(value: unknown, rng: () => number, replacement: unknown): unknown {
  const r = rng();
  if (value === null || typeof value !== 'object') return replacement;
  if (Array.isArray(value)) {
    if (r < 0.2) return Array.from({ length: 5000 }, () => value[0] ?? replacement);
    if (r < 0.4) return [];
    return value.map((v) => (rng() < 0.5 ? mutate(v, rng, replacement) : v));
  }
  const obj = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(obj);
  if (r < 0.15 && keys.length) delete obj[keys[Math.floor(rng() * keys.length)]];
  else if (r < 0.3) obj[`extra${Math.floor(rng() * 10)}`] = replacement;
  else if (r < 0.4) return replacement;
  else if (r < 0.45) {
    let deep: unknown = replacement;
    for (let i = 0; i < 2000; i++) deep = { a: deep };
    return deep;
  } else if (keys.length) {
    const k = keys[Math.floor(rng() * keys.length)];
    obj[k] = mutate(obj[k], rng, replacement);
  }
  return obj;
}

async function tokenFor(kind: string): Promise<string | null> {
  const aud = `${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`;
  const now = Math.floor(Date.now() / 1000);
  switch (kind) {
    case 'none':
      return null;
    case 'admin':
      return ledger.token();
    case 'user':
      return ledger.token('fuzz-user');
    case 'expired':
      return new SignJWT({ sub: 'participant_admin', aud })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(now - 10)
        .sign(Buffer.from(TEST_JWT_SECRET));
    case 'badsig':
      return new SignJWT({ sub: 'participant_admin', aud })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(now + 60)
        .sign(Buffer.from('wrong-wrong-wrong-wrong'));
    case 'alg-none':
      return `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'participant_admin', aud })).toString('base64url')}.`;
    default:
      return 'garbage';
  }
}

function checkAnswer(status: number, contentType: string | null, text: string, what: string, spliceApi = false): void {
  expect(status, `${what} → ${status} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status >= 400) {
    if (contentType?.startsWith('text/plain')) {
      expect(status, what).toBe(400);
      expect(text, what).toMatch(/^Invalid value for: /);
    } else {
      const body = JSON.parse(text);
      if (spliceApi && Object.keys(body).join() === 'error') {
        expect(typeof body.error, what).toBe('string');
        return;
      }
      expect(Object.keys(body).sort(), what).toEqual(
        [
          'cause',
          'code',
          'context',
          'correlationId',
          'definiteAnswer',
          'errorCategory',
          'grpcCodeValue',
          'resources',
          'retryInfo',
          'traceId',
        ].sort(),
      );
    }
  }
}

/** Routes the server serves, one or more per capability: the catalog the fuzzing walks must list them (an empty one fuzzes nothing). */
const KNOWN_ROUTES = [
  'GET /v2/state/ledger-end',
  'POST /v2/users',
  'GET /v2/users/{userId}',
  'PATCH /v2/users/{userId}/rights',
  'PATCH /v2/parties/{party}',
  'POST /v2/idps',
  'POST /v2/parties/external/allocate',
  'POST /v2/interactive-submission/prepare',
  'POST /v2/interactive-submission/executeAndWait',
  'POST /v2/commands/submit-and-wait-for-reassignment',
  'POST /v2/commands/submit-and-wait',
  'POST /v2/commands/submit-and-wait-for-transaction',
  'POST /v2/commands/async/submit',
  'POST /v2/commands/completions',
  'GET /v2/commands/completions',
  'POST /v2/commands/command-completions',
  'GET /v2/commands/command-completions',
  'POST /v2/interactive-submission/executeAndWaitForTransaction',
  'POST /v2/updates/flats',
  'POST /v2/updates/transaction-by-id',
  'POST /v2/admin/prune',
  'PATCH /v2/users/{userId}',
  'POST /v2/packages',
  'POST /v2/dars',
  'GET /v2/packages/{packageId}',
  'POST /v2/package-vetting/update',
  'GET /v2/interactive-submission/preferred-package-version',
  'POST /v2/state/active-contracts',
  'GET /v2/state/active-contracts',
  'GET /v2/state/active-contracts-page',
  'POST /v2/events/events-by-contract-id',
  'POST /v2/contracts/contract-by-id',
  'POST /v2/updates/update-by-id',
  'POST /v2/updates/update-by-offset',
  'POST /v2/updates/transaction-by-offset',
  'POST /v2/updates/get-updates-page',
  'POST /v2/updates/trees',
  'GET /v2/updates/trees',
  'GET /v2/updates/transaction-tree-by-id/{updateId}',
  'GET /v2/updates/transaction-tree-by-offset/{offset}',
  'POST /v2/updates/update-by-hash',
  // Canton 3.5.10's additions.
  'POST /v2/state/active-contracts-page',
  'POST /v2/commands/completion-by-hash',
  'GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}',
];

describe('the route catalog the fuzzing walks', () => {
  it('lists the served routes: at least as many as today, the known ones among them, each one served', () => {
    const listed = operations.map((op) => `${op.method} ${op.path}`);
    expect(listed.length).toBeGreaterThanOrEqual(41);
    expect(listed).toEqual(expect.arrayContaining(KNOWN_ROUTES));
    const fastify = ledger.app.getHttpAdapter().getInstance();
    for (const op of operations)
      expect(
        fastify.hasRoute({ method: op.method, url: op.path.replace(/\{([^}]+)\}/g, ':$1') }),
        `${op.method} ${op.path}`,
      ).toBe(true);
  });
});

describe('fuzzing every documented endpoint', () => {
  it('never answers 5xx or hangs, and leaves the projections equal to a replay', async () => {
    const before = await ledger.call('GET', '/v2/state/ledger-end');
    for (const op of operations) {
      const base = sampleFor(op.bodySchema);
      await fc.assert(
        fc.asyncProperty(
          nasty,
          // A path parameter as a client would encode it, or a malformed percent-encoding no client should send.
          fc.oneof(
            fc.string({ maxLength: 300 }).map((p) => encodeURIComponent(p || 'p')),
            fc.constantFrom('%ZZ', '%', 'a%2', '%E0%A4%A', '%C0%AF', '%00', '%2F', '..', '%2e%2e'),
          ),
          fc.dictionary(
            fc.constantFrom(
              'limit',
              'pageSize',
              'pageToken',
              'stream_idle_timeout_ms',
              'parties',
              'identity-provider-id',
              'filter-party',
              'vetAllPackages',
              'synchronizerId',
              'package-name',
              'synchronizer-id',
              'vetting_valid_at',
            ),
            fc.oneof(fc.string(), fc.constantFrom('-1', '9223372036854775808', '1e3', '0', '200', '%zz')),
          ),
          fc.constantFrom('admin', 'admin', 'admin', 'user', 'none', 'expired', 'badsig', 'alg-none', 'garbage'),
          fc.constantFrom('json', 'json', 'json', 'truncated', 'invalid-utf8', 'empty', 'oversized'),
          fc.constantFrom<string | undefined>(
            undefined,
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
          ),
          fc.integer(),
          // Empty path segments (ignored, as by the reference's router), and now and then a method the path does not serve.
          fc.constantFrom('', '', '', '/', '//'),
          fc.constantFrom<string | null>(null, null, null, null, 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
          // Binary uploads: random bytes, or the valid DAR with some bytes changed.
          fc.oneof(
            fc.uint8Array({ maxLength: 4096 }).map((b) => ({ random: Buffer.from(b) })),
            fc
              .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 })
              .map((flips) => ({ flips })),
          ),
          async (replacement, pathParam, query, auth, bodyKind, contentType, seed, slashes, otherMethod, bytes) => {
            let s = seed;
            const rng = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
            const path =
              slashes + op.path.replace(/\{[^}]+\}/g, () => pathParam).replace(/\//g, () => (rng() < 0.1 ? '//' : '/'));
            const method = otherMethod ?? op.method;
            const qs = new URLSearchParams(query).toString();
            const json = JSON.stringify(mutate(base, rng, replacement)) ?? 'null';
            let body: Buffer | string | undefined = method === 'GET' || method === 'DELETE' ? undefined : json;
            if (body !== undefined) {
              if (bodyKind === 'truncated') body = json.slice(0, Math.max(1, Math.floor(json.length / 2)));
              else if (bodyKind === 'invalid-utf8')
                body = Buffer.concat([
                  Buffer.from(json.slice(0, -1)),
                  Buffer.from([0xff, 0xfe, 0xc3]),
                  Buffer.from('"}'),
                ]);
              else if (bodyKind === 'empty') body = '';
              else if (bodyKind === 'oversized') body = JSON.stringify({ pad: 'z'.repeat(1024 * 1024 + 10) });
              if (op.binary && (bodyKind === 'json' || bodyKind === 'truncated')) {
                if ('random' in bytes) body = bytes.random;
                else {
                  const dar = Buffer.from(validDar);
                  for (const [at, v] of bytes.flips) dar[at % dar.length] = v;
                  body = dar;
                }
              }
            }
            const headers: Record<string, string> = {};
            const token = await tokenFor(auth);
            if (token !== null) headers.authorization = `Bearer ${token}`;
            if (contentType) headers['content-type'] = contentType;
            tried++;
            const res = await fetch(`${ledger.url}${path}${qs ? `?${qs}` : ''}`, {
              method,
              headers,
              body,
              signal: AbortSignal.timeout(15_000),
            });
            const text = await res.text();
            if (res.status < 300 && method !== 'GET') successes.push(`${method} ${op.path}`);
            checkAnswer(
              res.status,
              res.headers.get('content-type'),
              text,
              `${method} ${path}?${qs} [${auth}/${bodyKind}]`,
              op.path.includes('/registry/') || op.path.startsWith('/api/'),
            );
            // The token before the body: without a valid token, no body is read (no decode error, no 413), nothing succeeds.
            if (
              ['none', 'expired', 'badsig', 'alg-none', 'garbage'].includes(auth) &&
              otherMethod === null &&
              !['/livez', '/readyz'].includes(op.path)
            ) {
              expect(res.status >= 200 && res.status < 300, `${method} ${path} [${auth}] succeeded`).toBe(false);
              expect(
                res.headers.get('content-type') ?? '',
                `${method} ${path} [${auth}/${bodyKind}] read the body: ${text.slice(0, 200)}`,
              ).not.toMatch(/^text\/plain/);
              expect(res.status, `${method} ${path} [${auth}/${bodyKind}] read the body`).not.toBe(413);
            }
          },
        ),
        { numRuns: RUNS },
      );
    }
    expect(tried).toBe(operations.length * RUNS);
    const after = await ledger.call('GET', '/v2/state/ledger-end');
    if (successes.length === 0) expect(after.json).toEqual(before.json);
    const live = await dumpProjections(ledger.runtime.db);
    await rebuildProjections(ledger.runtime.db);
    expect(await dumpProjections(ledger.runtime.db)).toEqual(live);
  }, 600_000);
});

/** Canton's key patterns (ResourceAnnotationValidator.scala): the oracle for keys short enough to match safely. */
const oracleKeyValid = (key: string): boolean => {
  const parts = key.split('/');
  if (key !== '') while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 2) return false;
  const [prefix, name] = parts.length === 2 ? parts : [null, parts[0]];
  const label = '([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+';
  if (prefix !== null && (prefix.length > 253 || !new RegExp(`^(${label}[.])*${label}$`).test(prefix))) return false;
  return name.length <= 63 && /^([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+$/.test(name);
};

describe('fuzzing the rules of identity and rights', () => {
  it('annotation keys: answered at once, as Canton decides them, whoever asks (no-rights callers hit the quota first)', async () => {
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'fuzz-annotated' } })).status).toBe(200);
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9.\-_!]{0,6}$/);
    const nearMiss = fc.integer({ min: 8, max: 60 }).map((n) => `${'aaa.'.repeat(n)}!/x`);
    const key = fc.oneof(
      fc
        .array(segment, { minLength: 1, maxLength: 4 })
        .map((parts) => parts.join(fc.sample(fc.constantFrom('.', '/', '-'), 1)[0])),
      nearMiss,
      fc.string({ maxLength: 70 }),
    );
    await fc.assert(
      fc.asyncProperty(key, async (k) => {
        tried++;
        const started = Date.now();
        const short = k.length <= 80 && !/(aaa\.){8}/.test(k);
        const r = await ledger.call('PATCH', '/v2/users/fuzz-annotated', {
          user: { id: 'fuzz-annotated', metadata: { annotations: { [k]: 'v' } } },
          updateMask: { paths: ['metadata.annotations'] },
        });
        checkAnswer(r.status, r.headers.get('content-type'), r.text, `annotation key ${JSON.stringify(k)}`);
        if (short)
          expect(r.status === 200, `key ${JSON.stringify(k)} → ${r.status} ${r.text.slice(0, 200)}`).toBe(
            oracleKeyValid(k),
          );
        else if (r.status !== 200) expect(r.json.code).toBe('INVALID_ARGUMENT');
        // A user without rights allocating for itself: the quota (0) answers before the keys are looked at.
        const self = await ledger.call(
          'POST',
          '/v2/parties',
          { partyIdHint: `fz${tried}`, userId: 'fuzz-user', localMetadata: { annotations: { [k]: 'v' } } },
          { as: 'fuzz-user' },
        );
        expect(self.status, self.text.slice(0, 200)).toBe(403);
        expect(Date.now() - started, `key ${JSON.stringify(k)}`).toBeLessThan(5000);
      }),
      { numRuns: RUNS * 8 },
    );
  }, 300_000);

  it('rights: an identity-provider admin gets a 2xx only for kinds it may hand out and parties of its provider', async () => {
    const known = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'fuzz-known' })).json.partyDetails
      .party as string;
    const stranger = `stranger::1220${'ef'.repeat(32)}`;
    expect(
      (
        await ledger.call('POST', '/v2/users', {
          user: { id: 'fuzz-idp-admin' },
          rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }],
        })
      ).status,
    ).toBe(200);
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'fuzz-grantee' } })).status).toBe(200);
    const ADMIN_ONLY = ['ParticipantAdmin', 'CanReadAsAnyParty', 'CanExecuteAsAnyParty', 'CanActAsAnyParty'];
    const right = fc.oneof(
      fc
        .constantFrom(
          'ParticipantAdmin',
          'IdentityProviderAdmin',
          'CanReadAsAnyParty',
          'CanExecuteAsAnyParty',
          'CanActAsAnyParty',
        )
        .map((kind) => ({ kind, party: null as string | null })),
      fc
        .tuple(fc.constantFrom('CanActAs', 'CanReadAs', 'CanExecuteAs'), fc.constantFrom(known, stranger))
        .map(([kind, party]) => ({ kind, party: party as string | null })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(right, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        async (rights, revoke, create) => {
          tried++;
          const js = rights.map((r) => ({ kind: { [r.kind]: { value: r.party === null ? {} : { party: r.party } } } }));
          const allowed = !rights.some((r) => ADMIN_ONLY.includes(r.kind)) && !rights.some((r) => r.party === stranger);
          const before = (await ledger.call('GET', '/v2/users/fuzz-grantee/rights')).json.rights;
          const res = create
            ? await ledger.call(
                'POST',
                '/v2/users',
                { user: { id: `fuzz-born-${tried}` }, rights: js },
                { as: 'fuzz-idp-admin' },
              )
            : await ledger.call(
                revoke ? 'PATCH' : 'POST',
                '/v2/users/fuzz-grantee/rights',
                { userId: 'fuzz-grantee', rights: js },
                { as: 'fuzz-idp-admin' },
              );
          checkAnswer(res.status, res.headers.get('content-type'), res.text, `rights ${JSON.stringify(rights)}`);
          expect(
            res.status,
            `${create ? 'create' : revoke ? 'revoke' : 'grant'} ${JSON.stringify(rights)} → ${res.text.slice(0, 200)}`,
          ).toBe(allowed ? 200 : rights.some((r) => ADMIN_ONLY.includes(r.kind)) ? 403 : 404);
          if (!allowed && !create)
            expect((await ledger.call('GET', '/v2/users/fuzz-grantee/rights')).json.rights).toEqual(before);
        },
      ),
      { numRuns: RUNS * 4 },
    );
  }, 300_000);
});

describe('fuzzing stored text', () => {
  it('any string in a valid command (values and field names): stored (200), or 400 INVALID_ARGUMENT when PostgreSQL could not store it; never 5xx', async () => {
    const sync = (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers[0]
      .synchronizerId;
    const party = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'fuzz-text', synchronizerId: sync })).json
      .partyDetails.party;
    await ledger.call('POST', '/v2/users', {
      user: { id: 'fuzz-writer' },
      rights: [{ kind: { CanActAs: { value: { party } } } }],
    });
    const unstorable = (s: string) =>
      // eslint-disable-next-line no-control-regex
      /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }),
        fc.constantFrom('\u0000', '\ud800', '\udfff', 'ok'),
        async (value, key, poison) => {
          const note = value + poison;
          const field = key === 'owner' ? 'k' : key;
          const r = await ledger.call(
            'POST',
            '/v2/commands/submit-and-wait',
            {
              commands: [
                {
                  CreateCommand: { templateId: '#fuzz:Main:T', createArguments: { owner: party, note, [field]: 'v' } },
                },
              ],
              commandId: `fuzz-text-${n++}`,
              actAs: [party],
            },
            { as: 'fuzz-writer' },
          );
          tried++;
          expect(r.status, r.text).toBeLessThan(500);
          if (unstorable(note) || unstorable(field))
            expect({ status: r.status, code: r.json?.code }, r.text).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
          else expect(r.status, r.text).toBe(200);
        },
      ),
      { numRuns: RUNS * 4 },
    );
  }, 120_000);
});
