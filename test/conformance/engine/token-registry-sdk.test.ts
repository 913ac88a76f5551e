import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TokenStandardService } from '@canton-network/core-token-standard-service';
import { describeWithDars } from '../../support/conformance';
import { createdEvents, exercisedEvents, startAmuletLedger, type AmuletLedger } from '../../support/amulet-ledger';
import { ed25519Signature, onboardExternalParty } from '../../support/external-party';

/**
 * Canton Coin's registry through the wallet SDK's own registry code (`@canton-network/core-token-standard-service`
 * 1.8.0, which wallet-sdk 1.4.0 runs): the SDK asks Ledgerline's registry, at the registry URL the SDK's examples use
 * (`<validator>/v0/scan-proxy`), for the metadata and the factories and choice contexts, and builds the commands; the
 * commands and the disclosed contracts it returns are submitted as they are, by local parties that see none of the
 * DSO's contracts otherwise, and by external parties through prepare and execute, as the SDK submits them.
 */
const quiet = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  trace: () => {},
  fatal: () => {},
  child: () => quiet,
};

describeWithDars(
  'Canton Coin registry through the wallet SDK’s registry client (LEDGERLINE_CONFORMANCE_DARS)',
  (darsRoot) => {
    let coin: AmuletLedger;
    let sdk: TokenStandardService;
    let registryUrl: string;
    let fresh = 0;
    const newParty = (hint: string) => coin.party(`${hint}-${++fresh}`);

    beforeAll(async () => {
      coin = await startAmuletLedger(darsRoot);
      const token = await coin.ledger.token();
      // the registry client needs no ledger provider when the inputs are given
      sdk = new TokenStandardService(
        undefined as never,
        quiet as never,
        { getAccessToken: async () => token } as never,
        false,
      );
      registryUrl = `${coin.ledger.url}/api/validator/v0/scan-proxy`;
    }, 300_000);
    afterAll(async () => {
      await coin?.ledger.close();
    });

    async function funded(hint: string, amount: string) {
      const p = await newParty(hint);
      const t = await coin.tap(p, amount);
      expect(t.status, t.text).toBe(200);
      return { party: p, amulet: createdEvents(t, ':Splice.Amulet:Amulet')[0].contractId as string };
    }
    /** Submits what the SDK built: its exercise command and its disclosed contracts, unchanged. */
    const submit = ([exercise, disclosed]: [unknown, unknown[]], actAs: string[]) =>
      coin.submit([{ ExerciseCommand: exercise }], actAs, [], disclosed);
    const amountsOf = async (owner: string) =>
      (await coin.amuletsOf(owner)).map((e: any) => e.createArgument.amount.initialAmount).sort();

    /** Prepares `commands` for the external party with `disclosed`, signs the hash and executes: the SDK's way. */
    async function prepareAndExecute(
      signer: Awaited<ReturnType<typeof onboardExternalParty>>,
      commands: unknown[],
      disclosedContracts: unknown[],
    ) {
      const prepared = await coin.ledger.call('POST', '/v2/interactive-submission/prepare', {
        userId: '',
        commandId: randomUUID(),
        actAs: [signer.partyId],
        readAs: [],
        disclosedContracts,
        synchronizerId: coin.sync,
        packageIdSelectionPreference: [],
        verboseHashing: false,
        commands,
      });
      expect(prepared.status, prepared.text).toBe(200);
      const hash = Buffer.from(prepared.json.preparedTransactionHash, 'base64');
      return coin.ledger.call('POST', '/v2/interactive-submission/executeAndWaitForTransaction', {
        preparedTransaction: prepared.json.preparedTransaction,
        partySignatures: {
          signatures: [{ party: signer.partyId, signatures: [ed25519Signature(signer.key, hash, signer.fingerprint)] }],
        },
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        userId: '',
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          eventFormat: { filtersByParty: { [signer.partyId]: { cumulative: [] } }, verbose: true },
        },
      });
    }

    it('external parties: tap with the registry’s disclosures, then a two-step transfer created and accepted, each prepared and signed', async () => {
      const alice = await onboardExternalParty(coin.ledger, `ext-sender-${++fresh}`);
      const bob = await onboardExternalParty(coin.ledger, `ext-receiver-${++fresh}`);
      // as the SDK's onboarding ends: the user may act as the parties it prepares for
      const rights = await coin.ledger.call('POST', `/v2/users/${coin.ledger.config.adminUser}/rights`, {
        rights: [alice, bob].map((p) => ({ kind: { CanActAs: { value: { party: p.partyId } } } })),
      });
      expect(rights.status, rights.text).toBe(200);
      // the SDK's tap: the transfer factory asked for a transfer from the DSO names the rules and the round, and discloses them
      const factory = await coin.ledger.call(
        'POST',
        '/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory',
        {
          choiceArguments: {
            expectedAdmin: coin.dso,
            transfer: {
              sender: coin.dso,
              receiver: alice.partyId,
              amount: '100.0000000000',
              instrumentId: { admin: coin.dso, id: 'Amulet' },
              lock: null,
              requestedAt: new Date(Date.now() - 60_000).toISOString(),
              executeBefore: new Date(Date.now() + 24 * 3600_000).toISOString(),
              inputHoldingCids: [],
              meta: { values: {} },
            },
            extraArgs: { context: { values: {} }, meta: { values: {} } },
          },
          excludeDebugFields: true,
        },
      );
      expect(factory.status, factory.text).toBe(200);
      const values = factory.json.choiceContext.choiceContextData.values;
      const tap = await prepareAndExecute(
        alice,
        [
          {
            ExerciseCommand: {
              templateId: '#splice-amulet:Splice.AmuletRules:AmuletRules',
              contractId: values['amulet-rules'].value,
              choice: 'AmuletRules_DevNet_Tap',
              choiceArgument: { receiver: alice.partyId, amount: '100.0', openRound: values['open-round'].value },
            },
          },
        ],
        factory.json.choiceContext.disclosedContracts,
      );
      expect(tap.status, tap.text).toBe(200);
      const [amulet] = await coin.amuletsOf(alice.partyId);

      const [transfer, disclosed] = await sdk.transfer.createTransfer(
        alice.partyId,
        bob.partyId,
        '40',
        coin.dso,
        'Amulet',
        registryUrl,
        [amulet.contractId],
        'ext',
      );
      const offered = await prepareAndExecute(alice, [{ ExerciseCommand: transfer }], disclosed);
      expect(offered.status, offered.text).toBe(200);
      const output = exercisedEvents(offered)[0].exerciseResult.output;
      expect(output.tag).toBe('TransferInstructionResult_Pending');
      const [accept, acceptDisclosed] = await sdk.transfer.createAcceptTransferInstruction(
        output.value.transferInstructionCid,
        registryUrl,
      );
      const accepted = await prepareAndExecute(bob, [{ ExerciseCommand: accept }], acceptDisclosed);
      expect(accepted.status, accepted.text).toBe(200);
      expect(await amountsOf(bob.partyId)).toEqual(['40.0000000000']);
      expect(await amountsOf(alice.partyId)).toEqual(['60.0000000000']);
    });

    it('metadata: the instrument admin is the DSO, Amulet is listed and found', async () => {
      expect(await sdk.getInstrumentAdmin(registryUrl)).toBe(coin.dso);
      const assets = await sdk.instrumentsToAsset(registryUrl);
      expect(assets).toEqual([{ id: 'Amulet', displayName: 'Amulet', symbol: 'AMT', registryUrl, admin: coin.dso }]);
      expect((await sdk.getInstrumentById(registryUrl, 'Amulet')).decimals).toBe(10);
    });

    it('two-step transfer: created, then accepted; another rejected; another withdrawn', async () => {
      const { party: alice, amulet } = await funded('sdk-sender', '100.0');
      const bob = await newParty('sdk-receiver');
      const offer = async (amount: string, inputs: string[]) => {
        const r = await submit(
          await sdk.transfer.createTransfer(alice, bob, amount, coin.dso, 'Amulet', registryUrl, inputs, 'for tea'),
          [alice],
        );
        expect(r.status, r.text).toBe(200);
        const output = exercisedEvents(r)[0].exerciseResult.output;
        expect(output.tag).toBe('TransferInstructionResult_Pending');
        return {
          instruction: output.value.transferInstructionCid as string,
          change: exercisedEvents(r)[0].exerciseResult.senderChangeCids as string[],
        };
      };
      const first = await offer('30.0', [amulet]);
      const accepted = await submit(
        await sdk.transfer.createAcceptTransferInstruction(first.instruction, registryUrl),
        [bob],
      );
      expect(accepted.status, accepted.text).toBe(200);
      expect(await amountsOf(bob)).toEqual(['30.0000000000']);

      const second = await offer('20.0', first.change);
      const rejected = await submit(
        await sdk.transfer.createRejectTransferInstruction(second.instruction, registryUrl),
        [bob],
      );
      expect(rejected.status, rejected.text).toBe(200);
      const third = await offer('10.0', second.change);
      const withdrawn = await submit(
        await sdk.transfer.createWithdrawTransferInstruction(third.instruction, registryUrl),
        [alice],
      );
      expect(withdrawn.status, withdrawn.text).toBe(200);
      expect(await amountsOf(bob)).toEqual(['30.0000000000']);
      expect(await amountsOf(alice)).toEqual(['10.0000000000', '20.0000000000', '40.0000000000']);
    });

    it('one-step transfer to a receiver with a TransferPreapproval', async () => {
      const { party: alice, amulet } = await funded('sdk-direct', '50.0');
      const carol = await newParty('sdk-preapproved');
      const now = new Date().toISOString();
      const expiresAt = new Date(Date.now() + 24 * 3600_000).toISOString();
      const pre = await coin.submit(
        [
          {
            CreateCommand: {
              templateId: '#splice-amulet:Splice.AmuletRules:TransferPreapproval',
              createArguments: {
                dso: coin.dso,
                receiver: carol,
                provider: carol,
                validFrom: now,
                lastRenewedAt: now,
                expiresAt,
              },
            },
          },
        ],
        [coin.dso, carol],
      );
      expect(pre.status, pre.text).toBe(200);
      const r = await submit(
        await sdk.transfer.createTransfer(alice, carol, '12.5', coin.dso, 'Amulet', registryUrl, [amulet]),
        [alice],
      );
      expect(r.status, r.text).toBe(200);
      expect(exercisedEvents(r)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      expect(await amountsOf(carol)).toEqual(['12.5000000000']);
    });

    it('allocation: allocated, then executed by the settlement’s parties; another withdrawn', async () => {
      const { party: alice, amulet } = await funded('sdk-alloc', '60.0');
      const bob = await newParty('sdk-alloc-receiver');
      const venue = await newParty('sdk-venue');
      const spec = (amount: string, ref: string) => ({
        settlement: {
          executor: venue,
          settlementRef: { id: ref, cid: null },
          requestedAt: new Date(Date.now() - 60_000).toISOString(),
          allocateBefore: new Date(Date.now() + 3600_000).toISOString(),
          settleBefore: new Date(Date.now() + 7200_000).toISOString(),
        },
        transferLegId: 'leg-0',
        transferLeg: { sender: alice, receiver: bob, amount, instrumentId: { admin: coin.dso, id: 'Amulet' } },
      });
      const allocate = async (amount: string, ref: string, inputs: string[]) => {
        const r = await submit(
          await sdk.allocation.createAllocationInstruction(spec(amount, ref) as never, coin.dso, registryUrl, inputs),
          [alice],
        );
        expect(r.status, r.text).toBe(200);
        const result = exercisedEvents(r)[0].exerciseResult;
        expect(result.output.tag).toBe('AllocationInstructionResult_Completed');
        return { allocation: result.output.value.allocationCid as string, change: result.senderChangeCids as string[] };
      };
      const first = await allocate('25.0', 'trade-1', [amulet]);
      const executed = await submit(
        await sdk.allocation.createExecuteTransferAllocation(first.allocation, registryUrl),
        [venue, alice, bob],
      );
      expect(executed.status, executed.text).toBe(200);
      expect(await amountsOf(bob)).toEqual(['25.0000000000']);
      const second = await allocate('5.0', 'trade-2', first.change);
      const withdrawn = await submit(await sdk.allocation.createWithdrawAllocation(second.allocation, registryUrl), [
        alice,
      ]);
      expect(withdrawn.status, withdrawn.text).toBe(200);
      expect(await amountsOf(alice)).toEqual(['30.0000000000', '5.0000000000']);
    });
  },
);
