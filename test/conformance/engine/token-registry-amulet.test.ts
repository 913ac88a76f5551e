import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import {
  AMULET,
  createdEvents,
  exercisedEvents,
  startAmuletLedger,
  type AmuletLedger,
} from '../../support/amulet-ledger';
import { expectRegistryError, expectShape } from '../../support/token-registry-shapes';

/**
 * Canton Coin's token registry (the token standard's off-ledger API, as Splice's scan serves it for Amulet) on a ledger
 * holding Amulet: each answer is checked against the API's schema and then used as a wallet uses it: the factory
 * choice or the instruction's or allocation's choice is exercised by interface id with the returned choice context as
 * `extraArgs.context` and the returned contracts disclosed, by parties that see none of the DSO's contracts otherwise
 * (no `readAs`). Transfers: self, offer (then accept, reject, withdraw), direct (with the receiver's TransferPreapproval);
 * allocations: allocate, then execute-transfer, withdraw, cancel.
 */
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const ALLOCATION_FACTORY =
  '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
const ALLOCATION = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
const TRANSFER_PREAPPROVAL = '#splice-amulet:Splice.AmuletRules:TransferPreapproval';
const FEATURED_APP_RIGHT = '#splice-amulet:Splice.Amulet:FeaturedAppRight';
const EMPTY = { values: {} };

