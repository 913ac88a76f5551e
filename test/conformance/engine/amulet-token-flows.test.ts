import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFilterBySetup } from '@canton-network/core-ledger-client-types';
import { LedgerProvider } from '@canton-network/core-provider-ledger';
import { TokenStandardTransactionInterfaces, TransactionParser } from '@canton-network/core-tx-parser';
import { describeWithDars } from '../../support/conformance';
import { expectCantonError } from '../../support/canton-error';
import {
  AMULET_RULES,
  createdEvents,
  exercisedEvents,
  startAmuletLedger,
  type AmuletLedger,
} from '../../support/amulet-ledger';
import { TEMPLATES } from '../../../testkit/amulet-registry';
import { amuletWallet, DAY_MS, iso, type External, type Wallet } from '../../support/amulet-wallet';

/**
 * The wallet SDK's token-standard flows with Canton Coin (splice-amulet 0.1.22) through the JSON API alone: an external
 * party onboarded, tapped, paying a receiver that holds a `TransferPreapproval` in one step, and receivers without one in
 * two steps (an `AmuletTransferInstruction` over the sender's `LockedAmulet`), accepted, rejected and withdrawn. Commands
 * of the external party are prepared with the DSO's contracts disclosed and the choice contexts Splice's registry would
 * hand out (test/support/amulet-registry.ts), signed and executed. Then its holdings are listed through the Holding
 * interface and merged, and the parties' transaction histories are read back by core-tx-parser. Allocations are in
 * amulet-token-allocations.test.ts.
 */
