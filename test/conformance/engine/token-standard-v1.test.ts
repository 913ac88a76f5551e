import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ed25519Signature, onboardExternalParty } from '../../support/external-party';

/**
 * The token standard v1 run on the engine over HTTP with Splice's test token (`splice-test-token-v1`): holdings minted
 * by the instrument admin, a transfer by `TransferFactory_Transfer` exercised by interface id on the admin's
 * `TokenRules`, then the resulting `TokenTransferOffer` accepted, rejected or withdrawn by the `TransferInstruction`
 * interface — as Splice's `TestTransferInstructionV1.daml` (token-standard/examples/splice-test-token-v1-test) drives it,
 * with its failure cases and their messages. The sender is no stakeholder of the admin's `TokenRules`: as Splice's
 * registry hands the factory to wallets, the admin reads the contract's created-event blob from its active contracts and
 * the sender's commands carry it in `disclosedContracts` (without it, the contract is not found). One transfer is
 * prepared and executed by an external party that signs it.
 */
const DAR = 'splice/splice-test-token-v1-1.0.0.dar';
const TOKEN_MODULE = 'Splice.Testing.Tokens.TestTokenV1';
const TOKEN = `#splice-test-token-v1:${TOKEN_MODULE}:Token`;
const TOKEN_RULES = `#splice-test-token-v1:${TOKEN_MODULE}:TokenRules`;
const TOKEN_TRANSFER_OFFER = `#splice-test-token-v1:${TOKEN_MODULE}:TokenTransferOffer`;
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const EMPTY_META = { values: {} };
/** The package ids of the test token and of the transfer-instruction API it bundles (splice-test-token-v1 1.0.0). */
const TOKEN_PKG = 'aaa0b576b5a3db49b3a4f7a4710fe6f8ae462aabbde4da89f639eb87fd62e90c';
const TRANSFER_INSTRUCTION_PKG = '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281';
const EMPTY_EXTRA_ARGS = { context: { values: {} }, meta: EMPTY_META };
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';

