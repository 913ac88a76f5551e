import { describe, expect, it } from 'vitest';
import {
  annotationKeyProblem,
  annotationsSize,
  authorizeAllocateParty,
  authorizeGetParties,
  authorizeListParties,
  authorizeUpdatePartyDetails,
  blindPartyDetails,
  checkPathMatchesBody,
  chooseSynchronizer,
  decideAllocateParty,
  decideUpdatePartyDetails,
  isLedgerError,
  mergeAnnotations,
  parseResourceVersion,
  parseUpdateMask,
  PARTY_DETAILS_UPDATE_LEAVES,
  partyIdProblem,
  validateAllocatePartyRequest,
  validatePartyHint,
  validateRequestAnnotations,
  validateUpdatePartyDetails,
  type AllocationState,
  type Claims,
  type LedgerError,
  type PartyRecord,
  type UpdatePartyDetailsBody,
} from '@ledgerline/domain';

const NS = '1220' + 'ab'.repeat(32);
const SYNC_A = 'global::1220' + '11'.repeat(32);
const SYNC_B = 'secondary::1220' + '22'.repeat(32);
const ALICE = `alice::${NS}`;

function thrown(f: () => unknown): LedgerError {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return e;
    throw e;
  }
  throw new Error('expected a LedgerError');
}

const record = (over: Partial<PartyRecord> = {}): PartyRecord => ({
  party: ALICE,
  isLocal: true,
  identityProviderId: '',
  annotations: {},
  resourceVersion: 0,
  synchronizerId: SYNC_A,
  ...over,
});

const body = (
  over: Partial<NonNullable<UpdatePartyDetailsBody['partyDetails']>> = {},
  paths: string[] | null = ['local_metadata.annotations'],
  meta?: { resourceVersion?: string; annotations?: Record<string, string> },
): UpdatePartyDetailsBody => ({
  partyDetails: {
    party: ALICE,
    isLocal: true,
    localMetadata: { resourceVersion: meta?.resourceVersion ?? '', annotations: meta?.annotations ?? {} },
    identityProviderId: '',
    ...over,
  },
  updateMask: paths === null ? null : { paths },
});

const patch = (rec: PartyRecord | null, b: UpdatePartyDetailsBody, idpExists = true) =>
  decideUpdatePartyDetails(
    { identityProviderExists: idpExists, record: rec },
    validateUpdatePartyDetails(b, b.partyDetails?.identityProviderId ?? ''),
  );

