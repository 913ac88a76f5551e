import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync, sign } from 'node:crypto';
import { sql } from 'kysely';
import {
  buildPartyToParticipantTopology,
  decodeOnboardingTransaction,
  fingerprint,
  multiHashOf,
} from '@ledgerline/canton';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import {
  defaultSynchronizer,
  ed25519Key,
  ed25519Signature,
  ledgerEnd,
  onboardExternalParty,
  rawPublicKeyJs,
  type TestKey,
} from '../../support/external-party';

let ledger: TestLedger;
let sync: string;
beforeAll(async () => {
  // Users allocate external parties for themselves: the self-allocation quota must allow it (it counts external parties).
  ledger = await startTestLedger({ LEDGER_MAX_SELF_ALLOCATED_PARTIES: '10' });
  sync = await defaultSynchronizer(ledger);
});
afterAll(async () => {
  await ledger?.close();
});

const generate = (body: Record<string, unknown>, as?: string) =>
  ledger.call('POST', '/v2/parties/external/generate-topology', { synchronizer: sync, ...body }, { as });
const allocate = (body: Record<string, unknown>, as?: string) =>
  ledger.call('POST', '/v2/parties/external/allocate', { synchronizer: sync, ...body }, { as });

async function generated(hint: string, key: TestKey, extra: Record<string, unknown> = {}) {
  const r = await generate({ partyHint: hint, publicKey: rawPublicKeyJs(key), ...extra });
  expect(r.status, r.text).toBe(200);
  return r.json as { partyId: string; publicKeyFingerprint: string; topologyTransactions: string[]; multiHash: string };
}