describeWithDars('the token standard v1 test token on the engine (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let ledger: TestLedger;
  let sync: string;
  let admin: string;
  let alice: string;
  let bob: string;
  let rulesCid: string;
  /** The admin's TokenRules as a disclosed contract (its blob read by the admin). */
  let rulesDisclosed: { contractId: string; templateId: string; createdEventBlob: string; synchronizerId: string };
  let party: (hint: string) => Promise<string>;
  let fresh = 0;
  const newParty = (hint: string) => party(`${hint}-${++fresh}`);

  beforeAll(async () => {
    ledger = await startTestLedger();
    sync = ledger.runtime.identity.defaultSynchronizer.id;
    const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: fs.readFileSync(path.join(darsRoot, DAR)),
    });
    expect(up.status, await up.text()).toBe(200);
    party = async (hint: string) => {
      const r = await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync });
      expect(r.status, r.text).toBe(200);
      const id = r.json.partyDetails.party as string;
      const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
        rights: [{ kind: { CanActAs: { value: { party: id } } } }],
      });
      expect(rights.status, rights.text).toBe(200);
      return id;
    };
    admin = await party('admin');
    alice = await party('alice');
    bob = await party('bob');
    const rules = await submit([{ CreateCommand: { templateId: TOKEN_RULES, createArguments: { admin } } }], [admin]);
    expect(rules.status, rules.text).toBe(200);
    rulesCid = rules.json.transaction.events[0].CreatedEvent.contractId;
    rulesDisclosed = await adminDisclosure(rulesCid);
  });
  afterAll(async () => {
    await ledger?.close();
  });

  /** The admin's read of one of its active contracts with the created-event blob, as the disclosed contract. */
  async function adminDisclosure(contractId: string, templateId = TOKEN_RULES) {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: {
        filtersByParty: {
          [admin]: {
            cumulative: [
              { identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob: true } } } },
            ],
          },
        },
        verbose: true,
      },
    });
    expect(acs.status, acs.text).toBe(200);
    const created = acs.json
      .map((e: any) => e.contractEntry.JsActiveContract.createdEvent)
      .find((e: any) => e.contractId === contractId);
    expect(created.createdEventBlob).toMatch(/^[A-Za-z0-9+/]+=*$/);
    return {
      contractId,
      templateId: created.templateId as string,
      createdEventBlob: created.createdEventBlob as string,
      synchronizerId: sync,
    };
  }

  const submit = (cmds: unknown[], actAs: string[], disclosedContracts: unknown[] = [], parties = actAs) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: cmds,
        commandId: randomUUID(),
        userId: ledger.config.adminUser,
        actAs,
        readAs: [],
        disclosedContracts,
        synchronizerId: sync,
      },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])), verbose: true },
      },
    });
  const instrumentId = () => ({ admin, id: 'X1' });
  const iso = (deltaMs: number) => new Date(Date.now() + deltaMs).toISOString();

  /** Mints a holding of `amount` X1 for `owner` (the admin and the owner sign a Token). */
  async function mint(owner: string, amount: string): Promise<string> {
    const holding = { owner, instrumentId: instrumentId(), amount, lock: null, meta: EMPTY_META };
    const r = await submit([{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }], [admin, owner]);
    expect(r.status, r.text).toBe(200);
    return r.json.transaction.events[0].CreatedEvent.contractId;
  }

  /** The total X1 amount of the unlocked Token holdings `owner` owns (Splice's `checkUnlockedBalance`). */
  async function balance(owner: string): Promise<number> {
    const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: end,
      eventFormat: {
        filtersByParty: {
          [owner]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: TOKEN } } } }] },
        },
        verbose: true,
      },
    });
    expect(acs.status, acs.text).toBe(200);
    return acs.json
      .map((e: any) => e.contractEntry?.JsActiveContract?.createdEvent)
      .filter((e: any) => e && e.createArgument.holding.owner === owner && e.createArgument.holding.lock === null)
      .reduce((sum: number, e: any) => sum + Number(e.createArgument.holding.amount), 0);
  }

  const transferArg = (
    sender: string,
    receiver: string,
    amount: string,
    inputHoldingCids: string[],
    over: Record<string, unknown> = {},
  ) => ({
    expectedAdmin: admin,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: instrumentId(),
      requestedAt: iso(-60_000),
      executeBefore: iso(7 * 24 * 3600_000),
      inputHoldingCids,
      meta: EMPTY_META,
      ...over,
    },
    extraArgs: EMPTY_EXTRA_ARGS,
  });
  const transferCommand = (arg: unknown) => ({
    ExerciseCommand: {
      templateId: TRANSFER_FACTORY,
      contractId: rulesCid,
      choice: 'TransferFactory_Transfer',
      choiceArgument: arg,
    },
  });
  const transfer = (arg: unknown, sender: string, disclosed = [rulesDisclosed]) =>
    submit([transferCommand(arg)], [sender], disclosed);

  const ids = (pkgQualified: string) => pkgQualified.split(':').slice(1).join(':');
  const exercised = (r: { json: any }) =>
    r.json.transaction.events.filter((e: any) => e.ExercisedEvent).map((e: any) => e.ExercisedEvent);
  const instruction = (cid: string, choice: string, actor: string) =>
    submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_INSTRUCTION,
            contractId: cid,
            choice,
            choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS },
          },
        },
      ],
      [actor],
    );

  /** A fresh party with 1000 X1 that has sent 10 X1 to a fresh receiver: the pending instruction's id. */
  async function pendingTransfer(): Promise<{ sender: string; receiver: string; instrCid: string }> {
    const sender = await newParty('sender');
    const receiver = await newParty('receiver');
    const held = await mint(sender, '1000.0');
    const r = await transfer(transferArg(sender, receiver, '10.0', [held]), sender);
    expect(r.status, r.text).toBe(200);
    const result = exercised(r)[0].exerciseResult;
    expect(result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(await balance(sender)).toBe(990);
    expect(await balance(receiver)).toBe(0);
    return { sender, receiver, instrCid: result.output.value.transferInstructionCid };
  }

  it('TransferFactory_Transfer by interface id: the sender’s change and a pending transfer instruction', async () => {
    const held = await mint(alice, '1000.0');
    const r = await transfer(transferArg(alice, bob, '10.0', [held]), alice);
    expect(r.status, r.text).toBe(200);
    const [root, archive] = exercised(r);
    // the root names the factory interface; the template is the contract's own (the admin's TokenRules)
    expect(root).toMatchObject({
      contractId: rulesCid,
      choice: 'TransferFactory_Transfer',
      consuming: false,
      actingParties: [alice],
    });
    expect(ids(root.templateId)).toBe(`${TOKEN_MODULE}:TokenRules`);
    expect(ids(root.interfaceId)).toBe('Splice.Api.Token.TransferInstructionV1:TransferFactory');
    expect(root.interfaceId.split(':')[0]).not.toBe(root.templateId.split(':')[0]);
    // the input holding is fetched and archived through the Holding interface
    expect(archive).toMatchObject({ contractId: held, choice: 'Archive', consuming: true });
    expect(ids(archive.interfaceId)).toBe('Splice.Api.Token.HoldingV1:Holding');
    const created = r.json.transaction.events.filter((e: any) => e.CreatedEvent).map((e: any) => e.CreatedEvent);
    expect(created.map((c: any) => ids(c.templateId))).toEqual([
      `${TOKEN_MODULE}:Token`,
      `${TOKEN_MODULE}:TokenTransferOffer`,
    ]);
    const result = root.exerciseResult;
    expect(result.output).toEqual({
      tag: 'TransferInstructionResult_Pending',
      value: { transferInstructionCid: created[1].contractId },
    });
    expect(result.senderChangeCids).toEqual([created[0].contractId]);
    expect(created[0].createArgument.holding).toMatchObject({ owner: alice, amount: '990.0000000000', lock: null });
    expect(created[1].createArgument.transfer).toMatchObject({
      sender: alice,
      receiver: bob,
      amount: '10.0000000000',
      inputHoldingCids: [held],
    });
    expect(created[1].observers).toEqual([bob]);
  });

  it('without the disclosed TokenRules the sender cannot see the factory: CONTRACT_NOT_FOUND', async () => {
    const held = await mint(alice, '1000.0');
    const before = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
    const r = await transfer(transferArg(alice, bob, '10.0', [held]), alice, []);
    expect({ status: r.status, code: r.json.code }, r.text).toEqual({ status: 404, code: 'CONTRACT_NOT_FOUND' });
    expect(r.json.cause).toContain(rulesCid);
    expect((await ledger.call('GET', '/v2/state/ledger-end')).json.offset).toBe(before);
    // nothing was committed: the input holding is still active
    const acs = await ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: before,
      eventFormat: {
        filtersByParty: {
          [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: TOKEN } } } }] },
        },
      },
    });
    expect(acs.json.map((e: any) => e.contractEntry.JsActiveContract.createdEvent.contractId)).toContain(held);
  });

  it('TransferInstruction_Accept by the receiver: the receiver holds the amount', async () => {
    const { sender, receiver, instrCid } = await pendingTransfer();
    const r = await instruction(instrCid, 'TransferInstruction_Accept', receiver);
    expect(r.status, r.text).toBe(200);
    const [root] = exercised(r);
    expect(ids(root.interfaceId)).toBe('Splice.Api.Token.TransferInstructionV1:TransferInstruction');
    expect(ids(root.templateId)).toBe(`${TOKEN_MODULE}:TokenTransferOffer`);
    expect(root).toMatchObject({ contractId: instrCid, consuming: true, actingParties: [receiver] });
    expect(root.exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await balance(receiver)).toBe(10);
    expect(await balance(sender)).toBe(990);
  });

  it('TransferInstruction_Reject by the receiver and _Withdraw by the sender give the sender its holding back', async () => {
    for (const [choice, by] of [
      ['TransferInstruction_Reject', 'receiver'],
      ['TransferInstruction_Withdraw', 'sender'],
    ] as const) {
      const p = await pendingTransfer();
      const r = await instruction(p.instrCid, choice, p[by]);
      expect(r.status, r.text).toBe(200);
      expect(exercised(r)[0]).toMatchObject({
        choice,
        actingParties: [p[by]],
        exerciseResult: { output: { tag: 'TransferInstructionResult_Failed', value: {} } },
      });
      expect(await balance(p.receiver)).toBe(0);
      expect(await balance(p.sender)).toBe(1000);
    }
  });

  it('the instruction’s controllers decide: the sender cannot accept, the receiver cannot withdraw', async () => {
    const { sender, receiver, instrCid } = await pendingTransfer();
    const accept = await instruction(instrCid, 'TransferInstruction_Accept', sender);
    expect([accept.status, accept.json.code]).toEqual([400, 'DAML_AUTHORIZATION_ERROR']);
    const withdraw = await instruction(instrCid, 'TransferInstruction_Withdraw', receiver);
    expect([withdraw.status, withdraw.json.code]).toEqual([400, 'DAML_AUTHORIZATION_ERROR']);
  });

  it('a self-transfer completes in one step; TransferFactory_PublicFetch returns the factory view', async () => {
    const sender = await newParty('self');
    const held = await mint(sender, '1000.0');
    const r = await transfer(transferArg(sender, sender, '10.0', [held]), sender);
    expect(r.status, r.text).toBe(200);
    expect(exercised(r)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await balance(sender)).toBe(1000);
    const f = await submit(
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: rulesCid,
            choice: 'TransferFactory_PublicFetch',
            choiceArgument: { expectedAdmin: admin, actor: sender },
          },
        },
      ],
      [sender],
      [rulesDisclosed],
    );
    expect(f.status, f.text).toBe(200);
    expect(exercised(f)[0].exerciseResult).toEqual({ admin, meta: EMPTY_META });
  });

  it('a transfer prepared by interface id (interactive submission): the exercise node names the interface', async () => {
    const held = await mint(alice, '1000.0');
    const r = await ledger.call('POST', '/v2/interactive-submission/prepare', {
      userId: '',
      commandId: randomUUID(),
      actAs: [alice],
      readAs: [],
      disclosedContracts: [rulesDisclosed],
      synchronizerId: sync,
      packageIdSelectionPreference: [],
      verboseHashing: false,
      commands: [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: rulesCid,
            choice: 'TransferFactory_Transfer',
            choiceArgument: transferArg(alice, bob, '10.0', [held]),
          },
        },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const tx = PreparedTransaction.fromBinary(Buffer.from(r.json.preparedTransaction, 'base64')).transaction!;
    const exercises = tx.nodes.flatMap((n) =>
      n.versionedNode.oneofKind === 'v1' && n.versionedNode.v1.nodeType.oneofKind === 'exercise'
        ? [n.versionedNode.v1.nodeType.exercise]
        : [],
    );
    expect(exercises.map((e) => [e.choiceId, e.templateId?.entityName, e.interfaceId?.entityName])).toEqual([
      ['TransferFactory_Transfer', 'TokenRules', 'TransferFactory'],
      ['Archive', 'Token', 'Holding'],
    ]);
    expect(exercises[0].interfaceId?.packageId).toBe(TRANSFER_INSTRUCTION_PKG);
  });

  describe('an external sender: prepare + executeAndWait with the disclosed TokenRules', () => {
    type External = Awaited<ReturnType<typeof onboardExternalParty>>;
    let ext: External;
    beforeAll(async () => {
      ext = await onboardExternalParty(ledger, 'ext-sender');
      const r = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
        rights: [{ kind: { CanActAs: { value: { party: ext.partyId } } } }],
      });
      expect(r.status, r.text).toBe(200);
    });

    /** Prepares `command` for the external party, signs the hash with its key and executes it. */
    async function prepareAndExecute(command: unknown, disclosedContracts: unknown[]) {
      const prepared = await ledger.call('POST', '/v2/interactive-submission/prepare', {
        userId: '',
        commandId: randomUUID(),
        actAs: [ext.partyId],
        readAs: [],
        disclosedContracts,
        synchronizerId: sync,
        packageIdSelectionPreference: [],
        verboseHashing: false,
        commands: [command],
      });
      expect(prepared.status, prepared.text).toBe(200);
      const hash = Buffer.from(prepared.json.preparedTransactionHash, 'base64');
      const done = await ledger.call('POST', '/v2/interactive-submission/executeAndWaitForTransaction', {
        preparedTransaction: prepared.json.preparedTransaction,
        partySignatures: {
          signatures: [{ party: ext.partyId, signatures: [ed25519Signature(ext.key, hash, ext.fingerprint)] }],
        },
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        userId: '',
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          eventFormat: { filtersByParty: { [ext.partyId]: { cumulative: [] } }, verbose: true },
        },
      });
      expect(done.status, done.text).toBe(200);
      return {
        prepared: PreparedTransaction.fromBinary(Buffer.from(prepared.json.preparedTransaction, 'base64')),
        done,
      };
    }

    /** The holdings `party` sees through the Holding interface filter: the views the package computes, as [owner, amount, locked]. */
    async function holdings(party: string): Promise<Array<[string, string, boolean]>> {
      const end = (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
      const acs = await ledger.call('POST', '/v2/state/active-contracts', {
        activeAtOffset: end,
        eventFormat: {
          filtersByParty: {
            [party]: {
              cumulative: [
                {
                  identifierFilter: {
                    InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true } },
                  },
                },
              ],
            },
          },
          verbose: true,
        },
      });
      expect(acs.status, acs.text).toBe(200);
      return acs.json
        .map((e: any) => e.contractEntry.JsActiveContract.createdEvent.interfaceViews)
        .map(([view]: any[]) => {
          expect(ids(view.interfaceId)).toBe('Splice.Api.Token.HoldingV1:Holding');
          expect(view.viewValue.instrumentId).toEqual(instrumentId());
          return [view.viewValue.owner, view.viewValue.amount, view.viewValue.lock !== null] as [
            string,
            string,
            boolean,
          ];
        })
        .sort();
    }

    it('the external party accepts a transfer in, sends part on by TransferFactory_Transfer; its holdings by interface', async () => {
      // 100 X1 to the external party: alice's transfer (disclosed factory), the external receiver's Accept
      const held = await mint(alice, '100.0');
      const toExt = await transfer(transferArg(alice, ext.partyId, '100.0', [held]), alice);
      expect(toExt.status, toExt.text).toBe(200);
      const offerCid = exercised(toExt)[0].exerciseResult.output.value.transferInstructionCid;
      const accept = await prepareAndExecute(
        {
          ExerciseCommand: {
            templateId: TRANSFER_INSTRUCTION,
            contractId: offerCid,
            choice: 'TransferInstruction_Accept',
            choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS },
          },
        },
        [],
      );
      expect(exercised(accept.done)[0]).toMatchObject({
        contractId: offerCid,
        choice: 'TransferInstruction_Accept',
        actingParties: [ext.partyId],
      });
      expect(await holdings(ext.partyId)).toEqual([[ext.partyId, '100.0000000000', false]]);
      const extHolding = (
        await ledger.call('POST', '/v2/state/active-contracts', {
          activeAtOffset: (await ledger.call('GET', '/v2/state/ledger-end')).json.offset,
          eventFormat: {
            filtersByParty: {
              [ext.partyId]: {
                cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: TOKEN } } } }],
              },
            },
          },
        })
      ).json[0].contractEntry.JsActiveContract.createdEvent.contractId as string;

      // without the disclosed factory the external sender's prepare does not find it
      const hidden = await ledger.call('POST', '/v2/interactive-submission/prepare', {
        userId: '',
        commandId: randomUUID(),
        actAs: [ext.partyId],
        synchronizerId: sync,
        commands: [transferCommand(transferArg(ext.partyId, bob, '30.0', [extHolding]))],
      });
      expect({ status: hidden.status, code: hidden.json.code }, hidden.text).toEqual({
        status: 404,
        code: 'CONTRACT_NOT_FOUND',
      });

      // 30 X1 on to bob, prepared with the disclosed TokenRules, signed by the external party
      const { prepared, done } = await prepareAndExecute(
        transferCommand(transferArg(ext.partyId, bob, '30.0', [extHolding])),
        [rulesDisclosed],
      );
      const inputs = prepared.metadata!.inputContracts.map((c) =>
        c.contract.oneofKind === 'v1' ? c.contract.v1.contractId : '',
      );
      expect(inputs.sort()).toEqual([extHolding, rulesCid].sort());
      const root = exercised(done)[0];
      expect(root).toMatchObject({
        contractId: rulesCid,
        choice: 'TransferFactory_Transfer',
        actingParties: [ext.partyId],
      });
      expect(root.exerciseResult.output.tag).toBe('TransferInstructionResult_Pending');
      // the change and the pending offer (a locked holding of the sender, which the receiver observes)
      expect(await holdings(ext.partyId)).toEqual([
        [ext.partyId, '30.0000000000', true],
        [ext.partyId, '70.0000000000', false],
      ]);
      expect(await holdings(bob)).toContainEqual([ext.partyId, '30.0000000000', true]);

      const bobAccepts = await instruction(
        root.exerciseResult.output.value.transferInstructionCid,
        'TransferInstruction_Accept',
        bob,
      );
      expect(bobAccepts.status, bobAccepts.text).toBe(200);
      expect(await holdings(ext.partyId)).toEqual([[ext.partyId, '70.0000000000', false]]);
      const bobs = await holdings(bob);
      expect(bobs).toContainEqual([bob, '30.0000000000', false]);
      expect(bobs.filter(([owner]) => owner === ext.partyId)).toEqual([]);
    });
  });

  describe('allocations (as TestAllocationHappyV1.daml): AllocationFactory_Allocate, then the Allocation interface', () => {
    const ALLOCATION = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
    const ALLOCATION_FACTORY =
      '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';

    /** A fresh sender with 1000 X1 that allocated 10 X1 for a leg to a fresh receiver settled by a fresh executor. */
    async function allocated() {
      const [sender, receiver, executor] = [
        await newParty('sender'),
        await newParty('receiver'),
        await newParty('executor'),
      ];
      const held = await mint(sender, '1000.0');
      const allocation = {
        settlement: {
          executor,
          settlementRef: { id: 'settlement1', cid: null },
          requestedAt: iso(-60_000),
          allocateBefore: iso(7 * 24 * 3600_000),
          settleBefore: iso(365 * 24 * 3600_000),
          meta: EMPTY_META,
        },
        transferLegId: 'leg1',
        transferLeg: { sender, receiver, amount: '10.0', instrumentId: instrumentId(), meta: EMPTY_META },
      };
      const arg = {
        expectedAdmin: admin,
        allocation,
        requestedAt: iso(-60_000),
        inputHoldingCids: [held],
        extraArgs: EMPTY_EXTRA_ARGS,
      };
      const r = await submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION_FACTORY,
              contractId: rulesCid,
              choice: 'AllocationFactory_Allocate',
              choiceArgument: arg,
            },
          },
        ],
        [sender],
        [rulesDisclosed],
      );
      expect(r.status, r.text).toBe(200);
      const root = exercised(r)[0];
      expect(ids(root.interfaceId)).toBe('Splice.Api.Token.AllocationInstructionV1:AllocationFactory');
      expect(root.exerciseResult.output.tag).toBe('AllocationInstructionResult_Completed');
      expect(await balance(sender)).toBe(990);
      return { sender, receiver, executor, allocCid: root.exerciseResult.output.value.allocationCid as string };
    }
    const onAllocation = (cid: string, choice: string, actAs: string[]) =>
      submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION,
              contractId: cid,
              choice,
              choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS },
            },
          },
        ],
        actAs,
      );

    it('Allocation_ExecuteTransfer by executor, sender and receiver moves the amount to the receiver', async () => {
      const a = await allocated();
      const r = await onAllocation(a.allocCid, 'Allocation_ExecuteTransfer', [a.sender, a.receiver, a.executor]);
      expect(r.status, r.text).toBe(200);
      const root = exercised(r)[0];
      expect(ids(root.interfaceId)).toBe('Splice.Api.Token.AllocationV1:Allocation');
      expect(ids(root.templateId)).toBe(`${TOKEN_MODULE}:TokenAllocation`);
      expect(root.actingParties.sort()).toEqual([a.sender, a.receiver, a.executor].sort());
      expect(await balance(a.receiver)).toBe(10);
      expect(await balance(a.sender)).toBe(990);
    });

    it('Allocation_Withdraw by the sender and Allocation_Cancel by all three return the holding', async () => {
      for (const who of ['withdraw', 'cancel'] as const) {
        const a = await allocated();
        const r =
          who === 'withdraw'
            ? await onAllocation(a.allocCid, 'Allocation_Withdraw', [a.sender])
            : await onAllocation(a.allocCid, 'Allocation_Cancel', [a.sender, a.receiver, a.executor]);
        expect(r.status, r.text).toBe(200);
        expect(await balance(a.sender)).toBe(1000);
        expect(await balance(a.receiver)).toBe(0);
      }
    });

    it('Allocation_ExecuteTransfer without the receiver’s authority is refused', async () => {
      const a = await allocated();
      const r = await onAllocation(a.allocCid, 'Allocation_ExecuteTransfer', [a.sender, a.executor]);
      expect([r.status, r.json.code]).toEqual([400, 'DAML_AUTHORIZATION_ERROR']);
    });
  });

  describe('TransferFactory_Transfer failures, with the messages Splice’s tests expect', () => {
    const failure = async (arg: unknown, disclosed = [rulesDisclosed]) => {
      const r = await transfer(arg, alice, disclosed);
      expect(r.status, r.text).toBe(400);
      return r.json;
    };

    it('insufficient funds, and no input holdings', async () => {
      const held = await mint(alice, '1000.0');
      for (const arg of [transferArg(alice, bob, '10000000.0', [held]), transferArg(alice, bob, '10.0', [])]) {
        const e = await failure(arg);
        expect(e.code).toBe('DAML_FAILURE');
        expect(e.context.error_id).toBe('UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError');
        expect(e.cause).toContain("'input amount' is less than 'transfer.amount'");
      }
    });

    it('a wrong instrument id', async () => {
      const held = await mint(alice, '1000.0');
      const e = await failure(
        transferArg(alice, bob, '10.0', [held], { instrumentId: { admin, id: 'BAD_INSTRUMENT_ID' } }),
      );
      expect(e.cause).toContain("'holding.instrumentId' is not equal to 'expected value'");
      expect(e.cause).toContain(`expected value: InstrumentId {admin = '${admin}', id = "BAD_INSTRUMENT_ID"}`);
    });

    it('a holding of another owner, and a locked holding', async () => {
      const bobs = await mint(bob, '500.0');
      // alice sees bob's holding only when it is disclosed to her (the admin signs it and reads its blob)
      const wrongOwner = await failure(transferArg(alice, bob, '10.0', [bobs]), [
        rulesDisclosed,
        await adminDisclosure(bobs, TOKEN),
      ]);
      expect(wrongOwner.cause).toContain("'holding owner' is not equal to 'expected value'.");
      expect(wrongOwner.cause).toContain(`expected value: '${alice}'`);
      // a locked holding: a transfer offer to oneself, as Splice's createLockedHoldings makes it
      const later = iso(365 * 24 * 3600_000);
      const offer = {
        sender: alice,
        receiver: alice,
        amount: '100.0',
        instrumentId: instrumentId(),
        requestedAt: later,
        executeBefore: later,
        inputHoldingCids: [],
        meta: EMPTY_META,
      };
      const locked = await submit(
        [{ CreateCommand: { templateId: TOKEN_TRANSFER_OFFER, createArguments: { transfer: offer } } }],
        [admin, alice],
      );
      expect(locked.status, locked.text).toBe(200);
      const e = await failure(
        transferArg(alice, bob, '10.0', [locked.json.transaction.events[0].CreatedEvent.contractId]),
      );
      expect(e.cause).toContain("'holding.lock' is not equal to 'expected value'");
    });

    it('a non-positive amount', async () => {
      const held = await mint(alice, '1000.0');
      const e = await failure(transferArg(alice, bob, '-10.0', [held]));
      expect(e.context.error_id).toBe('UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed');
      expect(e.cause).toContain("The requirement 'Amount must be positive' was not met.");
    });

    it('deadlines: requestedAt in the future, executeBefore in the past', async () => {
      const held = await mint(alice, '1000.0');
      const early = await failure(transferArg(alice, bob, '10.0', [held], { requestedAt: iso(3600_000) }));
      expect(early.context.error_id).toBe('stdlib.daml.com/deadline-not-exceeded');
      const late = await failure(transferArg(alice, bob, '10.0', [held], { executeBefore: iso(-3600_000) }));
      expect(late.context.error_id).toBe('stdlib.daml.com/deadline-exceeded');
    });
  });

  describe('commands by interface id that Canton refuses', () => {
    it('a contract whose template does not implement the interface: CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE', async () => {
      const held = await mint(alice, '5.0');
      const r = await instruction(held, 'TransferInstruction_Accept', alice);
      expect(r.status, r.text).toBe(400);
      expect(r.json.code).toBe('CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE');
      expect(r.json.cause).toBe(
        `Interpretation error: Error: Update failed due to contract ${held} not implementing an interface\n` +
          `Expected contract to implement interface Splice.Api.Token.TransferInstructionV1:TransferInstruction@${TRANSFER_INSTRUCTION_PKG.slice(0, 8)} ` +
          `but contract has type ${TOKEN_MODULE}:Token@${TOKEN_PKG.slice(0, 8)}`,
      );
    });

    it('CreateAndExerciseCommand with an interface id: TEMPLATES_OR_INTERFACES_NOT_FOUND', async () => {
      const r = await submit(
        [
          {
            CreateAndExerciseCommand: {
              templateId: TRANSFER_FACTORY,
              createArguments: { admin },
              choice: 'TransferFactory_PublicFetch',
              choiceArgument: { expectedAdmin: admin, actor: admin },
            },
          },
        ],
        [admin],
      );
      expect(r.status, r.text).toBe(404);
      expect(r.json.code).toBe('TEMPLATES_OR_INTERFACES_NOT_FOUND');
      expect(r.json.cause).toBe(
        `Templates or interfaces do not exist: ${TRANSFER_INSTRUCTION_PKG}:Splice.Api.Token.TransferInstructionV1:TransferFactory.`,
      );
    });

    it('a choice the interface does not have: the JSON layer’s invalid choice', async () => {
      const r = await submit(
        [
          {
            ExerciseCommand: {
              templateId: TRANSFER_FACTORY,
              contractId: rulesCid,
              choice: 'TransferFactory_Steal',
              choiceArgument: {},
            },
          },
        ],
        [alice],
        [rulesDisclosed],
      );
      expect(r.status, r.text).toBe(400);
      expect(r.json.cause).toBe(
        `The submitted request has invalid arguments: Invalid template:${TRANSFER_INSTRUCTION_PKG}:Splice.Api.Token.TransferInstructionV1:TransferFactory or choice:TransferFactory_Steal`,
      );
    });

    it('an interface choice exercised by the template id: the JSON layer’s invalid choice', async () => {
      const r = await submit(
        [
          {
            ExerciseCommand: {
              templateId: TOKEN_RULES,
              contractId: rulesCid,
              choice: 'TransferFactory_PublicFetch',
              choiceArgument: { expectedAdmin: admin, actor: alice },
            },
          },
        ],
        [alice],
        [rulesDisclosed],
      );
      expect(r.status, r.text).toBe(400);
      expect(r.json.code).toBe('INVALID_ARGUMENT');
      expect(r.json.cause).toBe(
        `The submitted request has invalid arguments: Invalid template:${TOKEN_PKG}:${TOKEN_MODULE}:TokenRules or choice:TransferFactory_PublicFetch`,
      );
    });
  });
});