describe('annotations (Canton ResourceAnnotationValidator)', () => {
  it('merges: the reference example {k1:v1,k2:v2,k3:v3} + {k1:v1a,k3:"",k4:v4,k5:""} → {k1:v1a,k2:v2,k4:v4}', () => {
    expect(mergeAnnotations({ k1: 'v1', k2: 'v2', k3: 'v3' }, { k1: 'v1a', k3: '', k4: 'v4', k5: '' })).toEqual({
      k1: 'v1a',
      k2: 'v2',
      k4: 'v4',
    });
  });

  it('{} changes nothing; deleting an absent key is a no-op', () => {
    expect(mergeAnnotations({ a: '1' }, {})).toEqual({ a: '1' });
    expect(mergeAnnotations({ a: '1' }, { b: '' })).toEqual({ a: '1' });
  });

  it('key syntax: name ≤ 63 alnum-bounded, DNS prefix ≤ 253, at most one slash', () => {
    expect(annotationKeyProblem('0-aaaa.management.daml/foo')).toBeNull();
    expect(annotationKeyProblem('a.b-c_d')).toBeNull();
    expect(annotationKeyProblem('.aaaa.management.daml/foo_')).toMatch(/has invalid syntax/);
    expect(annotationKeyProblem('a/b/c')).toBe("Key 'a/b/c' contains more than one forward slash ('/') character");
    expect(annotationKeyProblem('x'.repeat(64))).toBe(
      `Key name segment '${'x'.repeat(50)}...' exceeds maximum length of 63 characters`,
    );
    expect(annotationKeyProblem('x'.repeat(63))).toBeNull();
    expect(annotationKeyProblem(`${'p'.repeat(254)}/n`)).toMatch(
      /Key prefix segment .* exceeds maximum length of 253 characters/,
    );
    expect(annotationKeyProblem('-a')).toBe("Key name segment '-a' has invalid syntax");
    expect(annotationKeyProblem('')).toBe("Key name segment '' has invalid syntax");
    expect(annotationKeyProblem('bad_prefix/x')).toBe("Key prefix segment 'bad_prefix' has invalid syntax");
  });

  it('size counts UTF-8 bytes of non-empty entries; the limit is 256 KiB inclusive', () => {
    expect(annotationsSize({ ab: 'é', gone: '' })).toBe(4);
    const at = { k: 'x'.repeat(256 * 1024 - 1) };
    expect(() => validateRequestAnnotations(at, { field: 'f', allowEmptyValues: true })).not.toThrow();
    const over = { k: 'x'.repeat(256 * 1024) };
    const e = thrown(() =>
      validateRequestAnnotations(over, { field: 'party_details.local_metadata.annotations', allowEmptyValues: true }),
    );
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.causeText).toBe(
      "The submitted request has invalid arguments: annotations from field 'party_details.local_metadata.annotations' are larger than the limit of 256kb",
    );
  });

  it('keys are checked even for deletions; empty values are refused when not allowed (allocation)', () => {
    expect(
      thrown(() => validateRequestAnnotations({ 'bad key': '' }, { field: 'f', allowEmptyValues: true })).code,
    ).toBe('INVALID_ARGUMENT');
    const e = thrown(() => validateRequestAnnotations({ k: '' }, { field: 'f', allowEmptyValues: false }));
    expect(e.causeText).toBe(
      "The submitted request has invalid arguments: The value of an annotation is empty for key: 'k'",
    );
  });
});

describe('update masks (Canton UpdatePathsTrie)', () => {
  const parse = (paths: string[]) => parseUpdateMask(paths, PARTY_DETAILS_UPDATE_LEAVES);

  it('accepts leaves and prefixes in snake_case', () => {
    for (const p of [
      'party',
      'is_local',
      'local_metadata',
      'local_metadata.annotations',
      'local_metadata.resource_version',
      'identity_provider_id',
    ]) {
      expect(parse([p]).ok).toBe(true);
    }
  });

  it('refuses empty masks, unknown paths (camelCase, junk, empty string, too deep) and duplicates with the reference messages', () => {
    expect(parse([])).toEqual({
      ok: false,
      problem: { kind: 'empty', message: 'The update mask contains no entries' },
    });
    for (const p of [
      'localMetadata.annotations',
      'unknown_field',
      'aaa!bbb',
      '',
      'local_metadata.annotations.k1',
      'local',
      'local_metadata.',
    ]) {
      const r = parse([p]);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problem.message).toBe(`The update path: '${p}' points to an unknown field.`);
    }
    const dup = parse(['local_metadata', 'local_metadata']);
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.problem.message).toBe("The update path: 'local_metadata' is duplicated.");
  });

  it('exact vs prefix coverage', () => {
    const r = parse(['local_metadata']);
    expect(
      r.ok && r.mask.covers('local_metadata.annotations') && r.mask.coveredByPrefixOnly('local_metadata.annotations'),
    ).toBe(true);
    const e = parse(['local_metadata.annotations']);
    expect(e.ok && e.mask.exact('local_metadata.annotations') && !e.mask.covers('is_local')).toBe(true);
  });
});

