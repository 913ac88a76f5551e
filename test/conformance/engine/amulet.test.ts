import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { conformanceDars } from '../../support/dars';

/**
 * Canton Coin (Splice's Amulet, `splice-amulet` 0.1.22) on the engine over HTTP: the groundwork of a Canton Coin
 * development profile. The state is the one Splice's own test setup builds (`genericSetupApp` in
 * daml/splice-amulet-test/…/Scripts/Util.daml): the DSO party signs an `AmuletRules` with a development configuration
 * (`isDevNet = True`, so that anyone can tap) and bootstraps the mining rounds with `AmuletRules_Bootstrap_Rounds`
 * (three `OpenMiningRound`s; round 0 opens now, rounds 1 and 2 later). A user then taps Amulet with
 * `AmuletRules_DevNet_Tap` in round 0 and pays another party with `AmuletRules_Transfer` (transfer context: round 0,
 * no issuing rounds, no validator rights, no featured app). Users read the DSO's contracts through `readAs` (Splice's
 * scripts do the same). No `IssuingMiningRound` is needed: nothing here claims rewards.
 */
const dars = conformanceDars();
const DAR = 'splice/splice-amulet-0.1.22.dar';
const AMULET_RULES = '#splice-amulet:Splice.AmuletRules:AmuletRules';
const OPEN_ROUND = '#splice-amulet:Splice.Round:OpenMiningRound';
const AMULET = '#splice-amulet:Splice.Amulet:Amulet';
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const micros = (seconds: number) => ({ microseconds: String(seconds * 1_000_000) });

/**
 * A development configuration: Splice's default holding fee and issuance curve, one synchronizer, 10-minute ticks. This
 * version's `AmuletRules` precondition only accepts zero create, transfer and lock-holder fees, and a featured-app
 * activity-marker amount equal to the extra featured-app reward amount.
 */
function devAmuletConfig(synchronizer: string) {
  return {
    transferConfig: {
      createFee: { fee: '0.0' },
      holdingFee: { rate: '0.0000190259' },
      transferFee: { initialRate: '0.0', steps: [{ _1: '100.0', _2: '0.0' }, { _1: '1000.0', _2: '0.0' }, { _1: '1000000.0', _2: '0.0' }] },
      lockHolderFee: { fee: '0.0' },
      extraFeaturedAppRewardAmount: '1.0',
      maxNumInputs: '100',
      maxNumOutputs: '100',
      maxNumLockHolders: '50',
      tokenStandardMaxTTL: null,
    },
    issuanceCurve: {
      initialValue: {
        amuletToIssuePerYear: '40000000000.0',
        validatorRewardPercentage: '0.05',
        appRewardPercentage: '0.15',
        validatorRewardCap: '0.2',
        featuredAppRewardCap: '100.0',
        unfeaturedAppRewardCap: '0.6',
        optValidatorFaucetCap: '2.85',
        optDevelopmentFundPercentage: null,
      },
      futureValues: [],
    },
    decentralizedSynchronizer: {
      requiredSynchronizers: { map: [[synchronizer, {}]] },
      activeSynchronizer: synchronizer,
      fees: { baseRateTrafficLimits: { burstAmount: '400000', burstWindow: micros(1200) }, extraTrafficPrice: '16.67', readVsWriteScalingFactor: '4', minTopupAmount: '200000' },
    },
    tickDuration: micros(600),
    packageConfig: { amulet: '0.1.22', amuletNameService: '0.1.22', dsoGovernance: '0.1.22', validatorLifecycle: '0.1.22', wallet: '0.1.23', walletPayments: '0.1.22' },
    transferPreapprovalFee: null,
    featuredAppActivityMarkerAmount: '1.0',
    optDevelopmentFundManager: null,
    externalPartyConfigStateTickDuration: null,
    rewardConfig: null,
    transferPreapprovalBaseDuration: null,
  };
}

