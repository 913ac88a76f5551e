import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_REJECTED,
  EXTERNAL_PARTY_ALLOCATED,
  IDENTITY_PROVIDER_CREATED,
  IDENTITY_PROVIDER_DELETED,
  IDENTITY_PROVIDER_UPDATED,
  isEventOf,
  isLedgerEvent,
  LEDGER_EVENT_TYPES,
  LEDGER_PRUNED,
  PACKAGE_VETTING_CHANGED,
  PACKAGES_UPLOADED,
  PARTY_ALLOCATED,
  PARTY_DETAILS_UPDATED,
  REASSIGNMENT_COMMITTED,
  TOPOLOGY_TRANSACTION_COMMITTED,
  TRANSACTION_COMMITTED,
  USER_CREATED,
  USER_DELETED,
  USER_IDENTITY_PROVIDER_CHANGED,
  USER_RIGHTS_GRANTED,
  USER_RIGHTS_REVOKED,
  USER_UPDATED,
  type CommittedEvent,
  type LedgerEventData,
  type LedgerEventType,
} from '@ledgerline/domain';
import { conflictKey, conflictsOf, partyUpdateDecider, type DB } from '@ledgerline/store';
import {
  projection,
  type KeyedUpdate,
  type ProjectionSink,
  type Table,
} from '@ledgerline/store/projections/projection';
import { applyProjections, projections, register } from '@ledgerline/store/projections/registry';

/** A sink that records what projections give it. */
function recordingSink() {
  const inserted: Array<{ table: Table; rows: readonly unknown[] }> = [];
  const updated: KeyedUpdate[] = [];
  const sink: ProjectionSink = {
    insert: (table, rows) => void inserted.push({ table, rows }),
    update: (u) => void updated.push(u),
    settle: () => undefined,
  };
  return { sink, inserted, updated };
}

/** Projections given rows only never touch the database. */
const noDatabase = {} as Kysely<DB>;

function committed<T extends LedgerEventType>(
  type: T,
  data: LedgerEventData[T],
  seq = 1,
): CommittedEvent<T, LedgerEventData[T]> {
  return { seq, type, stream: 's', data, recordedAt: '2026-01-01T00:00:00.000000Z' };
}

const allocated = committed(PARTY_ALLOCATED, {
  party: 'alice::1220aa',
  isLocal: true,
  identityProviderId: '',
  annotations: { k: 'v' },
  synchronizerId: 'sync::1220bb',
  participantId: 'p1',
});
const detailsUpdated = committed(
  PARTY_DETAILS_UPDATED,
  { party: 'alice::1220aa', annotations: {}, previousResourceVersion: 0, resourceVersion: 1 },
  2,
);

describe('LedgerEvent', () => {
  it('lists every event type of the log once, by its constant', () => {
    const constants = [
      TRANSACTION_COMMITTED,
      REASSIGNMENT_COMMITTED,
      TOPOLOGY_TRANSACTION_COMMITTED,
      COMMAND_REJECTED,
      LEDGER_PRUNED,
      PACKAGES_UPLOADED,
      PACKAGE_VETTING_CHANGED,
      PARTY_ALLOCATED,
      PARTY_DETAILS_UPDATED,
      EXTERNAL_PARTY_ALLOCATED,
      USER_CREATED,
      USER_RIGHTS_GRANTED,
      USER_RIGHTS_REVOKED,
      USER_UPDATED,
      USER_IDENTITY_PROVIDER_CHANGED,
      USER_DELETED,
      IDENTITY_PROVIDER_CREATED,
      IDENTITY_PROVIDER_UPDATED,
      IDENTITY_PROVIDER_DELETED,
    ];
    expect([...LEDGER_EVENT_TYPES].sort()).toEqual([...constants].sort());
    expect(new Set(LEDGER_EVENT_TYPES).size).toBe(LEDGER_EVENT_TYPES.length);
  });

  it('tells a logged event type from any other, and an event of given types from the rest', () => {
    expect(isLedgerEvent(allocated)).toBe(true);
    expect(isLedgerEvent({ ...allocated, type: 'TestUpdate' })).toBe(false);
    expect(isEventOf(allocated, [PARTY_ALLOCATED, PARTY_DETAILS_UPDATED])).toBe(true);
    expect(isEventOf(allocated, [PARTY_DETAILS_UPDATED])).toBe(false);
  });

  it('every registered projection handles event types of the log (or every event)', () => {
    for (const p of projections) {
      if (p.handles === '*') continue;
      for (const t of p.handles) expect(LEDGER_EVENT_TYPES).toContain(t);
    }
    expect(projections.filter((p) => p.handles === '*').map((p) => p.name)).toEqual(['ledger-updates']);
  });
});

describe('projection routing', () => {
  const seen: string[] = [];
  const probe = register(
    projection({
      name: 'probe',
      tables: ['party_details'],
      handles: [PARTY_ALLOCATED, PARTY_DETAILS_UPDATED],
      rows(event) {
        // the event arrives narrowed: each branch reads its own type's data
        seen.push(
          event.type === PARTY_ALLOCATED
            ? `allocated ${event.data.party} on ${event.data.synchronizerId}`
            : `updated to ${event.data.resourceVersion}`,
        );
        return {};
      },
    }),
  );

  it('hands a projection the events of its types only', async () => {
    const { sink } = recordingSink();
    await probe.run(noDatabase, allocated, sink);
    await probe.run(noDatabase, detailsUpdated, sink);
    await probe.run(noDatabase, committed(LEDGER_PRUNED, { prunedUpTo: 3 }), sink);
    await probe.run(noDatabase, { ...allocated, type: 'TestUpdate' }, sink);
    expect(seen).toEqual(['allocated alice::1220aa on sync::1220bb', 'updated to 1']);
  });

  it("the registry routes a party's events to the parties projection, with their data", async () => {
    const a = recordingSink();
    await applyProjections(noDatabase, allocated, a.sink);
    expect(a.inserted).toEqual([
      {
        table: 'party_details',
        rows: [
          {
            party: 'alice::1220aa',
            is_local: true,
            identity_provider_id: '',
            annotations: '{"k":"v"}',
            resource_version: 0,
            synchronizer_id: 'sync::1220bb',
            allocated_seq: 1,
          },
        ],
      },
    ]);
    expect(a.updated).toEqual([]);

    const u = recordingSink();
    await applyProjections(noDatabase, detailsUpdated, u.sink);
    expect(u.inserted).toEqual([]);
    expect(u.updated).toEqual([
      {
        table: 'party_details',
        key: { column: 'party', value: 'alice::1220aa' },
        set: { annotations: '{}', resource_version: 1 },
        expect: { column: 'resource_version', value: 0 },
      },
    ]);
  });
});

describe('conflict keys', () => {
  it('render as <namespace>:<id>, the string form the writer compares', () => {
    expect(conflictKey('party', 'alice::1220aa')).toBe('party:alice::1220aa');
    expect(conflictKey('assignments', 'any')).toBe('assignments:any');
    const { reads, writes } = conflictsOf(partyUpdateDecider.conflicts, {
      party: 'alice::1220aa',
      identityProviderId: 'idp1',
    });
    expect(reads).toEqual([conflictKey('party', 'alice::1220aa'), conflictKey('idp', 'idp1')]);
    expect(writes).toEqual(['party:alice::1220aa']);
  });
});
