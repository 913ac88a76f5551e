import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMicros, parseIsoMicros } from '@ledgerline/domain';
import { moveLedgerTime } from '@ledgerline/server/infrastructure/ledger-time';
import { ledgerClockFor } from '@ledgerline/server/infrastructure/runtime';
import { allocateLocalParties, createContract, partyId } from '../../support/contracts';
import { startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * Static-time mode: the ledger's clock moves only when told (POST /v2/admin/time, ledgerctl), never backwards, is kept
 * in the database, and every rule that reads time obeys it: deduplication windows, time bounds, assignment exclusivity,
 * record times.
 */
const START = '2030-01-01T00:00:00Z';
let ledger: TestLedger;
let sync: string;
let alice: string;
const reassignAlice = partyId('ra');
const reassignBob = partyId('rb');
let n = 0;
const cmdId = () => `static-${n++}`;

const now = async () => (await ledger.call('GET', '/v2/admin/time')).json.currentTime as string;
const setTime = (body: unknown, as?: string) => ledger.call('POST', '/v2/admin/time', body, { as });
const advance = (seconds: number) => setTime({ advanceBy: { seconds } });
const create = (commandId: string, extra: Record<string, unknown> = {}) =>
  ledger.call(
    'POST',
    '/v2/commands/submit-and-wait-for-transaction',
    {
      commands: {
        commands: [{ CreateCommand: { templateId: '#memo:Main:Memo', createArguments: { owner: alice } } }],
        commandId,
        actAs: [alice],
        ...extra,
      },
    },
    { as: 'app' },
  );

beforeAll(async () => {
  ledger = await startTestLedger({
    LEDGER_TIME_MODE: 'static',
    LEDGER_STATIC_TIME_START: START,
    LEDGER_ASSIGNMENT_EXCLUSIVITY_TIMEOUT_MS: '60000',
    LEDGER_SYNCHRONIZERS: 'global,secondary',
  });
  [sync] = ledger.runtime.identity.synchronizers.map((s) => s.id);
  const local = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await local('alice');
  await allocateLocalParties(ledger.runtime.eventStore, [reassignAlice, reassignBob], ledger.participantId, sync);
  const act = (party: string) => ({ kind: { CanActAs: { value: { party } } } });
  for (const [id, rights] of [
    ['app', [act(alice)]],
    ['ra', [act(reassignAlice)]],
    ['rb', [act(reassignBob)]],
  ] as const) {
    expect((await ledger.call('POST', '/v2/users', { user: { id }, rights })).status).toBe(200);
  }
});
afterAll(async () => {
  await ledger?.close();
});

describe('the clock', () => {
  it('starts at LEDGER_STATIC_TIME_START, stands still, and /v2/version reports staticTime supported', async () => {
    expect(await now()).toBe('2030-01-01T00:00:00.000000Z');
    const version = (await ledger.call('GET', '/v2/version')).json;
    expect(version.features.experimental.staticTime).toEqual({ supported: true });
    const t = await now();
    await new Promise((r) => setTimeout(r, 20));
    expect(await now()).toBe(t);
  });

  it('moves forwards when told; backwards is refused with INVALID_ARGUMENT and changes nothing', async () => {
    const t0 = parseIsoMicros(await now());
    const moved = await setTime({ newTime: isoMicros(t0 + 5_000_000n) });
    expect([moved.status, moved.json]).toEqual([200, { currentTime: isoMicros(t0 + 5_000_000n), mode: 'static' }]);
    const back = await setTime({ newTime: isoMicros(t0) });
    expect([back.status, back.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(back.json.cause).toBe(
      `The submitted request has invalid arguments: new_time [${isoMicros(t0)}] is before current_time [${isoMicros(t0 + 5_000_000n)}]. Setting time backwards is not allowed.`,
    );
    expect(await now()).toBe(isoMicros(t0 + 5_000_000n));
    // Canton's compare-and-set: a stale currentTime is refused.
    const stale = await setTime({ currentTime: isoMicros(t0), newTime: isoMicros(t0 + 9_000_000n) });
    expect([stale.status, stale.json.code, stale.json.cause]).toEqual([
      400,
      'INVALID_ARGUMENT',
      expect.stringContaining('current_time mismatch'),
    ]);
    const adv = await advance(60);
    expect(adv.json.currentTime).toBe(isoMicros(t0 + 65_000_000n));
    // Malformed requests and non-admins change nothing.
    for (const body of [
      {},
      { newTime: 'tomorrow' },
      { newTime: isoMicros(t0), advanceBy: { seconds: 1 } },
      { advanceBy: { seconds: -1 } },
    ]) {
      expect((await setTime(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await setTime({ advanceBy: { seconds: 1 } }, 'app')).status).toBe(403);
    expect((await ledger.call('GET', '/v2/admin/time', undefined, { as: 'app' })).status).toBe(403);
    expect(await now()).toBe(isoMicros(t0 + 65_000_000n));
  });

  it('record times are the static time (strictly increasing by a microsecond at most)', async () => {
    const t = parseIsoMicros(await now());
    const r = await create(cmdId());
    expect(r.status, r.text).toBe(200);
    const recorded = parseIsoMicros(r.json.transaction.recordTime);
    expect(recorded >= t && recorded <= t + 10n).toBe(true);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBe(t);
  });

  it('is stored: a restart reads it back; another process (ledgerctl) moving it reaches the server', async () => {
    const t = parseIsoMicros(await now());
    const reread = await ledgerClockFor({ timeMode: 'static', staticTimeStart: 0n }, ledger.runtime.database);
    expect(reread.nowMicros()).toBe(t);
    // What ledgerctl does: move the stored time without this process's clock; the server follows via NOTIFY.
    await moveLedgerTime(ledger.runtime.db, null, { advanceByMicros: 3_600_000_000n });
    const target = isoMicros(t + 3_600_000_000n);
    const deadline = Date.now() + 5000;
    while ((await now()) !== target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await now()).toBe(target);
    await expect(moveLedgerTime(ledger.runtime.db, null, { newTime: t })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('rules that read time obey the set clock', () => {
  it('deduplication: the window is measured on the ledger clock', async () => {
    const commandId = cmdId();
    const dedup = { deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600 } } } };
    expect((await create(commandId, dedup)).status).toBe(200);
    expect((await create(commandId, dedup)).json.code).toBe('DUPLICATE_COMMAND');
    await advance(599);
    expect((await create(commandId, dedup)).json.code).toBe('DUPLICATE_COMMAND');
    await advance(2);
    const again = await create(commandId, dedup);
    expect(again.status, again.text).toBe(200);
  });

  it('time bounds: a minimum ledger time beyond the tolerance is out of bound until the clock reaches it', async () => {
    const t = parseIsoMicros(await now());
    const minLedgerTimeAbs = isoMicros(t + 120_000_000n); // tolerance: 60 s
    const early = await create(cmdId(), { minLedgerTimeAbs });
    expect([early.status, early.json.code]).toEqual([409, 'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND']);
    await advance(61);
    const ok = await create(cmdId(), { minLedgerTimeAbs });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.transaction.effectiveAt).toBe(minLedgerTimeAbs);
  });

  it('assignment exclusivity: only the submitter may assign until the clock passes the deadline', async () => {
    const [A, B] = ledger.runtime.identity.synchronizers.map((s) => s.id);
    const c = await createContract(ledger.runtime.eventStore, {
      seed: 'static-exclusive',
      signatories: [reassignAlice],
      observers: [reassignBob],
      synchronizerId: A,
    });
    const body = (command: unknown, submitter: string) => ({
      reassignmentCommands: { commandId: cmdId(), submitter, commands: [{ command }] },
      eventFormat: { filtersByParty: { [submitter]: { cumulative: [] } } },
    });
    const un = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-reassignment',
      body({ UnassignCommand: { value: { contractId: c.contractId, source: A, target: B } } }, reassignAlice),
      { as: 'ra' },
    );
    expect(un.status, un.text).toBe(200);
    const u = un.json.reassignment.events[0].JsUnassignedEvent.value;
    expect(u.assignmentExclusivity).toBe(isoMicros(parseIsoMicros(await now()) + 60_000_000n));
    const assign = () =>
      ledger.call(
        'POST',
        '/v2/commands/submit-and-wait-for-reassignment',
        body({ AssignCommand: { value: { reassignmentId: u.reassignmentId, source: A, target: B } } }, reassignBob),
        { as: 'rb' },
      );
    await advance(59);
    const early = await assign();
    expect([early.status, early.json.cause]).toEqual([
      400,
      expect.stringContaining('only submitter can initiate before exclusivity timeout'),
    ]);
    await advance(2);
    const late = await assign();
    expect(late.status, late.text).toBe(200);
  });
});

describe('wall-clock mode (the default)', () => {
  it('reports staticTime unsupported and refuses to set the time', async () => {
    const wall = await startTestLedger();
    try {
      expect((await wall.call('GET', '/v2/version')).json.features.experimental.staticTime).toEqual({
        supported: false,
      });
      const r = await wall.call('POST', '/v2/admin/time', { advanceBy: { seconds: 1 } });
      expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
      const t = parseIsoMicros((await wall.call('GET', '/v2/admin/time')).json.currentTime);
      expect(Number(t / 1000n)).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      await wall.close();
    }
  });
});
