import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenStandardService } from '@canton-network/core-token-standard-service';
import { conformanceDars } from '../../support/dars';
import { createdEvents, exercisedEvents, startAmuletLedger, type AmuletLedger } from '../../support/amulet-ledger';

/**
 * Canton Coin's registry through the wallet SDK's own registry code (`@canton-network/core-token-standard-service`
 * 1.8.0, which wallet-sdk 1.4.0 runs): the SDK asks Ledgerline's registry, at the registry URL the SDK's examples use
 * (`<validator>/v0/scan-proxy`), for the metadata and the factories and choice contexts, and builds the commands; the
 * commands and the disclosed contracts it returns are submitted as they are, by local parties that see none of the
 * DSO's contracts otherwise.
 */
const dars = conformanceDars();
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, trace: () => {}, fatal: () => {}, child: () => quiet };

describe.skipIf(!dars.present && !dars.required)('Canton Coin registry through the wallet SDK’s registry client (LEDGERLINE_CONFORMANCE_DARS)', () => {
  if (!dars.present) {
    it('has the conformance folder', () => {
      throw new Error(dars.reason);
    });
    return;
  }
  let coin: AmuletLedger;
  let sdk: TokenStandardService;
  let registryUrl: string;
  let fresh = 0;
  const newParty = (hint: string) => coin.party(`${hint}-${++fresh}`);

  beforeAll(async () => {
    coin = await startAmuletLedger(dars.root!);
    const token = await coin.ledger.token();
    // the registry client needs no ledger provider when the inputs are given
    sdk = new TokenStandardService(undefined as never, quiet as never, { getAccessToken: async () => token } as never, false);
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
  const submit = ([exercise, disclosed]: [unknown, unknown[]], actAs: string[]) => coin.submit([{ ExerciseCommand: exercise }], actAs, [], disclosed);
  const amountsOf = async (owner: string) => (await coin.amuletsOf(owner)).map((e: any) => e.createArgument.amount.initialAmount).sort();

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
      const r = await submit(await sdk.transfer.createTransfer(alice, bob, amount, coin.dso, 'Amulet', registryUrl, inputs, 'for tea'), [alice]);
      expect(r.status, r.text).toBe(200);
      const output = exercisedEvents(r)[0].exerciseResult.output;
      expect(output.tag).toBe('TransferInstructionResult_Pending');
      return { instruction: output.value.transferInstructionCid as string, change: exercisedEvents(r)[0].exerciseResult.senderChangeCids as string[] };
    };
    const first = await offer('30.0', [amulet]);
    const accepted = await submit(await sdk.transfer.createAcceptTransferInstruction(first.instruction, registryUrl), [bob]);
    expect(accepted.status, accepted.text).toBe(200);
    expect(await amountsOf(bob)).toEqual(['30.0000000000']);

    const second = await offer('20.0', first.change);
    const rejected = await submit(await sdk.transfer.createRejectTransferInstruction(second.instruction, registryUrl), [bob]);
    expect(rejected.status, rejected.text).toBe(200);
    const third = await offer('10.0', second.change);
    const withdrawn = await submit(await sdk.transfer.createWithdrawTransferInstruction(third.instruction, registryUrl), [alice]);
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
      [{ CreateCommand: { templateId: '#splice-amulet:Splice.AmuletRules:TransferPreapproval', createArguments: { dso: coin.dso, receiver: carol, provider: carol, validFrom: now, lastRenewedAt: now, expiresAt } } }],
      [coin.dso, carol],
    );
    expect(pre.status, pre.text).toBe(200);
    const r = await submit(await sdk.transfer.createTransfer(alice, carol, '12.5', coin.dso, 'Amulet', registryUrl, [amulet]), [alice]);
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
      const r = await submit(await sdk.allocation.createAllocationInstruction(spec(amount, ref) as never, coin.dso, registryUrl, inputs), [alice]);
      expect(r.status, r.text).toBe(200);
      const result = exercisedEvents(r)[0].exerciseResult;
      expect(result.output.tag).toBe('AllocationInstructionResult_Completed');
      return { allocation: result.output.value.allocationCid as string, change: result.senderChangeCids as string[] };
    };
    const first = await allocate('25.0', 'trade-1', [amulet]);
    const executed = await submit(await sdk.allocation.createExecuteTransferAllocation(first.allocation, registryUrl), [venue, alice, bob]);
    expect(executed.status, executed.text).toBe(200);
    expect(await amountsOf(bob)).toEqual(['25.0000000000']);
    const second = await allocate('5.0', 'trade-2', first.change);
    const withdrawn = await submit(await sdk.allocation.createWithdrawAllocation(second.allocation, registryUrl), [alice]);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(await amountsOf(alice)).toEqual(['30.0000000000', '5.0000000000']);
  });
});
