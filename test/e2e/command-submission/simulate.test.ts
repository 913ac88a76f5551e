import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { ledgerEnd, startTestLedger, type TestLedger } from '../../support/ledger';
import { EXCEPTIONS_PACKAGE_SRC } from '../../support/exceptions-package';

/**
 * Dry runs (POST /v2/commands/simulate, docs/using-the-api.md "Dry runs"): the submission's own path on a read-only view
 * of the ledger. A dry run answers what the real submission then does — the same events, or the same error — and leaves
 * the ledger end, command deduplication and the streams as they were; `atOffset` reads contracts as of that offset.
 */
let ledger: TestLedger;
let alice: string;
let bob: string;
let noteId: string;
let offerId: string;
let n = 0;

const wildcard = {
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }],
};
const format = () => ({
  eventFormat: { filtersByParty: { [alice]: wildcard, [bob]: wildcard }, verbose: true },
  transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
});
const body = (cmd: unknown, commandId = `sim-${n++}`, actAs = [alice]) => ({
  commands: { commands: [cmd], commandId, actAs },
  transactionFormat: format(),
});
const createNote = (k: number) => ({
  CreateCommand: { templateId: noteId, createArguments: { owner: alice, n: String(k) } },
});
const createOffer = (note: string) => ({
  CreateCommand: { templateId: offerId, createArguments: { owner: alice, note } },
});
const exercise = (templateId: string, contractId: string, choice: string, choiceArgument: unknown) => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument },
});
const simulate = (b: unknown, as = 'app') => ledger.call('POST', '/v2/commands/simulate', b, { as });
const submit = (b: unknown) => ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', b, { as: 'app' });

/** Contract ids → their order of first appearance; what differs between two commits of one command is dropped. */
function normalised(tx: unknown): unknown {
  const ids = new Map<string, string>();
  const walk = (v: unknown, key = ''): unknown => {
    if (typeof v === 'string') {
      if (/^00[0-9a-f]{64}/.test(v)) {
        if (!ids.has(v)) ids.set(v, `cid#${ids.size}`);
        return ids.get(v);
      }
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(
            ([k]) =>
              ![
                'offset',
                'updateId',
                'recordTime',
                'effectiveAt',
                'createdAt',
                'createdEventBlob',
                'traceContext',
              ].includes(k),
          )
          .map(([k, x]) => [k, walk(x, k)]),
      );
    void key;
    return v;
  };
  return walk(tx);
}

beforeAll(async () => {
  ledger = await startTestLedger();
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const party = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await party('alice');
  bob = await party('bob');
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app' },
    rights: [alice, bob].flatMap((p) => [
      { kind: { CanActAs: { value: { party: p } } } },
      { kind: { CanReadAs: { value: { party: p } } } },
    ]),
  });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'reader' },
    rights: [{ kind: { CanReadAs: { value: { party: alice } } } }],
  });
  const { dar, main } = await encodeDar(parsePackage(EXCEPTIONS_PACKAGE_SRC, { minor: '2' }));
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar,
  });
  expect(up.status, await up.text()).toBe(200);
  noteId = `${main.packageId}:Ex:Note`;
  offerId = `${main.packageId}:Ex:Offer`;
});
afterAll(async () => {
  await ledger?.close();
});

/** Commits `cmd` and returns the created contract's id (the first created event). */
async function created(cmd: unknown): Promise<string> {
  const r = await submit(body(cmd));
  expect(r.status, r.text).toBe(200);
  const e = (r.json.transaction.events as Array<Record<string, { contractId: string }>>).find((x) => x.CreatedEvent);
  return e!.CreatedEvent.contractId;
}