describeWithDars('Canton Coin token registry (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let coin: AmuletLedger;
  let dso: string;
  let fresh = 0;
  const newParty = (hint: string) => coin.party(`${hint}-${++fresh}`);
  const iso = (deltaMs: number) => new Date(Date.now() + deltaMs).toISOString();
  const post = (path: string, body: unknown) => coin.ledger.call('POST', path, body);
  /** The JSON API's disclosed contract (the registry's without its debug fields). */
  const disclosures = (ctx: any) =>
    ctx.disclosedContracts.map((d: any) => ({
      contractId: d.contractId,
      templateId: d.templateId,
      createdEventBlob: d.createdEventBlob,
      synchronizerId: d.synchronizerId,
    }));

  beforeAll(async () => {
    coin = await startAmuletLedger(darsRoot);
    dso = coin.dso;
  }, 300_000);
  afterAll(async () => {
    await coin?.ledger.close();
  });

  /** A party holding one tapped Amulet of `amount`; returns the party and the Amulet's contract id. */
  async function funded(hint: string, amount = '100.0') {
    const p = await newParty(hint);
    const t = await coin.tap(p, amount);
    expect(t.status, t.text).toBe(200);
    return { party: p, amulet: createdEvents(t, ':Splice.Amulet:Amulet')[0].contractId as string };
  }

  const transferArgs = (sender: string, receiver: string, amount: string, inputs: string[]) => ({
    expectedAdmin: dso,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin: dso, id: 'Amulet' },
      requestedAt: iso(-60_000),
      executeBefore: iso(3600_000),
      inputHoldingCids: inputs,
      meta: EMPTY,
    },
    extraArgs: { context: EMPTY, meta: EMPTY },
  });

  /** Asks the registry for the transfer factory and exercises TransferFactory_Transfer with its answer as `actAs`. */
  async function transferVia(args: ReturnType<typeof transferArgs>, actAs: string[]) {
    const r = await post('/registry/transfer-instruction/v1/transfer-factory', {
      choiceArguments: args,
      excludeDebugFields: true,
    });
    expect(r.status, r.text).toBe(200);
    expectShape('TransferFactoryWithChoiceContext', r.json);
    const { factoryId, choiceContext } = r.json;
    const choiceArgument = { ...args, extraArgs: { context: choiceContext.choiceContextData, meta: EMPTY } };
    const exercised = await coin.submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: factoryId,
            choice: 'TransferFactory_Transfer',
            choiceArgument,
          },
        },
      ],
      actAs,
      [],
      disclosures(choiceContext),
    );
    return { factory: r.json, exercised };
  }

  /** Starts a transfer offer from a funded sender to a new receiver; returns both and the instruction's id. */
  async function offer(amount = '40.0') {
    const { party: sender, amulet } = await funded('offerer');
    const receiver = await newParty('offeree');
    const { factory, exercised } = await transferVia(transferArgs(sender, receiver, amount, [amulet]), [sender]);
    expect(factory.transferKind).toBe('offer');
    expect(exercised.status, exercised.text).toBe(200);
    const output = exercisedEvents(exercised)[0].exerciseResult.output;
    expect(output.tag).toBe('TransferInstructionResult_Pending');
    return { sender, receiver, instruction: output.value.transferInstructionCid as string };
  }

  async function instructionChoice(instruction: string, path: 'accept' | 'reject' | 'withdraw', actAs: string[]) {
    const ctx = await post(`/registry/transfer-instruction/v1/${instruction}/choice-contexts/${path}`, {
      excludeDebugFields: true,
    });
    expect(ctx.status, ctx.text).toBe(200);
    expectShape('ChoiceContext', ctx.json);
    const choice = {
      accept: 'TransferInstruction_Accept',
      reject: 'TransferInstruction_Reject',
      withdraw: 'TransferInstruction_Withdraw',
    }[path];
    const r = await coin.submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_INSTRUCTION,
            contractId: instruction,
            choice,
            choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: EMPTY } },
          },
        },
      ],
      actAs,
      [],
      disclosures(ctx.json),
    );
    return { context: ctx.json, exercised: r };
  }

  const amountsOf = async (owner: string) =>
    (await coin.amuletsOf(owner)).map((e: any) => e.createArgument.amount.initialAmount).sort();

  describe('metadata', () => {
    it('info names the DSO as admin and the metadata API', async () => {
      const r = await coin.ledger.call('GET', '/registry/metadata/v1/info');
      expect(r.status, r.text).toBe(200);
      expectShape('GetRegistryInfoResponse', r.json);
      expect(r.json).toEqual({ adminId: dso, supportedApis: { 'splice-api-token-metadata-v1': 1 } });
    });

    it('instruments: Amulet with 10 decimals and the APIs scan lists; an unknown instrument is 404', async () => {
      const list = await coin.ledger.call('GET', '/registry/metadata/v1/instruments');
      expect(list.status, list.text).toBe(200);
      expectShape('ListInstrumentsResponse', list.json);
      const amulet = {
        id: 'Amulet',
        name: 'Amulet',
        symbol: 'AMT',
        decimals: 10,
        supportedApis: {
          'splice-api-token-metadata-v1': 1,
          'splice-api-token-holding-v1': 1,
          'splice-api-token-transfer-instruction-v1': 1,
          'splice-api-token-allocation-v1': 1,
          'splice-api-token-allocation-instruction-v1': 1,
        },
      };
      expect(list.json).toEqual({ instruments: [amulet] });
      const one = await coin.ledger.call('GET', '/registry/metadata/v1/instruments/Amulet');
      expect(one.status, one.text).toBe(200);
      expectShape('Instrument', one.json);
      expect(one.json).toEqual(amulet);
      expect(expectRegistryError(await coin.ledger.call('GET', '/registry/metadata/v1/instruments/Gold'), 404)).toBe(
        'No instrument with id Gold found',
      );
      // the same registry under the DSO's own prefix and where a validator's scan proxy serves it
      expect(
        (await coin.ledger.call('GET', `/token-registries/${encodeURIComponent(dso)}/registry/metadata/v1/info`)).json
          .adminId,
      ).toBe(dso);
      expect(
        (await coin.ledger.call('GET', '/api/validator/v0/scan-proxy/registry/metadata/v1/instruments')).json,
      ).toEqual({ instruments: [amulet] });
    });

    it('needs a token like the rest of the API', async () => {
      const r = await coin.ledger.call('GET', '/registry/metadata/v1/info', undefined, { as: null });
      expect(r.status).toBe(401);
    });
  });

  describe('transfer factory', () => {
    it('names ExternalPartyAmuletRules and discloses the DSO contracts the context names, with debug fields unless excluded', async () => {
      const { party: sender, amulet } = await funded('shape');
      const args = transferArgs(sender, await newParty('shape-to'), '1.0', [amulet]);
      const r = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args });
      expect(r.status, r.text).toBe(200);
      expectShape('TransferFactoryWithChoiceContext', r.json);
      expect(r.json.factoryId).toBe(coin.externalRulesCid);
      const values = r.json.choiceContext.choiceContextData.values;
      expect(Object.keys(values).sort()).toEqual(['amulet-rules', 'external-party-config-state', 'open-round']);
      expect(values['amulet-rules']).toEqual({ tag: 'AV_ContractId', value: coin.rulesCid });
      // the newest round that has opened: bootstrap opens rounds 0 and 1 at once, round 2 later
      const rounds = await coin.active(dso, {
        TemplateFilter: { value: { templateId: '#splice-amulet:Splice.Round:OpenMiningRound' } },
      });
      const round1 = rounds.find((e: any) => e.createArgument.round.number === '1');
      expect(values['open-round']).toEqual({ tag: 'AV_ContractId', value: round1.contractId });
      const disclosed = r.json.choiceContext.disclosedContracts;
      expect(disclosed.map((d: any) => d.contractId)).toEqual([
        coin.rulesCid,
        round1.contractId,
        values['external-party-config-state'].value,
        coin.externalRulesCid,
      ]);
      for (const d of disclosed) {
        expect(d.synchronizerId).toBe(coin.sync);
        expect(d.debugPackageName).toBe('splice-amulet');
        expect(Date.parse(d.debugCreatedAt)).toBeGreaterThan(0);
      }
      expect(disclosed[0].debugPayload.dso).toBe(dso);
      // the disclosed contracts are the DSO's, blob and all
      const rulesEvent = (
        await coin.active(dso, {
          TemplateFilter: {
            value: { templateId: '#splice-amulet:Splice.AmuletRules:AmuletRules', includeCreatedEventBlob: true },
          },
        })
      )[0];
      expect(disclosed[0]).toMatchObject({
        templateId: rulesEvent.templateId,
        createdEventBlob: rulesEvent.createdEventBlob,
      });
      const lean = await post('/registry/transfer-instruction/v1/transfer-factory', {
        choiceArguments: args,
        excludeDebugFields: true,
      });
      for (const d of lean.json.choiceContext.disclosedContracts)
        expect(Object.keys(d).sort()).toEqual(['contractId', 'createdEventBlob', 'synchronizerId', 'templateId']);
    });

    it('self: the sender pays itself, no pre-approval needed', async () => {
      const { party: alice, amulet } = await funded('self', '50.0');
      const { factory, exercised } = await transferVia(transferArgs(alice, alice, '20.0', [amulet]), [alice]);
      expect(factory.transferKind).toBe('self');
      expect(exercised.status, exercised.text).toBe(200);
      expect(exercisedEvents(exercised)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      expect(await amountsOf(alice)).toEqual(['20.0000000000', '30.0000000000']);
    });

    it('tap as the wallet SDK does it: the factory asked for a transfer from the DSO discloses the rules and round the tap needs', async () => {
      const eve = await newParty('tapper');
      const args = transferArgs(dso, eve, '10000.0000000000', []);
      const asked = { ...args, transfer: { ...args.transfer, lock: null } };
      const r = await post('/registry/transfer-instruction/v1/transfer-factory', {
        choiceArguments: asked,
        excludeDebugFields: true,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.transferKind).toBe('offer');
      const values = r.json.choiceContext.choiceContextData.values;
      const tap = await coin.submit(
        [
          {
            ExerciseCommand: {
              templateId: '#splice-amulet:Splice.AmuletRules:AmuletRules',
              contractId: values['amulet-rules'].value,
              choice: 'AmuletRules_DevNet_Tap',
              choiceArgument: { receiver: eve, amount: '10000.0', openRound: values['open-round'].value },
            },
          },
        ],
        [eve],
        [],
        disclosures(r.json.choiceContext),
      );
      expect(tap.status, tap.text).toBe(200);
      expect(await amountsOf(eve)).toEqual(['10000.0000000000']);
    });

    it('without the context the factory choice fails: the registry supplies what the choice needs', async () => {
      const { party: alice, amulet } = await funded('nocontext');
      const args = transferArgs(alice, alice, '1.0', [amulet]);
      const r = await post('/registry/transfer-instruction/v1/transfer-factory', {
        choiceArguments: args,
        excludeDebugFields: true,
      });
      const bare = await coin.submit(
        [
          {
            ExerciseCommand: {
              templateId: TRANSFER_FACTORY,
              contractId: r.json.factoryId,
              choice: 'TransferFactory_Transfer',
              choiceArgument: args,
            },
          },
        ],
        [alice],
        [],
        disclosures(r.json.choiceContext),
      );
      expect(bare.status, bare.text).toBe(400);
      expect(bare.text).toContain('external-party-config-state');
    });

    it('direct: with the receiver’s TransferPreapproval (and its provider’s FeaturedAppRight) the receiver is paid at once', async () => {
      const { party: alice, amulet } = await funded('direct', '80.0');
      const carol = await newParty('preapproved');
      const provider = await newParty('provider');
      const now = new Date().toISOString();
      const pre = await coin.submit(
        [
          {
            CreateCommand: {
              templateId: TRANSFER_PREAPPROVAL,
              createArguments: {
                dso,
                receiver: carol,
                provider,
                validFrom: now,
                lastRenewedAt: now,
                expiresAt: iso(24 * 3600_000),
              },
            },
          },
        ],
        [dso, carol, provider],
      );
      expect(pre.status, pre.text).toBe(200);
      const preCid = pre.json.transaction.events[0].CreatedEvent.contractId;
      const right = await coin.submit(
        [{ CreateCommand: { templateId: FEATURED_APP_RIGHT, createArguments: { dso, provider } } }],
        [dso],
      );
      expect(right.status, right.text).toBe(200);
      const rightCid = right.json.transaction.events[0].CreatedEvent.contractId;

      const { factory, exercised } = await transferVia(transferArgs(alice, carol, '30.0', [amulet]), [alice]);
      expect(factory.transferKind).toBe('direct');
      expect(factory.choiceContext.choiceContextData.values).toMatchObject({
        'transfer-preapproval': { tag: 'AV_ContractId', value: preCid },
        'featured-app-right': { tag: 'AV_ContractId', value: rightCid },
      });
      expect(exercised.status, exercised.text).toBe(200);
      expect(exercisedEvents(exercised)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      expect(await amountsOf(carol)).toEqual(['30.0000000000']);
      expect(await amountsOf(alice)).toEqual(['50.0000000000']);
    });

    it('an expired TransferPreapproval is not offered: the transfer becomes an offer', async () => {
      const { party: alice, amulet } = await funded('expired');
      const dave = await newParty('lapsed');
      const past = iso(-3600_000);
      const pre = await coin.submit(
        [
          {
            CreateCommand: {
              templateId: TRANSFER_PREAPPROVAL,
              createArguments: {
                dso,
                receiver: dave,
                provider: dave,
                validFrom: iso(-7200_000),
                lastRenewedAt: iso(-7200_000),
                expiresAt: past,
              },
            },
          },
        ],
        [dso, dave],
      );
      expect(pre.status, pre.text).toBe(200);
      const r = await post('/registry/transfer-instruction/v1/transfer-factory', {
        choiceArguments: transferArgs(alice, dave, '1.0', [amulet]),
      });
      expect(r.json.transferKind).toBe('offer');
      expect(r.json.choiceContext.choiceContextData.values['transfer-preapproval']).toBeUndefined();
    });

    it('bad bodies are 400 with the API’s error body', async () => {
      const path = '/registry/transfer-instruction/v1/transfer-factory';
      expect(expectRegistryError(await post(path, {}), 400)).toBe(
        'Field `choiceArguments` is required and must be a JSON object.',
      );
      expect(expectRegistryError(await post(path, []), 400)).toBe('The request body must be a JSON object.');
      const args = transferArgs(dso, dso, '1.0', []);
      const noReceiver = { ...args, transfer: { ...args.transfer, receiver: 'nobody' } };
      expect(expectRegistryError(await post(path, { choiceArguments: noReceiver }), 400)).toBe(
        'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: transfer.receiver must be a party id',
      );
      expect(expectRegistryError(await post(path, { choiceArguments: args, excludeDebugFields: 'yes' }), 400)).toBe(
        'Field `excludeDebugFields` must be a boolean.',
      );
    });
  });

  describe('transfer instruction choice contexts', () => {
    it('accept: the LockedAmulet is disclosed with expire-lock true, and the receiver gets the Amulet', async () => {
      const { sender, receiver, instruction } = await offer('40.0');
      const locked = await coin.active(sender, {
        TemplateFilter: { value: { templateId: '#splice-amulet:Splice.Amulet:LockedAmulet' } },
      });
      expect(locked).toHaveLength(1);
      const { context, exercised } = await instructionChoice(instruction, 'accept', [receiver]);
      expect(context.choiceContextData.values['expire-lock']).toEqual({ tag: 'AV_Bool', value: true });
      expect(context.disclosedContracts.map((d: any) => d.contractId)).toContain(locked[0].contractId);
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(receiver)).toEqual(['40.0000000000']);
      expect(await amountsOf(sender)).toEqual(['60.0000000000']);
      // the instruction is gone: 404
      const again = await post(`/registry/transfer-instruction/v1/${instruction}/choice-contexts/accept`, {});
      expect(expectRegistryError(again, 404)).toBe(`AmuletTransferInstruction '${instruction}' not found.`);
    });

    it('reject: the sender gets the locked amount back', async () => {
      const { sender, receiver, instruction } = await offer('25.0');
      const { exercised } = await instructionChoice(instruction, 'reject', [receiver]);
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(receiver)).toEqual([]);
      expect(await amountsOf(sender)).toEqual(['25.0000000000', '75.0000000000']);
    });

    it('withdraw: the sender takes the offer back', async () => {
      const { sender, receiver, instruction } = await offer('10.0');
      const { exercised } = await instructionChoice(instruction, 'withdraw', [sender]);
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(receiver)).toEqual([]);
      expect(await amountsOf(sender)).toEqual(['10.0000000000', '90.0000000000']);
    });

    it('the LockedAmulet gone (its holders released it): accept is 404 naming it; reject gets expire-lock false alone', async () => {
      const { sender, receiver, instruction } = await offer('15.0');
      const [locked] = await coin.active(sender, {
        TemplateFilter: { value: { templateId: '#splice-amulet:Splice.Amulet:LockedAmulet' } },
      });
      const unlock = await coin.submit(
        [
          {
            ExerciseCommand: {
              templateId: '#splice-amulet:Splice.Amulet:LockedAmulet',
              contractId: locked.contractId,
              choice: 'LockedAmulet_UnlockV2',
              choiceArgument: {},
            },
          },
        ],
        [sender, dso],
      );
      expect(unlock.status, unlock.text).toBe(200);
      const accept = await post(`/registry/transfer-instruction/v1/${instruction}/choice-contexts/accept`, {});
      const executeBefore = (
        await coin.active(sender, {
          TemplateFilter: {
            value: { templateId: '#splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction' },
          },
        })
      ).find((e: any) => e.contractId === instruction).createArgument.transfer.executeBefore;
      expect(expectRegistryError(accept, 404)).toBe(
        `LockedAmulet '${locked.contractId}' not found for AmuletTransferInstruction '${instruction}', which expires on ${executeBefore}`,
      );
      const { context, exercised } = await instructionChoice(instruction, 'reject', [receiver]);
      expect(context).toEqual({
        choiceContextData: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } },
        disclosedContracts: [],
      });
      // splice-amulet's two-step abort takes `expire-lock: false` only once the lock has expired (a lock that expired and
      // was unlocked); this one was released before its expiry, so the choice refuses it until then
      expect([exercised.status, exercised.json.context.error_id]).toEqual([
        400,
        'stdlib.daml.com/deadline-not-exceeded',
      ]);
      expect(exercised.json.cause).toContain("deadline 'lockedAmulet.lockExpiresAt'");
      expect(await amountsOf(sender)).toEqual(['15.0000000000', '85.0000000000']);
    });

    it('unknown ids and contracts that are no transfer instruction are 404; bad bodies 400', async () => {
      const { amulet } = await funded('notaninstruction');
      for (const id of ['00' + 'ab'.repeat(32), amulet, 'junk']) {
        const r = await post(`/registry/transfer-instruction/v1/${id}/choice-contexts/reject`, {});
        expect(expectRegistryError(r, 404)).toBe(`AmuletTransferInstruction '${id}' not found.`);
      }
      const bad = await post(`/registry/transfer-instruction/v1/${amulet}/choice-contexts/accept`, { meta: { a: 1 } });
      expect(expectRegistryError(bad, 400)).toBe('Field `meta` must be a JSON object of strings.');
    });
  });

  describe('allocations', () => {
    async function allocate(amount: string) {
      const { party: sender, amulet } = await funded('allocator');
      const receiver = await newParty('allocatee');
      const executor = await newParty('executor');
      const args = {
        expectedAdmin: dso,
        allocation: {
          settlement: {
            executor,
            settlementRef: { id: `trade-${fresh}`, cid: null },
            requestedAt: iso(-60_000),
            allocateBefore: iso(3600_000),
            settleBefore: iso(7200_000),
            meta: EMPTY,
          },
          transferLegId: 'leg-0',
          transferLeg: { sender, receiver, amount, instrumentId: { admin: dso, id: 'Amulet' }, meta: EMPTY },
        },
        requestedAt: iso(-60_000),
        inputHoldingCids: [amulet],
        extraArgs: { context: EMPTY, meta: EMPTY },
      };
      const f = await post('/registry/allocation-instruction/v1/allocation-factory', {
        choiceArguments: args,
        excludeDebugFields: true,
      });
      expect(f.status, f.text).toBe(200);
      expectShape('FactoryWithChoiceContext', f.json);
      expect(f.json.factoryId).toBe(coin.externalRulesCid);
      expect(Object.keys(f.json.choiceContext.choiceContextData.values).sort()).toEqual([
        'amulet-rules',
        'external-party-config-state',
        'open-round',
      ]);
      const choiceArgument = { ...args, extraArgs: { context: f.json.choiceContext.choiceContextData, meta: EMPTY } };
      const r = await coin.submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION_FACTORY,
              contractId: f.json.factoryId,
              choice: 'AllocationFactory_Allocate',
              choiceArgument,
            },
          },
        ],
        [sender],
        [],
        disclosures(f.json.choiceContext),
      );
      expect(r.status, r.text).toBe(200);
      const output = exercisedEvents(r)[0].exerciseResult.output;
      expect(output.tag).toBe('AllocationInstructionResult_Completed');
      return { sender, receiver, executor, allocation: output.value.allocationCid as string };
    }

    async function allocationChoice(
      allocation: string,
      path: 'execute-transfer' | 'withdraw' | 'cancel',
      actAs: string[],
    ) {
      const ctx = await post(`/registry/allocations/v1/${allocation}/choice-contexts/${path}`, {
        excludeDebugFields: true,
      });
      expect(ctx.status, ctx.text).toBe(200);
      expectShape('ChoiceContext', ctx.json);
      const choice = {
        'execute-transfer': 'Allocation_ExecuteTransfer',
        withdraw: 'Allocation_Withdraw',
        cancel: 'Allocation_Cancel',
      }[path];
      const r = await coin.submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION,
              contractId: allocation,
              choice,
              choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: EMPTY } },
            },
          },
        ],
        actAs,
        [],
        disclosures(ctx.json),
      );
      return { context: ctx.json, exercised: r };
    }

    it('allocate, then execute-transfer: the receiver gets the allocated amount', async () => {
      const { sender, receiver, executor, allocation } = await allocate('35.0');
      const { context, exercised } = await allocationChoice(allocation, 'execute-transfer', [
        executor,
        sender,
        receiver,
      ]);
      expect(context.choiceContextData.values['expire-lock']).toEqual({ tag: 'AV_Bool', value: true });
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(receiver)).toEqual(['35.0000000000']);
      expect(await amountsOf(sender)).toEqual(['65.0000000000']);
    });

    it('withdraw: the sender takes the allocation back', async () => {
      const { sender, allocation } = await allocate('15.0');
      const { exercised } = await allocationChoice(allocation, 'withdraw', [sender]);
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(sender)).toEqual(['15.0000000000', '85.0000000000']);
    });

    it('cancel: the settlement’s parties cancel it and the sender gets the amount back', async () => {
      const { sender, receiver, executor, allocation } = await allocate('5.0');
      const { exercised } = await allocationChoice(allocation, 'cancel', [executor, sender, receiver]);
      expect(exercised.status, exercised.text).toBe(200);
      expect(await amountsOf(sender)).toEqual(['5.0000000000', '95.0000000000']);
      const gone = await post(`/registry/allocations/v1/${allocation}/choice-contexts/cancel`, {});
      expect(expectRegistryError(gone, 404)).toBe(`AmuletAllocation '${allocation}' not found.`);
    });

    it('the allocation factory needs choiceArguments', async () => {
      expect(
        expectRegistryError(
          await post('/registry/allocation-instruction/v1/allocation-factory', { excludeDebugFields: true }),
          400,
        ),
      ).toBe('Field `choiceArguments` is required and must be a JSON object.');
    });
  });

  it('an Amulet is no allocation: 404', async () => {
    const [held] = await coin.amuletsOf((await funded('plain')).party);
    expect(held.templateId).toContain(AMULET.split(':').slice(1).join(':'));
    const r = await post(`/registry/allocations/v1/${held.contractId}/choice-contexts/withdraw`, {});
    expect(expectRegistryError(r, 404)).toBe(`AmuletAllocation '${held.contractId}' not found.`);
  });
});
