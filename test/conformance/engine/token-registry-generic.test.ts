import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allocateActingParty, openTestLedger, startTestLedger, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { expectRegistryError, expectShape } from '../../support/token-registry-shapes';

/**
 * The registry of a token whose admin Ledgerline is configured to serve (LEDGER_TOKEN_REGISTRIES), with Splice's test
 * token (`splice-test-token-v1`): the factory is the admin's `TokenRules`, found as the admin's active contract
 * implementing TransferFactory / AllocationFactory, handed out with an empty context and disclosed; the answers are then
 * used as a wallet uses them (factory choice by interface id with the disclosure, instruction and allocation choices
 * with the returned context) by parties that see none of the admin's contracts otherwise. The admin's party id exists
 * only once the ledger runs, so the ledger is restarted on its database with the setting.
 */
const DAR = 'splice/splice-test-token-v1-1.0.0.dar';
const MODULE = '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1';
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const ALLOCATION_FACTORY =
  '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
const ALLOCATION = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
const EMPTY = { values: {} };

describeWithDars('token registry of a configured admin: the test token (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let admin: string;
  let rulesCid: string;
  let base: string;
  let fresh = 0;
  const iso = (deltaMs: number) => new Date(Date.now() + deltaMs).toISOString();

  const party = (hint: string) => allocateActingParty(ledger, `${hint}-${++fresh}`, sync);
  const submit = (commands: unknown[], actAs: string[], disclosedContracts: unknown[] = []) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands,
        commandId: randomUUID(),
        userId: ledger.config.adminUser,
        actAs,
        readAs: [],
        disclosedContracts,
        synchronizerId: sync,
      },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
      },
    });
  const post = (p: string, body: unknown) => ledger.call('POST', `${base}${p}`, body);
  const disclosures = (ctx: any) =>
    ctx.disclosedContracts.map((d: any) => ({
      contractId: d.contractId,
      templateId: d.templateId,
      createdEventBlob: d.createdEventBlob,
      synchronizerId: d.synchronizerId,
    }));
  const rootExercise = (r: { json: any }) =>
    r.json.transaction.events.find((e: any) => e.ExercisedEvent).ExercisedEvent;

  async function mint(owner: string, amount: string): Promise<string> {
    const holding = { owner, instrumentId: { admin, id: 'X1' }, amount, lock: null, meta: EMPTY };
    const r = await submit(
      [{ CreateCommand: { templateId: `${MODULE}:Token`, createArguments: { holding } } }],
      [admin, owner],
    );
    expect(r.status, r.text).toBe(200);
    return r.json.transaction.events[0].CreatedEvent.contractId;
  }

  async function tokens(owner: string): Promise<string[]> {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: {
        filtersByParty: {
          [owner]: {
            cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: `${MODULE}:Token` } } } }],
          },
        },
        verbose: true,
      },
    });
    expect(acs.status, acs.text).toBe(200);
    return acs.json
      .map((e: any) => e.contractEntry.JsActiveContract.createdEvent.createArgument.holding)
      .filter((h: any) => h.owner === owner)
      .map((h: any) => h.amount)
      .sort();
  }

  beforeAll(async () => {
    const first = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
    sync = first.runtime.identity.defaultSynchronizer.id;
    const up = await fetch(`${first.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await first.token()}` },
      body: fs.readFileSync(path.join(darsRoot, DAR)),
    });
    expect(up.status, await up.text()).toBe(200);
    const r = await first.call('POST', '/v2/parties', { partyIdHint: 'token-admin', synchronizerId: sync });
    expect(r.status, r.text).toBe(200);
    admin = r.json.partyDetails.party;
    await first.close();
    ledger = await openTestLedger(first.databaseUrl, {
      LEDGER_SYNCHRONIZERS: 'global,secondary',
      LEDGER_TOKEN_REGISTRIES: admin,
    });
    const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
      rights: [{ kind: { CanActAs: { value: { party: admin } } } }],
    });
    expect(rights.status, rights.text).toBe(200);
    const rules = await submit(
      [{ CreateCommand: { templateId: `${MODULE}:TokenRules`, createArguments: { admin } } }],
      [admin],
    );
    expect(rules.status, rules.text).toBe(200);
    rulesCid = rules.json.transaction.events[0].CreatedEvent.contractId;
    base = `/token-registries/${encodeURIComponent(admin)}`;
  }, 120_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('metadata: the admin, and the instruments of its holdings with the APIs its factories support', async () => {
    await mint(await party('holder'), '1.0');
    const info = await ledger.call('GET', `${base}/registry/metadata/v1/info`);
    expect(info.status, info.text).toBe(200);
    expectShape('GetRegistryInfoResponse', info.json);
    expect(info.json).toEqual({ adminId: admin, supportedApis: { 'splice-api-token-metadata-v1': 1 } });
    // with no Canton Coin on the ledger, the root serves the first configured registry
    expect((await ledger.call('GET', '/registry/metadata/v1/info')).json.adminId).toBe(admin);
    const list = await ledger.call('GET', `${base}/registry/metadata/v1/instruments`);
    expect(list.status, list.text).toBe(200);
    expectShape('ListInstrumentsResponse', list.json);
    const x1 = {
      id: 'X1',
      name: 'X1',
      symbol: 'X1',
      decimals: 10,
      supportedApis: {
        'splice-api-token-metadata-v1': 1,
        'splice-api-token-holding-v1': 1,
        'splice-api-token-transfer-instruction-v1': 1,
        'splice-api-token-allocation-v1': 1,
        'splice-api-token-allocation-instruction-v1': 1,
      },
    };
    expect(list.json).toEqual({ instruments: [x1] });
    expect((await ledger.call('GET', `${base}/registry/metadata/v1/instruments/X1`)).json).toEqual(x1);
    expect(expectRegistryError(await ledger.call('GET', `${base}/registry/metadata/v1/instruments/X2`), 404)).toBe(
      'No instrument with id X2 found',
    );
  });

  it('an admin that is not configured has no registry: 404', async () => {
    const other = `other::1220${'0'.repeat(64)}`;
    const r = await ledger.call('GET', `/token-registries/${encodeURIComponent(other)}/registry/metadata/v1/info`);
    expect(expectRegistryError(r, 404)).toBe(`No token registry is served for admin ${other}.`);
  });

  function transferArgs(sender: string, receiver: string, amount: string, inputs: string[]) {
    return {
      expectedAdmin: admin,
      transfer: {
        sender,
        receiver,
        amount,
        instrumentId: { admin, id: 'X1' },
        requestedAt: iso(-60_000),
        executeBefore: iso(3600_000),
        inputHoldingCids: inputs,
        meta: EMPTY,
      },
      extraArgs: { context: EMPTY, meta: EMPTY },
    };
  }

  async function transfer(sender: string, receiver: string, amount: string, inputs: string[]) {
    const args = transferArgs(sender, receiver, amount, inputs);
    const f = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: args });
    expect(f.status, f.text).toBe(200);
    expectShape('TransferFactoryWithChoiceContext', f.json);
    expect(f.json.factoryId).toBe(rulesCid);
    expect(f.json.choiceContext.choiceContextData).toEqual(EMPTY);
    expect(f.json.choiceContext.disclosedContracts.map((d: any) => [d.contractId, d.debugPackageName])).toEqual([
      [rulesCid, 'splice-test-token-v1'],
    ]);
    const choiceArgument = { ...args, extraArgs: { context: f.json.choiceContext.choiceContextData, meta: EMPTY } };
    const r = await submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: f.json.factoryId,
            choice: 'TransferFactory_Transfer',
            choiceArgument,
          },
        },
      ],
      [sender],
      disclosures(f.json.choiceContext),
    );
    expect(r.status, r.text).toBe(200);
    return { kind: f.json.transferKind, output: rootExercise(r).exerciseResult.output };
  }

  async function instructionChoice(id: string, choice: 'accept' | 'reject' | 'withdraw', actAs: string[]) {
    const ctx = await post(`/registry/transfer-instruction/v1/${id}/choice-contexts/${choice}`, {});
    expect(ctx.status, ctx.text).toBe(200);
    expectShape('ChoiceContext', ctx.json);
    expect(ctx.json).toEqual({ choiceContextData: EMPTY, disclosedContracts: [] });
    const name = {
      accept: 'TransferInstruction_Accept',
      reject: 'TransferInstruction_Reject',
      withdraw: 'TransferInstruction_Withdraw',
    }[choice];
    return submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_INSTRUCTION,
            contractId: id,
            choice: name,
            choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: EMPTY } },
          },
        },
      ],
      actAs,
    );
  }

  it('self-transfer: kind self, completed at once', async () => {
    const alice = await party('self');
    const held = await mint(alice, '10.0');
    const { kind, output } = await transfer(alice, alice, '4.0', [held]);
    expect(kind).toBe('self');
    expect(output.tag).toBe('TransferInstructionResult_Completed');
    expect(await tokens(alice)).toEqual(['4.0000000000', '6.0000000000']);
  });

  it('offer, then accept, reject or withdraw with the instruction’s context', async () => {
    const alice = await party('sender');
    const bob = await party('receiver');
    const held = await mint(alice, '100.0');
    const first = await transfer(alice, bob, '30.0', [held]);
    expect(first.kind).toBe('offer');
    expect(first.output.tag).toBe('TransferInstructionResult_Pending');
    const accepted = await instructionChoice(first.output.value.transferInstructionCid, 'accept', [bob]);
    expect(accepted.status, accepted.text).toBe(200);
    expect(await tokens(bob)).toEqual(['30.0000000000']);

    const second = await transfer(alice, bob, '5.0', [await mint(alice, '5.0')]);
    const rejected = await instructionChoice(second.output.value.transferInstructionCid, 'reject', [bob]);
    expect(rejected.status, rejected.text).toBe(200);
    const third = await transfer(alice, bob, '20.0', [await mint(alice, '20.0')]);
    const withdrawn = await instructionChoice(third.output.value.transferInstructionCid, 'withdraw', [alice]);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(await tokens(bob)).toEqual(['30.0000000000']);
    expect(await tokens(alice)).toEqual(['20.0000000000', '5.0000000000', '70.0000000000']);
    // the accepted instruction is gone; a holding is no transfer instruction
    const gone = await post(
      `/registry/transfer-instruction/v1/${first.output.value.transferInstructionCid}/choice-contexts/accept`,
      {},
    );
    expect(expectRegistryError(gone, 404)).toBe(
      `TransferInstruction '${first.output.value.transferInstructionCid}' not found.`,
    );
    expect(
      expectRegistryError(await post(`/registry/transfer-instruction/v1/${held}/choice-contexts/accept`, {}), 404),
    ).toBe(`TransferInstruction '${held}' not found.`);
  });

  it('an instruction being reassigned is 409 until it is assigned', async () => {
    const alice = await party('mover');
    const bob = await party('moved-to');
    const offered = await transfer(alice, bob, '1.0', [await mint(alice, '1.0')]);
    const id = offered.output.value.transferInstructionCid as string;
    const [source, target] = ledger.runtime.identity.synchronizers.map((s) => s.id);
    const reassign = (command: unknown) =>
      ledger.call('POST', '/v2/commands/submit-and-wait-for-reassignment', {
        reassignmentCommands: {
          commandId: randomUUID(),
          userId: ledger.config.adminUser,
          submitter: alice,
          commands: [{ command }],
        },
        eventFormat: { filtersByParty: { [alice]: { cumulative: [] } } },
      });
    const un = await reassign({ UnassignCommand: { value: { contractId: id, source, target } } });
    expect(un.status, un.text).toBe(200);
    const moving = await post(`/registry/transfer-instruction/v1/${id}/choice-contexts/accept`, {});
    expect(expectRegistryError(moving, 409)).toBe(`Contract '${id}' is being reassigned to another synchronizer.`);
    const reassignmentId = un.json.reassignment.events[0].JsUnassignedEvent.value.reassignmentId;
    const as = await reassign({ AssignCommand: { value: { reassignmentId, source, target } } });
    expect(as.status, as.text).toBe(200);
    expect((await post(`/registry/transfer-instruction/v1/${id}/choice-contexts/accept`, {})).status).toBe(200);
  });

  it('allocation factory, then execute-transfer, withdraw and cancel with the allocation’s context', async () => {
    const alice = await party('alloc-sender');
    const bob = await party('alloc-receiver');
    const executor = await party('executor');
    const allocate = async (amount: string) => {
      const args = {
        expectedAdmin: admin,
        allocation: {
          settlement: {
            executor,
            settlementRef: { id: `ref-${++fresh}`, cid: null },
            requestedAt: iso(-60_000),
            allocateBefore: iso(3600_000),
            settleBefore: iso(7200_000),
            meta: EMPTY,
          },
          transferLegId: 'leg',
          transferLeg: { sender: alice, receiver: bob, amount, instrumentId: { admin, id: 'X1' }, meta: EMPTY },
        },
        requestedAt: iso(-60_000),
        inputHoldingCids: [await mint(alice, amount)],
        extraArgs: { context: EMPTY, meta: EMPTY },
      };
      const f = await post('/registry/allocation-instruction/v1/allocation-factory', {
        choiceArguments: args,
        excludeDebugFields: true,
      });
      expect(f.status, f.text).toBe(200);
      expectShape('FactoryWithChoiceContext', f.json);
      expect(f.json.factoryId).toBe(rulesCid);
      const choiceArgument = { ...args, extraArgs: { context: f.json.choiceContext.choiceContextData, meta: EMPTY } };
      const r = await submit(
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
        [alice],
        disclosures(f.json.choiceContext),
      );
      expect(r.status, r.text).toBe(200);
      return rootExercise(r).exerciseResult.output.value.allocationCid as string;
    };
    const choose = async (id: string, choice: 'execute-transfer' | 'withdraw' | 'cancel', actAs: string[]) => {
      const ctx = await post(`/registry/allocations/v1/${id}/choice-contexts/${choice}`, { excludeDebugFields: true });
      expect(ctx.status, ctx.text).toBe(200);
      expect(ctx.json).toEqual({ choiceContextData: EMPTY, disclosedContracts: [] });
      const name = {
        'execute-transfer': 'Allocation_ExecuteTransfer',
        withdraw: 'Allocation_Withdraw',
        cancel: 'Allocation_Cancel',
      }[choice];
      const r = await submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION,
              contractId: id,
              choice: name,
              choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: EMPTY } },
            },
          },
        ],
        actAs,
      );
      expect(r.status, r.text).toBe(200);
    };
    await choose(await allocate('7.0'), 'execute-transfer', [executor, alice, bob]);
    await choose(await allocate('3.0'), 'withdraw', [alice]);
    const cancelled = await allocate('2.0');
    await choose(cancelled, 'cancel', [executor, alice, bob]);
    expect(await tokens(bob)).toEqual(['7.0000000000']);
    expect(await tokens(alice)).toEqual(['2.0000000000', '3.0000000000']);
    expect(
      expectRegistryError(await post(`/registry/allocations/v1/${cancelled}/choice-contexts/cancel`, {}), 404),
    ).toBe(`Allocation '${cancelled}' not found.`);
  });
});