describeWithDars('Canton Coin token-standard flows over the JSON API (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let coin: AmuletLedger;
  let wallet: Wallet;
  let dso: string;
  let ext: External;
  let validator: string;
  let bob: string;
  let carol: string;
  let preapprovalCid: string;

  beforeAll(async () => {
    coin = await startAmuletLedger(darsRoot);
    wallet = amuletWallet(coin);
    dso = coin.dso;
    validator = await coin.party('validator');
    bob = await coin.party('bob');
    carol = await coin.party('carol');
  }, 300_000);
  afterAll(async () => {
    await coin?.ledger.close();
  });

  const amounts = (rows: Array<{ amount: string; lock: unknown }>) => rows.map((h) => [h.amount, h.lock !== null]);

  it('onboards an external party (generate-topology, sign, allocate) beside a local one', async () => {
    ext = await wallet.external('alice-ext');
    // the party id is the hint and the fingerprint of the key that signed its onboarding transactions
    expect(ext.partyId).toBe(`alice-ext::${ext.fingerprint}`);
    for (const party of [ext.partyId, bob]) {
      const details = await coin.ledger.call('GET', `/v2/parties/${encodeURIComponent(party)}`);
      expect(details.status, details.text).toBe(200);
      expect(details.json.partyDetails).toMatchObject([{ party, isLocal: true }]);
    }
    // hosted with confirmation rights only: the external party cannot submit through submit-and-wait, the local one can
    const tap = (receiver: string) => [
      {
        ExerciseCommand: {
          templateId: AMULET_RULES,
          contractId: coin.rulesCid,
          choice: 'AmuletRules_DevNet_Tap',
          choiceArgument: { receiver, amount: '1.0', openRound: coin.openRoundCid },
        },
      },
    ];
    const end = await wallet.ledgerEnd();
    expectCantonError(
      await coin.submit(tap(ext.partyId), [ext.partyId], [dso]),
      404,
      'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
    );
    expect(await wallet.ledgerEnd()).toBe(end);
    expect(await wallet.holdings(ext.partyId)).toEqual([]);
    const local = await coin.submit(tap(validator), [validator], [dso]);
    expect(local.status, local.text).toBe(200);
    expect(amounts(await wallet.holdings(validator))).toEqual([['1.0000000000', false]]);
  });

  it('taps Amulet to the external party: AmuletRules_DevNet_Tap prepared with the disclosed AmuletRules and open round, signed', async () => {
    const dsoContracts = await wallet.registry.dsoContracts([TEMPLATES.amuletRules, TEMPLATES.openRound]);
    const rules = dsoContracts.find((c) => c.contractId === coin.rulesCid)!;
    const round = dsoContracts.find((c) => c.contractId === coin.openRoundCid)!;
    const tap = {
      ExerciseCommand: {
        templateId: AMULET_RULES,
        contractId: coin.rulesCid,
        choice: 'AmuletRules_DevNet_Tap',
        choiceArgument: { receiver: ext.partyId, amount: '1000.0', openRound: coin.openRoundCid },
      },
    };
    // without the disclosures the external party sees neither contract
    const hidden = await wallet.prepare([ext.partyId], [tap], []);
    expectCantonError(hidden, 404, 'CONTRACT_NOT_FOUND');
    const r = await wallet.signed([ext], [tap], [wallet.registry.disclose(rules), wallet.registry.disclose(round)]);
    expect(r.status, r.text).toBe(200);
    expect(exercisedEvents(r)[0]).toMatchObject({
      contractId: coin.rulesCid,
      choice: 'AmuletRules_DevNet_Tap',
      actingParties: [ext.partyId],
    });
    const [amulet] = createdEvents(r, ':Splice.Amulet:Amulet');
    expect(amulet.signatories.sort()).toEqual([dso, ext.partyId].sort());
    expect(await wallet.holdings(ext.partyId)).toEqual([
      {
        contractId: amulet.contractId,
        owner: ext.partyId,
        amount: '1000.0000000000',
        lock: null,
        templateId: 'Splice.Amulet:Amulet',
      },
    ]);
  });

  describe('a one-step transfer to a receiver with a TransferPreapproval', () => {
    it('AmuletRules_CreateTransferPreapproval by the provider (a validator) and the receiver', async () => {
      const featured = await coin.onRules(
        'AmuletRules_DevNet_FeatureApp',
        { provider: validator, activityWeight: null },
        [validator],
      );
      expect(featured.status, featured.text).toBe(200);
      const context = {
        amuletRules: coin.rulesCid,
        context: {
          openMiningRound: coin.openRoundCid,
          issuingMiningRounds: [],
          validatorRights: [],
          featuredAppRight: null,
        },
      };
      const expiresAt = iso(30 * DAY_MS);
      const r = await coin.onRules(
        'AmuletRules_CreateTransferPreapproval',
        { context, inputs: [], receiver: bob, provider: validator, expiresAt, expectedDso: dso, optCreatedAt: null },
        [validator, bob],
      );
      expect(r.status, r.text).toBe(200);
      const [preapproval] = createdEvents(r, ':Splice.AmuletRules:TransferPreapproval');
      expect(preapproval.createArgument).toMatchObject({ dso, receiver: bob, provider: validator, expiresAt });
      expect(preapproval.signatories.sort()).toEqual([bob, dso, validator].sort());
      preapprovalCid = preapproval.contractId;
      // the preapproval's base duration (90 days) covers it: nothing is paid
      expect(exercisedEvents(r)[0].exerciseResult).toMatchObject({
        transferPreapprovalCid: preapproval.contractId,
        amuletPaid: '0.0000000000',
      });
    });

    it('TransferFactory_Transfer with transfer-preapproval in the context completes at once: the receiver holds the amount', async () => {
      const [input] = await wallet.holdings(ext.partyId);
      const t = await wallet.transferCommand(ext.partyId, bob, '100.0', [input.contractId]);
      expect(t.kind).toBe('direct');
      // the registry's context: the receiver's preapproval and its provider's featured-app right, both disclosed
      const context = (t.command as any).ExerciseCommand.choiceArgument.extraArgs.context.values;
      expect(Object.keys(context).sort()).toEqual([
        'amulet-rules',
        'external-party-config-state',
        'featured-app-right',
        'open-round',
        'transfer-preapproval',
      ]);
      expect((t.disclosed as any[]).map((d) => d.contractId)).toEqual(
        expect.arrayContaining(Object.values(context).map((v: any) => v.value)),
      );
      const r = await wallet.signed([ext], [t.command], t.disclosed);
      expect(r.status, r.text).toBe(200);
      const [root] = exercisedEvents(r);
      expect(root).toMatchObject({ choice: 'TransferFactory_Transfer', actingParties: [ext.partyId] });
      expect(root.templateId).toMatch(/:Splice\.ExternalPartyAmuletRules:ExternalPartyAmuletRules$/);
      expect(exercisedEvents(r).map((e: any) => e.choice)).toContain('TransferPreapproval_SendV2');
      const result = root.exerciseResult;
      expect(result.output.tag).toBe('TransferInstructionResult_Completed');
      const bobs = await wallet.holdings(bob);
      expect(amounts(bobs)).toEqual([['100.0000000000', false]]);
      expect(result.output.value.receiverHoldingCids).toEqual([bobs[0].contractId]);
      const change = await wallet.holdings(ext.partyId);
      expect(amounts(change)).toEqual([['900.0000000000', false]]);
      expect(result.senderChangeCids).toEqual([change[0].contractId]);
      expect(await wallet.isActive(ext.partyId, input.contractId)).toBe(false);
      // the preapproval serves further transfers: TransferPreapproval_SendV2 does not consume it
      expect(await wallet.isActive(bob, preapprovalCid)).toBe(true);
    });

    it('another receiver’s preapproval in the context is refused by the factory, changing nothing', async () => {
      const [input] = await wallet.holdings(ext.partyId);
      const t = await wallet.transferCommand(ext.partyId, carol, '1.0', [input.contractId]);
      expect(t.kind).toBe('offer');
      const forBob = await wallet.transferCommand(ext.partyId, bob, '1.0', [input.contractId]);
      const command = JSON.parse(JSON.stringify(t.command));
      command.ExerciseCommand.choiceArgument.extraArgs.context.values['transfer-preapproval'] = {
        tag: 'AV_ContractId',
        value: preapprovalCid,
      };
      const end = await wallet.ledgerEnd();
      const e = expectCantonError(await wallet.signed([ext], [command], forBob.disclosed), 400, 'DAML_FAILURE');
      // splice-util's fetchChecked: the preapproval must belong to the transfer's receiver
      expect(e.context.error_id).toBe('UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError');
      expect(e.cause).toContain(
        `Contract group identifier mismatch: expected ForOwner {dso = '${dso}', owner = '${carol}'}, got ForOwner {dso = '${dso}', owner = '${bob}'}`,
      );
      expect(await wallet.ledgerEnd()).toBe(end);
      expect(await wallet.isActive(ext.partyId, input.contractId)).toBe(true);
    });
  });

  describe('two-step transfers: an AmuletTransferInstruction over the sender’s locked amulet', () => {
    /** Sends `amount` from the external party to carol (no preapproval): the instruction and the locked amulet. */
    async function offer(amount: string) {
      const before = await wallet.holdings(ext.partyId);
      const unlocked = before.filter((h) => h.lock === null);
      const t = await wallet.transferCommand(
        ext.partyId,
        carol,
        amount,
        unlocked.map((h) => h.contractId),
      );
      expect(t.kind).toBe('offer');
      const r = await wallet.signed([ext], [t.command], t.disclosed);
      expect(r.status, r.text).toBe(200);
      const result = exercisedEvents(r)[0].exerciseResult;
      expect(result.output.tag).toBe('TransferInstructionResult_Pending');
      const instructionCid = result.output.value.transferInstructionCid as string;
      const [instr] = createdEvents(r, ':Splice.AmuletTransferInstruction:AmuletTransferInstruction');
      expect(instr.contractId).toBe(instructionCid);
      expect(instr.signatories.sort()).toEqual([dso, ext.partyId].sort());
      expect(instr.observers).toEqual([carol]);
      const [locked] = createdEvents(r, ':Splice.Amulet:LockedAmulet');
      expect(instr.createArgument).toMatchObject({
        lockedAmulet: locked.contractId,
        transfer: { sender: ext.partyId, receiver: carol, inputHoldingCids: [locked.contractId] },
      });
      expect(locked.createArgument.lock).toMatchObject({
        holders: [dso],
        expiresAt: instr.createArgument.transfer.executeBefore,
        optContext: `transfer to '${carol}'`,
      });
      const total = unlocked.reduce((s, h) => s + Number(h.amount), 0);
      const after = await wallet.holdings(ext.partyId);
      expect(after.find((h) => h.contractId === locked.contractId)).toMatchObject({
        amount: Number(amount).toFixed(10),
        lock: { holders: [dso] },
      });
      expect(after.filter((h) => h.lock === null).map((h) => Number(h.amount))).toEqual([total - Number(amount)]);
      return { instructionCid, lockedCid: locked.contractId as string, total };
    }

    it('accepted by the receiver: TransferInstruction_Accept moves the locked amount to the receiver', async () => {
      const { instructionCid, lockedCid, total } = await offer('50.0');
      // the receiver cannot withdraw, the sender cannot accept: Canton's authorization error, nothing changes
      const end = await wallet.ledgerEnd();
      const wrong = await wallet.instructionCommand(instructionCid, 'TransferInstruction_Withdraw');
      expectCantonError(
        await coin.submit([wrong.command], [carol], [], wrong.disclosed),
        400,
        'DAML_AUTHORIZATION_ERROR',
      );
      const accept = await wallet.instructionCommand(instructionCid, 'TransferInstruction_Accept');
      expectCantonError(
        await wallet.signed([ext], [accept.command], accept.disclosed),
        400,
        'DAML_AUTHORIZATION_ERROR',
      );
      expect(await wallet.ledgerEnd()).toBe(end);
      expect(await wallet.isActive(carol, instructionCid)).toBe(true);

      const r = await coin.submit([accept.command], [carol], [], accept.disclosed);
      expect(r.status, r.text).toBe(200);
      const [root] = exercisedEvents(r);
      expect(root).toMatchObject({
        contractId: instructionCid,
        choice: 'TransferInstruction_Accept',
        consuming: true,
        actingParties: [carol],
      });
      expect(root.exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      expect(amounts(await wallet.holdings(carol))).toEqual([['50.0000000000', false]]);
      expect(await wallet.isActive(ext.partyId, lockedCid)).toBe(false);
      expect(await wallet.isActive(carol, instructionCid)).toBe(false);
      expect((await wallet.holdings(ext.partyId)).map((h) => [Number(h.amount), h.lock])).toEqual([[total - 50, null]]);
    });

    it('rejected by the receiver: TransferInstruction_Reject unlocks the amount back to the sender', async () => {
      const carolBefore = await wallet.holdings(carol);
      const { instructionCid, lockedCid, total } = await offer('20.0');
      const reject = await wallet.instructionCommand(instructionCid, 'TransferInstruction_Reject');
      const r = await coin.submit([reject.command], [carol], [], reject.disclosed);
      expect(r.status, r.text).toBe(200);
      expect(exercisedEvents(r)[0]).toMatchObject({
        choice: 'TransferInstruction_Reject',
        actingParties: [carol],
        exerciseResult: { output: { tag: 'TransferInstructionResult_Failed' } },
      });
      expect(await wallet.isActive(ext.partyId, lockedCid)).toBe(false);
      expect(await wallet.holdings(carol)).toEqual(carolBefore);
      const back = await wallet.holdings(ext.partyId);
      expect(back.every((h) => h.lock === null)).toBe(true);
      expect(back.map((h) => Number(h.amount)).sort((a, b) => a - b)).toEqual([20, total - 20].sort((a, b) => a - b));
    });

    it('withdrawn by the sender: TransferInstruction_Withdraw, prepared and signed by the external party', async () => {
      const carolBefore = await wallet.holdings(carol);
      const { instructionCid, lockedCid, total } = await offer('30.0');
      const withdraw = await wallet.instructionCommand(instructionCid, 'TransferInstruction_Withdraw');
      const r = await wallet.signed([ext], [withdraw.command], withdraw.disclosed);
      expect(r.status, r.text).toBe(200);
      expect(exercisedEvents(r)[0]).toMatchObject({
        choice: 'TransferInstruction_Withdraw',
        actingParties: [ext.partyId],
        exerciseResult: { output: { tag: 'TransferInstructionResult_Failed' } },
      });
      expect(await wallet.isActive(ext.partyId, lockedCid)).toBe(false);
      expect(await wallet.holdings(carol)).toEqual(carolBefore);
      const back = await wallet.holdings(ext.partyId);
      expect(back.reduce((s, h) => s + Number(h.amount), 0)).toBe(total);
      expect(back.map((h) => Number(h.amount))).toContain(30);
      // a withdrawn instruction is gone: a second withdraw does not find it
      const again = await wallet.signed([ext], [withdraw.command], withdraw.disclosed);
      expectCantonError(again, 404, 'CONTRACT_NOT_FOUND');
    });
  });

  it('TransferFactory_Transfer without the registry’s context fails in Daml and changes nothing', async () => {
    const unlocked = (await wallet.holdings(ext.partyId)).filter((h) => h.lock === null);
    const t = await wallet.transferCommand(ext.partyId, carol, '1.0', [unlocked[0].contractId]);
    const bare = JSON.parse(JSON.stringify(t.command));
    bare.ExerciseCommand.choiceArgument.extraArgs.context = { values: {} };
    const end = await wallet.ledgerEnd();
    const r = await wallet.signed([ext], [bare], t.disclosed);
    const e = expectCantonError(r, 400, 'DAML_FAILURE');
    expect(e.cause).toContain('Missing context entry for: external-party-config-state');
    expect(await wallet.ledgerEnd()).toBe(end);
  });

  it('lists the holdings through the Holding interface and merges them by a self-transfer of the whole balance', async () => {
    const held = await wallet.holdings(ext.partyId);
    expect(held.length).toBeGreaterThanOrEqual(2);
    expect(held.every((h) => h.lock === null && h.templateId === 'Splice.Amulet:Amulet')).toBe(true);
    const total = held.reduce((sum, h) => sum + Number(h.amount), 0);
    const t = await wallet.transferCommand(
      ext.partyId,
      ext.partyId,
      total.toFixed(10),
      held.map((h) => h.contractId),
    );
    expect(t.kind).toBe('self');
    const r = await wallet.signed([ext], [t.command], t.disclosed);
    expect(r.status, r.text).toBe(200);
    const result = exercisedEvents(r)[0].exerciseResult;
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    const merged = await wallet.holdings(ext.partyId);
    expect(merged.map((h) => [h.amount, h.lock])).toEqual([[total.toFixed(10), null]]);
    expect(result.output.value.receiverHoldingCids).toEqual([merged[0].contractId]);
    for (const h of held) expect(await wallet.isActive(ext.partyId, h.contractId)).toBe(false);
  });

  /** A party's token-standard history as the wallet SDK reads it (/v2/updates, LEDGER_EFFECTS) and parses it (core-tx-parser). */
  async function history(party: string) {
    const filter = EventFilterBySetup({
      interfaceIds: TokenStandardTransactionInterfaces,
      partyId: party,
      isMasterUser: false,
      includeWildcard: true,
    });
    const updates = await coin.ledger.call('POST', '/v2/updates', {
      beginExclusive: 0,
      endInclusive: await wallet.ledgerEnd(),
      updateFormat: {
        includeTransactions: { eventFormat: filter, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
      },
    });
    expect(updates.status, updates.text).toBe(200);
    const token = await coin.ledger.token();
    const provider = new LedgerProvider({
      baseUrl: coin.ledger.url,
      accessTokenProvider: { getAccessToken: async () => token, getAuthContext: async () => ({}) as never },
    });
    const parsed = [];
    for (const u of updates.json) {
      if (!u.update?.Transaction) continue;
      parsed.push(
        await new TransactionParser(provider as never, u.update.Transaction.value, party, false).parseTransaction(),
      );
    }
    // one row per parsed event: label, token-standard choice, counterparty, unlocked and locked balance changes, instruction status
    return parsed.flatMap((t) =>
      t.events.map((e: any) => ({
        type: e.label.type,
        choice: e.label.tokenStandardChoice?.name ?? null,
        counterparty: e.label.receiverAmounts ?? e.label.sender ?? null,
        mint: e.label.mintAmount,
        burn: e.label.burnAmount,
        reason: e.label.reason,
        unlocked: e.unlockedHoldingsChangeSummaries.map((x: any) => x.amountChange),
        locked: e.lockedHoldingsChangeSummaries.map((x: any) => x.amountChange),
        status: e.transferInstruction?.status.current?.tag ?? null,
      })),
    );
  }

  it('the transaction history read from /v2/updates and parsed by core-tx-parser labels the transfers', async () => {
    const row = (
      type: string,
      choice: string | null,
      counterparty: unknown,
      unlocked: string[],
      locked: string[],
      status: string | null,
      extra: object = {},
    ) =>
      expect.objectContaining({ type, choice, counterparty, mint: '0', burn: '0', unlocked, locked, status, ...extra });
    const toBob = [{ receiver: bob, amount: '100' }];
    const toCarol = [{ receiver: carol, amount: '50' }];
    const rows = await history(ext.partyId);
    expect(rows).toEqual([
      // the tap, and the one-step transfer: out to bob at once
      row('Mint', null, null, ['1000'], [], null, { mint: '1000', reason: 'tapped DevNet faucet' }),
      row('TransferOut', 'TransferFactory_Transfer', toBob, ['-100'], [], 'Completed'),
      // each offer locks the amount (a merge-split of the sender's own holdings, the instruction pending) …
      row('MergeSplit', 'TransferFactory_Transfer', null, ['-50'], ['50'], 'Pending'),
      // … the accept pays it out of the lock (the transient amulet the unlock creates and the payment spends is found by
      // events-by-contract-id, as Canton finds it in its witnessed events: no unlocked change, no mint)
      row('TransferOut', 'TransferInstruction_Accept', toCarol, [], ['-50'], 'Completed'),
      row('MergeSplit', 'TransferFactory_Transfer', null, ['-20'], ['20'], 'Pending'),
      // a reject or withdraw unlocks it back to the sender
      row('MergeSplit', 'TransferInstruction_Reject', null, ['20'], ['-20'], 'Failed'),
      row('MergeSplit', 'TransferFactory_Transfer', null, ['-30'], ['30'], 'Pending'),
      row('MergeSplit', 'TransferInstruction_Withdraw', null, ['30'], ['-30'], 'Failed'),
      // the merge: a self-transfer, no balance change
      row('MergeSplit', 'TransferFactory_Transfer', null, ['0'], [], 'Completed'),
    ]);
    // the receivers' side: bob witnessed the preapproval's payment, carol accepted the instruction
    expect(await history(bob)).toEqual([
      expect.objectContaining({
        type: 'TransferIn',
        counterparty: ext.partyId,
        mint: '0',
        burn: '0',
        unlocked: ['100'],
        locked: [],
      }),
    ]);
    expect(await history(carol)).toEqual([
      row('TransferIn', 'TransferInstruction_Accept', ext.partyId, ['50'], [], 'Completed'),
    ]);
  });
});