describe.skipIf(!dars.present && !dars.required)('Canton Coin (splice-amulet) on the engine (LEDGERLINE_CONFORMANCE_DARS)', () => {
  if (!dars.present) {
    it('has the conformance folder', () => {
      throw new Error(dars.reason);
    });
    return;
  }
  let ledger: TestLedger;
  let sync: string;
  let dso: string;
  let alice: string;
  let bob: string;
  let rulesCid: string;
  let openRoundCid: string;
  let laterRoundCid: string;

  const party = async (hint: string) => {
    const r = await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync });
    expect(r.status, r.text).toBe(200);
    const id = r.json.partyDetails.party as string;
    const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, { rights: [{ kind: { CanActAs: { value: { party: id } } } }] });
    expect(rights.status, rights.text).toBe(200);
    return id;
  };
  const submit = (cmds: unknown[], actAs: string[], readAs: string[] = []) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands: cmds, commandId: randomUUID(), userId: ledger.config.adminUser, actAs, readAs, synchronizerId: sync },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: Object.fromEntries([...actAs, ...readAs].map((p) => [p, { cumulative: [] }])), verbose: true },
      },
    });
  const onRules = (choice: string, choiceArgument: unknown, actAs: string[]) =>
    submit([{ ExerciseCommand: { templateId: AMULET_RULES, contractId: rulesCid, choice, choiceArgument } }], actAs, actAs.includes(dso) ? [] : [dso]);
  const exercised = (r: { json: any }) => r.json.transaction.events.filter((e: any) => e.ExercisedEvent).map((e: any) => e.ExercisedEvent);
  const created = (r: { json: any }, entity: string) =>
    r.json.transaction.events.filter((e: any) => e.CreatedEvent && e.CreatedEvent.templateId.endsWith(entity)).map((e: any) => e.CreatedEvent);
  const active = async (p: string, filter: unknown) => {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: { filtersByParty: { [p]: { cumulative: [{ identifierFilter: filter }] } }, verbose: true },
    });
    expect(acs.status, acs.text).toBe(200);
    return acs.json.map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
  };
  const amuletsOf = async (owner: string) =>
    (await active(owner, { TemplateFilter: { value: { templateId: AMULET } } })).filter((e: any) => e.createArgument.owner === owner);
  const tap = (receiver: string, amount: string) => onRules('AmuletRules_DevNet_Tap', { receiver, amount, openRound: openRoundCid }, [receiver]);

  beforeAll(async () => {
    ledger = await startTestLedger();
    sync = ledger.runtime.identity.defaultSynchronizer.id;
    const started = Date.now();
    const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: fs.readFileSync(path.join(dars.root!, DAR)),
    });
    expect(up.status, await up.text()).toBe(200);
    const uploaded = Date.now();
    dso = await party('dso');
    alice = await party('alice');
    bob = await party('bob');
    const firstCommand = Date.now();
    const rules = await submit(
      [{ CreateCommand: { templateId: AMULET_RULES, createArguments: { dso, configSchedule: { initialValue: devAmuletConfig(sync), futureValues: [] }, isDevNet: true, contractStateSchemaVersion: null } } }],
      [dso],
    );
    expect(rules.status, rules.text).toBe(200);
    console.info(`[amulet] DAR upload ${uploaded - started} ms; first command (AmuletRules create) ${Date.now() - firstCommand} ms`);
    rulesCid = rules.json.transaction.events[0].CreatedEvent.contractId;
    const rounds = await onRules('AmuletRules_Bootstrap_Rounds', { amuletPrice: '1.0', round0Duration: micros(24 * 3600), initialRound: null }, [dso]);
    expect(rounds.status, rounds.text).toBe(200);
    // the choice returns the newest round (round 2, opening later); commands use the round that is open now (round 0)
    const newest = exercised(rounds)[0].exerciseResult.openMiningRoundCid;
    const open = await active(dso, { TemplateFilter: { value: { templateId: OPEN_ROUND } } });
    expect(open.map((e: any) => e.contractId)).toContain(newest);
    openRoundCid = open.find((e: any) => e.createArgument.round.number === '0').contractId;
    laterRoundCid = open.find((e: any) => e.createArgument.round.number === '2').contractId;
  }, 300_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('AmuletRules_Bootstrap_Rounds opens rounds 0, 1 and 2 with the configured transfer config and tick', async () => {
    const rounds = (await active(dso, { TemplateFilter: { value: { templateId: OPEN_ROUND } } })).map((e: any) => e.createArgument);
    expect(rounds.map((r: any) => r.round.number).sort()).toEqual(['0', '1', '2']);
    for (const r of rounds) {
      expect(r).toMatchObject({ dso, amuletPrice: '1.0000000000', tickDuration: micros(600) });
      expect(r.transferConfigUsd.holdingFee.rate).toBe('0.0000190259');
    }
    const round0 = rounds.find((r: any) => r.round.number === '0');
    expect(Date.parse(round0.opensAt)).toBeLessThanOrEqual(Date.now());
  });

  it('AmuletRules_DevNet_Tap gives the receiver an Amulet of the amount, signed by the DSO, created in the open round', async () => {
    const r = await tap(alice, '1000.0');
    expect(r.status, r.text).toBe(200);
    const [root] = exercised(r);
    expect(root).toMatchObject({ contractId: rulesCid, choice: 'AmuletRules_DevNet_Tap', actingParties: [alice] });
    const [amulet] = created(r, ':Splice.Amulet:Amulet');
    expect(root.exerciseResult.amuletSum).toMatchObject({ amulet: amulet.contractId, amuletPrice: '1.0000000000', round: { number: '0' } });
    expect(amulet.signatories.sort()).toEqual([alice, dso].sort());
    const held = await amuletsOf(alice);
    expect(held.map((e: any) => e.contractId)).toEqual([amulet.contractId]);
    expect(held[0].createArgument).toEqual({
      dso,
      owner: alice,
      amount: { initialAmount: '1000.0000000000', createdAt: { number: '0' }, ratePerRound: { rate: '0.0000190259' } },
    });
  });

  it('the tapped Amulet is a token-standard Holding of Amulet administered by the DSO', async () => {
    const holdings = await active(alice, { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(holdings).toHaveLength(1);
    const [view] = holdings[0].interfaceViews;
    expect(view.viewStatus).toMatchObject({ code: 0 });
    // the view reports the initial amount; the round it was created in and the holding fee rate go into the metadata
    expect(view.viewValue).toEqual({
      owner: alice,
      instrumentId: { admin: dso, id: 'Amulet' },
      amount: '1000.0000000000',
      lock: null,
      meta: {
        values: {
          'amulet.splice.lfdecentralizedtrust.org/created-in-round': '0',
          'amulet.splice.lfdecentralizedtrust.org/rate-per-round': '0.0000190259',
        },
      },
    });
  });

  it('AmuletRules_Transfer pays the receiver the amount and gives the sender the rest as change', async () => {
    const payer = await party('payer');
    const t = await tap(payer, '500.0');
    expect(t.status, t.text).toBe(200);
    const [input] = await amuletsOf(payer);
    const transfer = {
      sender: payer,
      provider: payer,
      inputs: [{ tag: 'InputAmulet', value: input.contractId }],
      outputs: [{ receiver: bob, receiverFeeRatio: '0.0', amount: '100.0', lock: null, meta: null }],
      beneficiaries: null,
    };
    const context = { openMiningRound: openRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null };
    const r = await onRules('AmuletRules_Transfer', { transfer, context, expectedDso: dso }, [payer, bob]);
    expect(r.status, r.text).toBe(200);
    const received = await amuletsOf(bob);
    expect(received.map((e: any) => e.createArgument)).toEqual([
      { dso, owner: bob, amount: { initialAmount: '100.0000000000', createdAt: { number: '0' }, ratePerRound: { rate: '0.0000190259' } } },
    ]);
    const change = await amuletsOf(payer);
    expect(change).toHaveLength(1);
    // zero transfer fees, and no holding fee is due within the round the input was created in
    expect(change[0].createArgument.amount.initialAmount).toBe('400.0000000000');
    expect(change[0].contractId).not.toBe(input.contractId);
  });

  it('AmuletRules_Transfer in a round that has not opened yet fails with the deadline error of failWithStatus', async () => {
    const payer = await party('early');
    expect((await tap(payer, '10.0')).status).toBe(200);
    const [input] = await amuletsOf(payer);
    const transfer = {
      sender: payer,
      provider: payer,
      inputs: [{ tag: 'InputAmulet', value: input.contractId }],
      outputs: [{ receiver: bob, receiverFeeRatio: '0.0', amount: '1.0', lock: null, meta: null }],
      beneficiaries: null,
    };
    const context = { openMiningRound: laterRoundCid, issuingMiningRounds: [], validatorRights: [], featuredAppRight: null };
    const r = await onRules('AmuletRules_Transfer', { transfer, context, expectedDso: dso }, [payer, bob]);
    expect([r.status, r.json.code]).toEqual([400, 'DAML_FAILURE']);
    expect(r.json.context.error_id).toBe('stdlib.daml.com/deadline-not-exceeded');
    expect(r.json.cause).toContain("deadline 'openRound.opensAt'");
    expect((await amuletsOf(payer)).map((e: any) => e.contractId)).toEqual([input.contractId]);
  });
});
