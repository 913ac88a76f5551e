import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { hashPreparedTransaction } from '@ledgerline/canton';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { ledgerEnd } from '../../support/external-party';

/**
 * The unmodified @canton-network/wallet-sdk 1.4.0 (ESM, loaded with a dynamic import) against Ledgerline: external party
 * onboarding (generate-topology → sign → allocate → poll GET party → grant rights), prepare, sign, executeAndWait, archive,
 * and the update stream over its WebSocket client (`sdk.events.updates`); for a local party, allocation
 * (`sdk.party.internal.allocate`), command submission (`sdk.ledger.internal.submit`: submit-and-wait) and the completion
 * stream over the same WebSocket client (`sdk.events.completions`).
 */
let ledger: TestLedger;
let sdk: any;
const auth = () => ({
  method: 'self_signed' as const,
  issuer: 'unsafe-auth',
  credentials: {
    clientId: ledger.config.adminUser,
    clientSecret: TEST_JWT_SECRET,
    audience: `https://daml.com/jwt/aud/participant/${ledger.participantId}`,
    scope: '',
  },
});

beforeAll(async () => {
  ledger = await startTestLedger();
  const { SDK, CustomLogAdapter } = await import('@canton-network/wallet-sdk');
  sdk = await SDK.create({
    auth: auth(),
    ledgerClientUrl: ledger.url,
    logAdapter: new CustomLogAdapter(() => undefined),
  });
}, 60_000);
afterAll(async () => {
  await ledger?.close();
});

/** Runs `fn` with a global WebSocket (undici's: Node 20 has none) that records the URLs the SDK opens. */
async function withRecordedWebSockets(fn: (opened: string[]) => Promise<void>): Promise<void> {
  const opened: string[] = [];
  const { WebSocket: PlatformWebSocket } = await import('undici');
  const previous = globalThis.WebSocket;
  globalThis.WebSocket = class extends PlatformWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      opened.push(String(url));
      super(url, protocols);
    }
  } as typeof globalThis.WebSocket;
  try {
    await fn(opened);
  } finally {
    globalThis.WebSocket = previous;
  }
}

