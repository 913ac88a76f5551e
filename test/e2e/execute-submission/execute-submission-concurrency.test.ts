import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProjections, rebuildProjections } from '@ledgerline/store';
import {
  createNode,
  executeRequest,
  exerciseNode,
  externalParty,
  freshContractId,
  preparedTransaction,
} from '../../../testkit/external-signing';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { createApp } from '@ledgerline/server/app';
import { makeLogger, startRuntime, type LedgerRuntime } from '@ledgerline/server/infrastructure/runtime';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createUser, ledgerEnd, registerKeys } from '../../support/external-parties';
import { ed25519WorkerScriptForTests } from '../../support/ed25519-worker-script';

let ledger: TestLedger;
/** A second service instance on the same database: its in-memory locks know nothing of the first's. */
let second: { runtime: LedgerRuntime; app: NestFastifyApplication; url: string };
const owner = externalParty('owner');
const EXEC = '/v2/interactive-submission/executeAndWait';

beforeAll(async () => {
  ledger = await startTestLedger();
  await registerKeys(ledger, owner.party, [owner]);
  await createUser(ledger, 'owner-app', [{ kind: 'CanActAs', party: owner.party }]);
  const runtime = await startRuntime(ledger.config, makeLogger(ledger.config), {
    ed25519WorkerScript: ed25519WorkerScriptForTests(),
  });
  const app = await createApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  second = { runtime, app, url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
});
afterAll(async () => {
  await second?.app.close();
  await second?.runtime.close();
  await ledger?.close();
});

/** executeAndWait on instance `i % 2`. */
async function execOn(i: number, body: unknown) {
  if (i % 2 === 0) return ledger.call('POST', EXEC, body, { as: 'owner-app' });
  const res = await fetch(second.url + EXEC, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token('owner-app')}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

describe('double spend', () => {
  it('20 rounds of 8 concurrent executions (on two service instances) consuming the same contract: exactly one commits per round; the projection equals a replay', async () => {
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    const ref = { signatories: [owner.party], stakeholders: [owner.party], actingParties: [owner.party] };
    const loserCodes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const created = preparedTransaction({
        nodes: [createNode('0', { contractId: freshContractId(), ...ref })],
        actAs: [owner.party],
        synchronizerId: sync,
      });
      const answer = await ledger.call('POST', `${EXEC}ForTransaction`, executeRequest(created, [owner]), {
        as: 'owner-app',
      });
      expect(answer.status).toBe(200);
      // The committed id (the prepared local id with Canton's suffix) is what the next transactions consume.
      const cid: string = answer.json.transaction.events[0].CreatedEvent.contractId;
      const before = await ledgerEnd(ledger);
      // Eight different transactions (different commands) that all consume `cid`, half of them also creating a successor.
      const bodies = Array.from({ length: 8 }, (_, i) =>
        executeRequest(
          preparedTransaction({
            nodes:
              i % 2 === 0
                ? [exerciseNode('0', { contractId: cid, ...ref })]
                : [
                    exerciseNode('0', { contractId: cid, ...ref, choiceId: 'Transfer', children: ['1'] }),
                    createNode('1', { contractId: freshContractId(), ...ref }),
                  ],
            actAs: [owner.party],
            synchronizerId: sync,
          }),
          [owner],
        ),
      );
      const results = await Promise.all(bodies.map((b, i) => execOn(i, b)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect([
          [404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS'],
          [409, 'LOCAL_VERDICT_LOCKED_CONTRACTS'],
        ]).toContainEqual([r.status, r.json.code]);
        loserCodes.add(r.json.code);
      }
      // One transaction; every loser accepted for processing ends in a rejected completion at an offset of its own.
      expect(await ledgerEnd(ledger)).toBe(before + 8);
      const updates = await ledger.runtime.db
        .selectFrom('ledger_updates')
        .select('ledger_offset')
        .where('ledger_offset', '>', before)
        .execute();
      expect(updates.map((u) => Number(u.ledger_offset))).toEqual([ok[0].json.completionOffset]);
      const completions = await ledger.runtime.db
        .selectFrom('command_completions')
        .select('completion')
        .where('completion_offset', '>', before)
        .execute();
      expect(
        completions.map((c) => (c.completion as { status: { code: number } }).status.code !== 0).filter(Boolean),
      ).toHaveLength(7);
      const row = await ledger.runtime.db
        .selectFrom('contracts')
        .select(['status', 'archived_offset'])
        .where('contract_id', '=', cid)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'archived', archived_offset: ok[0].json.completionOffset });
    }
    // The instance that did not win always sends at least one loser to the writer, which finds the contract archived.
    expect(loserCodes.has('LOCAL_VERDICT_INACTIVE_CONTRACTS')).toBe(true);
    const live = await dumpProjections(ledger.runtime.db);
    await rebuildProjections(ledger.runtime.db);
    const replayed = await dumpProjections(ledger.runtime.db);
    expect(replayed.contracts).toEqual(live.contracts);
    expect(replayed.command_deduplication).toEqual(live.command_deduplication);
    expect(replayed.ledger_updates).toEqual(live.ledger_updates);
    expect(replayed.command_completions).toEqual(live.command_completions);
    expect(live.contracts.length).toBeGreaterThanOrEqual(20);
  });
});
