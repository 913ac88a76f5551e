import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  contractIdFromSeed,
  isContractId,
  isPartyId,
  isReassignmentId,
  isUniqueIdentifier,
  isUpdateId,
  makeContractId,
  parseContractId,
  participantIdFromKey,
  partyIdFromKey,
  reassignmentId,
  synchronizerId,
  updateId,
  validatePartyHint,
} from '@ledgerline/canton';
import { ALICE, ALICE_FINGERPRINT, ed25519FromSeed, hex64, SEED_01_20 } from './fixtures';

const alice = ed25519FromSeed(SEED_01_20);
const aliceKey = { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: alice.raw, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' };

describe('update ids', () => {
  it('are the multihash hex of the seed (purpose 3 by default) and deterministic', () => {
    const expected = '1220' + createHash('sha256').update(Buffer.from('00000003', 'hex')).update('tx-1').digest('hex');
    expect(updateId('tx-1')).toBe(expected);
    expect(updateId(Buffer.from('tx-1'))).toBe(expected);
    expect(updateId('tx-2')).not.toBe(expected);
    expect(isUpdateId(expected)).toBe(true);
    for (const bad of ['', '1220', expected.toUpperCase(), '1221' + expected.slice(4), expected + '00', 42])
      expect(isUpdateId(bad)).toBe(false);
  });
});

describe('reassignment ids', () => {
  const src = `sync1::1220${hex64('s1')}`;
  const tgt = `sync2::1220${hex64('s2')}`;
  const c1 = '00' + hex64('c1');
  const c2 = '00' + hex64('c2');

  it('= 00 ‖ multihash(57, string(src) ‖ string(tgt) ‖ int64(ts) ‖ sorted (string(cid) ‖ int64(counter)))', () => {
    const s = (x: string) => Buffer.concat([Buffer.from([0, 0, 0, x.length]), Buffer.from(x)]);
    const l = (n: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(n);
      return b;
    };
    const [lo, hi] = [c1, c2].sort();
    const counters: Record<string, bigint> = { [c1]: 1n, [c2]: 7n };
    const pre = Buffer.concat([
      s(src),
      s(tgt),
      l(1_767_225_600_000_000n),
      s(lo),
      l(counters[lo]),
      s(hi),
      l(counters[hi]),
    ]);
    const expected = '001220' + createHash('sha256').update(Buffer.from('00000039', 'hex')).update(pre).digest('hex');
    const id = reassignmentId({
      source: src,
      target: tgt,
      unassignmentTimestampMicros: 1_767_225_600_000_000n,
      contracts: [
        { contractId: c2, reassignmentCounter: 7 },
        { contractId: c1, reassignmentCounter: 1n },
      ],
    });
    expect(id).toBe(expected);
    expect(isReassignmentId(id)).toBe(true);
    // order of the contracts does not matter; every input does
    const again = reassignmentId({
      source: src,
      target: tgt,
      unassignmentTimestampMicros: '1767225600000000',
      contracts: [
        { contractId: c1, reassignmentCounter: 1 },
        { contractId: c2, reassignmentCounter: 7 },
      ],
    });
    expect(again).toBe(id);
    expect(
      reassignmentId({
        source: tgt,
        target: src,
        unassignmentTimestampMicros: 1_767_225_600_000_000n,
        contracts: [
          { contractId: c1, reassignmentCounter: 1 },
          { contractId: c2, reassignmentCounter: 7 },
        ],
      }),
    ).not.toBe(id);
    expect(isReassignmentId(id.slice(2))).toBe(false);
    expect(isReassignmentId('01' + id.slice(2))).toBe(false);
  });
});

describe('contract ids', () => {
  it('00 ‖ 32-byte discriminator ‖ optional suffix', () => {
    const cid = contractIdFromSeed('contract-0');
    expect(cid).toBe('00' + hex64('contract-0'));
    expect(isContractId(cid)).toBe(true);
    const withSuffix = makeContractId(hex64('d'), 'ca1001');
    expect(withSuffix).toBe('00' + hex64('d') + 'ca1001');
    expect(parseContractId(withSuffix).suffix.toString('hex')).toBe('ca1001');
    expect(isContractId(makeContractId(hex64('d'), Buffer.alloc(94)))).toBe(true);
    expect(() => makeContractId(hex64('d'), Buffer.alloc(95))).toThrow(/at most 94 bytes/);
    expect(() => makeContractId('abcd')).toThrow(/32 bytes/);
    for (const bad of [
      '',
      '00',
      '01' + hex64('x'),
      '00' + hex64('x') + 'a',
      '00' + hex64('x').toUpperCase(),
      '00' + hex64('x') + '00'.repeat(95),
    ])
      expect(isContractId(bad)).toBe(false);
  });
});

describe('party, participant and synchronizer ids', () => {
  it('party id from a key and syntax checks', () => {
    expect(partyIdFromKey('alice', aliceKey)).toBe(ALICE);
    expect(isPartyId(ALICE)).toBe(true);
    for (const bad of [
      'alice',
      'alice::',
      '::' + ALICE_FINGERPRINT,
      'a/b::' + ALICE_FINGERPRINT,
      'alice::1220abc',
      'a::b::' + ALICE_FINGERPRINT,
    ])
      expect(isPartyId(bad)).toBe(false);
    expect(validatePartyHint('with space-and_under:colon').ok).toBe(true);
  });

  it('participant id = name::fingerprint', () => {
    expect(participantIdFromKey('participant1', aliceKey)).toBe(`participant1::${ALICE_FINGERPRINT}`);
    expect(() => participantIdFromKey('bad::name', aliceKey)).toThrow(/'::'/);
  });

  it('synchronizer id is deterministic alias::1220… from a seed or a key', () => {
    const a = synchronizerId('global-domain', 'seed');
    expect(a).toBe(
      `global-domain::1220${createHash('sha256').update(Buffer.from('0000000c', 'hex')).update('seed').digest('hex')}`,
    );
    expect(synchronizerId('global-domain', 'seed')).toBe(a);
    expect(synchronizerId('global-domain', 'other')).not.toBe(a);
    expect(synchronizerId('da', aliceKey)).toBe(`da::${ALICE_FINGERPRINT}`);
    expect(isUniqueIdentifier(a)).toBe(true);
  });
});
