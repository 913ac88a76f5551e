import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from 'node:crypto';
import { Ed25519Verifier, parsePublicKey, SignatureVerifier } from '@ledgerline/canton';
import {
  changeIdOf,
  checkDeduplication,
  checkTimeBounds,
  isoDuration,
  validateDeduplicationPeriod,
  validateExecuteRequest,
  verifyExternalSignatures,
  type ExecuteRequest,
  type ValidSignature,
} from '@ledgerline/domain';
import {
  externalParty,
  extraKey,
  preparedTransaction,
  createNode,
  freshContractId,
} from '../../../testkit/external-signing';
import { ed25519WorkerScriptForTests } from '../../support/ed25519-worker-script';

async function asyncRejection(
  p: Promise<unknown>,
): Promise<{ code: string; cause: string; status: number; context: Record<string, string> }> {
  try {
    await p;
  } catch (e) {
    return rejection(() => {
      throw e;
    });
  }
  throw new Error('expected a rejection');
}

function rejection(fn: () => unknown): {
  code: string;
  cause: string;
  status: number;
  context: Record<string, string>;
} {
  try {
    fn();
  } catch (e: any) {
    return { code: e.code, cause: e.causeText, status: e.httpStatus, context: e.context };
  }
  throw new Error('expected a rejection');
}

const S = 1_000_000n;
const NOW = 1_767_225_600_000_000n; // 2026-01-01T00:00:00Z
const CFG = { preparationTimeToleranceMicros: 60n * S, ledgerTimeToleranceMicros: 10n * S };

describe('time bounds', () => {
  it('ledger time is now when nothing constrains it', () => {
    expect(checkTimeBounds({ preparationTime: NOW - 5n * S }, NOW, CFG)).toBe(NOW);
  });

  it('preparation time beyond the tolerance either way is LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND', () => {
    for (const p of [NOW - 61n * S, NOW + 61n * S]) {
      const r = rejection(() => checkTimeBounds({ preparationTime: p }, NOW, CFG));
      expect(r.code).toBe('LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND');
      expect(r.status).toBe(409);
      expect(r.cause).toContain('maxDelta=PT1M');
    }
  });

  it('the ledger time is clamped into the prepared bounds and must stay within the tolerance of the record time', () => {
    expect(checkTimeBounds({ preparationTime: NOW, minLedgerEffectiveTime: NOW + 3n * S }, NOW, CFG)).toBe(
      NOW + 3n * S,
    );
    expect(checkTimeBounds({ preparationTime: NOW, maxLedgerEffectiveTime: NOW - 2n * S }, NOW, CFG)).toBe(
      NOW - 2n * S,
    );
    const r = rejection(() =>
      checkTimeBounds({ preparationTime: NOW, minLedgerEffectiveTime: NOW + 11n * S }, NOW, CFG),
    );
    expect(r).toMatchObject({ code: 'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND', status: 409 });
    expect(r.cause).toBe(
      'Rejected transaction as delta of the ledger time and the record time exceed the time tolerance ledgerTime=2026-01-01T00:00:11.000000Z, recordTime=2026-01-01T00:00:00.000000Z, maxDelta=PT10S',
    );
    expect(
      rejection(() => checkTimeBounds({ preparationTime: NOW, maxLedgerEffectiveTime: NOW - 11n * S }, NOW, CFG)).code,
    ).toBe('LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND');
    expect(
      rejection(() =>
        checkTimeBounds(
          { preparationTime: NOW, minLedgerEffectiveTime: NOW + S, maxLedgerEffectiveTime: NOW },
          NOW,
          CFG,
        ),
      ).code,
    ).toBe('LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND');
  });

  it("the request's minLedgerTime raises the ledger time", () => {
    expect(checkTimeBounds({ preparationTime: NOW }, NOW, CFG, NOW + 4n * S)).toBe(NOW + 4n * S);
    expect(rejection(() => checkTimeBounds({ preparationTime: NOW }, NOW, CFG, NOW + 20n * S)).code).toBe(
      'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
    );
  });

  it('a passed maxRecordTime is LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED', () => {
    expect(checkTimeBounds({ preparationTime: NOW, maxRecordTime: NOW }, NOW, CFG)).toBe(NOW);
    expect(rejection(() => checkTimeBounds({ preparationTime: NOW, maxRecordTime: NOW - 1n }, NOW, CFG))).toMatchObject(
      { code: 'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED', status: 400 },
    );
  });

  it('renders durations like java.time.Duration', () => {
    expect([
      isoDuration(60n * S),
      isoDuration(86_400n * S),
      isoDuration(1_500_000n),
      isoDuration(0n),
      isoDuration(3_723n * S),
    ]).toEqual(['PT1M', 'PT24H', 'PT1.5S', 'PT0S', 'PT1H2M3S']);
  });
});

