import { describe, expect, it } from 'vitest';
import {
  authorizeUpdateFormat,
  compileEventFormat,
  compileUpdateFormat,
  decidePrune,
  hasInterfaceFilters,
  isLedgerError,
  NO_INTERFACES,
  resolveTransactionByIdFormat,
  resolveUpdateFormat,
  validateUpdateFormat,
  validateUpdateId,
  validateUpdatesRequest,
  type Claims,
  type GetUpdatesRequest,
  type UpdateFormat,
} from '@ledgerline/domain';

const A = 'alice::1220aa';
const B = 'bob::1220bb';
const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return e.code;
    throw e;
  }
  return 'OK';
};
const causeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return e.causeText;
    throw e;
  }
  return 'OK';
};
const acs = (parties: string[]): UpdateFormat => ({
  includeTransactions: {
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])) },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});

describe('legacy filter/verbose versus updateFormat (JsUpdateService; defaults as the API description says)', () => {
  it('maps the legacy filter to ACS_DELTA transactions, reassignments and the named parties’ topology events', () => {
    const uf = resolveUpdateFormat({ filter: { filtersByParty: { [A]: {}, [B]: {} } }, verbose: true });
    expect(uf.includeTransactions?.transactionShape).toBe('TRANSACTION_SHAPE_ACS_DELTA');
    expect(uf.includeTransactions?.eventFormat?.verbose).toBe(true);
    expect(uf.includeReassignments).toEqual(uf.includeTransactions?.eventFormat);
    expect(uf.includeTopologyEvents).toEqual({ includeParticipantAuthorizationEvents: { parties: [A, B] } });
    expect(
      resolveUpdateFormat({ filter: { filtersForAnyParty: {} } }).includeTopologyEvents
        ?.includeParticipantAuthorizationEvents?.parties,
    ).toEqual([]);
  });
  it('a legacy filter naming no party asks for no topology events: authorized for anyone, then rejected by the format check', () => {
    const nobody: Claims = { userId: 'nobody', identityProviderId: '', rights: [] };
    for (const filter of [{ filtersByParty: {} }, {}, { filtersByParty: null }]) {
      const uf = resolveUpdateFormat({ filter });
      expect(uf.includeTopologyEvents).toBeUndefined();
      expect(codeOf(() => authorizeUpdateFormat(nobody, uf))).toBe('OK');
      expect(causeOf(() => validateUpdateFormat(uf))).toBe(
        'The submitted request has invalid arguments: filtersByParty and filtersForAnyParty cannot be empty simultaneously',
      );
    }
  });
  it('rejects both, verbose with a format, and neither; passes a format through', () => {
    expect(causeOf(() => resolveUpdateFormat({ filter: {}, updateFormat: acs([A]) }))).toMatch(
      /Both update_format and filter are set/,
    );
    expect(causeOf(() => resolveUpdateFormat({ verbose: true, updateFormat: acs([A]) }))).toMatch(
      /Both update_format and verbose are set/,
    );
    expect(causeOf(() => resolveUpdateFormat({}))).toMatch(/Either filter\/verbose or update_format is required/);
    expect(resolveUpdateFormat({ updateFormat: acs([A]) })).toEqual(acs([A]));
  });
  it('transaction-by-id: requestingParties → ACS_DELTA wildcard verbose; both / neither rejected', () => {
    expect(resolveTransactionByIdFormat({ requestingParties: [A] })).toEqual({
      includeTransactions: {
        eventFormat: {
          filtersByParty: {
            [A]: {
              cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
            },
          },
          filtersForAnyParty: null,
          verbose: true,
        },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    });
    expect(
      codeOf(() =>
        resolveTransactionByIdFormat({ requestingParties: [A], transactionFormat: acs([A]).includeTransactions }),
      ),
    ).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => resolveTransactionByIdFormat({ requestingParties: [] }))).toBe('INVALID_ARGUMENT');
  });
});

