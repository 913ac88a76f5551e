import { afterAll, beforeAll, expect, it } from 'vitest';
import { planDsoRoundActions } from '@ledgerline/domain';
import { CantonCoinService } from '@ledgerline/server/modules/canton-coin/canton-coin.service';
import { describeWithDars } from '../../support/conformance';
import { openTestLedger, startTestLedger, type TestLedger } from '../../support/ledger';
import { waitFor } from '../../support/wait-for';
import {
  activeOf,
  allocateParty,
  grantReadAs,
  cantonCoinEnv,
  disclose,
  expectSpliceContract,
  sdkClients,
  submitAs,
} from '../../support/canton-coin';

/**
 * The Canton Coin development profile (LEDGER_CANTON_COIN=dev) on the real Splice packages (`splice-amulet` 0.1.22,
 * `splice-wallet` 0.1.23): the state it sets up, read through the wallet SDK's own clients of the Splice validator API
 * (`ScanProxyClient`, `ValidatorInternalClient` of `@canton-network/core-splice-client`); a tap, a transfer preapproval
 * accepted by the validator's automation and a transfer through it, a featured-app right, each submitted as the SDK
 * submits them (the DSO's contracts disclosed from the scan-proxy answers); the DSO's round automation driven by static
 * time; and a restart on the same database that finds the state instead of creating it again.
 */
const TICK_SECONDS = 600;

