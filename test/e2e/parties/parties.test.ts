import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestLedger, type TestLedger } from '../../support/ledger';

let ledger: TestLedger;
let sync: string;
beforeAll(async () => {
  // Two synchronizers: an allocation without a synchronizer id cannot pick one.
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  sync = ledger.runtime.identity.synchronizers[0].id;
});
afterAll(async () => {
  await ledger?.close();
});

const ns = () => ledger.runtime.identity.fingerprint;

async function allocate(hint: string, annotations: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const r = await ledger.call('POST', '/v2/parties', {
    partyIdHint: hint,
    synchronizerId: sync,
    localMetadata: { annotations },
    ...extra,
  });
  expect(r.status, r.text).toBe(200);
  return r.json.partyDetails.party as string;
}

const patch = (party: string, body: unknown, as?: string) =>
  ledger.call('PATCH', `/v2/parties/${encodeURIComponent(party)}`, body, as === undefined ? {} : { as });

const stored = async (party: string) => {
  const r = await ledger.call('GET', `/v2/parties/${encodeURIComponent(party)}`);
  expect(r.status).toBe(200);
  return r.json.partyDetails[0];
};

describe('POST /v2/parties', () => {
  it('allocates <hint>::<namespace> with version 0, isLocal, and a TopologyTransaction update at the next offset', async () => {
    const before = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset as number;
    const r = await ledger.call('POST', '/v2/parties', {
      partyIdHint: 'alloc1',
      synchronizerId: sync,
      localMetadata: { annotations: { a: 'b' } },
    });
    expect(r.status).toBe(200);
    const party = `alloc1::${ns()}`;
    expect(r.json).toEqual({
      partyDetails: {
        party,
        isLocal: true,
        localMetadata: { resourceVersion: '0', annotations: { a: 'b' } },
        identityProviderId: '',
      },
    });
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset as number;
    expect(end).toBe(before + 1);
    const { rows } = await sql<{ kind: string; synchronizer_id: string; payload: unknown; update_id: string }>`
      SELECT kind, synchronizer_id, payload, update_id FROM ledger_updates WHERE ledger_offset = ${end}`.execute(
      ledger.runtime.db,
    );
    expect(rows[0]).toMatchObject({ kind: 'TopologyTransaction', synchronizer_id: sync });
    expect(rows[0].update_id).toMatch(/^1220[0-9a-f]{64}$/);
    expect(rows[0].payload).toEqual({
      events: [
        {
          ParticipantAuthorizationAdded: {
            partyId: party,
            participantId: ledger.participantId,
            participantPermission: 'PARTICIPANT_PERMISSION_SUBMISSION',
          },
        },
      ],
    });
    const visible = await sql<{
      party: string;
    }>`SELECT party FROM ledger_update_parties WHERE ledger_offset = ${end}`.execute(ledger.runtime.db);
    expect(visible.rows).toEqual([{ party }]);
  });

  it('generates a hint when empty; the user named gets CanActAs in the same commit', async () => {
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'alloc-user' } })).status).toBe(200);
    const r = await ledger.call('POST', '/v2/parties', { synchronizerId: sync, userId: 'alloc-user' });
    expect(r.status).toBe(200);
    expect(r.json.partyDetails.party).toMatch(new RegExp(`^party-[0-9a-f-]{36}::${ns()}$`));
    const rights = await ledger.call('GET', '/v2/users/alloc-user/rights');
    expect(rights.json.rights).toEqual([{ kind: { CanActAs: { value: { party: r.json.partyDetails.party } } } }]);
  });

  it('rejects bad hints, duplicates, a set resourceVersion, empty annotation values, unknown users and providers, without changing anything', async () => {
    await allocate('dup1');
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ partyIdHint: 'bad!', synchronizerId: sync }, 400, 'INVALID_ARGUMENT', /non expected character/],
      [{ partyIdHint: 'x'.repeat(200), synchronizerId: sync }, 400, 'INVALID_ARGUMENT', /Party is too long/],
      [{ partyIdHint: 'dup1', synchronizerId: sync }, 400, 'INVALID_ARGUMENT', /Party already exists/],
      [
        { partyIdHint: 'rv', synchronizerId: sync, localMetadata: { resourceVersion: '0' } },
        400,
        'INVALID_ARGUMENT',
        /local_metadata.resource_version must be not set/,
      ],
      [
        { partyIdHint: 'ev', synchronizerId: sync, localMetadata: { annotations: { k: '' } } },
        400,
        'INVALID_ARGUMENT',
        /The value of an annotation is empty for key: 'k'/,
      ],
      [{ partyIdHint: 'nu', synchronizerId: sync, userId: 'no-such-user' }, 404, 'USER_NOT_FOUND', /no-such-user/],
      [
        { partyIdHint: 'ni', synchronizerId: sync, identityProviderId: 'no-such-idp' },
        400,
        'INVALID_ARGUMENT',
        /Provided identity_provider_id no-such-idp has not been found/,
      ],
      [{ partyIdHint: 'ns' }, 400, 'PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER', /synchronizerId/],
      [
        { partyIdHint: 'us', synchronizerId: `other::1220${'00'.repeat(32)}` },
        400,
        'PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER',
        /not connected/,
      ],
      [{ partyIdHint: 'bs', synchronizerId: 'garbage' }, 400, 'INVALID_FIELD', /synchronizer_id/],
    ];
    for (const [body, status, code, cause] of cases) {
      const r = await ledger.call('POST', '/v2/parties', body);
      expect([r.status, r.json?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(r.json.cause).toMatch(cause);
    }
    const wrongType = await ledger.call('POST', '/v2/parties', { partyIdHint: 5 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.text).toMatch(/^Invalid value for: body/);
    expect((await ledger.call('GET', '/v2/state/ledger-end')).json.offset).toBe(end);
  });
});

