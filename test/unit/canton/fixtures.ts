import { createHash, createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import {
  DamlTransaction,
  DamlTransaction_Node,
  Metadata,
  PreparedTransaction,
  Value,
  type Create,
  type Identifier,
} from '@canton-network/core-ledger-proto';

export const sha256 = (s: string | Uint8Array): Buffer => createHash('sha256').update(s).digest();
export const hex64 = (label: string): string => sha256(label).toString('hex');

/** Ed25519 key pair from a 32-byte seed (node:crypto, PKCS#8 wrapping). */
export function ed25519FromSeed(seed: Uint8Array): {
  privateKey: KeyObject;
  publicKey: KeyObject;
  raw: Buffer;
  spki: Buffer;
} {
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
  return { privateKey, publicKey, raw: spki.subarray(12), spki };
}

/** Seed bytes 01..20: the Ed25519 key of the worked fingerprint example. */
export const SEED_01_20 = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
export const ALICE_FINGERPRINT = '1220133628fcf469de1c1726313351f2729e6dd6f47b6c1989b76099d363754a39b6';
export const ALICE = `alice::${ALICE_FINGERPRINT}`;

export const TEMPLATE_ID: Identifier = { packageId: hex64('memo-pkg'), moduleName: 'Main', entityName: 'Memo' };
export const SYNC = `global-domain::1220${hex64('global-domain')}`;

const v = {
  party: (party: string): Value => ({ sum: { oneofKind: 'party', party } }),
  text: (text: string): Value => ({ sum: { oneofKind: 'text', text } }),
};
export { v as val };

/**
 * A single-Create prepared transaction built with @canton-network/core-ledger-proto, with concrete values for:
 * packageId = sha256("memo-pkg"), discriminator = sha256("contract-0"), synchronizer namespace = 1220‖sha256("global-domain").
 */
export function simpleFixture(): PreparedTransaction {
  return PreparedTransaction.create({
    transaction: DamlTransaction.create({
      version: '2.1',
      roots: ['0'],
      nodes: [
        {
          nodeId: '0',
          versionedNode: {
            oneofKind: 'v1',
            v1: {
              nodeType: {
                oneofKind: 'create',
                create: {
                  lfVersion: '2.1',
                  contractId: '00' + hex64('contract-0'),
                  packageName: 'memo-pkg',
                  templateId: TEMPLATE_ID,
                  argument: Value.create({
                    sum: {
                      oneofKind: 'record',
                      record: {
                        recordId: TEMPLATE_ID,
                        fields: [
                          { label: 'owner', value: v.party(ALICE) },
                          { label: 'text', value: v.text('hello') },
                        ],
                      },
                    },
                  }),
                  signatories: [ALICE],
                  stakeholders: [ALICE],
                },
              },
            },
          },
        },
      ],
      nodeSeeds: [{ nodeId: 0, seed: sha256('seed-0') }],
    }),
    metadata: Metadata.create({
      submitterInfo: { actAs: [ALICE], commandId: 'cmd-0001' },
      synchronizerId: SYNC,
      mediatorGroup: 0,
      transactionUuid: '6f1c6a4e-8c53-4f5e-9a63-2b7a0c1d9e11',
      preparationTime: 1_767_225_600_000_000n,
      inputContracts: [],
    }),
  });
}

const BOB = `bob::1220${hex64('bob')}`;
const IFACE: Identifier = { packageId: hex64('iface-pkg'), moduleName: 'Iface.Sub', entityName: 'Token.View' };

/** One value of every kind (nested), int64 set by the caller. */
export function everyValueKind(int64: string): Value {
  const rec = (fields: Array<[string, Value]>, recordId?: Identifier): Value => ({
    sum: { oneofKind: 'record', record: { recordId, fields: fields.map(([label, value]) => ({ label, value })) } },
  });
  return rec(
    [
      ['unit', { sum: { oneofKind: 'unit', unit: {} } }],
      ['bool', { sum: { oneofKind: 'bool', bool: true } }],
      ['int64', { sum: { oneofKind: 'int64', int64 } }],
      ['numeric', { sum: { oneofKind: 'numeric', numeric: '-12.3400000000' } }],
      ['timestamp', { sum: { oneofKind: 'timestamp', timestamp: '1767225600123456' } }],
      ['date', { sum: { oneofKind: 'date', date: 20454 } }],
      ['party', v.party(BOB)],
      ['text', v.text('héllo ✓ 𝄞')],
      ['cid', { sum: { oneofKind: 'contractId', contractId: '00' + hex64('cid-x') + 'ca10' } }],
      ['none', { sum: { oneofKind: 'optional', optional: {} } }],
      ['some', { sum: { oneofKind: 'optional', optional: { value: v.text('x') } } }],
      [
        'someNone',
        { sum: { oneofKind: 'optional', optional: { value: { sum: { oneofKind: 'optional', optional: {} } } } } },
      ],
      ['list', { sum: { oneofKind: 'list', list: { elements: [v.text('a'), v.text('b')] } } }],
      ['emptyList', { sum: { oneofKind: 'list', list: { elements: [] } } }],
      ['textMap', { sum: { oneofKind: 'textMap', textMap: { entries: [{ key: 'k', value: v.party(ALICE) }] } } }],
      [
        'genMap',
        {
          sum: {
            oneofKind: 'genMap',
            genMap: { entries: [{ key: { sum: { oneofKind: 'int64', int64: '-1' } }, value: v.text('minus one') }] },
          },
        },
      ],
      [
        'positional',
        rec([
          ['', v.text('p1')],
          ['', { sum: { oneofKind: 'bool', bool: false } }],
        ]),
      ],
      [
        'variant',
        {
          sum: {
            oneofKind: 'variant',
            variant: {
              variantId: { ...TEMPLATE_ID, entityName: 'Shape' },
              constructor: 'Circle',
              value: v.text('r=1'),
            },
          },
        },
      ],
      [
        'variantNoId',
        {
          sum: {
            oneofKind: 'variant',
            variant: { constructor: 'Unit', value: { sum: { oneofKind: 'unit', unit: {} } } },
          },
        },
      ],
      [
        'enum',
        { sum: { oneofKind: 'enum', enum: { enumId: { ...TEMPLATE_ID, entityName: 'Color' }, constructor: 'Red' } } },
      ],
      ['enumNoId', { sum: { oneofKind: 'enum', enum: { constructor: 'Blue' } } }],
    ],
    TEMPLATE_ID,
  );
}

export type NodeType = Extract<DamlTransaction_Node['versionedNode'], { oneofKind: 'v1' }>['v1']['nodeType'];

export const node = (nodeId: string, nodeType: NodeType): DamlTransaction_Node => ({
  nodeId,
  versionedNode: { oneofKind: 'v1', v1: { nodeType } },
});

/**
 * The "complex" fixture: Exercise root → [Create, Fetch (with interface), Rollback → [Create]], an input
 * (disclosed) contract, both ledger-time bounds and max_record_time, every Value kind, and the given int64.
 */
export function complexFixture(int64 = '9007199254740993'): PreparedTransaction {
  const create = (cid: string, text: string): Create => ({
    lfVersion: '2.1',
    contractId: cid,
    packageName: 'memo-pkg',
    templateId: TEMPLATE_ID,
    argument: {
      sum: {
        oneofKind: 'record',
        record: {
          recordId: TEMPLATE_ID,
          fields: [
            { label: 'owner', value: v.party(ALICE) },
            { label: 'text', value: v.text(text) },
          ],
        },
      },
    },
    signatories: [ALICE],
    stakeholders: [ALICE, BOB],
  });
  const disclosedCid = '00' + hex64('disclosed') + '1234';
  return PreparedTransaction.create({
    transaction: {
      version: '2.1',
      roots: ['0'],
      nodes: [
        node('0', {
          oneofKind: 'exercise',
          exercise: {
            lfVersion: '2.1',
            contractId: disclosedCid,
            packageName: 'memo-pkg',
            templateId: TEMPLATE_ID,
            signatories: [ALICE],
            stakeholders: [ALICE, BOB],
            actingParties: [ALICE],
            interfaceId: IFACE,
            choiceId: 'Transfer',
            chosenValue: everyValueKind(int64),
            consuming: true,
            children: ['1', '2', '3'],
            exerciseResult: { sum: { oneofKind: 'int64', int64 } },
            choiceObservers: [BOB],
          },
        }),
        node('1', { oneofKind: 'create', create: create('00' + hex64('c1'), 'child') }),
        node('2', {
          oneofKind: 'fetch',
          fetch: {
            lfVersion: '2.1',
            contractId: '00' + hex64('f2'),
            packageName: 'memo-pkg',
            templateId: TEMPLATE_ID,
            signatories: [ALICE],
            stakeholders: [ALICE],
            actingParties: [BOB],
            interfaceId: IFACE,
          },
        }),
        node('3', { oneofKind: 'rollback', rollback: { children: ['4'] } }),
        node('4', { oneofKind: 'create', create: create('00' + hex64('c4'), 'rolled back') }),
      ],
      nodeSeeds: [
        { nodeId: 0, seed: sha256('seed-0') },
        { nodeId: 1, seed: sha256('seed-1') },
        { nodeId: 4, seed: sha256('seed-4') },
      ],
    },
    metadata: {
      submitterInfo: { actAs: [ALICE, BOB], commandId: 'cmd-complex' },
      synchronizerId: SYNC,
      mediatorGroup: 1,
      transactionUuid: '0b5e7bd4-3a2f-4b8e-9a0d-5f6a7b8c9d0e',
      preparationTime: 1_767_225_600_000_000n,
      minLedgerEffectiveTime: 1_767_225_500_000_000n,
      maxLedgerEffectiveTime: 1_767_225_700_000_000n,
      maxRecordTime: 1_767_229_200_000_000n,
      inputContracts: [
        {
          contract: { oneofKind: 'v1', v1: create(disclosedCid, 'disclosed') },
          createdAt: 1_767_000_000_000_000n,
          eventBlob: new Uint8Array([1, 2, 3]),
        },
      ],
      globalKeyMapping: [],
    },
  });
}
