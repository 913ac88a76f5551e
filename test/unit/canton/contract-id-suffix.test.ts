import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Value } from '@canton-network/core-ledger-proto';
import {
  CantonError,
  computeUnicum,
  contractIdVersionOf,
  contractSalt,
  isCantonSuffixedContractId,
  isLocalContractId,
  legacyContractInstanceHash,
  suffixedContractId,
  type UnicumInput,
} from '@ledgerline/canton';

const i32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const i64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
const str = (s: string) => Buffer.concat([i32(Buffer.byteLength(s)), Buffer.from(s)]);
const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

describe('contract ids with Canton’s suffix (CantonContractIdVersionTest, restated)', () => {
  // The test's discriminator: the hex of the index 1 as four digits, padded with zeros to 32 bytes.
  const discriminator = '0001'.padEnd(64, '0');
  // Its unicum: the test hash of the int 1 (purpose -1), as a multihash.
  const unicum = Buffer.concat([Buffer.from('1220', 'hex'), sha(i32(-1), i32(1))]);

  for (const [version, prefix] of [
    ['V10', 'ca10'],
    ['V11', 'ca11'],
    ['V12', 'ca12'],
  ] as const) {
    it(`${version}: 00 ‖ discriminator ‖ ${prefix} ‖ unicum, and the version is read back`, () => {
      const cid = suffixedContractId('00' + discriminator, unicum, version);
      expect(cid).toBe('00' + discriminator + prefix + unicum.toString('hex'));
      expect(cid).toHaveLength(138);
      expect(contractIdVersionOf(cid)).toBe(version);
      expect(isCantonSuffixedContractId(cid)).toBe(true);
      expect(isLocalContractId(cid)).toBe(false);
    });
  }

  it('suffixes with V12 (protocol versions 34 and later) by default', () => {
    expect(suffixedContractId('00' + discriminator, unicum).slice(66, 70)).toBe('ca12');
  });

  it('refuses ids that are not local and unicums that are not SHA-256 multihashes', () => {
    const cid = suffixedContractId('00' + discriminator, unicum);
    expect(() => suffixedContractId(cid, unicum)).toThrow(CantonError);
    expect(() => suffixedContractId('00' + discriminator, unicum.subarray(2))).toThrow(CantonError);
    expect(() =>
      suffixedContractId('00' + discriminator, Buffer.concat([Buffer.from('1221', 'hex'), unicum.subarray(2)])),
    ).toThrow(CantonError);
  });

  it('tells local, suffixed and other ids apart', () => {
    expect(isLocalContractId('00' + discriminator)).toBe(true);
    expect(isLocalContractId('00' + discriminator + 'ca')).toBe(false);
    expect(contractIdVersionOf('00' + discriminator)).toBeUndefined();
    expect(contractIdVersionOf('00' + discriminator + 'ca13' + unicum.toString('hex'))).toBeUndefined();
    expect(contractIdVersionOf('00' + discriminator + 'ca12' + unicum.toString('hex').slice(0, -2))).toBeUndefined();
  });
});

describe('the unicum (UnicumGenerator.computeUnicumHash)', () => {
  const base: UnicumInput = {
    salt: Buffer.alloc(32, 7),
    createdAt: 1_700_000_000_123_456n,
    signatories: ['bob::1220', 'alice::1220'],
    stakeholders: ['alice::1220', 'carol::1220', 'bob::1220'],
    contractHash: Buffer.alloc(32, 9),
  };

  const parties = (ps: string[]) => Buffer.concat([i32(ps.length), ...ps.map(str)]);
  const sized = (b: Buffer) => Buffer.concat([i32(b.length), b]);
  const expected = (seconds: bigint, nanos: number) =>
    '1220' +
    sha(
      i32(29),
      Buffer.alloc(32, 7),
      i64(seconds),
      i32(nanos),
      sized(parties(['alice::1220', 'bob::1220'])),
      sized(parties(['carol::1220'])),
      Buffer.from([0]),
      sized(Buffer.from([0])),
      Buffer.alloc(32, 9),
    ).toString('hex');

  it('is the multihash of purpose 29 over salt, time, signatories, other stakeholders, no key, contract hash', () => {
    expect(computeUnicum(base).toString('hex')).toBe(expected(1_700_000_000n, 123_456_000));
  });

  it('is deterministic, ignores party order and duplicates, and depends on every input', () => {
    const u = computeUnicum(base).toString('hex');
    expect(computeUnicum({ ...base }).toString('hex')).toBe(u);
    expect(
      computeUnicum({
        ...base,
        signatories: ['alice::1220', 'bob::1220', 'alice::1220'],
        stakeholders: [...base.stakeholders].reverse(),
      }).toString('hex'),
    ).toBe(u);
    const others: Partial<UnicumInput>[] = [
      { salt: Buffer.alloc(32, 8) },
      { createdAt: base.createdAt + 1n },
      { signatories: ['alice::1220'] },
      { stakeholders: ['alice::1220', 'bob::1220'] },
      { contractHash: Buffer.alloc(32, 10) },
    ];
    for (const o of others) expect(computeUnicum({ ...base, ...o }).toString('hex')).not.toBe(u);
  });

  it('encodes times before the epoch as Java’s Instant (floor seconds, positive nanos)', () => {
    expect(computeUnicum({ ...base, createdAt: -1n }).toString('hex')).toBe(expected(-1n, 999_999_000));
    expect(computeUnicum({ ...base, createdAt: -1_000_000n }).toString('hex')).toBe(expected(-1n, 0));
  });

  it('refuses salts and contract hashes that are not 32 bytes', () => {
    expect(() => computeUnicum({ ...base, salt: Buffer.alloc(31) })).toThrow(CantonError);
    expect(() => computeUnicum({ ...base, contractHash: Buffer.alloc(33) })).toThrow(CantonError);
  });
});

