import fs from 'node:fs';
import path from 'node:path';

/**
 * The token-standard transfer workload of bench:engine on Splice's test token (`splice/splice-test-token-v1-1.0.0.dar`
 * of LEDGERLINE_CONFORMANCE_DARS): one transfer is `TransferFactory_Transfer` by the sender on the admin's `TokenRules`
 * (exercised by interface id, the rules passed as a disclosed contract read by the admin) and then
 * `TransferInstruction_Accept` by the receiver on the resulting offer — two submissions. Each sender spends its change of
 * the previous transfer, so a client runs its transfers one after the other.
 */
export const TOKEN_DAR = 'splice/splice-test-token-v1-1.0.0.dar';
const MODULE = 'Splice.Testing.Tokens.TestTokenV1';
const TOKEN = `#splice-test-token-v1:${MODULE}:Token`;
const TOKEN_RULES = `#splice-test-token-v1:${MODULE}:TokenRules`;
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const EMPTY_META = { values: {} };
const EMPTY_EXTRA_ARGS = { context: { values: {} }, meta: EMPTY_META };

/** A call of the service's API as the bench user (any party), answering the JSON body of a 200 or throwing. */
export type Api = (method: string, pathname: string, body?: unknown) => Promise<any>;

/** The test-token DAR's bytes, or why the token workload is skipped. */
export function tokenDar(root: string | undefined): { dar: Buffer } | { skipped: string } {
  if (!root) return { skipped: 'LEDGERLINE_CONFORMANCE_DARS is not set' };
  const file = path.join(root, TOKEN_DAR);
  if (!fs.existsSync(file)) return { skipped: `${file} is missing` };
  return { dar: fs.readFileSync(file) };
}

export interface TokenTransfers {
  /** One transfer of 1 X1 from sender `w` to receiver `w`: the factory choice, then the receiver's accept. */
  transfer(w: number): Promise<void>;
}

/**
 * Sets the workload up on a service whose test-token DAR is uploaded: the instrument admin's `TokenRules` and their
 * created-event blob, and a holding large enough for every transfer the run makes per sender.
 */
export async function setUpTokenTransfers(
  api: Api,
  sync: string,
  admin: string,
  senders: string[],
  receivers: string[],
  seq: () => number,
): Promise<TokenTransfers> {
  const commands = (cmds: unknown[], actAs: string[], disclosedContracts: unknown[] = []) => ({
    commands: cmds,
    commandId: `engine-bench-token-${seq()}`,
    actAs,
    synchronizerId: sync,
    disclosedContracts,
  });
  const created = (answer: any, templateSuffix: string): string[] =>
    answer.transaction.events
      .filter((e: any) => e.CreatedEvent?.templateId.endsWith(templateSuffix))
      .map((e: any) => e.CreatedEvent.contractId as string);
  const withTx = '/v2/commands/submit-and-wait-for-transaction';

  const rulesCreated = await api('POST', withTx, {
    commands: commands([{ CreateCommand: { templateId: TOKEN_RULES, createArguments: { admin } } }], [admin]),
  });
  const rulesCid = created(rulesCreated, ':TokenRules')[0];
  const acs = await api('POST', '/v2/state/active-contracts', {
    activeAtOffset: rulesCreated.transaction.offset,
    eventFormat: {
      filtersByParty: {
        [admin]: {
          cumulative: [
            {
              identifierFilter: {
                TemplateFilter: { value: { templateId: TOKEN_RULES, includeCreatedEventBlob: true } },
              },
            },
          ],
        },
      },
    },
  });
  const rules = acs
    .map((e: any) => e.contractEntry.JsActiveContract.createdEvent)
    .find((e: any) => e.contractId === rulesCid);
  const disclosed = {
    contractId: rulesCid,
    templateId: rules.templateId,
    createdEventBlob: rules.createdEventBlob,
    synchronizerId: sync,
  };

  const instrumentId = { admin, id: 'X1' };
  const holdings = await Promise.all(
    senders.map(async (owner) => {
      const holding = { owner, instrumentId, amount: '1000000000.0', lock: null, meta: EMPTY_META };
      return created(
        await api('POST', withTx, {
          commands: commands([{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }], [admin, owner]),
        }),
        ':Token',
      )[0];
    }),
  );

  return {
    async transfer(w) {
      const now = Date.now();
      const choiceArgument = {
        expectedAdmin: admin,
        transfer: {
          sender: senders[w],
          receiver: receivers[w],
          amount: '1.0',
          instrumentId,
          requestedAt: new Date(now - 60_000).toISOString(),
          executeBefore: new Date(now + 3600_000).toISOString(),
          inputHoldingCids: [holdings[w]],
          meta: EMPTY_META,
        },
        extraArgs: EMPTY_EXTRA_ARGS,
      };
      const sent = await api('POST', withTx, {
        commands: commands(
          [
            {
              ExerciseCommand: {
                templateId: TRANSFER_FACTORY,
                contractId: rulesCid,
                choice: 'TransferFactory_Transfer',
                choiceArgument,
              },
            },
          ],
          [senders[w]],
          [disclosed],
        ),
      });
      holdings[w] = created(sent, ':Token')[0];
      const offer = created(sent, ':TokenTransferOffer')[0];
      if (!holdings[w] || !offer) throw new Error('the transfer did not create the change and the offer');
      await api(
        'POST',
        '/v2/commands/submit-and-wait',
        commands(
          [
            {
              ExerciseCommand: {
                templateId: TRANSFER_INSTRUCTION,
                contractId: offer,
                choice: 'TransferInstruction_Accept',
                choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS },
              },
            },
          ],
          [receivers[w]],
        ),
      );
    },
  };
}