describeWithDars('Canton Coin development profile (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let dso: string;
  let validator: string;
  const proxy = (path: string, as?: string | null) =>
    ledger.call('GET', `/api/validator/v0/scan-proxy${path}`, undefined, as === undefined ? {} : { as });
  const advance = (seconds: number) => ledger.call('POST', '/v2/admin/time', { advanceBy: { seconds } });
  const nowMs = async () => Date.parse((await ledger.call('GET', '/v2/admin/time')).json.currentTime);
  /** Waits until the DSO's automation has nothing left to do at the ledger's current time. */
  const dsoIdle = () => {
    const coin = ledger.app.get(CantonCoinService);
    return waitFor(
      async () => planDsoRoundActions(await coin.roundsState(dso), ledger.runtime.clock.nowMicros()).length === 0,
      { message: 'the DSO automation to be idle' },
    );
  };

  beforeAll(async () => {
    ledger = await startTestLedger(cantonCoinEnv(darsRoot));
    sync = ledger.runtime.identity.defaultSynchronizer.id;
  }, 300_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('sets up the DSO, the validator operator and its user, and reports them as Splice does', async () => {
    const { validator: client } = await sdkClients(ledger);
    const user = await client.get('/v0/validator-user');
    expect(Object.keys(user).sort()).toEqual(['featured', 'party_id', 'user_name']);
    expect(user).toMatchObject({ user_name: 'validator', featured: true });
    validator = user.party_id;
    expect(validator).toBe(`validator::${ledger.runtime.identity.fingerprint}`);
    const dsoAnswer = await proxy('/dso-party-id');
    dso = dsoAnswer.json.dso_party_id;
    expect(dso).toBe(`DSO::${ledger.runtime.identity.fingerprint}`);
    // the tests read the DSO's and the validator's contracts as the admin user
    await grantReadAs(ledger, dso);
    await grantReadAs(ledger, validator);
    const parties = await ledger.call('GET', '/v2/parties');
    expect(parties.json.partyDetails.map((p: any) => p.party)).toEqual(expect.arrayContaining([dso, validator]));
    const vuser = await ledger.call('GET', '/v2/users/validator');
    expect(vuser.json.user.primaryParty).toBe(validator);
    const rights = await ledger.call('GET', '/v2/users/validator/rights');
    expect(rights.json.rights).toEqual(
      expect.arrayContaining([
        { kind: { CanActAs: { value: { party: validator } } } },
        { kind: { ParticipantAdmin: { value: {} } } },
      ]),
    );
    expect(rights.json.rights).toHaveLength(2);
  });

  it('serves AmuletRules (development configuration, isDevNet) through the SDK ScanProxyClient', async () => {
    const { scanProxy } = await sdkClients(ledger);
    const rules = await scanProxy.getAmuletRules();
    expectSpliceContract(rules, 'Splice.AmuletRules:AmuletRules');
    expect((rules.payload as any).dso).toBe(dso);
    expect(await scanProxy.isDevNet()).toBe(true);
    expect(await scanProxy.getAmuletSynchronizerId()).toBe(sync);
    const raw = await proxy('/amulet-rules');
    expect(raw.json).toEqual({ amulet_rules: { contract: rules, domain_id: sync } });
    // the DSO holds exactly one AmuletRules and one ExternalPartyAmuletRules
    expect(await activeOf(ledger, dso, '#splice-amulet:Splice.AmuletRules:AmuletRules')).toHaveLength(1);
    expect(
      await activeOf(ledger, dso, '#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules'),
    ).toHaveLength(1);
  });

  it('serves the three bootstrapped open rounds, one of them usable now, through the SDK ScanProxyClient', async () => {
    const { scanProxy } = await sdkClients(ledger);
    const rounds = await scanProxy.getOpenMiningRounds();
    expect(rounds.map((r) => (r.payload as any).round.number).sort()).toEqual(['0', '1', '2']);
    for (const r of rounds) expectSpliceContract(r, 'Splice.Round:OpenMiningRound');
    const raw = await proxy('/open-and-issuing-mining-rounds');
    expect(Object.keys(raw.json).sort()).toEqual(['issuing_mining_rounds', 'open_mining_rounds']);
    expect(raw.json.issuing_mining_rounds).toEqual([]);
    const active = await scanProxy.getActiveOpenMiningRound();
    expect(active && ['0', '1']).toContain((active!.payload as any).round.number);
  });

  it('taps Amulet as the SDK does: AmuletRules_DevNet_Tap in the active round, both disclosed', async () => {
    const alice = await allocateParty(ledger, 'alice');
    const { scanProxy } = await sdkClients(ledger);
    const rules = await scanProxy.getAmuletRules();
    const round = (await scanProxy.getActiveOpenMiningRound())!;
    const tap = await submitAs(
      ledger,
      [alice],
      [
        {
          ExerciseCommand: {
            templateId: rules.template_id,
            contractId: rules.contract_id,
            choice: 'AmuletRules_DevNet_Tap',
            choiceArgument: { receiver: alice, amount: '250.0', openRound: round.contract_id },
          },
        },
      ],
      [disclose(rules, sync), disclose(round, sync)],
    );
    expect(tap.status, tap.text).toBe(200);
    const amulets = await activeOf(ledger, alice, '#splice-amulet:Splice.Amulet:Amulet');
    expect(amulets.map((a) => [a.createArgument.owner, a.createArgument.amount.initialAmount])).toEqual([
      [alice, '250.0000000000'],
    ]);
  });

  it('the validator accepts a TransferPreapprovalProposal; the preapproval is served by party and a transfer goes through it', async () => {
    const receiver = await allocateParty(ledger, 'receiver');
    const missing = await proxy(`/transfer-preapprovals/by-party/${encodeURIComponent(receiver)}`);
    // the SDK recognises "none yet" by this message
    expect([missing.status, missing.json.error]).toEqual([404, `No TransferPreapproval found for party: ${receiver}`]);

    const proposal = await submitAs(
      ledger,
      [receiver],
      [
        {
          CreateCommand: {
            templateId: '#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal',
            createArguments: { provider: validator, receiver, expectedDso: dso },
          },
        },
      ],
    );
    expect(proposal.status, proposal.text).toBe(200);
    const found = await waitFor(
      async () => {
        const r = await proxy(`/transfer-preapprovals/by-party/${encodeURIComponent(receiver)}`);
        return r.status === 200 ? r.json : null;
      },
      { message: 'the validator to accept the preapproval proposal' },
    );
    expect(Object.keys(found)).toEqual(['transfer_preapproval']);
    const preapproval = found.transfer_preapproval.contract;
    expectSpliceContract(preapproval, 'Splice.AmuletRules:TransferPreapproval');
    expect(found.transfer_preapproval.domain_id).toBe(sync);
    expect(preapproval.payload).toMatchObject({ receiver, provider: validator, dso });
    // the base duration (90 days) is granted without a fee
    const lifetime = Date.parse(preapproval.payload.expiresAt) - Date.parse(preapproval.payload.validFrom);
    expect(lifetime).toBe(90 * 24 * 3600 * 1000);
    expect(
      await activeOf(ledger, receiver, '#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal'),
    ).toEqual([]);

    // a sender taps and pays the receiver through the preapproval, disclosed from the scan-proxy answer
    const sender = await allocateParty(ledger, 'sender');
    const { scanProxy } = await sdkClients(ledger);
    const rules = await scanProxy.getAmuletRules();
    const round = (await scanProxy.getActiveOpenMiningRound())!;
    const onRules = (choice: string, choiceArgument: unknown) =>
      submitAs(
        ledger,
        [sender],
        [{ ExerciseCommand: { templateId: rules.template_id, contractId: rules.contract_id, choice, choiceArgument } }],
        [disclose(rules, sync), disclose(round, sync)],
      );
    expect(
      (await onRules('AmuletRules_DevNet_Tap', { receiver: sender, amount: '100.0', openRound: round.contract_id }))
        .status,
    ).toBe(200);
    const [input] = await activeOf(ledger, sender, '#splice-amulet:Splice.Amulet:Amulet');
    const send = await submitAs(
      ledger,
      [sender],
      [
        {
          ExerciseCommand: {
            templateId: preapproval.template_id,
            contractId: preapproval.contract_id,
            choice: 'TransferPreapproval_Send',
            choiceArgument: {
              context: {
                amuletRules: rules.contract_id,
                context: {
                  openMiningRound: round.contract_id,
                  issuingMiningRounds: [],
                  validatorRights: [],
                  featuredAppRight: null,
                },
              },
              inputs: [{ tag: 'InputAmulet', value: input.contractId }],
              amount: '40.0',
              sender,
              description: 'coffee',
            },
          },
        },
      ],
      [disclose(rules, sync), disclose(round, sync), disclose(preapproval, sync)],
    );
    expect(send.status, send.text).toBe(200);
    const received = (await activeOf(ledger, receiver, '#splice-amulet:Splice.Amulet:Amulet')).filter(
      (a) => a.createArgument.owner === receiver,
    );
    expect(received.map((a) => a.createArgument.amount.initialAmount)).toEqual(['40.0000000000']);
  });

  it('serves featured-app rights: the validator features itself, a party self-features with AmuletRules_DevNet_FeatureApp', async () => {
    const own = await proxy(`/featured-apps/${encodeURIComponent(validator)}`);
    expect(own.status).toBe(200);
    expectSpliceContract(own.json.featured_app_right, 'Splice.Amulet:FeaturedAppRight');
    expect(own.json.featured_app_right.payload).toMatchObject({ dso, provider: validator });

    const app = await allocateParty(ledger, 'app');
    expect((await proxy(`/featured-apps/${encodeURIComponent(app)}`)).json).toEqual({});
    const { scanProxy } = await sdkClients(ledger);
    const rules = await scanProxy.getAmuletRules();
    const grant = await submitAs(
      ledger,
      [app],
      [
        {
          ExerciseCommand: {
            templateId: rules.template_id,
            contractId: rules.contract_id,
            choice: 'AmuletRules_DevNet_FeatureApp',
            choiceArgument: { provider: app },
          },
        },
      ],
      [disclose(rules, sync)],
    );
    expect(grant.status, grant.text).toBe(200);
    const right = await scanProxy.get('/v0/scan-proxy/featured-apps/{provider_party_id}', {
      path: { provider_party_id: app },
    });
    expect(right.featured_app_right!.payload).toMatchObject({ dso, provider: app });
  });

  it("serves Scan's forms of the same reads under /api/scan, with their caches", async () => {
    const rules = await ledger.call('POST', '/api/scan/v0/amulet-rules', {});
    expect(rules.status, rules.text).toBe(200);
    expectSpliceContract(rules.json.amulet_rules_update.contract, 'Splice.AmuletRules:AmuletRules');
    const cid = rules.json.amulet_rules_update.contract.contract_id;
    const cached = await ledger.call('POST', '/api/scan/v0/amulet-rules', { cached_amulet_rules_contract_id: cid });
    expect(cached.json).toEqual({ amulet_rules_update: { domain_id: sync } });
    const rounds = await ledger.call('POST', '/api/scan/v0/open-and-issuing-mining-rounds', {
      cached_open_mining_round_contract_ids: [],
      cached_issuing_round_contract_ids: [],
    });
    expect(rounds.status, rounds.text).toBe(200);
    expect(Object.keys(rounds.json.open_mining_rounds)).toHaveLength(3);
    expect(rounds.json.time_to_live_in_microseconds).toBeGreaterThan(0);
    expect(rounds.json.time_to_live_in_microseconds).toBeLessThanOrEqual(TICK_SECONDS * 1_000_000);
    expect(
      (await ledger.call('GET', `/api/scan/v0/featured-apps/${encodeURIComponent(validator)}`)).json.featured_app_right
        .payload.provider,
    ).toBe(validator);
  });

  it('answers without a token with 401 (a JsCantonError, as the rest of the API)', async () => {
    const anonymous = await proxy('/amulet-rules', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBeDefined();
  });

  it('advances the rounds as time passes: open → summarizing → issuing → closed → archived, with an open round always usable', async () => {
    const openRounds = async () => (await proxy('/open-and-issuing-mining-rounds')).json;
    const roundNumbers = (cs: any[]) => cs.map((c) => Number(c.contract.payload.round.number));
    const usable = (rounds: any, now: number) =>
      rounds.open_mining_rounds.filter(
        (c: any) =>
          Date.parse(c.contract.payload.opensAt) <= now && now < Date.parse(c.contract.payload.targetClosesAt),
      );
    const coupons = async () =>
      (
        await Promise.all(
          ['ValidatorRewardCoupon', 'AppRewardCoupon'].map((e) =>
            activeOf(ledger, dso, `#splice-amulet:Splice.Amulet:${e}`),
          ),
        )
      ).flat();
    // a traffic purchase burns Amulet: a validator reward coupon in the round it was bought in
    const buyer = await allocateParty(ledger, 'buyer');
    const { scanProxy } = await sdkClients(ledger);
    const rules = await scanProxy.getAmuletRules();
    const round = (await scanProxy.getActiveOpenMiningRound())!;
    const onRules = (choice: string, choiceArgument: unknown) =>
      submitAs(
        ledger,
        [buyer],
        [{ ExerciseCommand: { templateId: rules.template_id, contractId: rules.contract_id, choice, choiceArgument } }],
        [disclose(rules, sync), disclose(round, sync)],
      );
    expect(
      (await onRules('AmuletRules_DevNet_Tap', { receiver: buyer, amount: '100.0', openRound: round.contract_id }))
        .status,
    ).toBe(200);
    const [input] = await activeOf(ledger, buyer, '#splice-amulet:Splice.Amulet:Amulet');
    const buy = await onRules('AmuletRules_BuyMemberTraffic', {
      inputs: [{ tag: 'InputAmulet', value: input.contractId }],
      context: {
        openMiningRound: round.contract_id,
        issuingMiningRounds: [],
        validatorRights: [],
        featuredAppRight: null,
      },
      provider: buyer,
      memberId: `PAR::${ledger.config.participantName}::${ledger.runtime.identity.fingerprint}`,
      synchronizerId: sync,
      migrationId: '0',
      trafficAmount: '200000',
      expectedDso: dso,
    });
    expect(buy.status, buy.text).toBe(200);
    const earned = await coupons();
    expect(earned.length).toBeGreaterThan(0);
    const earnedRounds = new Set(earned.map((c) => c.createArgument.round.number));

    for (let tick = 1; tick <= 6; tick++) {
      expect((await advance(TICK_SECONDS)).status).toBe(200);
      // each tick opens the next round and archives the oldest open one
      const rounds = await waitFor(
        async () => {
          const r = await openRounds();
          return roundNumbers(r.open_mining_rounds).at(-1) === 2 + tick ? r : null;
        },
        { message: `round ${2 + tick} to be created` },
      );
      expect(roundNumbers(rounds.open_mining_rounds)).toEqual([tick, tick + 1, tick + 2]);
      expect(usable(rounds, await nowMs()).length).toBeGreaterThan(0);
      // the summarized round starts issuing at this time, before the clock moves on
      await dsoIdle();
    }
    // rounds 0 and 1 were summarized, issued, closed (their unclaimed coupons expired) and archived
    const dsoRoundsOf = async (round: string) => {
      const all = await Promise.all(
        ['SummarizingMiningRound', 'IssuingMiningRound', 'ClosedMiningRound'].map((e) =>
          activeOf(ledger, dso, `#splice-amulet:Splice.Round:${e}`),
        ),
      );
      return all.flat().filter((c) => c.createArgument.round.number === round);
    };
    await waitFor(async () => (await dsoRoundsOf('0')).length === 0 && (await dsoRoundsOf('1')).length === 0, {
      message: 'rounds 0 and 1 to be archived',
    });
    expect((await coupons()).filter((c) => earnedRounds.has(c.createArgument.round.number))).toEqual([]);
    expect((await activeOf(ledger, dso, '#splice-amulet:Splice.Amulet:UnclaimedReward')).length).toBeGreaterThan(0);
    const later = await openRounds();
    expect(roundNumbers(later.issuing_mining_rounds).length).toBeGreaterThan(0);
    for (const c of later.issuing_mining_rounds) expectSpliceContract(c.contract, 'Splice.Round:IssuingMiningRound');
    expect(await activeOf(ledger, dso, '#splice-amulet:Splice.Round:SummarizingMiningRound')).toEqual([]);
  });

  it('on a restart with the data kept, finds the state instead of creating it again', async () => {
    // the DSO's automation has nothing left to do at this time
    await dsoIdle();
    const before = {
      rules: (await proxy('/amulet-rules')).json.amulet_rules.contract.contract_id,
      rounds: (await proxy('/open-and-issuing-mining-rounds')).json.open_mining_rounds
        .map((c: any) => c.contract.contract_id)
        .sort(),
      parties: (await ledger.call('GET', '/v2/parties')).json.partyDetails.length,
      end: (await ledger.call('GET', '/v2/state/ledger-end')).json.offset,
    };
    const databaseUrl = ledger.databaseUrl;
    await ledger.close();
    ledger = await openTestLedger(databaseUrl, cantonCoinEnv(darsRoot));
    expect((await proxy('/amulet-rules')).json.amulet_rules.contract.contract_id).toBe(before.rules);
    expect(
      (await proxy('/open-and-issuing-mining-rounds')).json.open_mining_rounds
        .map((c: any) => c.contract.contract_id)
        .sort(),
    ).toEqual(before.rounds);
    expect((await ledger.call('GET', '/v2/parties')).json.partyDetails).toHaveLength(before.parties);
    expect(await activeOf(ledger, dso, '#splice-amulet:Splice.AmuletRules:AmuletRules')).toHaveLength(1);
    expect(
      await activeOf(ledger, dso, '#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules'),
    ).toHaveLength(1);
    expect(await activeOf(ledger, validator, '#splice-amulet:Splice.Amulet:FeaturedAppRight')).toHaveLength(1);
    // the DARs' re-upload and the set-up wrote nothing: the only new offsets are none
    expect((await ledger.call('GET', '/v2/state/ledger-end')).json.offset).toBe(before.end);
  });

  it('after a pause of two days, replaces the expired ExternalPartyConfigState and resumes the rounds within a tick', async () => {
    const configStates = async () =>
      (await activeOf(ledger, dso, '#splice-amulet:Splice.ExternalPartyConfigState:ExternalPartyConfigState'))
        .map((c) => c.contractId)
        .sort();
    const before = await configStates();
    expect(before).toHaveLength(2);
    expect((await advance(2 * 24 * 3600)).status).toBe(200);
    await waitFor(async () => (await configStates()).filter((c) => !before.includes(c)).length === 1, {
      message: 'a new ExternalPartyConfigState',
    });
    expect(await configStates()).toHaveLength(2);
    // the advance after the pause opens its round a tick later: then a round is usable again
    expect((await advance(TICK_SECONDS)).status).toBe(200);
    await waitFor(
      async () => {
        const now = await nowMs();
        const rounds = (await proxy('/open-and-issuing-mining-rounds')).json.open_mining_rounds;
        return rounds.some(
          (c: any) =>
            Date.parse(c.contract.payload.opensAt) <= now && now < Date.parse(c.contract.payload.targetClosesAt),
        );
      },
      { message: 'a usable open round after the pause' },
    );
  });
});