describe('the contract salt', () => {
  it('is HMAC-SHA256 of the transaction seed over the create index and synchronizer id', () => {
    const seed = Buffer.alloc(32, 1);
    const expected = createHmac('sha256', seed)
      .update(Buffer.concat([i32(2), str('sync::1220ab')]))
      .digest();
    expect(contractSalt(seed, 2, 'sync::1220ab').equals(expected)).toBe(true);
    expect(contractSalt(seed, 3, 'sync::1220ab').equals(expected)).toBe(false);
    expect(contractSalt(Buffer.alloc(32, 2), 2, 'sync::1220ab').equals(expected)).toBe(false);
  });
});

describe('Daml-LF’s legacy contract-instance hash', () => {
  const templateId = { packageId: 'pkg', moduleName: 'A.B', entityName: 'T' };
  const v = (sum: Value['sum']): Value => ({ sum });
  const record = (...values: Value[]): Value =>
    v({ oneofKind: 'record', record: { fields: values.map((value, i) => ({ label: `f${i}`, value })) } });

  it('hashes version 0, purpose 5, package name, template id and the untyped value', () => {
    const arg = record(
      v({ oneofKind: 'party', party: 'alice' }),
      v({ oneofKind: 'int64', int64: '-2' }),
      v({ oneofKind: 'numeric', numeric: '-1.0' }),
      v({ oneofKind: 'numeric', numeric: '12.8' }),
      v({ oneofKind: 'optional', optional: {} }),
      v({ oneofKind: 'variant', variant: { constructor: 'Some', value: v({ oneofKind: 'unit', unit: {} }) } }),
      v({ oneofKind: 'contractId', contractId: '00' + 'ab'.repeat(32) }),
    );
    const expected = sha(
      Buffer.from([0, 5]),
      str('pkg-name'),
      str('pkg'),
      i32(2),
      str('A'),
      str('B'),
      i32(1),
      str('T'),
      i32(7),
      str('alice'),
      i64(-2n),
      Buffer.concat([i32(1), Buffer.from([0xf6])]), // -10
      Buffer.concat([i32(2), Buffer.from([0x00, 0x80])]), // 128
      i32(0),
      str('Some'),
      Buffer.from([0]),
      Buffer.concat([i32(33), Buffer.from('00' + 'ab'.repeat(32), 'hex')]),
    );
    expect(legacyContractInstanceHash('pkg-name', templateId, arg).toString('hex')).toBe(expected.toString('hex'));
  });

  it('depends on the contract ids the argument holds', () => {
    const withCid = (cid: string) => record(v({ oneofKind: 'contractId', contractId: cid }));
    const local = '00' + 'ab'.repeat(32);
    expect(
      legacyContractInstanceHash('p', templateId, withCid(local)).equals(
        legacyContractInstanceHash('p', templateId, withCid(local + 'ca12')),
      ),
    ).toBe(false);
  });

  it('refuses unset values and malformed numerics', () => {
    expect(() => legacyContractInstanceHash('p', templateId, { sum: { oneofKind: undefined } })).toThrow(CantonError);
    expect(() => legacyContractInstanceHash('p', templateId, v({ oneofKind: 'numeric', numeric: '1e5' }))).toThrow(
      CantonError,
    );
  });
});
