import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { isoMicros, parseIsoMicros } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer } from '../../support/external-party';

/**
 * Ledger time on the Daml engine: commands run at the ledger effective time the request asks for (now, raised to
 * minLedgerTimeAbs, or now + minLedgerTimeRel); `getTime` reads it and the committed transaction is effective at it; never
 * before its input contracts were created (a choice that read the time runs again at their creation time);
 * prepare records the bounds the time reads impose in the prepared metadata; an endless choice is aborted with
 * INTERPRETATION_TIME_EXCEEDED (the step limit, and the time limit past the ledger effective time).
 */
const TIMED = `
metadata ( 'timed' : '1.0.0' )
module Timed {
  record @serializable Clock = { owner: Party } ;
  record @serializable Stamped = { owner: Party, at: Timestamp } ;
  record @serializable Until = { deadline: Timestamp } ;
  record @serializable Go = {} ;
  template (this : Stamped) = {
    precondition True;
    signatories Cons @Party [Timed:Stamped {owner} this] (Nil @Party);
    observers Nil @Party;
  } ;
  template (this : Clock) = {
    precondition True;
    signatories Cons @Party [Timed:Clock {owner} this] (Nil @Party);
    observers Nil @Party;
    choice @nonConsuming Stamp (self) (arg: Timed:Go) : ContractId Timed:Stamped
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to ubind now : Timestamp <- uget_time
         in create @Timed:Stamped (Timed:Stamped { owner = Timed:Clock {owner} this, at = now }) ;
    choice @nonConsuming Before (self) (arg: Timed:Until) : Bool
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to ledger_time_lt (Timed:Until {deadline} arg) ;
    choice @nonConsuming Idle (self) (arg: Timed:Go) : Unit
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to upure @Unit () ;
    choice @nonConsuming Loop (self) (arg: Timed:Go) : Int64
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to upure @Int64 (Timed:forever 0) ;
  } ;
  val forever: Int64 -> Int64 = \\(n: Int64) -> Timed:forever (ADD_INT64 n 1) ;
}
`;
const CLOCK = '#timed:Timed:Clock';
const START = '2030-01-01T00:00:00Z';
const MAX_STEPS = 200_000;

interface Setup {
  ledger: TestLedger;
  alice: string;
}

async function start(env: Record<string, string>): Promise<Setup> {
  const ledger = await startTestLedger(env);
  const sync = await defaultSynchronizer(ledger);
  const alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json
    .partyDetails.party as string;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }, { kind: { CanReadAs: { value: { party: alice } } } }],
  });
  const { dar } = await encodeDar(parsePackage(TIMED, { minor: '1' }));
  const res = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar,
  });
  expect(res.status, await res.text()).toBe(200);
  return { ledger, alice };
}

let n = 0;
const commandId = () => `timed-${n++}`;
const createAndExercise = (owner: string, choice: string, choiceArgument: unknown = {}) => ({
  CreateAndExerciseCommand: { templateId: CLOCK, createArguments: { owner }, choice, choiceArgument },
});
const submit = (s: Setup, cmds: unknown[], over: Record<string, unknown> = {}) =>
  s.ledger.call(
    'POST',
    '/v2/commands/submit-and-wait-for-transaction',
    { commands: { commands: cmds, commandId: commandId(), actAs: [s.alice], ...over } },
    { as: 'app' },
  );

/** The `at` of the transaction's Stamped contract (µs). */
function stampedAt(tx: { events: Array<Record<string, any>> }): bigint {
  const created = tx.events
    .map((e) => e.CreatedEvent)
    .find((c) => c && String(c.templateId).endsWith(':Timed:Stamped'));
  expect(created).toBeDefined();
  return parseIsoMicros(created.createArgument.at as string);
}

