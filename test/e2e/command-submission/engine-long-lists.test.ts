import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLD_CHOICES, foldArgument, foldPackageDar } from '../../../testkit/fold-package';
import { startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * A choice argument of 100,000 elements through HTTP, folded by the engine three ways (FOLDL, FOLDR, a recursive LF
 * function that is not a tail call): every fold answers the sum, none exhausts a stack.
 */
let ledger: TestLedger;
let sync: string;
let pkg: string;
let owner: string;
let folder: string;

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = ledger.runtime.identity.defaultSynchronizer.id;
  const dar = await foldPackageDar();
  pkg = dar.main.packageId;
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar.dar,
  });
  expect(up.status, await up.text()).toBe(200);
  const r = await ledger.call('POST', '/v2/parties', { partyIdHint: 'folder', synchronizerId: sync });
  owner = r.json.partyDetails.party;
  expect(
    (
      await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
        rights: [{ kind: { CanActAs: { value: { party: owner } } } }],
      })
    ).status,
  ).toBe(200);
  const created = await submit({ CreateCommand: { templateId: `${pkg}:Main:Folder`, createArguments: { owner } } });
  folder = created.events[0].CreatedEvent.contractId;
});
afterAll(async () => ledger?.close());

async function submit(command: unknown): Promise<any> {
  const commands = {
    commands: [command],
    commandId: randomUUID(),
    userId: ledger.config.adminUser,
    actAs: [owner],
    synchronizerId: sync,
  };
  const transactionFormat = {
    eventFormat: { filtersByParty: { [owner]: { cumulative: [] } }, verbose: true },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
  const r = await ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', { commands, transactionFormat });
  expect(r.status, r.text.slice(0, 2000)).toBe(200);
  return r.json.transaction;
}

describe('a fold over a 100,000-element choice argument', () => {
  const { argument, sum } = foldArgument(100_000);
  for (const choice of FOLD_CHOICES) {
    it(`${choice} answers the sum`, async () => {
      const tx = await submit({
        ExerciseCommand: { templateId: `${pkg}:Main:Folder`, contractId: folder, choice, choiceArgument: argument },
      });
      const exercised = tx.events[0].ExercisedEvent;
      expect(exercised).toMatchObject({ choice, consuming: false, exerciseResult: sum, lastDescendantNodeId: 0 });
      expect(exercised.choiceArgument.xs).toHaveLength(100_000);
    });
  }
});
