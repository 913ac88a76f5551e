import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewLedgerEvent, StoredCreatedEvent } from '@ledgerline/domain';
import { pruneLedger } from '@ledgerline/store';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import {
  ALICE,
  BOB,
  CAROL,
  created,
  reassignmentEvent,
  S1,
  S2,
  tx,
  txEvent,
  IOU_NAME,
} from '../../support/updates-scenario';
import { wsCollect } from '../../support/ws-client';

/**
 * The active contract set against a replay of the update stream: a random workload of creates, archives, unassignments
 * and assignments, then the ACS at many offsets, for several party sets and filters, must equal the set folded from
 * the updates stream up to that offset (the reference's definition: activated on a synchronizer at or before the
 * offset and not deactivated there at or before it; in-flight contracts as incomplete-unassigned entries). After
 * pruning, every offset from the pruning offset on is still exact and earlier ones are refused.
 */
const DAVE = ALICE.replace('alice', 'dave');
const PARTIES = [ALICE, BOB, CAROL, DAVE];
let ledger: TestLedger;
let stream: any[] = [];

function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

async function workload(steps: number, seed: number): Promise<void> {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const active = new Map<string, { c: StoredCreatedEvent; sync: string; counter: number }>();
  const inFlight = new Map<
    string,
    { c: StoredCreatedEvent; target: string; source: string; counter: number; rid: string }
  >();
  let n = 1000;
  for (let i = 0; i < steps; i++) {
    const roll = r();
    const events: NewLedgerEvent[] = [];
    if (roll < 0.45 || active.size === 0) {
      // one transaction creating one to three contracts
      const count = 1 + Math.floor(r() * 3);
      const sync = pick([S1, S2]);
      const cs = Array.from({ length: count }, (_, k) => {
        const sigs = [pick(PARTIES)];
        const obs = PARTIES.filter((p) => p !== sigs[0] && r() < 0.3);
        return created(n++, r() < 0.5 ? 'iou' : 'token', sigs, obs, { nodeId: k });
      });
      cs.forEach((c) => active.set(c.contractId, { c, sync, counter: 0 }));
      events.push(
        txEvent(
          `c:${n}`,
          tx(
            `create-${n}`,
            cs.map((c) => ({ CreatedEvent: c })),
            [cs[0].signatories[0]],
          ),
          [...new Set(cs.flatMap((c) => [...c.signatories, ...c.observers]))],
          sync,
        ),
      );
    } else if (roll < 0.7) {
      const [cid, a] = pick([...active.entries()]);
      active.delete(cid);
      const stakeholders = [...a.c.signatories, ...a.c.observers];
      events.push(
        txEvent(
          `x:${cid}`,
          tx(
            `archive-${n++}`,
            [
              {
                ArchivedEvent: {
                  nodeId: 0,
                  contractId: cid,
                  templateId: a.c.templateId,
                  packageName: a.c.packageName,
                  stakeholders,
                  implementedInterfaces: [],
                },
              },
            ],
            [a.c.signatories[0]],
          ),
          stakeholders,
          a.sync,
        ),
      );
    } else if (roll < 0.85) {
      const [cid, a] = pick([...active.entries()]);
      active.delete(cid);
      const target = a.sync === S1 ? S2 : S1;
      const rid = `00${(n++).toString(16).padStart(64, '0')}`;
      const stakeholders = [...a.c.signatories, ...a.c.observers];
      inFlight.set(cid, { c: a.c, source: a.sync, target, counter: a.counter + 1, rid });
      events.push(
        reassignmentEvent(
          {
            commandId: `unassign-${n}`,
            workflowId: `wf-u-${n}`,
            events: [
              {
                Unassigned: {
                  reassignmentId: rid,
                  contractId: cid,
                  templateId: a.c.templateId,
                  packageName: a.c.packageName,
                  source: a.sync,
                  target,
                  submitter: a.c.signatories[0],
                  reassignmentCounter: a.counter + 1,
                  assignmentExclusivity: null,
                  stakeholders,
                  nodeId: 0,
                },
              },
            ],
          },
          stakeholders,
          a.sync,
        ),
      );
    } else if (inFlight.size > 0) {
      const [cid, u] = pick([...inFlight.entries()]);
      inFlight.delete(cid);
      active.set(cid, { c: u.c, sync: u.target, counter: u.counter });
      const stakeholders = [...u.c.signatories, ...u.c.observers];
      events.push(
        reassignmentEvent(
          {
            commandId: `assign-${n++}`,
            workflowId: `wf-a-${n}`,
            events: [
              {
                Assigned: {
                  reassignmentId: u.rid,
                  source: u.source,
                  target: u.target,
                  submitter: u.c.signatories[0],
                  reassignmentCounter: u.counter,
                  createdEvent: { ...u.c, nodeId: 0 },
                  stakeholders,
                },
              },
            ],
          },
          stakeholders,
          u.target,
        ),
      );
    } else continue;
    // Sometimes two updates in one work (one batch), so that a create and its archive may share a write statement.
    await ledger.runtime.eventStore.append(events);
  }
}