describe('request checks in the reference order (Canton UpdateServiceRequestValidator)', () => {
  const ledger = { ledgerEnd: 10, prunedUpTo: 0 };
  const check = (req: GetUpdatesRequest, l = ledger, uf = acs([A])) => codeOf(() => validateUpdatesRequest(req, uf, l));
  it('reports the first failing rule', () => {
    expect(check({ beginExclusive: -1, endInclusive: 0, descendingOrder: true })).toBe('NEGATIVE_OFFSET');
    expect(check({ beginExclusive: 11, descendingOrder: true })).toBe('DESCENDING_ORDER_MISSING_END');
    expect(check({ beginExclusive: 11, endInclusive: 0, descendingOrder: true })).toBe('NON_POSITIVE_OFFSET');
    expect(check({ beginExclusive: 11, endInclusive: -5 })).toBe('NON_POSITIVE_OFFSET');
    expect(check({ beginExclusive: 11, endInclusive: 12 })).toBe('OFFSET_AFTER_LEDGER_END');
    expect(causeOf(() => validateUpdatesRequest({ beginExclusive: 11, endInclusive: 12 }, acs([A]), ledger))).toBe(
      'Begin offset (11) is after ledger end (10)',
    );
    expect(causeOf(() => validateUpdatesRequest({ beginExclusive: 3, endInclusive: 12 }, acs([A]), ledger))).toBe(
      'End offset (12) is after ledger end (10)',
    );
    expect(check({ beginExclusive: 5, endInclusive: 3 }, ledger, acs([]))).toBe('INVALID_ARGUMENT');
    expect(check({ beginExclusive: 5, endInclusive: 3 })).toBe('OFFSET_OUT_OF_RANGE');
    expect(check({ beginExclusive: 2, endInclusive: 8 }, { ledgerEnd: 10, prunedUpTo: 3 })).toBe(
      'PARTICIPANT_PRUNED_DATA_ACCESSED',
    );
    expect(check({ beginExclusive: 3, endInclusive: 8 }, { ledgerEnd: 10, prunedUpTo: 3 })).toBe('OK');
    expect(
      validateUpdatesRequest({ beginExclusive: 2, endInclusive: 2 }, acs([A]), { ledgerEnd: 10, prunedUpTo: 5 }).empty,
    ).toBe(true);
    expect(validateUpdatesRequest({ beginExclusive: 2 }, acs([A]), ledger)).toEqual({
      beginExclusive: 2,
      endInclusive: null,
      descending: false,
      empty: false,
    });
  });
  it('validates the format: empty filters, shape, package ids, party ids, nothing requested', () => {
    const tf = (shape: string, templateId?: string): UpdateFormat => ({
      includeTransactions: {
        eventFormat: {
          filtersByParty: {
            [A]: templateId
              ? { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId } } } }] }
              : {},
          },
        },
        transactionShape: shape as never,
      },
    });
    expect(check({}, ledger, tf('TRANSACTION_SHAPE_UNSPECIFIED'))).toBe('MISSING_FIELD');
    expect(check({}, ledger, tf('TRANSACTION_SHAPE_ACS_DELTA', 'abc:M:E'))).toBe('INVALID_FIELD');
    expect(check({}, ledger, tf('TRANSACTION_SHAPE_ACS_DELTA', '#abc:M:E'))).toBe('OK');
    expect(check({}, ledger, { includeReassignments: { filtersByParty: { 'bad/party': {} } } })).toBe('INVALID_FIELD');
    expect(check({}, ledger, { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } })).toBe(
      'MISSING_FIELD',
    );
    expect(check({}, ledger, {})).toBe('INVALID_ARGUMENT');
  });
});

describe('event filters (Canton FormatValidator)', () => {
  const wildcard = (blob: boolean) => ({
    cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: blob } } } }],
  });
  const template = (t: string, blob = false) => ({
    identifierFilter: { TemplateFilter: { value: { templateId: t, includeCreatedEventBlob: blob } } },
  });
  it('matches per party: wildcard, templates by package name, cumulative blobs, Empty entries, interfaces match nothing', () => {
    const f = compileEventFormat(
      {
        filtersByParty: {
          [A]: { cumulative: [template('#pkg:M:T', true), { identifierFilter: { Empty: {} } }] },
          [B]: wildcard(false),
          'carol::1': {
            cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: '#pkg:M:I' } } } }],
          },
          'dave::1': { cumulative: [{ identifierFilter: { Empty: {} } }] },
        },
      },
      NO_INTERFACES,
    );
    expect(f.match([A], 'pkg:M:T')).toEqual({ blob: true });
    expect(f.match([A], 'pkg:M:U')).toBe(false);
    expect(f.match([A, B], 'pkg:M:U')).toEqual({ blob: false });
    expect(f.match([A, B], 'pkg:M:T')).toEqual({ blob: true });
    expect(f.match(['carol::1'], 'pkg:M:T')).toBe(false);
    expect(f.match(['dave::1'], 'any:M:T')).toEqual({ blob: false });
    expect(f.match(['eve::1'], 'pkg:M:T')).toBe(false);
    expect(f.witnesses([A, 'eve::1', B])).toEqual([A, B]);
  });
  it('filtersForAnyParty: templates match whoever the stakeholders are; witnesses are all of them', () => {
    const f = compileEventFormat(
      { filtersByParty: { [A]: wildcard(true) }, filtersForAnyParty: { cumulative: [template('#pkg:M:T')] } },
      NO_INTERFACES,
    );
    expect(f.parties).toBeNull();
    expect(f.match([B], 'pkg:M:T')).toEqual({ blob: false });
    expect(f.match([B], 'pkg:M:U')).toBe(false);
    expect(f.match([A], 'pkg:M:U')).toEqual({ blob: true });
    expect(f.witnesses([A, B])).toEqual([A, B]);
  });
  it('tells whether a format has an interface filter anywhere (its reads then need the implemented interfaces)', () => {
    const iface = { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: '#pkg:M:I' } } } }] };
    expect(hasInterfaceFilters({ filtersByParty: { [A]: wildcard(false) } })).toBe(false);
    expect(hasInterfaceFilters({ filtersByParty: { [A]: wildcard(false), [B]: iface } })).toBe(true);
    expect(hasInterfaceFilters({ filtersForAnyParty: iface })).toBe(true);
    expect(hasInterfaceFilters(acs([A]))).toBe(false);
    expect(hasInterfaceFilters({ ...acs([A]), includeReassignments: { filtersByParty: { [B]: iface } } })).toBe(true);
    expect(
      hasInterfaceFilters({
        includeTransactions: {
          eventFormat: { filtersForAnyParty: iface },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      }),
    ).toBe(true);
    expect(hasInterfaceFilters(null)).toBe(false);
  });
  it('plans the read: the union of parties, or every update when one part is party-wildcard', () => {
    expect(
      compileUpdateFormat({ ...acs([B]), includeReassignments: { filtersByParty: { [A]: {} } } }, NO_INTERFACES).plan,
    ).toEqual({ parties: [A, B], kinds: ['Transaction', 'Reassignment'] });
    expect(
      compileUpdateFormat(
        { ...acs([A]), includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } } },
        NO_INTERFACES,
      ).plan,
    ).toEqual({
      parties: null,
      kinds: ['Transaction', 'TopologyTransaction'],
    });
  });
});