describe('a dry run', () => {
  it('answers the transaction, its contracts and the engine’s steps, and commits nothing', async () => {
    const offer = await created(createOffer('hello'));
    const end = await ledgerEnd(ledger);
    const b = body(exercise(offerId, offer, 'Take', { taker: alice }));
    const r = await simulate(b);
    expect(r.status, r.text).toBe(200);
    expect(r.json.offset).toBe(end);
    expect(r.json.engineSteps).toBeGreaterThan(0);
    const events = r.json.transaction.events as Array<Record<string, any>>;
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['ExercisedEvent', 'CreatedEvent']);
    expect(events[0].ExercisedEvent).toMatchObject({
      contractId: offer,
      choice: 'Take',
      consuming: true,
      offset: end + 1,
    });
    const note = events[1].CreatedEvent.contractId as string;
    expect(r.json.contracts).toEqual({ read: [], created: [note], archived: [offer] });
    expect(await ledgerEnd(ledger)).toBe(end);
    // Nothing committed: the contract is still active, the note unknown.
    const acs = await ledger.call(
      'POST',
      '/v2/state/active-contracts',
      { eventFormat: { filtersByParty: { [alice]: wildcard }, verbose: false }, activeAtOffset: end },
      { as: 'app' },
    );
    const active = (acs.json as Array<any>).map((x) => x.contractEntry.JsActiveContract.createdEvent.contractId);
    expect(active).toContain(offer);
    expect(active).not.toContain(note);
    // No completion, no update: the completion stream from the end shows none of it.
    const list = await ledger.call(
      'POST',
      '/v2/commands/completions?stream_idle_timeout_ms=100',
      { parties: [alice], beginExclusive: end },
      { as: 'app' },
    );
    expect(list.status, list.text).toBe(200);
    expect(JSON.stringify(list.json)).not.toContain(b.commands.commandId);
    // The command id is not consumed: the real submission commits; a dry run of the same command is then a duplicate.
    const real = await submit(b);
    expect(real.status, real.text).toBe(200);
    const c = body(createNote(7));
    expect((await simulate(c)).json.transaction).toBeDefined();
    expect((await submit(c)).status).toBe(200);
    const again = await simulate(c);
    expect(again.status, again.text).toBe(200);
    expect(again.json.status).toBe(409);
    expect(again.json.error.code).toBe('DUPLICATE_COMMAND');
  });

  it('a failed exercise: 200 with the submission’s status, its JsCantonError and the exercise trace', async () => {
    const note = await created(createNote(1));
    const end = await ledgerEnd(ledger);
    const b = body(exercise(noteId, note, 'Unhandled', {}));
    const r = await simulate(b);
    expect(r.status, r.text).toBe(200);
    const real = await submit(b);
    expect(r.json).toMatchObject({ offset: end, status: real.status });
    expect(r.json.error.code).toBe('DAML_FAILURE');
    expect(r.json.error.code).toBe(real.json.code);
    expect(r.json.error.cause).toBe(real.json.cause);
    expect(r.json.engineSteps).toBeGreaterThan(0);
    expect(r.json.exerciseTrace).toContain(`Ex:Note:Unhandled on contract ${note.slice(0, 10)}`);
    expect(r.json.exerciseTrace).toBe(real.json.context.exercise_trace);
  });

  it('errors before interpretation are the request’s own: decoding, rights, validation, the offset', async () => {
    const end = await ledgerEnd(ledger);
    let r = await simulate({ commands: { commands: [createNote(1)], actAs: [alice] } });
    expect(r.status).toBe(400);
    r = await simulate(body(createNote(1)), 'reader');
    expect(r.status).toBe(403);
    r = await simulate(body(createNote(1), 'bad command id!'));
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_FIELD']);
    r = await simulate({ ...body(createNote(1)), atOffset: -1 });
    expect([r.status, r.json.code]).toEqual([400, 'NEGATIVE_OFFSET']);
    r = await simulate({ ...body(createNote(1)), atOffset: end + 5 });
    expect(r.json.code).toBe('OFFSET_AFTER_LEDGER_END');
    expect(await ledgerEnd(ledger)).toBe(end);
  });

  it('atOffset: contracts as of that offset', async () => {
    const before = await ledgerEnd(ledger);
    const offer = await created(createOffer('then'));
    const createdAt = await ledgerEnd(ledger);
    const take = () => body(exercise(offerId, offer, 'Take', { taker: alice }));
    // Before its creation the offer is unknown.
    let r = await simulate({ ...take(), atOffset: before });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ offset: before, error: { code: 'CONTRACT_NOT_FOUND' } });
    expect((await submit(take())).status).toBe(200);
    // Taken now; as of its creation, it could still be taken.
    r = await simulate(take());
    expect(r.json.error.code).toBe('CONTRACT_NOT_FOUND');
    r = await simulate({ ...take(), atOffset: createdAt });
    expect(r.status, r.text).toBe(200);
    expect(r.json.offset).toBe(createdAt);
    expect(r.json.contracts.archived).toEqual([offer]);
    expect(r.json.transaction.events[0].ExercisedEvent.offset).toBe(createdAt + 1);
  });

  it('a dry run then the real submission: the same events or the same failure (generated workloads)', async () => {
    type Op =
      | { kind: 'note'; k: number }
      | { kind: 'offer' }
      | { kind: 'choice'; choice: string; target: number }
      | { kind: 'take'; target: number; taker: 'alice' | 'bob' }
      | { kind: 'look'; target: number }
      | { kind: 'repeat'; target: number }
      | { kind: 'unknown' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('note' as const), k: fc.integer({ min: -5, max: 5 }) }),
      fc.record({ kind: fc.constant('offer' as const) }),
      fc.record({
        kind: fc.constant('choice' as const),
        choice: fc.constantFrom('Nested', 'Leading', 'Empty', 'Unhandled', 'Status', 'Deep'),
        target: fc.nat(),
      }),
      fc.record({
        kind: fc.constant('take' as const),
        target: fc.nat(),
        taker: fc.constantFrom('alice' as const, 'bob' as const),
      }),
      fc.record({ kind: fc.constant('look' as const), target: fc.nat() }),
      fc.record({ kind: fc.constant('repeat' as const), target: fc.nat() }),
      fc.record({ kind: fc.constant('unknown' as const) }),
    );
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 8 }), async (ops) => {
        runs++;
        const notes: string[] = [];
        const offers: string[] = [];
        const bodies: unknown[] = [];
        for (const o of ops) {
          let b;
          const pick = (xs: string[], i: number) => xs[i % Math.max(xs.length, 1)];
          if (o.kind === 'note') b = body(createNote(o.k));
          else if (o.kind === 'offer') b = body(createOffer(`offer ${n}`));
          else if (o.kind === 'choice' && notes.length) b = body(exercise(noteId, pick(notes, o.target), o.choice, {}));
          else if (o.kind === 'take' && offers.length) {
            const taker = o.taker === 'alice' ? alice : bob;
            b = body(exercise(offerId, pick(offers, o.target), 'Take', { taker }), undefined, [taker]);
          } else if (o.kind === 'look' && offers.length)
            b = body(exercise(offerId, pick(offers, o.target), 'Look', { taker: bob }), undefined, [bob]);
          else if (o.kind === 'repeat' && bodies.length) b = bodies[o.target % bodies.length];
          else if (o.kind === 'unknown')
            b = body(exercise(noteId, `00${'ab'.repeat(32)}ca12${'cd'.repeat(34)}`, 'Empty', {}));
          else b = body(createNote(0));
          bodies.push(b);
          const end = await ledgerEnd(ledger);
          const dry = await simulate(b);
          expect(dry.status, dry.text).toBe(200);
          expect(await ledgerEnd(ledger)).toBe(end);
          const real = await submit(b);
          if (dry.json.transaction) {
            expect(real.status, `${JSON.stringify(o)}: ${real.text.slice(0, 300)}`).toBe(200);
            expect(normalised(dry.json.transaction)).toEqual(normalised(real.json.transaction));
            expect(dry.json.transaction.offset).toBe(end + 1);
            for (const e of real.json.transaction.events as Array<Record<string, any>>) {
              const c = e.CreatedEvent;
              if (c?.templateId === noteId) notes.push(c.contractId);
              if (c?.templateId === offerId) offers.push(c.contractId);
            }
          } else {
            expect([real.status, real.json.code], `${JSON.stringify(o)}: ${dry.text.slice(0, 300)}`).toEqual([
              dry.json.status,
              dry.json.error.code,
            ]);
          }
        }
      }),
      { numRuns: 12, seed: 52052, endOnFailure: true },
    );
    expect(runs).toBe(12);
  }, 600_000);
});
