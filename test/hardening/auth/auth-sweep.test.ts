import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { StreamLimiter } from '@ledgerline/server/streaming/stream-limiter';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { onboardExternalParty } from '../../support/external-party';

/**
 * Authorization sweep: every /v2 operation the server documents × {no token, bad signature, expired, wrong audience,
 * unknown user, a user holding exactly one right (each kind), admin}. Token failures are 401 (403 "invalid token" for an
 * unknown user) everywhere; otherwise a caller gets a 2xx only where the table below allows it, and what a caller may
 * not do changes nothing. Open streams (WebSocket and waiting list) of each reading right end once it is revoked
 * (STALE_STREAM_AUTHORIZATION) and when their token expires (ACCESS_TOKEN_EXPIRED).
 */
let ledger: TestLedger;
const ops: Array<{ method: string; path: string; schema?: Record<string, unknown> }> = [];
let party = '';
let ext: { partyId: string };

type Caller =
  'admin' | 'idpAdmin' | 'readAs' | 'actAs' | 'executeAs' | 'readAsAny' | 'executeAsAny' | 'actAsAny' | 'noRights';

const PARTY_READERS: Caller[] = [
  'admin',
  'idpAdmin',
  'readAs',
  'actAs',
  'executeAs',
  'readAsAny',
  'executeAsAny',
  'actAsAny',
];
const EVERYONE: Caller[] = [...PARTY_READERS, 'noRights'];
const ADMINS: Caller[] = ['admin', 'idpAdmin'];

/** Who may get a 2xx from each operation (with the sweep's sample request: its own user id, an existing party). */
const ALLOWED: Record<string, Caller[]> = {
  'GET /v2/version': EVERYONE,
  'GET /v2/state/ledger-end': EVERYONE,
  'GET /v2/state/latest-pruned-offsets': EVERYONE,
  'GET /v2/state/connected-synchronizers': EVERYONE,
  'GET /v2/authenticated-user': EVERYONE,
  'GET /v2/users/{userId}': EVERYONE, // each caller reads itself
  'GET /v2/users/{userId}/rights': EVERYONE,
  'GET /v2/parties/participant-id': EVERYONE,
  'POST /v2/parties/external/generate-topology': EVERYONE, // a pure computation
  'GET /v2/parties/{party}': PARTY_READERS,
  'POST /v2/users': ADMINS,
  'GET /v2/users': ADMINS,
  'DELETE /v2/users/{userId}': ADMINS,
  'POST /v2/users/{userId}/rights': ADMINS,
  'PATCH /v2/users/{userId}/rights': ADMINS,
  'PATCH /v2/users/{userId}/identity-provider-id': ['admin'],
  'POST /v2/parties': ADMINS,
  'GET /v2/parties': ADMINS,
  'PATCH /v2/parties/{party}': ADMINS,
  'POST /v2/idps': ['admin'],
  'GET /v2/idps': ['admin'],
  'GET /v2/idps/{idpId}': ['admin'],
  'PATCH /v2/idps/{idpId}': ['admin'],
  'DELETE /v2/idps/{idpId}': ['admin'],
  'POST /v2/parties/external/allocate': ADMINS,
  'PATCH /v2/users/{userId}': ADMINS,
  'GET /v2/packages': EVERYONE,
  'GET /v2/packages/{packageId}': EVERYONE, // 404 for the sample's unknown id, never 403
  'GET /v2/packages/{packageId}/status': EVERYONE,
  'GET /v2/definitions/packages': EVERYONE,
  'GET /v2/definitions/packages/{packageId}': EVERYONE, // 404 for the sample's unknown id, never 403
  'POST /v2/packages': ['admin'],
  'POST /v2/dars': ['admin'],
  'POST /v2/dars/validate': ['admin'],
  'GET /v2/package-vetting': EVERYONE,
  'POST /v2/package-vetting/list': EVERYONE,
  'POST /v2/package-vetting': ['admin'],
  'POST /v2/package-vetting/update': ['admin'],
  'GET /v2/interactive-submission/preferred-package-version': EVERYONE,
  'POST /v2/interactive-submission/preferred-packages': EVERYONE,
  // The sample names no party: every party's completions, for a reader of any party only.
  'POST /v2/commands/command-completions': ['readAsAny', 'actAsAny'],
  // Canton 3.5.10: public keys for any authenticated caller (the sample's local party has none: 404).
  'GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}': EVERYONE,
};