/** Runs `fn` and asserts that it changed neither the ledger end nor the signing-key tables. */
async function unchanged(fn: () => Promise<void>) {
  const end = await ledgerEnd(ledger);
  const keys = await sql<{ n: number }>`SELECT count(*)::int AS n FROM party_signing_keys`.execute(ledger.runtime.db);
  await fn();
  expect(await ledgerEnd(ledger)).toBe(end);
  expect(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM party_signing_keys`.execute(ledger.runtime.db)).rows[0].n,
  ).toBe(keys.rows[0].n);
}

describe('POST /v2/parties/external/generate-topology', () => {
  it('builds one PartyToParticipant for <hint>::<fingerprint> with this participant confirming and the key registered', async () => {
    const key = ed25519Key(Buffer.from('0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20', 'hex'));
    const t = await generated('alice', key);
    // Worked example of Canton's key fingerprint: the Ed25519 key of seed bytes 01..20.
    expect(t.publicKeyFingerprint).toBe('1220133628fcf469de1c1726313351f2729e6dd6f47b6c1989b76099d363754a39b6');
    expect(t.partyId).toBe(`alice::${t.publicKeyFingerprint}`);
    expect(t.topologyTransactions).toHaveLength(1);
    const bytes = Buffer.from(t.topologyTransactions[0], 'base64');
    const d = decodeOnboardingTransaction(bytes);
    expect(d).toMatchObject({ version: 30, operation: 'ADD_REPLACE', serial: 1 });
    expect(d.partyToParticipant).toMatchObject({
      party: t.partyId,
      threshold: 1,
      participants: [{ participantUid: ledger.participantId, permission: 'CONFIRMATION' }],
      partySigningKeys: { threshold: 1, keys: [{ fingerprint: t.publicKeyFingerprint }] },
    });
    const multiHash = Buffer.from(t.multiHash, 'base64');
    expect(multiHash).toHaveLength(34);
    expect(multiHash.subarray(0, 2).toString('hex')).toBe('1220');
    expect(multiHash.equals(multiHashOf([bytes]))).toBe(true);
  });

  it('a DER-SPKI key gives the same party id as its raw form; observation-only needs another confirmer (none here)', async () => {
    const key = ed25519Key();
    const raw = await generated('bob', key);
    const der = await generate({
      partyHint: 'bob',
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: key.spki.toString('base64'),
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      },
    });
    expect(der.status).toBe(200);
    expect(der.json.partyId).toBe(raw.partyId);
    const obs = await generate({
      partyHint: 'bob',
      publicKey: rawPublicKeyJs(key),
      localParticipantObservationOnly: true,
    });
    expect([obs.status, obs.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(obs.json.cause).toMatch(/no confirming participant/);
  });

  it('rejects a bad hint, a bad key, a missing or unknown synchronizer and other participants; decode errors are text/plain', async () => {
    const key = rawPublicKeyJs(ed25519Key());
    for (const hint of ['', 'a::b', 'bad/hint', 'x'.repeat(186)]) {
      const r = await generate({ partyHint: hint, publicKey: key });
      expect(r.status, hint).toBe(400);
      expect(r.json.code).toBe('INVALID_ARGUMENT');
    }
    let r = await generate({ partyHint: 'c', publicKey: { ...key, keyData: Buffer.alloc(31).toString('base64') } });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(r.json.cause).toMatch(/must be 32 bytes/);
    r = await generate({ partyHint: 'c', publicKey: key, synchronizer: '' });
    expect([r.status, r.json.code, r.json.context.field_name]).toEqual([400, 'MISSING_FIELD', 'synchronizer']);
    r = await generate({ partyHint: 'c', publicKey: key, synchronizer: 'nope::1220' + 'ab'.repeat(32) });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    r = await generate({ partyHint: 'c', publicKey: key, synchronizer: 'not-an-id' });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_FIELD']);
    r = await generate({
      partyHint: 'c',
      publicKey: key,
      otherConfirmingParticipantUids: ['p2::1220' + 'cd'.repeat(32)],
    });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    r = await generate({ partyHint: 'c', publicKey: { ...key, keySpec: 'SIGNING_KEY_SPEC_RSA' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(
      /^Invalid value for: body \(Unrecognized enum value SIGNING_KEY_SPEC_RSA\. Supported values: \[.*\] at 'publicKey\.keySpec'\)$/,
    );
    r = await generate({ partyHint: 'c', publicKey: { ...key, keyData: '***' } });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(
      /^Invalid value for: body \(The string is not a valid Base64: \*\*\* at 'publicKey\.keyData'\)$/,
    );
    r = await generate({ partyHint: 'c' });
    expect(r.text).toBe("Invalid value for: body (Missing required field at 'publicKey')");
  });
});

describe('POST /v2/parties/external/allocate', () => {
  it('registers the party with its key and threshold and commits a TopologyTransaction update', async () => {
    const before = await ledgerEnd(ledger);
    const { partyId, fingerprint: fp } = await onboardExternalParty(ledger, 'carol');
    expect(await ledgerEnd(ledger)).toBe(before + 1);
    const db = ledger.runtime.db;
    const keys = await db.selectFrom('party_signing_keys').selectAll().where('party_id', '=', partyId).execute();
    expect(keys).toEqual([
      expect.objectContaining({
        fingerprint: fp,
        key_spec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
        key_format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      }),
    ]);
    expect(Buffer.from(keys[0].public_key, 'base64')).toHaveLength(44);
    expect(
      await db.selectFrom('party_signing_thresholds').selectAll().where('party_id', '=', partyId).execute(),
    ).toEqual([{ party_id: partyId, threshold: 1 }]);
    const upd = await db
      .selectFrom('ledger_updates')
      .selectAll()
      .where('ledger_offset', '=', before + 1)
      .executeTakeFirstOrThrow();
    expect(upd).toMatchObject({ kind: 'TopologyTransaction', synchronizer_id: sync });
    expect(upd.payload).toEqual({
      events: [
        {
          ParticipantAuthorizationAdded: {
            partyId,
            participantId: ledger.participantId,
            participantPermission: 'PARTICIPANT_PERMISSION_CONFIRMATION',
          },
        },
      ],
    });
    // The party endpoints serve it (wallet-sdk polls GET /v2/parties/{party}).
    const got = await ledger.call('GET', `/v2/parties/${encodeURIComponent(partyId)}`);
    expect(got.status).toBe(200);
    expect(got.json.partyDetails).toEqual([
      {
        party: partyId,
        isLocal: true,
        localMetadata: { resourceVersion: '0', annotations: {} },
        identityProviderId: '',
      },
    ]);
  });

  it('accepts an ECDSA P-256 key (DER SPKI, DER signature) and per-transaction signatures', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const spki = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
    const r = await generate({
      partyHint: 'p256',
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: spki.toString('base64'),
        keySpec: 'SIGNING_KEY_SPEC_EC_P256',
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.publicKeyFingerprint).toBe(
      fingerprint({
        format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
        keyData: spki,
        keySpec: 'SIGNING_KEY_SPEC_EC_P256',
      }),
    );
    const tx = Buffer.from(r.json.topologyTransactions[0], 'base64');
    const txHash = decodeOnboardingTransaction(tx).transactionHash;
    const a = await allocate({
      onboardingTransactions: [
        {
          transaction: r.json.topologyTransactions[0],
          signatures: [
            {
              format: 'SIGNATURE_FORMAT_DER',
              signature: sign('sha256', txHash, { key: privateKey, dsaEncoding: 'der' }).toString('base64'),
              signedBy: r.json.publicKeyFingerprint,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
            },
          ],
        },
      ],
    });
    expect(a.status, a.text).toBe(200);
    expect(a.json).toEqual({ partyId: r.json.partyId });
    const keys = await ledger.runtime.db
      .selectFrom('party_signing_keys')
      .selectAll()
      .where('party_id', '=', r.json.partyId)
      .execute();
    expect(keys[0]).toMatchObject({ key_spec: 'SIGNING_KEY_SPEC_EC_P256', public_key: spki.toString('base64') });
  });

  describe('rejections leave the ledger unchanged', () => {
    it('bad signature, wrong key, signature by a stranger key, no signature', async () => {
      const key = ed25519Key();
      const t = await generated('dave', key);
      const mh = Buffer.from(t.multiHash, 'base64');
      const txs = t.topologyTransactions.map((transaction) => ({ transaction }));
      await unchanged(async () => {
        const good = ed25519Signature(key, mh, t.publicKeyFingerprint);
        const flipped = Buffer.from(good.signature, 'base64');
        flipped[5] ^= 1;
        let r = await allocate({
          onboardingTransactions: txs,
          multiHashSignatures: [{ ...good, signature: flipped.toString('base64') }],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toMatch(/Invalid signature by 1220/);
        // Signed with another key, claiming to be the party's key.
        r = await allocate({
          onboardingTransactions: txs,
          multiHashSignatures: [ed25519Signature(ed25519Key(), mh, t.publicKeyFingerprint)],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toMatch(/Invalid signature/);
        // Signed with another key, honestly named.
        const other = await generated('dave', ed25519Key());
        r = await allocate({
          onboardingTransactions: txs,
          multiHashSignatures: [ed25519Signature(ed25519Key(), mh, other.publicKeyFingerprint)],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toMatch(/not from a signing key of party/);
        r = await allocate({ onboardingTransactions: txs, multiHashSignatures: [] });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toMatch(/not fully authorized/);
        // The multi-hash signature over a tampered transaction.
        const tampered = Buffer.from(t.topologyTransactions[0], 'base64');
        const at = tampered.indexOf(Buffer.from('dave::'));
        tampered[at] = 'e'.charCodeAt(0);
        r = await allocate({
          onboardingTransactions: [{ transaction: tampered.toString('base64') }],
          multiHashSignatures: [good],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        // Signature field validation (INVALID_FIELD) and decode errors.
        r = await allocate({
          onboardingTransactions: txs,
          multiHashSignatures: [{ ...good, format: 'SIGNATURE_FORMAT_UNSPECIFIED' }],
        });
        expect([r.status, r.json.code, r.json.context.field_name]).toEqual([400, 'INVALID_FIELD', 'format']);
        r = await allocate({
          onboardingTransactions: txs,
          multiHashSignatures: [{ ...good, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ML_DSA_65' }],
        });
        expect([r.status, r.json.code, r.json.context.field_name]).toEqual([
          400,
          'INVALID_FIELD',
          'signing_algorithm_spec',
        ]);
        r = await allocate({ onboardingTransactions: txs, multiHashSignatures: [{ ...good, signedBy: 'alice' }] });
        expect([r.status, r.json.code, r.json.context.field_name]).toEqual([400, 'INVALID_FIELD', 'signed_by']);
        r = await allocate({ onboardingTransactions: [{ transaction: '%%%' }], multiHashSignatures: [good] });
        expect(r.status).toBe(400);
        expect(r.text).toMatch(
          /^Invalid value for: body \(The string is not a valid Base64: %%% at 'onboardingTransactions\[0\]\.transaction'\)$/,
        );
        r = await allocate({ onboardingTransactions: [], multiHashSignatures: [good] });
        expect([r.status, r.json.code]).toEqual([400, 'MISSING_FIELD']);
        r = await allocate({
          onboardingTransactions: [{ transaction: Buffer.from('garbage').toString('base64') }],
          multiHashSignatures: [good],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
      });
    });

    it('a correctly signed transaction we would not generate: another participant, a foreign namespace', async () => {
      const key = ed25519Key();
      const fp = fingerprint(rawPublicKeyJs(key));
      const foreign = buildPartyToParticipantTopology({
        partyHint: 'erin',
        publicKey: rawPublicKeyJs(key),
        participantUid: 'participant9::1220' + 'ef'.repeat(32),
      });
      await unchanged(async () => {
        let r = await allocate({
          onboardingTransactions: [{ transaction: foreign.transaction.toString('base64') }],
          multiHashSignatures: [ed25519Signature(key, foreign.multiHash, fp)],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toMatch(/must be hosted on this participant/);
        // Two transactions (unsupported): the second would be a namespace delegation in Canton.
        const own = await generated('erin', key);
        r = await allocate({
          onboardingTransactions: [
            { transaction: own.topologyTransactions[0] },
            { transaction: own.topologyTransactions[0] },
          ],
          multiHashSignatures: [ed25519Signature(key, Buffer.from(own.multiHash, 'base64'), fp)],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        r = await allocate({
          synchronizer: 'other::1220' + '00'.repeat(32),
          onboardingTransactions: [{ transaction: own.topologyTransactions[0] }],
          multiHashSignatures: [],
        });
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
      });
    });

    it('a duplicate party, a caller without admin rights', async () => {
      const { key, partyId, fingerprint: fp } = await onboardExternalParty(ledger, 'frank');
      const t = await generated('frank', key);
      expect(t.partyId).toBe(partyId);
      const body = {
        onboardingTransactions: t.topologyTransactions.map((transaction) => ({ transaction })),
        multiHashSignatures: [ed25519Signature(key, Buffer.from(t.multiHash, 'base64'), fp)],
      };
      await ledger.call('POST', '/v2/users', { user: { id: 'plain-user' } });
      await unchanged(async () => {
        let r = await allocate(body);
        expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
        expect(r.json.cause).toBe(
          `The submitted request has invalid arguments: Party already exists: party '${partyId}' is already allocated on this participant`,
        );
        r = await allocate(body, 'plain-user');
        expect([r.status, r.json.code]).toEqual([403, 'NA']);
        r = await allocate({ ...body, userId: 'someone-else' }, 'plain-user');
        expect(r.status).toBe(403);
      });
    });
  });

  it('a user allocating for itself gets CanActAs in the same commit', async () => {
    await ledger.call('POST', '/v2/users', { user: { id: 'wallet-user' } });
    const key = ed25519Key();
    const t = await generated('gina', key);
    const r = await allocate(
      {
        userId: 'wallet-user',
        onboardingTransactions: t.topologyTransactions.map((transaction) => ({ transaction })),
        multiHashSignatures: [ed25519Signature(key, Buffer.from(t.multiHash, 'base64'), t.publicKeyFingerprint)],
      },
      'wallet-user',
    );
    expect(r.status, r.text).toBe(200);
    const rights = await ledger.call('GET', '/v2/users/wallet-user/rights');
    expect(rights.json.rights).toContainEqual({ kind: { CanActAs: { value: { party: t.partyId } } } });
  });
});
