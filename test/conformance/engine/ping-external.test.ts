import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { type TestLedger } from '../../support/ledger';
import { describeWithDars } from '../../support/conformance';
import { ledgerWithPingDar, PING, PING_PKG } from '../../support/ping-dar';
import { ed25519Signature, onboardExternalParty, type TestKey } from '../../support/external-party';

/**
 * Canton's ping DAR through prepare + executeAndWaitForTransaction by external parties: the engine builds the prepared
 * Ping create (the template's signatories and observers, the enriched argument), the initiator signs its hash and the
 * execution commits it; then the external responder prepares, signs and executes `Respond`.
 */
type External = { partyId: string; key: TestKey; fingerprint: string };

describeWithDars(
  'the ping DAR through prepare + execute by external parties (LEDGERLINE_CONFORMANCE_DARS)',
  (darsRoot) => {
    let ledger: TestLedger;
    let sync: string;
    let alice: External;
    let bob: External;

    beforeAll(async () => {
      ({ ledger, sync } = await ledgerWithPingDar(darsRoot));
      alice = await onboardExternalParty(ledger, 'ext-alice');
      bob = await onboardExternalParty(ledger, 'ext-bob');
      for (const p of [alice, bob]) {
        const r = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
          rights: [{ kind: { CanActAs: { value: { party: p.partyId } } } }],
        });
        expect(r.status, r.text).toBe(200);
      }
    });
    afterAll(async () => {
      await ledger?.close();
    });

    const prepare = (party: string, commands: unknown[]) =>
      ledger.call('POST', '/v2/interactive-submission/prepare', {
        userId: '',
        commandId: randomUUID(),
        actAs: [party],
        readAs: [],
        synchronizerId: sync,
        packageIdSelectionPreference: [],
        verboseHashing: false,
        commands,
      });

    async function execute(
      signer: External,
      prepared: { preparedTransaction: string; preparedTransactionHash: string },
    ) {
      const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
      return ledger.call('POST', '/v2/interactive-submission/executeAndWaitForTransaction', {
        preparedTransaction: prepared.preparedTransaction,
        partySignatures: {
          signatures: [{ party: signer.partyId, signatures: [ed25519Signature(signer.key, hash, signer.fingerprint)] }],
        },
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        userId: '',
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          eventFormat: {
            filtersByParty: { [alice.partyId]: { cumulative: [] }, [bob.partyId]: { cumulative: [] } },
            verbose: true,
          },
        },
      });
    }

    it('prepares the Ping create on the engine, and the initiator’s signature commits it; the responder responds the same way', async () => {
      const r = await prepare(alice.partyId, [
        {
          CreateCommand: {
            templateId: PING,
            createArguments: { id: 'ext-ping', initiator: alice.partyId, responder: bob.partyId },
          },
        },
      ]);
      expect(r.status, r.text).toBe(200);
      const pt = PreparedTransaction.fromBinary(Buffer.from(r.json.preparedTransaction, 'base64'));
      expect(pt.transaction!.nodes).toHaveLength(1);
      const node = pt.transaction!.nodes[0].versionedNode;
      if (node.oneofKind !== 'v1' || node.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
      const create = node.v1.nodeType.create;
      expect(create.templateId).toEqual({
        packageId: PING_PKG,
        moduleName: 'Canton.Internal.Ping',
        entityName: 'Ping',
      });
      expect(create.packageName).toBe('canton-builtin-admin-workflow-ping');
      expect(create.signatories).toEqual([alice.partyId]);
      expect([...create.stakeholders].sort()).toEqual([alice.partyId, bob.partyId].sort());
      // the enriched argument: record id and labels
      const arg = create.argument!.sum;
      if (arg.oneofKind !== 'record') throw new Error('not a record');
      expect(arg.record.recordId).toMatchObject({
        packageId: PING_PKG,
        moduleName: 'Canton.Internal.Ping',
        entityName: 'Ping',
      });
      expect(arg.record.fields.map((f) => f.label)).toEqual(['id', 'initiator', 'responder']);
      expect(pt.metadata!.submitterInfo!.actAs).toEqual([alice.partyId]);
      expect(pt.transaction!.nodeSeeds).toHaveLength(1);

      const done = await execute(alice, r.json);
      expect(done.status, done.text).toBe(200);
      const created = done.json.transaction.events[0].CreatedEvent;
      // The prepared (and signed) create has the local id; the committed contract has it with Canton's V12 suffix.
      expect(create.contractId).toMatch(/^00[0-9a-f]{64}$/);
      expect(created.contractId).toMatch(new RegExp(`^${create.contractId}ca121220[0-9a-f]{64}$`));
      expect(created).toMatchObject({
        templateId: PING,
        signatories: [alice.partyId],
        observers: [bob.partyId],
        createArgument: { id: 'ext-ping', initiator: alice.partyId, responder: bob.partyId },
      });

      const respond = await prepare(bob.partyId, [
        {
          ExerciseCommand: { templateId: PING, contractId: created.contractId, choice: 'Respond', choiceArgument: {} },
        },
      ]);
      expect(respond.status, respond.text).toBe(200);
      const responded = await execute(bob, respond.json);
      expect(responded.status, responded.text).toBe(200);
      expect(responded.json.transaction.events[0].ExercisedEvent).toMatchObject({
        contractId: created.contractId,
        choice: 'Respond',
        actingParties: [bob.partyId],
        consuming: true,
        exerciseResult: {},
      });
    });

    it('a Respond prepared by the initiator (not the controller) is DAML_AUTHORIZATION_ERROR at prepare', async () => {
      const r = await prepare(alice.partyId, [
        {
          CreateCommand: {
            templateId: PING,
            createArguments: { id: 'ext-ping-2', initiator: alice.partyId, responder: bob.partyId },
          },
        },
      ]);
      const done = await execute(alice, r.json);
      expect(done.status, done.text).toBe(200);
      const cid = done.json.transaction.events[0].CreatedEvent.contractId;
      const wrong = await prepare(alice.partyId, [
        { ExerciseCommand: { templateId: PING, contractId: cid, choice: 'Respond', choiceArgument: {} } },
      ]);
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.json.code).toBe('DAML_AUTHORIZATION_ERROR');
    });
  },
);
