import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import {
  HOLDING,
  micros,
  OPEN_ROUND,
  createdEvents,
  exercisedEvents,
  startAmuletLedger,
  type AmuletLedger,
} from '../../support/amulet-ledger';

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
describeWithDars('Canton Coin (splice-amulet) on the engine (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let coin: AmuletLedger;
  let ledger: TestLedger;
  let dso: string;
  let alice: string;
  let bob: string;
  let rulesCid: string;
  let openRoundCid: string;
  let laterRoundCid: string;
  const onRules = (choice: string, choiceArgument: unknown, actAs: string[]) =>
    coin.onRules(choice, choiceArgument, actAs);
  const active = (p: string, filter: unknown) => coin.active(p, filter);
  const amuletsOf = (owner: string) => coin.amuletsOf(owner);
  const tap = (receiver: string, amount: string) => coin.tap(receiver, amount);
  const party = (hint: string) => coin.party(hint);
  const exercised = exercisedEvents;
  const created = createdEvents;

  beforeAll(async () => {
    const started = await startAmuletLedger(darsRoot);
    console.info(
      `[amulet] DAR upload ${started.timings.uploadMs} ms; first command (AmuletRules create) ${started.timings.firstCommandMs} ms`,
    );
    coin = started;
    ({ ledger, dso, rulesCid, openRoundCid, laterRoundCid } = coin);
    alice = await party('alice');
    bob = await party('bob');
  }, 300_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('AmuletRules_Bootstrap_Rounds opens rounds 0, 1 and 2 with the configured transfer config and tick', async () => {
    const rounds = (await active(dso, { TemplateFilter: { value: { templateId: OPEN_ROUND } } })).map(
      (e: any) => e.createArgument,
    );
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
    expect(root.exerciseResult.amuletSum).toMatchObject({
      amulet: amulet.contractId,
      amuletPrice: '1.0000000000',
      round: { number: '0' },
    });
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
    const holdings = await active(alice, {
      InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: false } },
    });
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
    const context = {
      openMiningRound: openRoundCid,
      issuingMiningRounds: [],
      validatorRights: [],
      featuredAppRight: null,
    };
    const r = await onRules('AmuletRules_Transfer', { transfer, context, expectedDso: dso }, [payer, bob]);
    expect(r.status, r.text).toBe(200);
    const received = await amuletsOf(bob);
    expect(received.map((e: any) => e.createArgument)).toEqual([
      {
        dso,
        owner: bob,
        amount: { initialAmount: '100.0000000000', createdAt: { number: '0' }, ratePerRound: { rate: '0.0000190259' } },
      },
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
    const context = {
      openMiningRound: laterRoundCid,
      issuingMiningRounds: [],
      validatorRights: [],
      featuredAppRight: null,
    };
    const r = await onRules('AmuletRules_Transfer', { transfer, context, expectedDso: dso }, [payer, bob]);
    expect([r.status, r.json.code]).toEqual([400, 'DAML_FAILURE']);
    expect(r.json.context.error_id).toBe('stdlib.daml.com/deadline-not-exceeded');
    expect(r.json.cause).toContain("deadline 'openRound.opensAt'");
    expect((await amuletsOf(payer)).map((e: any) => e.contractId)).toEqual([input.contractId]);
  });
});