describe('authorization, update ids, pruning', () => {
  const claims = (rights: Claims['rights']): Claims => ({ userId: 'u', identityProviderId: '', rights });
  it('ReadAs per party, ReadAsAnyParty for filtersForAnyParty and all-party topology', () => {
    const reader = claims([{ kind: 'CanReadAs', party: A }]);
    expect(codeOf(() => authorizeUpdateFormat(reader, acs([A])))).toBe('OK');
    expect(codeOf(() => authorizeUpdateFormat(reader, acs([A, B])))).toBe('PERMISSION_DENIED');
    expect(codeOf(() => authorizeUpdateFormat(claims([{ kind: 'CanActAs', party: B }]), acs([B])))).toBe('OK');
    expect(codeOf(() => authorizeUpdateFormat(reader, { includeReassignments: { filtersForAnyParty: {} } }))).toBe(
      'PERMISSION_DENIED',
    );
    expect(
      codeOf(() =>
        authorizeUpdateFormat(reader, {
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } },
        }),
      ),
    ).toBe('PERMISSION_DENIED');
    expect(
      codeOf(() =>
        authorizeUpdateFormat(reader, {
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [A] } },
        }),
      ),
    ).toBe('OK');
    expect(
      codeOf(() =>
        authorizeUpdateFormat(claims([{ kind: 'CanReadAsAnyParty' }]), {
          includeReassignments: { filtersForAnyParty: {} },
        }),
      ),
    ).toBe('OK');
    expect(codeOf(() => authorizeUpdateFormat(claims([{ kind: 'ParticipantAdmin' }]), acs([A])))).toBe(
      'PERMISSION_DENIED',
    );
  });
  it('update ids are 1220 + 64 hex characters', () => {
    const id = '1220' + 'aB'.repeat(32);
    expect(validateUpdateId(id)).toBe(id.toLowerCase());
    expect(codeOf(() => validateUpdateId(''))).toBe('MISSING_FIELD');
    expect(codeOf(() => validateUpdateId('xyz'))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => validateUpdateId('1221' + 'ab'.repeat(32)))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => validateUpdateId('1220abab'))).toBe('INVALID_ARGUMENT');
  });
  it('pruning: positive, not beyond the ledger end, idempotent below the current offset', () => {
    expect(decidePrune({ ledgerEnd: 10, prunedUpTo: 0 }, 5)).toEqual([
      { type: 'LedgerPruned', stream: 'ledger:pruning', data: { prunedUpTo: 5 } },
    ]);
    expect(decidePrune({ ledgerEnd: 10, prunedUpTo: 5 }, 5)).toEqual([]);
    expect(codeOf(() => decidePrune({ ledgerEnd: 10, prunedUpTo: 0 }, 11))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => decidePrune({ ledgerEnd: 10, prunedUpTo: 0 }, 0))).toBe('NON_POSITIVE_OFFSET');
  });
});