describe('GET /v2/parties, /v2/parties/{party}, /v2/parties/participant-id', () => {
  it('gets one or several parties; unknown parties are omitted; bad ids are 400', async () => {
    const a = await allocate('get-a', { x: '1' });
    const b = await allocate('get-b');
    const one = await ledger.call('GET', `/v2/parties/${a}`);
    expect(one.json).toEqual({
      partyDetails: [
        {
          party: a,
          isLocal: true,
          localMetadata: { resourceVersion: '0', annotations: { x: '1' } },
          identityProviderId: '',
        },
      ],
    });
    const many = await ledger.call('GET', `/v2/parties/${a}?parties=${b}&parties=ghost::${ns()}`);
    expect(many.json.partyDetails.map((d: { party: string }) => d.party).sort()).toEqual([a, b].sort());
    const unknown = await ledger.call('GET', `/v2/parties/ghost::${ns()}`);
    expect([unknown.status, unknown.json]).toEqual([200, { partyDetails: [] }]);
    const bad = await ledger.call('GET', '/v2/parties/bad!party');
    expect([bad.status, bad.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  it('lists with paging and filter-party', async () => {
    for (const h of ['page-1', 'page-2', 'page-3']) await allocate(h);
    const all: string[] = [];
    let token = '';
    for (let i = 0; i < 20; i++) {
      const r = await ledger.call(
        'GET',
        `/v2/parties?pageSize=2&filter-party=page-${token ? `&pageToken=${token}` : ''}`,
      );
      expect(r.status).toBe(200);
      all.push(...r.json.partyDetails.map((d: { party: string }) => d.party));
      token = r.json.nextPageToken;
      if (!token) break;
    }
    expect(all).toEqual([`page-1::${ns()}`, `page-2::${ns()}`, `page-3::${ns()}`]);
    const everything = await ledger.call('GET', '/v2/parties');
    expect(everything.json.nextPageToken).toBe('');
    expect(everything.json.partyDetails.length).toBeGreaterThanOrEqual(3);
    expect((await ledger.call('GET', '/v2/parties?pageSize=-1')).json.code).toBe('INVALID_ARGUMENT');
    expect((await ledger.call('GET', '/v2/parties?pageToken=%25%25')).json.code).toBe('INVALID_ARGUMENT');
    expect((await ledger.call('GET', '/v2/parties?pageSize=abc')).text).toMatch(
      /^Invalid value for: query parameter pageSize/,
    );
  });

  it('participant-id', async () => {
    expect((await ledger.call('GET', '/v2/parties/participant-id')).json).toEqual({
      participantId: ledger.participantId,
    });
  });
});

describe('PATCH /v2/parties/{party} (Canton ApiPartyManagementService.updatePartyDetails)', () => {
  it("the reference's example: {k1:v1,k2:v2,k3:v3} + {k1:v1a,k3:'',k4:v4,k5:''} → {k1:v1a,k2:v2,k4:v4}, version +1", async () => {
    const p = await allocate('ex1', { k1: 'v1', k2: 'v2', k3: 'v3' });
    const r = await patch(p, {
      partyDetails: {
        party: p,
        isLocal: true,
        localMetadata: { resourceVersion: '0', annotations: { k1: 'v1a', k3: '', k4: 'v4', k5: '' } },
        identityProviderId: '',
      },
      updateMask: { paths: ['local_metadata.annotations'] },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      partyDetails: {
        party: p,
        isLocal: true,
        localMetadata: { resourceVersion: '1', annotations: { k1: 'v1a', k2: 'v2', k4: 'v4' } },
        identityProviderId: '',
      },
    });
    expect((await stored(p)).localMetadata).toEqual({
      resourceVersion: '1',
      annotations: { k1: 'v1a', k2: 'v2', k4: 'v4' },
    });
  });

  it('{} is a no-op that still bumps the version (exact and prefix paths); paths without effect are accepted', async () => {
    const p = await allocate('noop', { a: '1' });
    for (const [i, paths] of [
      ['local_metadata.annotations'],
      ['local_metadata'],
      ['party'],
      ['identity_provider_id'],
      ['local_metadata.resource_version'],
    ].entries()) {
      const r = await patch(p, {
        partyDetails: { party: p, localMetadata: { annotations: {} } },
        updateMask: { paths },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.partyDetails.localMetadata).toEqual({ resourceVersion: String(i + 1), annotations: { a: '1' } });
    }
  });

  it('the mask is not applied to fields it does not name', async () => {
    const p = await allocate('masked', { a: '1' });
    const r = await patch(p, {
      partyDetails: { party: p, localMetadata: { annotations: { a: '2' } } },
      updateMask: { paths: ['party'] },
    });
    expect(r.json.partyDetails.localMetadata).toEqual({ resourceVersion: '1', annotations: { a: '1' } });
  });

  it('each error case, with the exact code, status and message, and no change', async () => {
    const p = await allocate('errs', { a: '1' });
    const other = `someone::${ns()}`;
    const details = (over: Record<string, unknown> = {}) => ({
      party: p,
      isLocal: true,
      localMetadata: { resourceVersion: '', annotations: {} },
      identityProviderId: '',
      ...over,
    });
    const cases: Array<{
      name: string;
      path?: string;
      body: unknown;
      status: number;
      code: string;
      cause: string;
      resources?: unknown;
    }> = [
      {
        name: 'path/body mismatch',
        body: { partyDetails: details({ party: other }), updateMask: { paths: ['party'] } },
        status: 400,
        code: 'INVALID_ARGUMENT',
        cause: `The submitted request has invalid arguments: ${p} does not match party in body Some(PartyDetails(${other},true,Some(ObjectMeta(,Map())),))`,
      },
      {
        name: 'partyDetails missing',
        body: { updateMask: { paths: ['party'] } },
        status: 400,
        code: 'INVALID_ARGUMENT',
        cause: `The submitted request has invalid arguments: ${p} does not match party in body None`,
      },
      {
        name: 'updateMask missing',
        body: { partyDetails: details() },
        status: 400,
        code: 'MISSING_FIELD',
        cause: 'The submitted command is missing a mandatory field: update_mask',
      },
      {
        name: 'empty mask',
        body: { partyDetails: details(), updateMask: { paths: [] } },
        status: 400,
        code: 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        cause: `Update operation for party '${p}' failed due to: The update mask contains no entries`,
        resources: [['PARTY', p]],
      },
      {
        name: 'camelCase path',
        body: { partyDetails: details(), updateMask: { paths: ['localMetadata.annotations'] } },
        status: 400,
        code: 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        cause: `Update operation for party '${p}' failed due to: The update path: 'localMetadata.annotations' points to an unknown field.`,
      },
      {
        name: 'unknown path',
        body: { partyDetails: details(), updateMask: { paths: ['unknown_field'] } },
        status: 400,
        code: 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        cause: `Update operation for party '${p}' failed due to: The update path: 'unknown_field' points to an unknown field.`,
      },
      {
        name: 'duplicate path',
        body: { partyDetails: details(), updateMask: { paths: ['local_metadata', 'local_metadata'] } },
        status: 400,
        code: 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        cause: `Update operation for party '${p}' failed due to: The update path: 'local_metadata' is duplicated.`,
      },
      {
        name: 'is_local changed',
        body: { partyDetails: details({ isLocal: false }), updateMask: { paths: ['is_local'] } },
        status: 400,
        code: 'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
        cause: `Update operation for party '${p}' failed due to: Update request attempted to modify not-modifiable 'is_local' attribute`,
      },
      {
        name: 'unknown party',
        path: other,
        body: { partyDetails: details({ party: other }), updateMask: { paths: ['local_metadata'] } },
        status: 404,
        code: 'PARTY_NOT_FOUND',
        cause: `Party: '${other}' was not found when updating a party record`,
        resources: [['PARTY', other]],
      },
      {
        name: 'non-numeric resourceVersion',
        body: {
          partyDetails: details({ localMetadata: { resourceVersion: 'abc', annotations: {} } }),
          updateMask: { paths: ['local_metadata'] },
        },
        status: 400,
        code: 'INVALID_FIELD',
        cause:
          'The submitted command has a field with invalid value: Invalid field party_details.local_metadata: Invalid resource version number',
      },
      {
        name: 'stale resourceVersion',
        body: {
          partyDetails: details({ localMetadata: { resourceVersion: '7', annotations: { a: '9' } } }),
          updateMask: { paths: ['local_metadata.annotations'] },
        },
        status: 409,
        code: 'CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED',
        cause: `Update operation for party '${p}' failed due to a concurrent update to the same party`,
        resources: [['PARTY', p]],
      },
      {
        name: 'bad annotation key (also for deletions)',
        body: {
          partyDetails: details({ localMetadata: { annotations: { '.aaaa.management.daml/foo_': '' } } }),
          updateMask: { paths: ['local_metadata'] },
        },
        status: 400,
        code: 'INVALID_ARGUMENT',
        cause:
          "The submitted request has invalid arguments: Key prefix segment '.aaaa.management.daml' has invalid syntax",
      },
      {
        name: 'annotations over 256 KiB in the request',
        body: {
          partyDetails: details({ localMetadata: { annotations: { big: 'x'.repeat(256 * 1024) } } }),
          updateMask: { paths: ['local_metadata'] },
        },
        status: 400,
        code: 'INVALID_ARGUMENT',
        cause:
          "The submitted request has invalid arguments: annotations from field 'party_details.local_metadata.annotations' are larger than the limit of 256kb",
      },
      {
        name: 'unknown identity provider',
        body: { partyDetails: details({ identityProviderId: 'nope' }), updateMask: { paths: ['local_metadata'] } },
        status: 400,
        code: 'INVALID_ARGUMENT',
        cause: 'The submitted request has invalid arguments: Provided identity_provider_id nope has not been found.',
      },
    ];
    for (const c of cases) {
      const r = await patch(c.path ?? p, c.body);
      expect([r.status, r.json?.code, r.json?.cause], c.name).toEqual([c.status, c.code, c.cause]);
      if (c.resources) expect(r.json.resources, c.name).toEqual(c.resources);
    }
    const mismatch = await patch(p, { partyDetails: details({ party: other }), updateMask: { paths: ['party'] } });
    expect([mismatch.json.definiteAnswer, mismatch.json.context]).toEqual([false, {}]);
    const conflict = await patch(p, {
      partyDetails: details({ localMetadata: { resourceVersion: '7', annotations: {} } }),
      updateMask: { paths: ['party'] },
    });
    expect([
      conflict.json.errorCategory,
      conflict.json.grpcCodeValue,
      conflict.json.retryInfo,
      conflict.json.definiteAnswer,
    ]).toEqual([2, 10, '1 second', null]);
    const wrongType = await patch(p, { partyDetails: { party: p, isLocal: 'yes' }, updateMask: { paths: ['party'] } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(wrongType.text).toMatch(/^Invalid value for: body \(.* at 'partyDetails.isLocal'\)/);
    // nothing changed
    expect((await stored(p)).localMetadata).toEqual({ resourceVersion: '0', annotations: { a: '1' } });
  });

  it('the size limit is checked again after the merge: MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED', async () => {
    const half = 'x'.repeat(130 * 1024);
    const p = await allocate('bigmerge', { a: half });
    const r = await patch(p, {
      partyDetails: { party: p, localMetadata: { annotations: { b: half } } },
      updateMask: { paths: ['local_metadata.annotations'] },
    });
    expect([r.status, r.json.code, r.json.errorCategory]).toEqual([
      400,
      'MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED',
      9,
    ]);
    expect((await stored(p)).localMetadata.resourceVersion).toBe('0');
  });

  it('a matching version succeeds; an empty one skips the check', async () => {
    const p = await allocate('versions');
    const at = (v: string, k: string) =>
      patch(p, {
        partyDetails: { party: p, localMetadata: { resourceVersion: v, annotations: { [k]: 'x' } } },
        updateMask: { paths: ['local_metadata'] },
      });
    expect((await at('0', 'a')).json.partyDetails.localMetadata.resourceVersion).toBe('1');
    expect((await at('1', 'b')).json.partyDetails.localMetadata.resourceVersion).toBe('2');
    expect((await at('', 'c')).json.partyDetails.localMetadata).toEqual({
      resourceVersion: '3',
      annotations: { a: 'x', b: 'x', c: 'x' },
    });
    expect((await at('1', 'd')).status).toBe(409);
  });
});

describe('concurrency', () => {
  it('32 concurrent PATCHes with the same current version → one 200, 31 × 409, version +1', async () => {
    const p = await allocate('race-v');
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        patch(p, {
          partyDetails: { party: p, localMetadata: { resourceVersion: '0', annotations: { [`k${i}`]: 'v' } } },
          updateMask: { paths: ['local_metadata.annotations'] },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(31);
    expect(
      results.filter((r) => r.status === 409).every((r) => r.json.code === 'CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED'),
    ).toBe(true);
    const after = await stored(p);
    expect(after.localMetadata.resourceVersion).toBe('1');
    expect(Object.keys(after.localMetadata.annotations)).toHaveLength(1);
  });

  it('32 concurrent PATCHes without version, each adding its own key → all 200, all keys, version +32', async () => {
    const p = await allocate('race-free');
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        patch(p, {
          partyDetails: { party: p, localMetadata: { annotations: { [`k${i}`]: String(i) } } },
          updateMask: { paths: ['local_metadata.annotations'] },
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.json.partyDetails.localMetadata.resourceVersion)).size).toBe(32);
    const after = await stored(p);
    expect(after.localMetadata.resourceVersion).toBe('32');
    expect(after.localMetadata.annotations).toEqual(
      Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, String(i)])),
    );
  });
});
