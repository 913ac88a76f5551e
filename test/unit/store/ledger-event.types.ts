/**
 * Compile-time checks of the event and conflict-key typing: every `@ts-expect-error` line must fail to compile, which
 * `npm run typecheck` verifies (an unused directive is an error). Nothing here runs.
 */
import {
  LEDGER_PRUNED,
  PARTY_ALLOCATED,
  PARTY_DETAILS_UPDATED,
  type CommittedEvent,
  type LedgerEvent,
  type LedgerEventOf,
  type NewLedgerEvent,
  type PartyDetailsUpdatedData,
} from '@ledgerline/domain';
import {
  changes,
  conflictKey,
  decision,
  reads,
  type ConflictKey,
  type Decision,
  type EventStore,
} from '@ledgerline/store';
import { projection } from '@ledgerline/store/projections/projection';

const NO_ROWS = {};

// A projection receives the events of the types it handles, narrowed by `type`.
export const narrowed = projection({
  name: 'narrowed',
  tables: [],
  handles: [PARTY_ALLOCATED, LEDGER_PRUNED],
  rows(event) {
    if (event.type === LEDGER_PRUNED) {
      const upTo: number = event.data.prunedUpTo;
      // @ts-expect-error a LedgerPruned event has no party
      void event.data.party;
      void upTo;
      return NO_ROWS;
    }
    const party: string = event.data.party;
    void party;
    return NO_ROWS;
  },
});

// A type the log does not hold.
// @ts-expect-error 'PartyRenamed' is no LedgerEvent type
export const unknownType = projection({ name: 'x', tables: [], handles: ['PartyRenamed'], rows: () => NO_ROWS });

// A function that accepts only some of the events the projection names.
export const partialHandler = projection({
  name: 'x',
  tables: [],
  // @ts-expect-error its function does not accept PartyDetailsUpdated events (the compiler reports it on `handles`)
  handles: [PARTY_ALLOCATED, PARTY_DETAILS_UPDATED],
  rows: (event: LedgerEventOf<typeof PARTY_ALLOCATED>) => (event.data.party ? NO_ROWS : NO_ROWS),
});

// A function that takes the data of another event type.
export const wrongData = projection({
  name: 'x',
  tables: [],
  handles: [PARTY_ALLOCATED],
  // @ts-expect-error a PartyAllocated event's data is not PartyDetailsUpdatedData
  apply: async (_db, event: CommittedEvent<typeof PARTY_ALLOCATED, PartyDetailsUpdatedData>) =>
    void event.data.resourceVersion,
});

// An event's data goes with its type, in the union and in new events.
export const logged: LedgerEvent = {
  seq: 1,
  type: LEDGER_PRUNED,
  stream: 'ledger:pruning',
  data: { prunedUpTo: 5 },
  recordedAt: '',
};
export const misfiled: LedgerEvent = {
  seq: 1,
  type: LEDGER_PRUNED,
  stream: 'ledger:pruning',
  // @ts-expect-error LedgerPruned data is { prunedUpTo }
  data: { party: 'a' },
  recordedAt: '',
};
// @ts-expect-error not an event type of the log
export const stray: NewLedgerEvent = { type: 'TestUpdate', stream: 's', data: {} };

// Conflict keys: the namespace is one of the writer's.
export const key: ConflictKey = conflictKey('contract', '00ab');
export const declared = [reads('idp'), changes('party'), reads('assignments', (id: string) => (id ? 'any' : []))];
// @ts-expect-error 'parties' is no conflict namespace
export const typoRead = reads('parties');
// @ts-expect-error 'contracts' is no conflict namespace
export const typoChange = changes('contracts');
// @ts-expect-error 'idps' is no conflict namespace
export const typoKey = conflictKey('idps', 'x');
// @ts-expect-error a conflict key is <namespace>:<id>
export const unnamespaced: ConflictKey = 'alice::1220aa';

// The write boundary takes only the log's events: a decision's events and `append`.
declare const store: EventStore;
export const appended = store.append([{ type: LEDGER_PRUNED, stream: 'ledger:pruning', data: { prunedUpTo: 5 } }]);
// @ts-expect-error 'TestUpdate' is no event type of the log
export const appendedStray = store.append([{ type: 'TestUpdate', stream: 's', data: {} }]);
// @ts-expect-error a PartyAllocated event's data is PartyAllocatedData
export const appendedMisfiled = store.append([{ type: PARTY_ALLOCATED, stream: 'party:a', data: { prunedUpTo: 5 } }]);
export const decided: Decision<number> = decision([{ type: LEDGER_PRUNED, stream: 'p', data: { prunedUpTo: 1 } }], 1);
// @ts-expect-error 'PartyRenamed' is no event type of the log
export const decidedStray: Decision<number> = decision([{ type: 'PartyRenamed', stream: 'p', data: {} }], 1);
export const decidedMisfiled: Decision<number> = {
  // @ts-expect-error LedgerPruned data is { prunedUpTo }
  events: [{ type: LEDGER_PRUNED, stream: 'p', data: { party: 'a' } }],
  answer: () => 1,
};