describe('party ids, hints and resource versions', () => {
  it('party ids are Daml-LF PartyIdStrings', () => {
    expect(partyIdProblem(ALICE)).toBeNull();
    expect(partyIdProblem('a b:c-d_e')).toBeNull();
    expect(partyIdProblem('')).toBe('Daml-LF Party is empty');
    expect(partyIdProblem('a!b')).toBe('non expected character 0x21 in Daml-LF Party "a!b"');
    expect(partyIdProblem('x'.repeat(256))).toBe('Party is too long (max: 255)');
  });

  it('hints: optional, party syntax, ≤ 185, no "::"', () => {
    expect(() => validatePartyHint('')).not.toThrow();
    expect(() => validatePartyHint('x'.repeat(185))).not.toThrow();
    expect(thrown(() => validatePartyHint('x'.repeat(186))).causeText).toMatch(/Party is too long/);
    expect(thrown(() => validatePartyHint('x'.repeat(300))).causeText).toMatch(/Party is too long/);
    expect(thrown(() => validatePartyHint('bad!')).causeText).toMatch(/non expected character/);
    expect(thrown(() => validatePartyHint('a::b')).code).toBe('INVALID_ARGUMENT');
  });

  it('resource versions: "" skips, decimal int64 parses, anything else is INVALID_FIELD', () => {
    expect(parseResourceVersion('', 'f')).toBeNull();
    expect(parseResourceVersion('42', 'f')).toBe(42n);
    for (const bad of ['abc', '1.5', ' 1', '99999999999999999999']) {
      const e = thrown(() => parseResourceVersion(bad, 'party_details.local_metadata'));
      expect(e.code).toBe('INVALID_FIELD');
      expect(e.causeText).toBe(
        'The submitted command has a field with invalid value: Invalid field party_details.local_metadata: Invalid resource version number',
      );
    }
  });
});