describe('wallet-sdk 1.4.0 end to end', () => {
  it('onboards an external party, creates a contract and archives it through prepare + executeAndWait', async () => {
    const keys = sdk.keys.generate();
    const start = await ledgerEnd(ledger);

    // Onboarding: generate-topology, sign the multi-hash, allocate, poll GET /v2/parties/{party}, grant CanActAs.
    const party = await sdk.party.external
      .create(keys.publicKey, { partyHint: 'wallet-alice' })
      .sign(keys.privateKey)
      .execute();
    expect(party.partyId).toBe(`wallet-alice::${await sdk.keys.fingerprint(keys.publicKey)}`);
    expect(party.partyId.split('::')[1]).toBe(party.publicKeyFingerprint);
    const rights = await ledger.call('GET', `/v2/users/${ledger.config.adminUser}/rights`);
    expect(rights.json.rights).toContainEqual({ kind: { CanActAs: { value: { party: party.partyId } } } });
    expect(await ledgerEnd(ledger)).toBe(start + 1); // the topology transaction

    // Prepare a create; check the returned hash independently before signing.
    const prepared = sdk.ledger.prepare({
      partyId: party.partyId,
      commands: [
        {
          CreateCommand: {
            templateId: '#memo-pkg:Main:Memo',
            createArguments: { owner: party.partyId, text: 'hello' },
          },
        },
      ],
    });
    const { response } = await prepared.toJSON();
    expect(response.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V2');
    const pt = PreparedTransaction.fromBinary(Buffer.from(response.preparedTransaction, 'base64'));
    expect(hashPreparedTransaction(pt, 2).toString('base64')).toBe(response.preparedTransactionHash);
    expect((await sdk.utils.hash.preparedTransaction(response.preparedTransaction)).toBase64()).toBe(
      response.preparedTransactionHash,
    );
    const node = pt.transaction!.nodes[0].versionedNode;
    const localId =
      node.oneofKind === 'v1' && node.v1.nodeType.oneofKind === 'create' ? node.v1.nodeType.create.contractId : '';
    expect(localId).toMatch(/^00[0-9a-f]{64}$/);

    // Sign and executeAndWait.
    const created = await prepared.sign(keys.privateKey).execute({ partyId: party.partyId });
    expect(created.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(created.completionOffset).toBe(start + 2);
    // Committed with Canton's suffix after the prepared local id.
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', 'like', `${localId}%`)
      .executeTakeFirstOrThrow();
    const contractId = row.contract_id;
    expect(contractId).toMatch(new RegExp(`^${localId}ca121220[0-9a-f]{64}$`));
    expect(row).toMatchObject({ status: 'active', signatories: [party.partyId], package_name: 'memo-pkg' });

    // Archive it: prepare an Archive exercise, sign, execute.
    const archived = await sdk.ledger
      .prepare({
        partyId: party.partyId,
        commands: [
          { ExerciseCommand: { templateId: '#memo-pkg:Main:Memo', contractId, choice: 'Archive', choiceArgument: {} } },
        ],
      })
      .sign(keys.privateKey)
      .execute({ partyId: party.partyId });
    expect(archived.completionOffset).toBe(start + 3);
    const after = await ledger.runtime.db
      .selectFrom('contracts')
      .select(['status'])
      .where('contract_id', '=', contractId)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe('archived');

    // Onboarding the same key again is recognised by the SDK (the party exists) and changes nothing.
    const again = await sdk.party.external
      .create(keys.publicKey, { partyHint: 'wallet-alice' })
      .sign(keys.privateKey)
      .execute();
    expect(again.partyId).toBe(party.partyId);
    expect(await ledgerEnd(ledger)).toBe(start + 3);

    // The update stream over the SDK's own WebSocket client. It joins its base URL (which ends in '/') with '/v2/updates':
    // the socket opens at ws://host:port//v2/updates, and gets the create and the archive as they were committed.
    await withRecordedWebSockets(async (opened) => {
      const withEvents = await sdk.extend({
        events: { websocketURL: ledger.url.replace(/^http/, 'ws'), auth: auth() },
      });
      const seen: any[] = [];
      for await (const message of withEvents.events.updates({
        partyId: party.partyId,
        templateIds: ['#memo-pkg:Main:Memo'],
        beginOffset: start,
      })) {
        if (message.update?.Transaction) seen.push(message.update.Transaction.value);
        if (seen.length === 2) break; // the stream tails: leaving the loop closes the socket
      }
      expect(opened).toEqual([`${ledger.url.replace(/^http/, 'ws')}//v2/updates`]);
      expect(seen.map((t) => [t.updateId, t.offset])).toEqual([
        [created.updateId, start + 2],
        [archived.updateId, start + 3],
      ]);
      expect(Object.keys(seen[0].events[0])).toEqual(['CreatedEvent']);
      expect(seen[0].events[0].CreatedEvent).toMatchObject({
        contractId,
        templateId: expect.stringMatching(/:Main:Memo$/),
        createArgument: { owner: party.partyId, text: 'hello' },
      });
      expect(Object.keys(seen[1].events[0])).toEqual(['ArchivedEvent']);
    });
  }, 60_000);

  it('allocates a local party, submits with ledger.internal.submit and follows events.completions', async () => {
    const start = await ledgerEnd(ledger);
    const partyId = await sdk.party.internal.allocate({ partyHint: 'wallet-local' });
    expect(partyId).toBe(`wallet-local::${ledger.participantId.split('::')[1]}`);
    const created = await sdk.ledger.internal.submit({
      actAs: [partyId],
      commands: [
        { CreateCommand: { templateId: '#memo-pkg:Main:Memo', createArguments: { owner: partyId, text: 'local' } } },
      ],
      commandId: 'wallet-local-1',
    });
    expect(created).toMatchObject({ updateId: expect.stringMatching(/^1220/), completionOffset: start + 2 });

    await withRecordedWebSockets(async (opened) => {
      const withEvents = await sdk.extend({
        events: { websocketURL: ledger.url.replace(/^http/, 'ws'), auth: auth() },
      });
      for await (const message of withEvents.events.completions({ parties: [partyId], beginOffset: start })) {
        const completion = message.completionResponse?.Completion?.value;
        if (!completion) continue; // OffsetCheckpoints
        expect(completion).toMatchObject({
          commandId: 'wallet-local-1',
          updateId: created.updateId,
          offset: created.completionOffset,
          actAs: [partyId],
          status: { code: 0 },
        });
        break;
      }
      expect(opened).toEqual([`${ledger.url.replace(/^http/, 'ws')}//v2/commands/completions`]);
    });
  }, 60_000);
});