describe('deduplication', () => {
  const MAX = 600n * S;
  it('the change id ignores actAs order and duplicates, and separates users and commands', () => {
    expect(changeIdOf('u', ['b', 'a'], 'c')).toBe(changeIdOf('u', ['a', 'b', 'a'], 'c'));
    expect(changeIdOf('u', ['a'], 'c')).not.toBe(changeIdOf('v', ['a'], 'c'));
    expect(changeIdOf('u', ['a'], 'c')).not.toBe(changeIdOf('u', ['a'], 'd'));
  });

  it('Empty means the maximum duration; durations and offsets are checked', () => {
    expect(validateDeduplicationPeriod({ kind: 'empty' }, MAX)).toEqual({ kind: 'duration', micros: MAX });
    expect(validateDeduplicationPeriod({ kind: 'duration', seconds: 30n, nanos: 500_000_000 }, MAX)).toEqual({
      kind: 'duration',
      micros: 30_500_000n,
    });
    expect(validateDeduplicationPeriod({ kind: 'offset', offset: 7n }, MAX)).toEqual({
      kind: 'offset',
      afterOffset: 7,
    });
    expect(
      rejection(() => validateDeduplicationPeriod({ kind: 'duration', seconds: -1n, nanos: 0 }, MAX)),
    ).toMatchObject({
      code: 'INVALID_FIELD',
      cause:
        'The submitted command has a field with invalid value: Invalid field deduplication_period: Duration must be positive',
    });
    expect(
      rejection(() => validateDeduplicationPeriod({ kind: 'duration', seconds: 601n, nanos: 0 }, MAX)),
    ).toMatchObject({
      code: 'INVALID_DEDUPLICATION_PERIOD',
      status: 400,
      context: { longest_duration: 'PT10M' },
    });
    expect(rejection(() => validateDeduplicationPeriod({ kind: 'offset', offset: -1n }, MAX))).toMatchObject({
      code: 'NEGATIVE_OFFSET',
      status: 400,
    });
  });

  it('a success inside the period is DUPLICATE_COMMAND with its completion offset; outside it is not', () => {
    const done = { completionOffset: 42, recordTimeMicros: NOW - 10n * S, submissionId: 's1' };
    expect(rejection(() => checkDeduplication(done, { kind: 'duration', micros: 60n * S }, NOW))).toMatchObject({
      code: 'DUPLICATE_COMMAND',
      status: 409,
      cause: 'A command with the given command id has already been successfully processed',
      context: { completion_offset: '42' },
    });
    expect(() => checkDeduplication(done, { kind: 'duration', micros: 5n * S }, NOW)).not.toThrow();
    expect(rejection(() => checkDeduplication(done, { kind: 'offset', afterOffset: 41 }, NOW)).code).toBe(
      'DUPLICATE_COMMAND',
    );
    expect(() => checkDeduplication(done, { kind: 'offset', afterOffset: 42 }, NOW)).not.toThrow();
    expect(() => checkDeduplication(undefined, { kind: 'duration', micros: MAX }, NOW)).not.toThrow();
  });
});