interface Folded {
  active: Map<
    string,
    {
      createdEvent: any;
      synchronizerId: string;
      reassignmentCounter: number;
      workflowId: string;
      stakeholders: string[];
    }
  >;
  inFlight: Map<string, { createdEvent: any; unassigned: any; workflowId: string; stakeholders: string[] }>;
}

/** The snapshot at `at`, folded from the party-wildcard update stream (transactions ACS_DELTA and reassignments). */
function fold(at: number): Folded {
  const active: Folded['active'] = new Map();
  const inFlight: Folded['inFlight'] = new Map();
  for (const { update } of stream) {
    const [kind, { value: u }] = Object.entries<any>(update)[0];
    if (u.offset > at) break;
    if (kind === 'Transaction') {
      for (const e of u.events) {
        if (e.CreatedEvent) {
          const c = e.CreatedEvent;
          active.set(c.contractId, {
            createdEvent: c,
            synchronizerId: u.synchronizerId,
            reassignmentCounter: 0,
            workflowId: u.workflowId,
            stakeholders: [...c.signatories, ...c.observers],
          });
        } else if (e.ArchivedEvent) active.delete(e.ArchivedEvent.contractId);
      }
    } else if (kind === 'Reassignment') {
      for (const e of u.events) {
        if (e.JsUnassignedEvent) {
          const x = e.JsUnassignedEvent.value;
          const a = active.get(x.contractId)!;
          active.delete(x.contractId);
          inFlight.set(x.contractId, {
            createdEvent: a.createdEvent,
            unassigned: x,
            workflowId: u.workflowId,
            stakeholders: a.stakeholders,
          });
        } else {
          const x = e.JsAssignmentEvent;
          inFlight.delete(x.createdEvent.contractId);
          active.set(x.createdEvent.contractId, {
            createdEvent: x.createdEvent,
            synchronizerId: x.target,
            reassignmentCounter: x.reassignmentCounter,
            workflowId: u.workflowId,
            stakeholders: [...x.createdEvent.signatories, ...x.createdEvent.observers],
          });
        }
      }
    }
  }
  return { active, inFlight };
}

type Filter = { parties: string[] | null; template: string | null; blob: boolean };

function eventFormat(f: Filter) {
  const filters = f.template
    ? {
        cumulative: [
          {
            identifierFilter: {
              TemplateFilter: { value: { templateId: f.template, includeCreatedEventBlob: f.blob } },
            },
          },
        ],
      }
    : { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: f.blob } } } }] };
  return f.parties
    ? { filtersByParty: Object.fromEntries(f.parties.map((p) => [p, filters])), verbose: false }
    : { filtersForAnyParty: filters, verbose: false };
}

function expected(at: number, f: Filter): any[] {
  const { active, inFlight } = fold(at);
  const sees = (stakeholders: string[], c: any) =>
    (f.parties === null || stakeholders.some((p) => f.parties!.includes(p))) &&
    (f.template === null || `#${c.packageName}:${c.templateId.split(':').slice(1).join(':')}` === f.template);
  const show = (c: any, stakeholders: string[]) => ({
    ...c,
    witnessParties: f.parties === null ? stakeholders : stakeholders.filter((p) => f.parties!.includes(p)),
    createdEventBlob: f.blob ? c.createdEventBlob : '',
  });
  const entries: any[] = [];
  for (const a of [...active.values()].sort(
    (x, y) => x.createdEvent.offset - y.createdEvent.offset || x.createdEvent.nodeId - y.createdEvent.nodeId,
  )) {
    if (!sees(a.stakeholders, a.createdEvent)) continue;
    entries.push({
      workflowId: a.workflowId,
      contractEntry: {
        JsActiveContract: {
          createdEvent: show(a.createdEvent, a.stakeholders),
          synchronizerId: a.synchronizerId,
          reassignmentCounter: a.reassignmentCounter,
        },
      },
    });
  }
  for (const u of [...inFlight.values()].sort((x, y) => x.unassigned.offset - y.unassigned.offset)) {
    if (!sees(u.stakeholders, u.createdEvent)) continue;
    entries.push({
      workflowId: u.workflowId,
      contractEntry: {
        JsIncompleteUnassigned: {
          createdEvent: show(u.createdEvent, u.stakeholders),
          unassignedEvent: {
            ...u.unassigned,
            witnessParties: f.parties === null ? u.stakeholders : u.stakeholders.filter((p) => f.parties!.includes(p)),
          },
        },
      },
    });
  }
  return entries;
}