const USERS: Record<Exclude<Caller, 'admin'>, (p: string) => unknown[]> = {
  idpAdmin: () => [{ kind: { IdentityProviderAdmin: { value: {} } } }],
  readAs: (p) => [{ kind: { CanReadAs: { value: { party: p } } } }],
  actAs: (p) => [{ kind: { CanActAs: { value: { party: p } } } }],
  executeAs: (p) => [{ kind: { CanExecuteAs: { value: { party: p } } } }],
  readAsAny: () => [{ kind: { CanReadAsAnyParty: { value: {} } } }],
  executeAsAny: () => [{ kind: { CanExecuteAsAnyParty: { value: {} } } }],
  actAsAny: () => [{ kind: { CanActAsAnyParty: { value: {} } } }],
  noRights: () => [],
};

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS: '100' });
  const allocated = await ledger.call('POST', '/v2/parties', {
    partyIdHint: 'sweep',
    synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
  });
  party = allocated.json.partyDetails.party;
  ext = await onboardExternalParty(ledger, 'sweep-ext');
  for (const [id, rights] of Object.entries(USERS)) {
    expect(
      (await ledger.call('POST', '/v2/users', { user: { id: `sweep-${id}` }, rights: rights(party) })).status,
    ).toBe(200);
  }
  const doc = (await ledger.call('GET', '/docs/openapi', undefined, { as: null })).json;
  for (const [path, byMethod] of Object.entries<
    Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>
  >(doc.paths)) {
    if (!path.startsWith('/v2/')) continue;
    for (const [method, op] of Object.entries(byMethod))
      ops.push({ method: method.toUpperCase(), path, schema: op.requestBody?.content['application/json']?.schema });
  }
});
afterAll(async () => {
  await ledger?.close();
});

function sample(schema: Record<string, unknown> | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return {};
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf[0] as Record<string, unknown>, depth + 1);
  if (schema.type === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {}))
      out[k] = sample(v, depth + 1);
    return out;
  }
  if (schema.type === 'array') return [];
  if (schema.type === 'string') return Array.isArray(schema.enum) ? schema.enum[0] : '';
  if (schema.type === 'integer' || schema.type === 'number') return 0;
  if (schema.type === 'boolean') return false;
  return {};
}

/** The sample names the same resources as the path, so that requests reach authorization. */
function fitToPath(body: unknown, userId: string): unknown {
  const b = body as Record<string, Record<string, unknown> | unknown>;
  if (b && typeof b === 'object') {
    if (b.partyDetails && typeof b.partyDetails === 'object') (b.partyDetails as Record<string, unknown>).party = party;
    if ('userId' in b) b.userId = userId;
    if (b.user && typeof b.user === 'object') (b.user as Record<string, unknown>).id = userId;
  }
  return body;
}

/** Path parameters naming the sweep's resources; the tree lookups also name the party they read for. */
const pathFor = (path: string, userId: string) =>
  path
    .replace('{userId}', encodeURIComponent(userId))
    .replace('{party}', encodeURIComponent(party))
    .replace('{synchronizer}', encodeURIComponent(ledger.runtime.identity.defaultSynchronizer.id))
    .replace('{idpId}', 'no-such-idp')
    .replace('{packageId}', 'a'.repeat(64))
    .replace('{updateId}', '1220' + '00'.repeat(32))
    .replace('{offset}', '1') + (path.includes('transaction-tree-by') ? `?parties=${encodeURIComponent(party)}` : '');