// In place, and on the signature worker thread (the service's default on a multi-core machine): the same answers.
describe.each([
  ['in place', false],
  ['on the worker thread', true],
])('external signatures (%s)', (_where, onWorker) => {
  let verifier: SignatureVerifier;
  beforeAll(() => {
    verifier = new SignatureVerifier(
      new Ed25519Verifier({ backend: 'libsodium', workerScript: onWorker ? ed25519WorkerScriptForTests() : undefined }),
    );
    expect(verifier.ed25519.workerRunning).toBe(onWorker);
  });
  afterAll(() => verifier.ed25519.close());
  const alice = externalParty('alice', Buffer.alloc(32, 7));
  const aliceKey2 = extraKey(alice.party, Buffer.alloc(32, 8));
  const bob = externalParty('bob', Buffer.alloc(32, 9));
  const hash = Buffer.alloc(32, 0xab);
  const keyOf = (k: typeof alice) => ({
    fingerprint: k.fingerprint,
    key: parsePublicKey({
      format: 'CRYPTO_KEY_FORMAT_RAW',
      keyData: k.rawPublicKey,
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    }),
  });
  const sig = (k: typeof alice, bytes: Uint8Array = hash): ValidSignature => ({
    format: 'CONCAT',
    signingAlgorithmSpec: 'ED25519',
    signature: sign(null, bytes, k.privateKey),
    signedBy: k.fingerprint,
  });
  const keys = new Map([
    [alice.party, { threshold: 1, keys: [keyOf(alice), keyOf(aliceKey2)] }],
    [bob.party, { threshold: 1, keys: [keyOf(bob)] }],
  ]);
  const verify = (actAs: string[], signatures: Array<[string, ValidSignature[]]>, k = keys) =>
    verifyExternalSignatures({ actAs, signatures: new Map(signatures), keysOf: (p) => k.get(p), hash, verifier });

  it('accepts a valid signature; signatures of parties outside actAs are ignored', async () => {
    await expect(
      verify(
        [alice.party],
        [
          [alice.party, [sig(alice)]],
          [bob.party, [sig(bob, Buffer.alloc(32))]],
        ],
      ),
    ).resolves.toBeUndefined();
  });

  it('an actAs party without a signature is refused', async () => {
    expect((await asyncRejection(verify([alice.party, bob.party], [[alice.party, [sig(alice)]]]))).cause).toBe(
      `The participant failed to execute the transaction: The following actAs parties did not provide an external signature: ${bob.party}`,
    );
  });

  it('a party without registered keys is refused', async () => {
    expect((await asyncRejection(verify([alice.party], [[alice.party, [sig(alice)]]], new Map()))).cause).toContain(
      `Could not find party signing keys for ${alice.party}.`,
    );
  });

  it('a wrong signature gives the reference message with the hash to sign', async () => {
    const r = await asyncRejection(verify([alice.party], [[alice.party, [sig(alice, Buffer.alloc(32, 1))]]]));
    expect(r).toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION', status: 400 });
    expect(r.cause).toBe(
      `The participant failed to execute the transaction: Received 0 valid signatures from distinct keys (1 invalid), but expected at least 1 valid for ${alice.party}. ` +
        `Transaction hash to be signed: ${hash.toString('hex')}. Ensure the correct transaction hash is signed with the correct key(s).`,
    );
  });

  it('a signature by an unregistered key is invalid', async () => {
    expect((await asyncRejection(verify([alice.party], [[alice.party, [sig(bob)]]]))).cause).toContain(
      'Received 0 valid signatures from distinct keys (1 invalid)',
    );
  });

  it('a threshold counts distinct keys only', async () => {
    const two = new Map([...keys, [alice.party, { threshold: 2, keys: [keyOf(alice), keyOf(aliceKey2)] }]]);
    await expect(verify([alice.party], [[alice.party, [sig(alice), sig(aliceKey2)]]], two)).resolves.toBeUndefined();
    expect(
      (await asyncRejection(verify([alice.party], [[alice.party, [sig(alice), sig(alice)]]], two))).cause,
    ).toContain('Received 1 valid signatures from distinct keys (0 invalid), but expected at least 2 valid');
  });

  it('more signatures than registered keys is refused', async () => {
    expect((await asyncRejection(verify([bob.party], [[bob.party, [sig(bob), sig(bob)]]]))).cause).toContain(
      'but the party has only 1 signing key(s)',
    );
  });
});