describe('ledger time on the engine (static time)', () => {
  let s: Setup;
  let clockId: string;
  const now = parseIsoMicros(START);

  beforeAll(async () => {
    s = await start({
      LEDGER_TIME_MODE: 'static',
      LEDGER_STATIC_TIME_START: START,
      LEDGER_INTERPRETATION_MAX_STEPS: String(MAX_STEPS),
    });
    const r = await submit(s, [{ CreateCommand: { templateId: CLOCK, createArguments: { owner: s.alice } } }]);
    expect(r.status, r.text).toBe(200);
    clockId = r.json.transaction.events[0].CreatedEvent.contractId;
  });
  afterAll(async () => {
    await s?.ledger.close();
  });

  it('getTime reads the ledger effective time the transaction commits with', async () => {
    const r = await submit(s, [createAndExercise(s.alice, 'Stamp')]);
    expect(r.status, r.text).toBe(200);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBe(now);
    expect(stampedAt(r.json.transaction)).toBe(now);
  });

  it('minLedgerTimeAbs: getTime reads it and the transaction is effective at it', async () => {
    const abs = now + 30_000_000n; // within the 60 s ledger time tolerance
    const r = await submit(s, [createAndExercise(s.alice, 'Stamp')], { minLedgerTimeAbs: isoMicros(abs) });
    expect(r.status, r.text).toBe(200);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBe(abs);
    expect(stampedAt(r.json.transaction)).toBe(abs);
  });

  it('minLedgerTimeRel: getTime reads now + the duration, the effective time of the transaction', async () => {
    const r = await submit(s, [createAndExercise(s.alice, 'Stamp')], { minLedgerTimeRel: { seconds: 10 } });
    expect(r.status, r.text).toBe(200);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBe(now + 10_000_000n);
    expect(stampedAt(r.json.transaction)).toBe(now + 10_000_000n);
  });

  it('a ledger time comparison commits with an effective time on the side it answered', async () => {
    const deadline = now + 3_600_000_000n;
    const r = await submit(s, [createAndExercise(s.alice, 'Before', { deadline: isoMicros(deadline) })]);
    expect(r.status, r.text).toBe(200);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBeLessThan(deadline);
  });

  it('a contract created later than now: a choice reading no time commits at its creation time, one reading it runs at it', async () => {
    const created = now + 40_000_000n;
    const c = await submit(s, [{ CreateCommand: { templateId: CLOCK, createArguments: { owner: s.alice } } }], {
      minLedgerTimeAbs: isoMicros(created),
    });
    expect(c.status, c.text).toBe(200);
    const contractId = c.json.transaction.events[0].CreatedEvent.contractId as string;
    const exercise = (choice: string) =>
      submit(s, [{ ExerciseCommand: { templateId: CLOCK, contractId, choice, choiceArgument: {} } }]);
    const idle = await exercise('Idle');
    expect(idle.status, idle.text).toBe(200);
    expect(parseIsoMicros(idle.json.transaction.effectiveAt)).toBe(created);
    const stamp = await exercise('Stamp');
    expect(stamp.status, stamp.text).toBe(200);
    expect(parseIsoMicros(stamp.json.transaction.effectiveAt)).toBe(created);
    expect(stampedAt(stamp.json.transaction)).toBe(created);
  });

  const prepare = (choice: string, over: Record<string, unknown> = {}) =>
    s.ledger.call(
      'POST',
      '/v2/interactive-submission/prepare',
      {
        commandId: commandId(),
        actAs: [s.alice],
        commands: [{ ExerciseCommand: { templateId: CLOCK, contractId: clockId, choice, choiceArgument: {} } }],
        ...over,
      },
      { as: 'app' },
    );
  const metadataOf = (r: { json: any }) =>
    PreparedTransaction.fromBinary(Buffer.from(r.json.preparedTransaction as string, 'base64')).metadata!;

  it('prepare: a getTime choice pins the prepared ledger time bounds to the time it ran at', async () => {
    const r = await prepare('Stamp');
    expect(r.status, r.text).toBe(200);
    expect(metadataOf(r)).toMatchObject({ minLedgerEffectiveTime: now, maxLedgerEffectiveTime: now });
  });

  it('prepare: minLedgerTime sets the time the choice runs at, so the bounds', async () => {
    const abs = now + 20_000_000n;
    const r = await prepare('Stamp', { minLedgerTime: { time: { MinLedgerTimeAbs: { value: isoMicros(abs) } } } });
    expect(r.status, r.text).toBe(200);
    expect(metadataOf(r)).toMatchObject({ minLedgerEffectiveTime: abs, maxLedgerEffectiveTime: abs });
  });

  it('prepare: a choice that reads no time has no ledger time bounds', async () => {
    const r = await prepare('Idle');
    expect(r.status, r.text).toBe(200);
    const md = metadataOf(r);
    expect(md.minLedgerEffectiveTime).toBeUndefined();
    expect(md.maxLedgerEffectiveTime).toBeUndefined();
  });

  it('an endless choice is aborted at the step limit with INTERPRETATION_TIME_EXCEEDED (submit and prepare)', async () => {
    const expected = {
      code: 'INTERPRETATION_TIME_EXCEEDED',
      cause: `Interpretation exceeded the limit of ${MAX_STEPS} steps. Interpretation aborted.`,
      retryInfo: '60 seconds',
    };
    const r = await submit(s, [createAndExercise(s.alice, 'Loop')]);
    expect([r.status, r.json]).toMatchObject([409, expected]);
    const p = await prepare('Loop');
    expect([p.status, p.json]).toMatchObject([409, expected]);
  });
});

describe('interpretation time limit (wall clock)', () => {
  let s: Setup;

  beforeAll(async () => {
    // A limit of 1 ms past the ledger effective time: an endless choice passes it at its first look at the clock after it.
    s = await start({ LEDGER_INTERPRETATION_TIMEOUT_MS: '1' });
  });
  afterAll(async () => {
    await s?.ledger.close();
  });

  it('an endless choice is aborted with INTERPRETATION_TIME_EXCEEDED once the clock passes the ledger effective time + the limit', async () => {
    const r = await submit(s, [createAndExercise(s.alice, 'Loop')]);
    expect(r.status, r.text).toBe(409);
    expect(r.json).toMatchObject({ code: 'INTERPRETATION_TIME_EXCEEDED', retryInfo: '60 seconds' });
    expect(r.json.cause).toMatch(
      /^Time exceeds limit of Ledger Effective Time \(\d{4}-\d\d-\d\dT[\d:.]+Z\) \+ tolerance \(0\.001s\)\. Interpretation aborted\.$/,
    );
  });

  it('a short choice is not affected by the limit', async () => {
    const r = await submit(s, [createAndExercise(s.alice, 'Stamp')]);
    expect(r.status, r.text).toBe(200);
    expect(stampedAt(r.json.transaction)).toBe(parseIsoMicros(r.json.transaction.effectiveAt));
  });
});