describe('PATCH decide (Canton ApiPartyManagementService.updatePartyDetails)', () => {
  it('path/body mismatch or absent partyDetails → JSON-layer INVALID_ARGUMENT', () => {
    const e = thrown(() => checkPathMatchesBody(`bob::${NS}`, body()));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.origin).toBe('json');
    expect(e.definiteAnswer).toBe(false);
    expect(e.causeText).toContain(`bob::${NS} does not match party in body Some(PartyDetails(${ALICE}`);
    expect(
      thrown(() => checkPathMatchesBody(ALICE, { partyDetails: null, updateMask: { paths: ['party'] } })).causeText,
    ).toContain('does not match party in body None');
  });

  it('missing update mask → MISSING_FIELD update_mask; bad party → INVALID_ARGUMENT', () => {
    const e = thrown(() => validateUpdatePartyDetails(body({}, null), ''));
    expect([e.code, e.context.field_name]).toEqual(['MISSING_FIELD', 'update_mask']);
    expect(thrown(() => validateUpdatePartyDetails(body({ party: 'a!b' }), '')).code).toBe('INVALID_ARGUMENT');
  });

  it('merges annotations and bumps the version; the event carries the new annotations and version', () => {
    const rec = record({ annotations: { k1: 'v1', k2: 'v2', k3: 'v3' }, resourceVersion: 3 });
    const d = patch(
      rec,
      body({}, ['local_metadata.annotations'], {
        resourceVersion: '3',
        annotations: { k1: 'v1a', k3: '', k4: 'v4', k5: '' },
      }),
    );
    expect(d.record.annotations).toEqual({ k1: 'v1a', k2: 'v2', k4: 'v4' });
    expect(d.record.resourceVersion).toBe(4);
    expect(d.events).toHaveLength(1);
    expect(d.events[0].data).toEqual({
      party: ALICE,
      annotations: { k1: 'v1a', k2: 'v2', k4: 'v4' },
      previousResourceVersion: 3,
      resourceVersion: 4,
    });
  });

  it('a no-op ({} or a mask without annotations) still bumps the version; prefix local_metadata merges too', () => {
    const rec = record({ annotations: { a: '1' }, resourceVersion: 7 });
    expect(patch(rec, body({}, ['local_metadata.annotations'])).record).toMatchObject({
      annotations: { a: '1' },
      resourceVersion: 8,
    });
    expect(patch(rec, body({}, ['party'], { annotations: { a: '2' } })).record).toMatchObject({
      annotations: { a: '1' },
      resourceVersion: 8,
    });
    expect(patch(rec, body({}, ['local_metadata'], { annotations: { b: '2' } })).record.annotations).toEqual({
      a: '1',
      b: '2',
    });
  });

  it('stale version → 409 CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED (whether or not resource_version is in the mask)', () => {
    const e = thrown(() => patch(record({ resourceVersion: 5 }), body({}, ['party'], { resourceVersion: '4' })));
    expect(e.code).toBe('CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED');
    expect(e.httpStatus).toBe(409);
    expect(e.category.retryInfo).toBe('1 second');
    expect(e.resources).toEqual([['PARTY', ALICE]]);
    expect(e.causeText).toBe(
      `Update operation for party '${ALICE}' failed due to a concurrent update to the same party`,
    );
  });

  it('is_local in the mask: equal value accepted, different value refused', () => {
    expect(patch(record(), body({ isLocal: true }, ['is_local'])).record.resourceVersion).toBe(1);
    const e = thrown(() => patch(record(), body({ isLocal: false }, ['is_local'])));
    expect(e.code).toBe('INVALID_PARTY_DETAILS_UPDATE_REQUEST');
    expect(e.causeText).toBe(
      `Update operation for party '${ALICE}' failed due to: Update request attempted to modify not-modifiable 'is_local' attribute`,
    );
    // not in the mask: the request's isLocal is ignored
    expect(patch(record(), body({ isLocal: false }, ['local_metadata'])).record.isLocal).toBe(true);
  });

  it('unknown party → PARTY_NOT_FOUND; unknown provider → INVALID_ARGUMENT; other provider → PERMISSION_DENIED', () => {
    const nf = thrown(() => patch(null, body()));
    expect([nf.code, nf.httpStatus, nf.causeText]).toEqual([
      'PARTY_NOT_FOUND',
      404,
      `Party: '${ALICE}' was not found when updating a party record`,
    ]);
    const idp = thrown(() => patch(record(), body({ identityProviderId: 'nope' }), false));
    expect(idp.causeText).toBe(
      'The submitted request has invalid arguments: Provided identity_provider_id nope has not been found.',
    );
    const other = thrown(() => patch(record({ identityProviderId: 'idp-a' }), body({ identityProviderId: '' })));
    expect([other.code, other.httpStatus, other.redacted]).toEqual(['PERMISSION_DENIED', 403, true]);
  });

  it('mask problems come out as INVALID_PARTY_DETAILS_UPDATE_REQUEST with the path', () => {
    const e = thrown(() => patch(record(), body({}, ['localMetadata'])));
    expect(e.code).toBe('INVALID_PARTY_DETAILS_UPDATE_REQUEST');
    expect(e.causeText).toBe(
      `Update operation for party '${ALICE}' failed due to: The update path: 'localMetadata' points to an unknown field.`,
    );
    expect(e.resources).toEqual([['PARTY', ALICE]]);
  });

  it('annotations over 256 KiB after the merge → MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED', () => {
    const half = 'x'.repeat(130 * 1024);
    const e = thrown(() =>
      patch(
        record({ annotations: { a: half } }),
        body({}, ['local_metadata.annotations'], { annotations: { b: half } }),
      ),
    );
    expect([e.code, e.httpStatus, e.category.id]).toEqual(['MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED', 400, 9]);
    // replacing the big value keeps it under the limit
    expect(
      patch(record({ annotations: { a: half } }), body({}, ['local_metadata'], { annotations: { a: half } })).record
        .resourceVersion,
    ).toBe(1);
  });
});