describe('executeAndWait request validation', () => {
  const alice = externalParty('alice', Buffer.alloc(32, 7));
  const pt = preparedTransaction({
    nodes: [
      createNode('0', { contractId: freshContractId(), signatories: [alice.party], stakeholders: [alice.party] }),
    ],
    actAs: [alice.party],
    synchronizerId: `global::1220${'ab'.repeat(32)}`,
  });
  const good = {
    format: 'SIGNATURE_FORMAT_CONCAT',
    signature: new Uint8Array(64),
    signedBy: alice.fingerprint,
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  };
  const req = (o: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
    preparedTransaction: pt,
    partySignatures: [{ party: alice.party, signatures: [good] }],
    deduplicationPeriod: { kind: 'empty' },
    submissionId: 's',
    userId: 'u',
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    ...o,
  });
  const limits = { maxDeduplicationMicros: 600n * S, now: NOW };
  const invalid = (o: Partial<ExecuteRequest>) => rejection(() => validateExecuteRequest(req(o), limits));

  it('accepts a good request and merges entries of the same party', () => {
    const v = validateExecuteRequest(
      req({
        partySignatures: [
          { party: alice.party, signatures: [good] },
          { party: alice.party, signatures: [good] },
        ],
      }),
      limits,
    );
    expect(v.signatures.get(alice.party)).toHaveLength(2);
    expect(v.hashingSchemeVersion).toBe(2);
  });

  it.each([
    ['a malformed party', { partySignatures: [{ party: 'alice', signatures: [good] }] }, 'SinglePartySignatures.party'],
    [
      'an unspecified signature format',
      { partySignatures: [{ party: alice.party, signatures: [{ ...good, format: 'SIGNATURE_FORMAT_UNSPECIFIED' }] }] },
      'format',
    ],
    [
      'ML_DSA_65',
      {
        partySignatures: [
          { party: alice.party, signatures: [{ ...good, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ML_DSA_65' }] },
        ],
      },
      'signing_algorithm_spec',
    ],
    [
      'a signedBy that is no fingerprint',
      { partySignatures: [{ party: alice.party, signatures: [{ ...good, signedBy: 'alice' }] }] },
      'signed_by',
    ],
    [
      'an unspecified hashing scheme',
      { hashingSchemeVersion: 'HASHING_SCHEME_VERSION_UNSPECIFIED' },
      'hashing_scheme_version',
    ],
  ])('%s is INVALID_FIELD', (_n, o, field) => {
    const r = invalid(o as Partial<ExecuteRequest>);
    expect(r).toMatchObject({ code: 'INVALID_FIELD', status: 400, context: { field_name: field } });
  });

  it('the format and algorithm messages are the reference´s', () => {
    expect(
      invalid({
        partySignatures: [{ party: alice.party, signatures: [{ ...good, format: 'SIGNATURE_FORMAT_UNSPECIFIED' }] }],
      }).cause,
    ).toContain('Signature format must be specified');
    expect(invalid({ hashingSchemeVersion: 'HASHING_SCHEME_VERSION_UNSPECIFIED' }).cause).toBe(
      'The submitted command has a field with invalid value: Invalid field hashing_scheme_version: Unspecified version',
    );
  });

  it('a malformed synchronizer id in the metadata is INVALID_FIELD synchronizer_id', () => {
    const bad = { ...pt, metadata: { ...pt.metadata!, synchronizerId: 'nope' } };
    expect(invalid({ preparedTransaction: bad })).toMatchObject({
      code: 'INVALID_FIELD',
      context: { field_name: 'synchronizer_id' },
    });
  });

  it('minLedgerTime: absolute is at least now, relative is now + duration', () => {
    expect(validateExecuteRequest(req({ minLedgerTime: { kind: 'abs', micros: NOW - S } }), limits).minLedgerTime).toBe(
      NOW,
    );
    expect(validateExecuteRequest(req({ minLedgerTime: { kind: 'rel', micros: 5n * S } }), limits).minLedgerTime).toBe(
      NOW + 5n * S,
    );
  });

  it('execute caps signatures per party', () => {
    const many = Array.from({ length: 51 }, () => good);
    expect(
      rejection(() =>
        validateExecuteRequest(req({ partySignatures: [{ party: alice.party, signatures: many }] }), {
          ...limits,
          maxSignaturesPerParty: 50,
        }),
      ).code,
    ).toBe('FAILED_TO_EXECUTE_TRANSACTION');
  });
});
