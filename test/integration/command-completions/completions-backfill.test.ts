import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Pool } from 'pg';
import { dumpProjections, migrate, rebuildProjections } from '@ledgerline/store';
import { createContract } from '../../support/contracts';
import { startTestLedger, ledgerEnd, type TestLedger } from '../../support/ledger';
import { ed25519Signature, onboardExternalParty } from '../../support/external-party';

/**
 * Migration 0016 fills `command_completions` from the event log: on a ledger with every kind of completion an earlier
 * version could have written (commands of local parties, with each deduplication period; externally signed executions;
 * unassign and assign; updates without a submission; a pruning), dropping the table and applying the migration again
 * gives exactly the rows the projection wrote, and a replay of the log gives them too.
 */
let ledger: TestLedger;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const local = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await local('alice');
  bob = await local('bob');
  const act = (party: string) => ({ kind: { CanActAs: { value: { party } } } });
  await ledger.call('POST', '/v2/users', { user: { id: 'app' }, rights: [act(alice), act(bob)] });
});
afterAll(async () => {
  await ledger?.close();
});

let alice: string;
let bob: string;

async function submit(body: Record<string, unknown>): Promise<void> {
  const commands = [{ CreateCommand: { templateId: '#memo:Main:Memo', createArguments: { owner: alice } } }];
  const r = await ledger.call(
    'POST',
    '/v2/commands/submit-and-wait',
    { commands, commandId: randomUUID(), actAs: [alice], ...body },
    { as: 'app' },
  );
  expect(r.status, r.text).toBe(200);
}

async function commands(): Promise<void> {
  await submit({});
  await submit({
    actAs: [alice, bob],
    deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 60, nanos: 5000 } } },
  });
  await submit({ deduplicationPeriod: { DeduplicationOffset: { value: 1 } }, workflowId: 'wf' });
}

async function externalExecution(): Promise<void> {
  const ext = await onboardExternalParty(ledger, 'ext');
  await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
    rights: [{ kind: { CanActAs: { value: { party: ext.partyId } } } }],
  });
  const prepared = await ledger.call('POST', '/v2/interactive-submission/prepare', {
    userId: '',
    commandId: randomUUID(),
    actAs: [ext.partyId],
    readAs: [],
    synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
    packageIdSelectionPreference: [],
    verboseHashing: false,
    commands: [{ CreateCommand: { templateId: '#memo:Main:Memo', createArguments: { owner: ext.partyId } } }],
  });
  expect(prepared.status, prepared.text).toBe(200);
  const hash = Buffer.from(prepared.json.preparedTransactionHash, 'base64');
  const r = await ledger.call('POST', '/v2/interactive-submission/executeAndWait', {
    preparedTransaction: prepared.json.preparedTransaction,
    partySignatures: {
      signatures: [{ party: ext.partyId, signatures: [ed25519Signature(ext.key, hash, ext.fingerprint)] }],
    },
    deduplicationPeriod: { Empty: {} },
    submissionId: randomUUID(),
    userId: '',
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  });
  expect(r.status, r.text).toBe(200);
}

async function reassignments(): Promise<void> {
  const [A, B] = ledger.runtime.identity.synchronizers.map((s) => s.id);
  const created = await ledger.call(
    'POST',
    '/v2/commands/submit-and-wait-for-transaction',
    {
      commands: {
        commandId: randomUUID(),
        actAs: [alice],
        synchronizerId: A,
        commands: [{ CreateCommand: { templateId: '#memo:Main:Memo', createArguments: { owner: alice } } }],
      },
    },
    { as: 'app' },
  );
  const contractId = created.json.transaction.events[0].CreatedEvent.contractId;
  const reassign = (command: unknown) =>
    ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-reassignment',
      {
        reassignmentCommands: { commandId: randomUUID(), submitter: alice, commands: [{ command }] },
        eventFormat: { filtersByParty: { [alice]: { cumulative: [] } } },
      },
      { as: 'app' },
    );
  const un = await reassign({ UnassignCommand: { value: { contractId, source: A, target: B } } });
  expect(un.status, un.text).toBe(200);
  const reassignmentId = un.json.reassignment.events[0].JsUnassignedEvent.value.reassignmentId;
  const as = await reassign({ AssignCommand: { value: { reassignmentId, source: A, target: B } } });
  expect(as.status, as.text).toBe(200);
}

describe('migration 0016: the completions backfill', () => {
  it('equals the projection rows and a replay of the log', async () => {
    await commands();
    // Pruned completions are not backfilled.
    const prune = await ledger.call('POST', '/v2/admin/prune', { pruneUpTo: (await ledgerEnd(ledger)) - 1 });
    expect(prune.status, prune.text).toBe(200);
    await externalExecution();
    await reassignments();
    // An update that completes no submission.
    await createContract(ledger.runtime.eventStore, {
      seed: 'no-submission',
      signatories: [alice],
      synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
    });
    await commands();
    const live = (await dumpProjections(ledger.runtime.db)).command_completions;
    const hashes = live.map(
      (r: any) => (typeof r.completion === 'string' ? JSON.parse(r.completion) : r.completion).transactionHash,
    );
    expect(hashes.filter((h: string) => h !== '')).toHaveLength(1);
    expect(live.length).toBeGreaterThanOrEqual(7);

    // The table as the migration finds it: absent, the migration not yet applied.
    await sql`DROP TABLE command_completions`.execute(ledger.runtime.db);
    await sql`DELETE FROM schema_migrations WHERE name = '0016_command_completions.sql'`.execute(ledger.runtime.db);
    const pool = new Pool({ connectionString: ledger.databaseUrl, max: 1 });
    try {
      expect((await migrate(pool)).applied).toEqual(['0016_command_completions.sql']);
    } finally {
      await pool.end();
    }
    const backfilled = (await dumpProjections(ledger.runtime.db)).command_completions;
    expect(backfilled).toEqual(live);
    await rebuildProjections(ledger.runtime.db);
    expect((await dumpProjections(ledger.runtime.db)).command_completions).toEqual(live);
  });
});
