import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { allocateActingParty, startTestLedger, type TestLedger } from './ledger';
import { devAmuletConfig, micros } from '../../testkit/amulet-config';

/**
 * A test ledger holding Canton Coin (Splice's Amulet, `splice-amulet` 0.1.22) in the state Splice's own test setup builds
 * (`genericSetupApp` in daml/splice-amulet-test/…/Scripts/Util.daml), driven over the JSON API alone: the DSO party signs
 * an `AmuletRules` with a development configuration (`isDevNet = True`, so anyone can tap) and an `ExternalPartyAmuletRules`
 * (the token standard's transfer factory), and bootstraps the mining rounds with `AmuletRules_Bootstrap_Rounds` (three
 * `OpenMiningRound`s: round 0 opens now, rounds 1 and 2 later). Parties read the DSO's contracts through `readAs`, as
 * Splice's scripts do.
 */
export const AMULET_DAR = 'splice/splice-amulet-0.1.22.dar';
export const AMULET_RULES = '#splice-amulet:Splice.AmuletRules:AmuletRules';
export const EXTERNAL_PARTY_AMULET_RULES = '#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules';
export const OPEN_ROUND = '#splice-amulet:Splice.Round:OpenMiningRound';
export const AMULET = '#splice-amulet:Splice.Amulet:Amulet';
export const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
export { devAmuletConfig, micros } from '../../testkit/amulet-config';

type Reply = { status: number; text: string; json: any };

export interface AmuletLedger {
  ledger: TestLedger;
  sync: string;
  dso: string;
  rulesCid: string;
  externalRulesCid: string;
  /** Round 0 (open now) and round 2 (opens later). */
  openRoundCid: string;
  laterRoundCid: string;
  /** Allocates a local party and lets the admin user act as it. */
  party(hint: string): Promise<string>;
  /** submit-and-wait-for-transaction (ledger effects, verbose) as the admin user. */
  submit(commands: unknown[], actAs: string[], readAs?: string[], disclosedContracts?: unknown[]): Promise<Reply>;
  /** Exercises a choice of `AmuletRules`; parties other than the DSO read it through `readAs`. */
  onRules(choice: string, choiceArgument: unknown, actAs: string[]): Promise<Reply>;
  /** `AmuletRules_DevNet_Tap` in round 0. */
  tap(receiver: string, amount: string): Promise<Reply>;
  /** The party's active contracts matching one identifier filter, as created events. */
  active(party: string, identifierFilter: unknown): Promise<any[]>;
  /** The Amulets the party owns. */
  amuletsOf(owner: string): Promise<any[]>;
}

/** Exercised events of a transaction reply, in order. */
export const exercisedEvents = (r: { json: any }) =>
  r.json.transaction.events.filter((e: any) => e.ExercisedEvent).map((e: any) => e.ExercisedEvent);
/** Created events of a transaction reply whose template id ends with `entity` (`:Module:Entity`). */
export const createdEvents = (r: { json: any }, entity: string) =>
  r.json.transaction.events
    .filter((e: any) => e.CreatedEvent && e.CreatedEvent.templateId.endsWith(entity))
    .map((e: any) => e.CreatedEvent);

/** Starts a test ledger, uploads the Amulet DAR from the conformance folder `root` and builds the DSO's state. */
export async function startAmuletLedger(
  root: string,
): Promise<AmuletLedger & { timings: { uploadMs: number; firstCommandMs: number } }> {
  const ledger = await startTestLedger();
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const started = Date.now();
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: fs.readFileSync(path.join(root, AMULET_DAR)),
  });
  expect(up.status, await up.text()).toBe(200);
  const uploadMs = Date.now() - started;

  const party = (hint: string) => allocateActingParty(ledger, hint, sync);
  const submit = (commands: unknown[], actAs: string[], readAs: string[] = [], disclosedContracts: unknown[] = []) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands,
        commandId: randomUUID(),
        userId: ledger.config.adminUser,
        actAs,
        readAs,
        synchronizerId: sync,
        disclosedContracts,
      },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: {
          filtersByParty: Object.fromEntries([...actAs, ...readAs].map((p) => [p, { cumulative: [] }])),
          verbose: true,
        },
      },
    }) as Promise<Reply>;
  const active = async (p: string, identifierFilter: unknown) => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: { filtersByParty: { [p]: { cumulative: [{ identifierFilter }] } }, verbose: true },
    });
    expect(acs.status, acs.text).toBe(200);
    return acs.json.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
  };

  const dso = await party('dso');
  const firstCommand = Date.now();
  const rules = await submit(
    [
      {
        CreateCommand: {
          templateId: AMULET_RULES,
          createArguments: {
            dso,
            configSchedule: { initialValue: devAmuletConfig(sync), futureValues: [] },
            isDevNet: true,
            contractStateSchemaVersion: null,
          },
        },
      },
    ],
    [dso],
  );
  expect(rules.status, rules.text).toBe(200);
  const firstCommandMs = Date.now() - firstCommand;
  const rulesCid = rules.json.transaction.events[0].CreatedEvent.contractId as string;
  const external = await submit(
    [{ CreateCommand: { templateId: EXTERNAL_PARTY_AMULET_RULES, createArguments: { dso } } }],
    [dso],
  );
  expect(external.status, external.text).toBe(200);
  const externalRulesCid = external.json.transaction.events[0].CreatedEvent.contractId as string;

  const onRules = (choice: string, choiceArgument: unknown, actAs: string[]) =>
    submit(
      [{ ExerciseCommand: { templateId: AMULET_RULES, contractId: rulesCid, choice, choiceArgument } }],
      actAs,
      actAs.includes(dso) ? [] : [dso],
    );
  const rounds = await onRules(
    'AmuletRules_Bootstrap_Rounds',
    { amuletPrice: '1.0', round0Duration: micros(24 * 3600), initialRound: null },
    [dso],
  );
  expect(rounds.status, rounds.text).toBe(200);
  // the choice returns the newest round (round 2, opening later); commands use the round that is open now (round 0)
  const newest = exercisedEvents(rounds)[0].exerciseResult.openMiningRoundCid;
  const open = await active(dso, { TemplateFilter: { value: { templateId: OPEN_ROUND } } });
  expect(open.map((e: any) => e.contractId)).toContain(newest);
  const openRoundCid = open.find((e: any) => e.createArgument.round.number === '0').contractId as string;
  const laterRoundCid = open.find((e: any) => e.createArgument.round.number === '2').contractId as string;

  return {
    ledger,
    sync,
    dso,
    rulesCid,
    externalRulesCid,
    openRoundCid,
    laterRoundCid,
    party,
    submit,
    onRules,
    tap: (receiver, amount) =>
      onRules('AmuletRules_DevNet_Tap', { receiver, amount, openRound: openRoundCid }, [receiver]),
    active,
    amuletsOf: async (owner) =>
      (await active(owner, { TemplateFilter: { value: { templateId: AMULET } } })).filter(
        (e: any) => e.createArgument.owner === owner,
      ),
    timings: { uploadMs, firstCommandMs },
  };
}
