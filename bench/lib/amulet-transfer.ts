import fs from 'node:fs';
import path from 'node:path';
import { devAmuletConfig, micros } from '../../testkit/amulet-config';
import { AmuletRegistry, INTERFACES, TEMPLATES, type TransferFactoryContext } from '../../testkit/amulet-registry';

/**
 * The Amulet transfer workload of bench:engine on Splice's Canton Coin (`splice/splice-amulet-0.1.22.dar` of
 * LEDGERLINE_CONFORMANCE_DARS): the DSO's development state (AmuletRules with `isDevNet`, ExternalPartyAmuletRules, the
 * bootstrapped rounds and their ExternalPartyConfigStates), each sender tapped, each receiver holding a
 * `TransferPreapproval` from a provider. One transfer is `TransferFactory_Transfer` by the sender on the
 * `ExternalPartyAmuletRules` with `transfer-preapproval` in the choice context and the registry's contracts disclosed
 * (test/support/amulet-registry.ts): it completes in one submission (`TransferPreapproval_SendV2`, the input amulet
 * archived, the receiver's amulet and the sender's change created). Each sender spends its change of the previous
 * transfer, so a client runs its transfers one after the other.
 */
export const AMULET_DAR = 'splice/splice-amulet-0.1.22.dar';

/** A call of the service's API as the bench user (any party), answering the JSON body of a 200 or throwing. */
export type Api = (method: 'GET' | 'POST', pathname: string, body?: unknown) => Promise<any>;

/** The Amulet DAR's bytes, or why the Amulet workload is skipped. */
export function amuletDar(root: string | undefined): { dar: Buffer } | { skipped: string } {
  if (!root) return { skipped: 'LEDGERLINE_CONFORMANCE_DARS is not set' };
  const file = path.join(root, AMULET_DAR);
  if (!fs.existsSync(file)) return { skipped: `${file} is missing` };
  return { dar: fs.readFileSync(file) };
}

export interface AmuletTransfers {
  /** One transfer of 1 Amulet from sender `w` to receiver `w` through the receiver's preapproval. */
  transfer(w: number): Promise<void>;
}

/**
 * Sets the workload up on a service whose Amulet DAR is uploaded: the DSO's state, a tap of 100,000,000 Amulet (the
 * most one tap may mint) per sender, a preapproval per receiver, and each pair's transfer-factory context.
 */
export async function setUpAmuletTransfers(
  api: Api,
  sync: string,
  parties: { dso: string; provider: string },
  senders: string[],
  receivers: string[],
  seq: () => number,
): Promise<AmuletTransfers> {
  const { dso, provider } = parties;
  const withTx = '/v2/commands/submit-and-wait-for-transaction';
  const submit = (cmds: unknown[], actAs: string[], readAs: string[] = [], disclosedContracts: unknown[] = []) =>
    api('POST', withTx, {
      commands: {
        commands: cmds,
        commandId: `engine-bench-amulet-${seq()}`,
        actAs,
        readAs,
        synchronizerId: sync,
        disclosedContracts,
      },
    });
  const created = (answer: any, suffix: string, owner?: string): string[] =>
    answer.transaction.events
      .filter(
        (e: any) =>
          e.CreatedEvent?.templateId.endsWith(suffix) &&
          (owner === undefined || e.CreatedEvent.createArgument.owner === owner),
      )
      .map((e: any) => e.CreatedEvent.contractId as string);

  const rulesCid = created(
    await submit(
      [
        {
          CreateCommand: {
            templateId: TEMPLATES.amuletRules,
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
    ),
    ':AmuletRules',
  )[0];
  await submit(
    [{ CreateCommand: { templateId: TEMPLATES.externalPartyAmuletRules, createArguments: { dso } } }],
    [dso],
  );
  const onRules = (choice: string, choiceArgument: unknown, actAs: string[]) =>
    submit(
      [{ ExerciseCommand: { templateId: TEMPLATES.amuletRules, contractId: rulesCid, choice, choiceArgument } }],
      actAs,
      actAs.includes(dso) ? [] : [dso],
    );
  await onRules(
    'AmuletRules_Bootstrap_Rounds',
    { amuletPrice: '1.0', round0Duration: micros(24 * 3600), initialRound: null },
    [dso],
  );
  const registry = new AmuletRegistry(api, dso, sync);
  const round0 = (await registry.dsoContracts([TEMPLATES.openRound])).find(
    (c) => c.createArgument.round.number === '0',
  );
  if (!round0) throw new Error('AmuletRules_Bootstrap_Rounds opened no round 0');

  const holdings: string[] = [];
  const factories: TransferFactoryContext[] = [];
  const expiresAt = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
  const preapprovalContext = {
    amuletRules: rulesCid,
    context: {
      openMiningRound: round0.contractId,
      issuingMiningRounds: [],
      validatorRights: [],
      featuredAppRight: null,
    },
  };
  await Promise.all(
    senders.map(async (sender, w) => {
      const tapped = await onRules(
        'AmuletRules_DevNet_Tap',
        { receiver: sender, amount: '100000000.0', openRound: round0.contractId },
        [sender],
      );
      holdings[w] = created(tapped, ':Splice.Amulet:Amulet', sender)[0];
      await onRules(
        'AmuletRules_CreateTransferPreapproval',
        {
          context: preapprovalContext,
          inputs: [],
          receiver: receivers[w],
          provider,
          expiresAt,
          expectedDso: dso,
          optCreatedAt: null,
        },
        [provider, receivers[w]],
      );
    }),
  );
  for (let w = 0; w < senders.length; w++) {
    factories[w] = await registry.transferFactory(senders[w], receivers[w]);
    if (factories[w].transferKind !== 'direct') throw new Error(`no preapproval found for ${receivers[w]}`);
  }

  return {
    async transfer(w) {
      const now = Date.now();
      const factory = factories[w];
      const choiceArgument = {
        expectedAdmin: dso,
        transfer: {
          sender: senders[w],
          receiver: receivers[w],
          amount: '1.0',
          instrumentId: { admin: dso, id: 'Amulet' },
          requestedAt: new Date(now - 60_000).toISOString(),
          executeBefore: new Date(now + 3600_000).toISOString(),
          inputHoldingCids: [holdings[w]],
          meta: { values: {} },
        },
        extraArgs: { context: factory.choiceContextData, meta: { values: {} } },
      };
      const sent = await submit(
        [
          {
            ExerciseCommand: {
              templateId: INTERFACES.transferFactory,
              contractId: factory.factoryId,
              choice: 'TransferFactory_Transfer',
              choiceArgument,
            },
          },
        ],
        [senders[w]],
        [],
        factory.disclosedContracts,
      );
      const [change] = created(sent, ':Splice.Amulet:Amulet', senders[w]);
      if (!change) throw new Error('the transfer did not create the sender’s change');
      holdings[w] = change;
    },
  };
}