async function send(
  op: { method: string; path: string; schema?: Record<string, unknown> },
  authorization: string | null,
  userId: string,
) {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  if (hasBody) headers['content-type'] = 'application/json';
  const res = await fetch(ledger.url + pathFor(op.path, userId), {
    method: op.method,
    headers,
    body: hasBody ? JSON.stringify(fitToPath(sample(op.schema), userId)) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

describe('authorization sweep', () => {
  // First: later cases change the bootstrap admin (the sweep's own DELETE/PATCH of the caller's user).
  it('open streams: each reading right ends its WebSocket and its waiting list once revoked; an expired token ends them', async () => {
    const READERS: Array<Exclude<Caller, 'admin'>> = ['readAs', 'actAs', 'readAsAny', 'actAsAny'];
    const updates = {
      beginExclusive: 0,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [party]: {} }, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    };
    const streams: Array<[string, unknown]> = [
      ['/v2/updates', updates],
      ['/v2/commands/completions', { parties: [party], beginExclusive: 0 }],
    ];
    /** Opens a WebSocket, sends its request, and resolves with its last message's code once it closes (bounded wait). */
    const socket = (path: string, body: unknown, token: string) => {
      const ws = new WebSocket(ledger.url.replace(/^http/, 'ws') + path, ['daml.ws.auth', `jwt.token.${token}`]);
      let last: any;
      const opened = new Promise<void>((resolve, reject) => {
        ws.on('open', () => (ws.send(JSON.stringify(body)), resolve()));
        ws.on('error', reject);
      });
      ws.on('message', (d) => (last = JSON.parse(d.toString())));
      const ended = new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${path}: still open`)), 15_000);
        ws.on('close', () => (clearTimeout(t), resolve(last?.code)));
      });
      return { opened, ended };
    };
    for (const caller of READERS) {
      for (const [path, body] of streams) {
        const userId = `stream-${caller}-${path.split('/').pop()}`;
        const rights = USERS[caller](party);
        const made = await ledger.call('POST', '/v2/users', { user: { id: userId }, rights });
        expect(made.status, made.text).toBe(200);
        const s = socket(path, body, await ledger.token(userId));
        await s.opened;
        // The list form, waiting for more (open-ended), alongside.
        const list = ledger.call(
          'POST',
          `${path}?stream_idle_timeout_ms=30000&limit=1000`,
          { ...(body as object), beginExclusive: (await ledger.call('GET', '/v2/state/ledger-end')).json.offset },
          { as: userId },
        );
        // Both hold a stream slot once open and waiting.
        const limiter = ledger.app.get(StreamLimiter);
        for (
          const until = Date.now() + 15_000;
          limiter.count(userId) < 2;
          await new Promise((r) => setTimeout(r, 10))
        ) {
          if (Date.now() > until) throw new Error(`${caller}: ${path}: the streams never opened`);
        }
        expect(
          (await ledger.call('PATCH', `/v2/users/${userId}/rights`, { rights })).json.newlyRevokedRights,
        ).toHaveLength(1);
        expect(await s.ended, `${caller}: ${path} WebSocket`).toBe('STALE_STREAM_AUTHORIZATION');
        const r = await list;
        expect(r.json?.code, `${caller}: ${path} list ${r.text.slice(0, 200)}`).toBe('STALE_STREAM_AUTHORIZATION');
      }
    }
    const expiring = `stream-expiring`;
    expect(
      (await ledger.call('POST', '/v2/users', { user: { id: expiring }, rights: USERS.readAs(party) })).status,
    ).toBe(200);
    for (const [path, body] of streams) {
      const s = socket(path, body, await ledger.token(expiring, { expiresInSeconds: 2 }));
      await s.opened;
      expect(await s.ended, `expired token: ${path}`).toBe('ACCESS_TOKEN_EXPIRED');
    }
  });

  // Before the single-right sweep, which may delete its callers (an administrator deleting itself).
  it('Canton 3.5.10 additions: completion-by-hash needs a readable party; the JWKS any token; the ACS page as its GET form', async () => {
    const callers: Caller[] = [
      'idpAdmin',
      'readAs',
      'actAs',
      'executeAs',
      'readAsAny',
      'executeAsAny',
      'actAsAny',
      'noRights',
      'admin',
    ];
    const READ: Caller[] = ['readAs', 'actAs', 'readAsAny', 'actAsAny'];
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    const unknownHash = Buffer.alloc(34, 9).toString('base64');
    for (const caller of callers) {
      const as = { as: caller === 'admin' ? 'participant_admin' : `sweep-${caller}` };
      // MatchReadAsParties: a reader gets past authorization (validation, then not found); anyone else 403.
      const byHash = await ledger.call('POST', '/v2/commands/completion-by-hash', { transactionHash: unknownHash }, as);
      expect([byHash.status, byHash.json.code], `${caller}: completion-by-hash`).toEqual(
        READ.includes(caller) ? [404, 'COMPLETION_NOT_FOUND'] : [403, 'NA'],
      );
      const empty = await ledger.call('POST', '/v2/commands/completion-by-hash', {}, as);
      expect(empty.status, `${caller}: completion-by-hash, empty hash`).toBe(READ.includes(caller) ? 400 : 403);
      const keys = await ledger.call(
        'GET',
        `/v2/jose/jwks/synchronizer/${encodeURIComponent(sync)}/party/${encodeURIComponent(ext.partyId)}`,
        undefined,
        as,
      );
      expect([keys.status, keys.json.keys?.length], `${caller}: jwks ${keys.text.slice(0, 300)}`).toEqual([200, 1]);
      const page = await ledger.call(
        'POST',
        '/v2/state/active-contracts-page',
        { eventFormat: { filtersByParty: { [party]: {} } } },
        as,
      );
      expect(page.status, `${caller}: active-contracts-page`).toBe(READ.includes(caller) ? 200 : 403);
    }
  });

  it('handing out rights: who may grant or revoke which kind, at creation too (Canton needsParticipantAdmin)', async () => {
    const KINDS = [
      'ParticipantAdmin',
      'IdentityProviderAdmin',
      'CanActAs',
      'CanReadAs',
      'CanExecuteAs',
      'CanReadAsAnyParty',
      'CanExecuteAsAnyParty',
      'CanActAsAnyParty',
    ];
    const PARTICIPANT_ADMIN_ONLY = [
      'ParticipantAdmin',
      'CanReadAsAnyParty',
      'CanExecuteAsAnyParty',
      'CanActAsAnyParty',
    ];
    const unknownParty = `nobody::1220${'cd'.repeat(32)}`;
    const rightOf = (kind: string, p = party) => ({
      kind: { [kind]: { value: ['CanActAs', 'CanReadAs', 'CanExecuteAs'].includes(kind) ? { party: p } : {} } },
    });
    const callers: Caller[] = [
      'idpAdmin',
      'readAs',
      'actAs',
      'executeAs',
      'readAsAny',
      'executeAsAny',
      'actAsAny',
      'noRights',
      'admin',
    ];
    let n = 0;
    for (const caller of callers) {
      // Callers of its own (the single-right sweep below changes, even deletes, its users).
      const userId = caller === 'admin' ? 'participant_admin' : `granter-${caller}`;
      if (caller !== 'admin')
        expect(
          (await ledger.call('POST', '/v2/users', { user: { id: userId }, rights: USERS[caller](party) })).status,
        ).toBe(200);
      const as = { as: userId };
      for (const kind of KINDS) {
        const expected =
          caller === 'admin' ? 200 : caller === 'idpAdmin' && !PARTICIPANT_ADMIN_ONLY.includes(kind) ? 200 : 403;
        const target = `grant-target-${n++}`;
        expect((await ledger.call('POST', '/v2/users', { user: { id: target } })).status).toBe(200);
        const grant = await ledger.call(
          'POST',
          `/v2/users/${target}/rights`,
          { userId: target, rights: [rightOf(kind)] },
          as,
        );
        expect(grant.status, `${caller} grants ${kind}: ${grant.text.slice(0, 200)}`).toBe(expected);
        const held = (await ledger.call('GET', `/v2/users/${target}/rights`)).json.rights;
        expect(held, `${caller} grants ${kind}`).toHaveLength(expected === 200 ? 1 : 0);
        if (expected === 200) {
          const revoke = await ledger.call(
            'PATCH',
            `/v2/users/${target}/rights`,
            { userId: target, rights: [rightOf(kind)] },
            as,
          );
          expect(revoke.status, `${caller} revokes ${kind}`).toBe(200);
        }
        const created = await ledger.call(
          'POST',
          '/v2/users',
          { user: { id: `born-${target}` }, rights: [rightOf(kind)] },
          as,
        );
        expect(created.status, `${caller} creates a user with ${kind}: ${created.text.slice(0, 200)}`).toBe(expected);
      }
      // Party rights for a party without a record in the caller's provider: UNKNOWN_RESOURCE, unless the caller is the
      // participant admin.
      const target = `grant-target-${n++}`;
      expect((await ledger.call('POST', '/v2/users', { user: { id: target } })).status).toBe(200);
      const r = await ledger.call(
        'POST',
        `/v2/users/${target}/rights`,
        { userId: target, rights: [rightOf('CanActAs', unknownParty)] },
        as,
      );
      const expected = caller === 'admin' ? 200 : caller === 'idpAdmin' ? 404 : 403;
      expect(r.status, `${caller} grants CanActAs(unknown party)`).toBe(expected);
      if (expected === 404) expect(r.json.code).toBe('UNKNOWN_RESOURCE');
    }
  });

  it('token failures: 401 everywhere (403 "invalid token" for an unknown user)', async () => {
    const aud = `${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`;
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>, secret = TEST_JWT_SECRET, exp = now + 600) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(Buffer.from(secret));
    const cases: Array<[string, string | null, number]> = [
      ['no token', null, 401],
      [
        'bad signature',
        `Bearer ${await sign({ sub: 'participant_admin', aud }, 'another-secret-another-secret')}`,
        401,
      ],
      ['expired', `Bearer ${await sign({ sub: 'participant_admin', aud }, TEST_JWT_SECRET, now - 30)}`, 401],
      [
        'wrong audience',
        `Bearer ${await sign({ sub: 'participant_admin', aud: `${PARTICIPANT_AUDIENCE_PREFIX}other::1220ab` })}`,
        401,
      ],
      ['unknown user', `Bearer ${await sign({ sub: 'nobody-here', aud })}`, 403],
    ];
    let checked = 0;
    for (const op of ops) {
      for (const [name, auth, expected] of cases) {
        const r = await send(op, auth, 'participant_admin');
        // A body the sample cannot satisfy is a decode error (400 text/plain), which the reference also reports first.
        if (r.status === 400 && !r.json) continue;
        expect(r.status, `${name}: ${op.method} ${op.path}`).toBe(expected);
        expect(r.json.code, `${name}: ${op.method} ${op.path}`).toBe('NA');
        if (name === 'unknown user') expect(r.json.context).toEqual({ ledger_api_error: 'invalid token' });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(ops.length * 4);
  });

  it('each single right: a 2xx only where the table allows it, and denials change nothing', async () => {
    const callers: Caller[] = [
      'idpAdmin',
      'readAs',
      'actAs',
      'executeAs',
      'readAsAny',
      'executeAsAny',
      'actAsAny',
      'noRights',
      'admin',
    ];
    const unlisted = ops
      .filter((o) => ALLOWED[`${o.method} ${o.path}`] === undefined)
      .map((o) => `${o.method} ${o.path}`);
    for (const caller of callers) {
      const userId = caller === 'admin' ? 'participant_admin' : `sweep-${caller}`;
      const token = `Bearer ${await ledger.token(userId)}`;
      for (const op of ops) {
        const key = `${op.method} ${op.path}`;
        const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
        const r = await send(op, token, userId);
        const allowed = (ALLOWED[key] ?? []).includes(caller);
        expect(r.status, `${caller}: ${key} → ${r.status} ${r.text.slice(0, 200)}`).toBeLessThan(500);
        if (!allowed) {
          expect(r.status >= 200 && r.status < 300, `${caller} must not succeed on ${key}`).toBe(false);
          expect(
            (await ledger.call('GET', '/v2/state/ledger-end')).json.offset,
            `${caller}: ${key} moved the ledger`,
          ).toBe(end);
        }
        // Operations reserved to administrators answer a plain 403 to everybody else. (Allocation, local or external,
        // is also open to a user allocating for itself — the sample names the caller as userId — so there the request
        // passes authorization and is refused later, still without a 2xx.)
        const selfAllowed = key === 'POST /v2/parties' || key === 'POST /v2/parties/external/allocate';
        if (
          !allowed &&
          !selfAllowed &&
          ALLOWED[key] &&
          ALLOWED[key].every((c) => c === 'admin' || c === 'idpAdmin') &&
          caller !== 'admin'
        ) {
          expect(r.status, `${caller}: ${key} ${r.text.slice(0, 300)}`).toBe(403);
        }
      }
    }
    // Operations without an entry (the submission and read endpoints) need party rights the sample request cannot
    // carry; the sweep still checked above that nobody got a 2xx from them with a sample body.
    expect(unlisted.length).toBeLessThan(ops.length);
  });

  it('command submission and completions, with requests that reach authorization: who may act, who may read', async () => {
    const callers: Caller[] = [
      'idpAdmin',
      'readAs',
      'actAs',
      'executeAs',
      'readAsAny',
      'executeAsAny',
      'actAsAny',
      'noRights',
      'admin',
    ];
    const ACT: Caller[] = ['actAs', 'actAsAny'];
    const READ: Caller[] = ['readAs', 'actAs', 'readAsAny', 'actAsAny'];
    const commands = (id: string) => ({
      commands: [{ CreateCommand: { templateId: '#sweep:Main:T', createArguments: { owner: party } } }],
      commandId: id,
      actAs: [party],
    });
    for (const caller of callers) {
      const userId = caller === 'admin' ? 'participant_admin' : `sweep-${caller}`;
      const as = { as: userId };
      for (const path of ['submit-and-wait', 'async/submit', 'submit-and-wait-for-transaction-tree']) {
        const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
        const r = await ledger.call('POST', `/v2/commands/${path}`, commands(`sweep-${caller}-${path}`), as);
        expect(r.status, `${caller}: ${path} ${r.text.slice(0, 200)}`).toBe(ACT.includes(caller) ? 200 : 403);
        if (!ACT.includes(caller)) expect((await ledger.call('GET', '/v2/state/ledger-end')).json.offset).toBe(end);
      }
      const forTx = await ledger.call(
        'POST',
        '/v2/commands/submit-and-wait-for-transaction',
        { commands: commands(`sweep-${caller}-tx`) },
        as,
      );
      expect(forTx.status, `${caller}: submit-and-wait-for-transaction`).toBe(ACT.includes(caller) ? 200 : 403);
      // A dry run is authorized as the submission is, and commits nothing either way.
      const endBefore = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
      const dry = await ledger.call('POST', '/v2/commands/simulate', { commands: commands(`sweep-${caller}-dry`) }, as);
      expect(dry.status, `${caller}: simulate ${dry.text.slice(0, 200)}`).toBe(ACT.includes(caller) ? 200 : 403);
      if (ACT.includes(caller)) expect(dry.json.transaction.commandId).toBe(`sweep-${caller}-dry`);
      expect((await ledger.call('GET', '/v2/state/ledger-end')).json.offset).toBe(endBefore);
      const list = await ledger.call(
        'POST',
        '/v2/commands/completions?stream_idle_timeout_ms=50',
        { parties: [party] },
        as,
      );
      expect(list.status, `${caller}: completions ${list.text.slice(0, 200)}`).toBe(READ.includes(caller) ? 200 : 403);
      // Naming another user: only a reader of any party may.
      const other = await ledger.call(
        'POST',
        '/v2/commands/completions?stream_idle_timeout_ms=50',
        { userId: 'sweep-noRights', parties: [party] },
        as,
      );
      expect(other.status, `${caller}: completions of another user`).toBe(
        caller === 'readAsAny' || caller === 'actAsAny' ? 200 : 403,
      );
      // GetCompletions: ReadAs for every party named; naming none needs the any-party right.
      const named = await ledger.call(
        'POST',
        '/v2/commands/command-completions?stream_idle_timeout_ms=50',
        { parties: [party] },
        as,
      );
      expect(named.status, `${caller}: command-completions ${named.text.slice(0, 200)}`).toBe(
        READ.includes(caller) ? 200 : 403,
      );
      const all = await ledger.call('POST', '/v2/commands/command-completions?stream_idle_timeout_ms=50', {}, as);
      expect(all.status, `${caller}: command-completions of every party`).toBe(
        caller === 'readAsAny' || caller === 'actAsAny' ? 200 : 403,
      );
    }
  });
});