const strip = (list: any[]) =>
  list.map(({ streamContinuationToken, ...rest }) => (expect(typeof streamContinuationToken).toBe('string'), rest));

const FILTERS: Filter[] = [
  { parties: null, template: null, blob: true },
  { parties: [ALICE], template: null, blob: false },
  { parties: [BOB, CAROL], template: null, blob: true },
  { parties: [DAVE, ALICE], template: IOU_NAME, blob: false },
  { parties: null, template: IOU_NAME, blob: false },
];

async function acs(at: number, f: Filter) {
  const r = await ledger.call(
    'POST',
    '/v2/state/active-contracts',
    { activeAtOffset: at, eventFormat: eventFormat(f) },
    { as: 'reader' },
  );
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  return r.json as any[];
}

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_HTTP_LIST_MAX_ELEMENTS: '100000' });
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: 'reader' },
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
      })
    ).status,
  ).toBe(200);
  await workload(160, 7);
  const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
  const all = {
    filtersForAnyParty: {
      cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }],
    },
    verbose: false,
  };
  const r = await ledger.call(
    'POST',
    '/v2/updates',
    {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: {
        includeTransactions: { eventFormat: all, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
        includeReassignments: all,
      },
    },
    { as: 'reader' },
  );
  expect(r.status).toBe(200);
  stream = r.json;
}, 120_000);
afterAll(async () => ledger?.close());

describe('the active contract set equals a replay of the update stream', () => {
  it('at many offsets, for several party sets and filters', async () => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const offsets = [
      1,
      2,
      3,
      end,
      end - 1,
      ...Array.from({ length: 10 }, (_, i) => Math.max(1, Math.floor(((i + 1) * end) / 11))),
    ];
    let compared = 0;
    let entries = 0;
    let incomplete = 0;
    for (const at of offsets) {
      for (const f of FILTERS) {
        const want = expected(at, f);
        expect(strip(await acs(at, f)), `at ${at} ${JSON.stringify(f)}`).toEqual(want);
        compared++;
        entries += want.length;
        incomplete += want.filter((e) => e.contractEntry.JsIncompleteUnassigned).length;
      }
    }
    expect(compared).toBe(offsets.length * FILTERS.length);
    expect(entries).toBeGreaterThan(500);
    expect(incomplete).toBeGreaterThan(10);
    // the workload did leave contracts in flight, reassigned ones and archived ones
    const { inFlight, active } = fold(end);
    expect(inFlight.size).toBeGreaterThan(0);
    expect([...active.values()].some((a) => a.reassignmentCounter > 0)).toBe(true);
  }, 120_000);

  it('the WebSocket form sends the same entries as the list', async () => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    for (const f of FILTERS.slice(0, 3)) {
      const list = await acs(end, f);
      const ws = await wsCollect(ledger.url, '/v2/state/active-contracts', await ledger.token('reader'), {
        activeAtOffset: end,
        eventFormat: eventFormat(f),
      });
      expect(ws.closeCode).toBe(1000);
      expect(ws.messages).toEqual(list);
    }
  });

  it('after pruning: exact from the pruning offset on, refused below it', async () => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const pruneAt = Math.floor(end / 2);
    await pruneLedger(ledger.runtime.eventStore, pruneAt);
    for (const at of [pruneAt, pruneAt + 1, Math.floor((pruneAt + end) / 2), end]) {
      for (const f of FILTERS) expect(strip(await acs(at, f)), `at ${at}`).toEqual(expected(at, f));
    }
    const r = await ledger.call(
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: pruneAt - 1, eventFormat: eventFormat(FILTERS[0]) },
      { as: 'reader' },
    );
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('PARTICIPANT_PRUNED_DATA_ACCESSED');
    expect(r.json.cause).toBe(`Active contracts request at offset ${pruneAt - 1} precedes pruned offset ${pruneAt}`);
    expect(r.json.context.earliest_offset).toBe(String(pruneAt));
  });
});