describe('blinding (Canton ApiPartyManagementService.blindAndConvertToProto)', () => {
  const inA = record({ identityProviderId: 'idp-a', annotations: { k: 'v' }, resourceVersion: 2 });
  it('record in the requested provider → full', () => {
    expect(blindPartyDetails(inA, 'idp-a')).toEqual({
      party: ALICE,
      isLocal: true,
      resourceVersion: '2',
      annotations: { k: 'v' },
      identityProviderId: 'idp-a',
    });
  });
  it('default requested, record elsewhere → isLocal kept, no metadata, provider ""', () => {
    expect(blindPartyDetails(inA, '')).toEqual({
      party: ALICE,
      isLocal: true,
      resourceVersion: '',
      annotations: {},
      identityProviderId: '',
    });
  });
  it('other provider requested → isLocal false, no metadata', () => {
    expect(blindPartyDetails(inA, 'idp-b')).toEqual({
      party: ALICE,
      isLocal: false,
      resourceVersion: '',
      annotations: {},
      identityProviderId: '',
    });
    expect(blindPartyDetails(record(), 'idp-b').isLocal).toBe(false);
  });
});

describe('allocation decide', () => {
  const state = (over: Partial<AllocationState> = {}): AllocationState => ({
    existing: null,
    identityProviderExists: true,
    user: null,
    connectedSynchronizers: [SYNC_A, SYNC_B],
    participantId: `participant1::${NS}`,
    namespace: NS,
    selfAllocationQuota: null,
    ...over,
  });
  const req = {
    partyIdHint: 'alice',
    annotations: { k: 'v' },
    resourceVersion: '',
    identityProviderId: '',
    synchronizerId: SYNC_B,
    userId: '',
  };

  it('gives PartyAllocated and a TopologyTransaction ledger update with ParticipantAuthorizationAdded (SUBMISSION)', () => {
    const d = decideAllocateParty(state(), req);
    expect(d.record).toEqual({
      party: ALICE,
      isLocal: true,
      identityProviderId: '',
      annotations: { k: 'v' },
      resourceVersion: 0,
      synchronizerId: SYNC_B,
    });
    expect(d.events.map((e) => e.type)).toEqual(['PartyAllocated', 'TopologyTransactionCommitted']);
    expect(d.events[1].update).toEqual({ kind: 'TopologyTransaction', synchronizerId: SYNC_B, parties: [ALICE] });
    expect(d.events[1].data).toEqual({
      events: [
        {
          ParticipantAuthorizationAdded: {
            partyId: ALICE,
            participantId: `participant1::${NS}`,
            participantPermission: 'PARTICIPANT_PERMISSION_SUBMISSION',
          },
        },
      ],
    });
  });

  it('grants the named user CanActAs in the same decision', () => {
    const user = {
      user: { id: 'u1', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' },
      rights: [],
    };
    const d = decideAllocateParty(state({ user }), { ...req, userId: 'u1' });
    expect(d.events[2]).toEqual({
      type: 'UserRightsGranted',
      stream: 'user:u1',
      data: { userId: 'u1', rights: [{ kind: 'CanActAs', party: ALICE }] },
    });
    expect(
      thrown(() => decideAllocateParty(state({ user: { user: null, rights: [] } }), { ...req, userId: 'u1' })).code,
    ).toBe('USER_NOT_FOUND');
  });

  it('self-allocation quota: party rights + 1 must not exceed it', () => {
    const user = {
      user: { id: 'u1', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' },
      rights: [{ kind: 'CanReadAs' as const, party: 'x' }],
    };
    expect(decideAllocateParty(state({ user, selfAllocationQuota: 2 }), { ...req, userId: 'u1' }).events).toHaveLength(
      3,
    );
    const e = thrown(() => decideAllocateParty(state({ user, selfAllocationQuota: 1 }), { ...req, userId: 'u1' }));
    expect([e.code, e.internalReason]).toEqual(['PERMISSION_DENIED', 'User quota of party allocations exhausted']);
  });

  it('duplicate party → INVALID_ARGUMENT "Party already exists"', () => {
    expect(thrown(() => decideAllocateParty(state({ existing: record() }), req)).causeText).toMatch(
      /Party already exists/,
    );
  });

  it('synchronizer: optional only with exactly one connected', () => {
    expect(chooseSynchronizer('', [SYNC_A])).toBe(SYNC_A);
    expect(chooseSynchronizer(SYNC_B, [SYNC_A, SYNC_B])).toBe(SYNC_B);
    expect(thrown(() => chooseSynchronizer('', [SYNC_A, SYNC_B])).code).toBe(
      'PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER',
    );
    expect(thrown(() => chooseSynchronizer(`x::1220${'00'.repeat(32)}`, [SYNC_A])).code).toBe(
      'PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER',
    );
  });

  it('request syntax: resourceVersion must be unset, annotation values non-empty, synchronizer id well-formed', () => {
    expect(thrown(() => validateAllocatePartyRequest({ ...req, resourceVersion: '1' })).causeText).toBe(
      'The submitted request has invalid arguments: field local_metadata.resource_version must be not set',
    );
    expect(thrown(() => validateAllocatePartyRequest({ ...req, annotations: { k: '' } })).causeText).toMatch(
      /The value of an annotation is empty for key: 'k'/,
    );
    expect(thrown(() => validateAllocatePartyRequest({ ...req, synchronizerId: 'nope' })).code).toBe('INVALID_FIELD');
    expect(thrown(() => validateAllocatePartyRequest({ ...req, identityProviderId: 'bad!' })).code).toBe(
      'INVALID_FIELD',
    );
  });
});

describe('authorization rules (Canton PartyManagementServiceAuthorization)', () => {
  const admin: Claims = { userId: 'admin', identityProviderId: '', rights: [{ kind: 'ParticipantAdmin' }] };
  const idpAdminA: Claims = { userId: 'ia', identityProviderId: 'idp-a', rights: [{ kind: 'IdentityProviderAdmin' }] };
  const reader: Claims = { userId: 'r', identityProviderId: '', rights: [{ kind: 'CanReadAs', party: ALICE }] };
  const stranger: Claims = { userId: 's', identityProviderId: '', rights: [] };
  const denied = (f: () => unknown) => expect(thrown(f).code).toBe('PERMISSION_DENIED');

  it('PATCH: admin or IDP admin of the named provider; empty provider implied from the token', () => {
    expect(authorizeUpdatePartyDetails(admin, '')).toBe('');
    expect(authorizeUpdatePartyDetails(idpAdminA, '')).toBe('idp-a');
    expect(authorizeUpdatePartyDetails(idpAdminA, 'idp-a')).toBe('idp-a');
    denied(() => authorizeUpdatePartyDetails(idpAdminA, 'idp-b'));
    denied(() => authorizeUpdatePartyDetails(reader, ''));
  });

  it('GET: admin, IDP admin, or a right on every requested party', () => {
    expect(authorizeGetParties(reader, [ALICE], '')).toBe('');
    denied(() => authorizeGetParties(reader, [ALICE, `bob::${NS}`], ''));
    denied(() => authorizeGetParties(stranger, [ALICE], ''));
    expect(authorizeGetParties(idpAdminA, [`bob::${NS}`], '')).toBe('idp-a');
  });

  it('list: admin or IDP admin; allocate: admin, IDP admin or the user itself', () => {
    denied(() => authorizeListParties(reader, ''));
    expect(authorizeAllocateParty(admin, '', '')).toEqual({ identityProviderId: '', selfAllocation: false });
    expect(authorizeAllocateParty(stranger, 's', '')).toEqual({ identityProviderId: '', selfAllocation: true });
    denied(() => authorizeAllocateParty(stranger, '', ''));
    denied(() => authorizeAllocateParty(stranger, 'other', ''));
  });
});
