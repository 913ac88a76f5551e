/**
 * Client side of external signing, for tests and benchmarks: Ed25519 parties (node:crypto), prepared transactions built
 * with @canton-network/core-ledger-proto, hashed with our V2/V3 implementation and signed as a wallet does (Ed25519 over
 * the raw 32-byte hash, as @canton-network/wallet-sdk signs). Nothing here is used by the service.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  randomUUID,
  sign,
  type KeyObject,
} from 'node:crypto';
import {
  DamlTransaction,
  Metadata,
  PreparedTransaction,
  type DamlTransaction_Node,
  type Identifier,
  type Value,
} from '@canton-network/core-ledger-proto';
import { fingerprintOfKeyBytes, hashPreparedTransaction, makeContractId } from '@ledgerline/canton';

export const sha256 = (s: string | Uint8Array): Buffer => createHash('sha256').update(s).digest();

export interface ExternalParty {
  party: string;
  fingerprint: string;
  /** Raw 32-byte Ed25519 public key. */
  rawPublicKey: Buffer;
  privateKey: KeyObject;
}

/** An Ed25519 party `<hint>::<fingerprint>`; deterministic when `seed` (32 bytes) is given. */
export function externalParty(hint: string, seed: Buffer = randomBytes(32)): ExternalParty {
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const rawPublicKey = (createPublicKey(privateKey).export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
  const fingerprint = fingerprintOfKeyBytes(rawPublicKey);
  return { party: `${hint}::${fingerprint}`, fingerprint, rawPublicKey, privateKey };
}

/** An extra key for a multi-key party (same shape, party id unchanged). */
export function extraKey(party: string, seed: Buffer = randomBytes(32)): ExternalParty {
  const k = externalParty('k', seed);
  return { ...k, party };
}

export const TEMPLATE: Identifier = {
  packageId: sha256('ledgerline-test-pkg').toString('hex'),
  moduleName: 'Main',
  entityName: 'Asset',
};
export const PACKAGE_NAME = 'ledgerline-test';

export const val = {
  party: (party: string): Value => ({ sum: { oneofKind: 'party', party } }),
  text: (text: string): Value => ({ sum: { oneofKind: 'text', text } }),
  int64: (n: bigint | number): Value => ({ sum: { oneofKind: 'int64', int64: String(n) } }),
  unit: (): Value => ({ sum: { oneofKind: 'unit', unit: {} } }),
  record: (fields: Record<string, Value>, recordId?: Identifier): Value => ({
    sum: {
      oneofKind: 'record',
      record: { recordId, fields: Object.entries(fields).map(([label, value]) => ({ label, value })) },
    },
  }),
};

export const freshContractId = (): string => makeContractId(randomBytes(32));

export interface ContractRef {
  contractId: string;
  templateId?: Identifier;
  packageName?: string;
  signatories: string[];
  stakeholders: string[];
}

const node = (nodeId: string, nodeType: any): DamlTransaction_Node =>
  ({ nodeId, versionedNode: { oneofKind: 'v1', v1: { nodeType } } }) as DamlTransaction_Node;

export function createNode(nodeId: string, c: ContractRef & { argument?: Value }): DamlTransaction_Node {
  return node(nodeId, {
    oneofKind: 'create',
    create: {
      lfVersion: '2.1',
      contractId: c.contractId,
      packageName: c.packageName ?? PACKAGE_NAME,
      templateId: c.templateId ?? TEMPLATE,
      argument:
        c.argument ??
        val.record({ owner: val.party(c.signatories[0]), note: val.text('hello') }, c.templateId ?? TEMPLATE),
      signatories: c.signatories,
      stakeholders: c.stakeholders,
    },
  });
}

export function exerciseNode(
  nodeId: string,
  c: ContractRef & {
    actingParties: string[];
    choiceId?: string;
    consuming?: boolean;
    children?: string[];
    choiceObservers?: string[];
  },
): DamlTransaction_Node {
  return node(nodeId, {
    oneofKind: 'exercise',
    exercise: {
      lfVersion: '2.1',
      contractId: c.contractId,
      packageName: c.packageName ?? PACKAGE_NAME,
      templateId: c.templateId ?? TEMPLATE,
      signatories: c.signatories,
      stakeholders: c.stakeholders,
      actingParties: c.actingParties,
      choiceId: c.choiceId ?? 'Archive',
      chosenValue: val.record({}),
      consuming: c.consuming ?? true,
      children: c.children ?? [],
      exerciseResult: val.unit(),
      choiceObservers: c.choiceObservers ?? [],
    },
  });
}

export function fetchNode(nodeId: string, c: ContractRef & { actingParties: string[] }): DamlTransaction_Node {
  return node(nodeId, {
    oneofKind: 'fetch',
    fetch: {
      lfVersion: '2.1',
      contractId: c.contractId,
      packageName: c.packageName ?? PACKAGE_NAME,
      templateId: c.templateId ?? TEMPLATE,
      signatories: c.signatories,
      stakeholders: c.stakeholders,
      actingParties: c.actingParties,
    },
  });
}

export function rollbackNode(nodeId: string, children: string[]): DamlTransaction_Node {
  return node(nodeId, { oneofKind: 'rollback', rollback: { children } });
}

export interface PreparedOptions {
  nodes: DamlTransaction_Node[];
  roots?: string[];
  actAs: string[];
  synchronizerId: string;
  commandId?: string;
  preparationTime?: bigint;
  minLedgerEffectiveTime?: bigint;
  maxLedgerEffectiveTime?: bigint;
  maxRecordTime?: bigint;
}

/** A PreparedTransaction; every node gets a seed (numeric node ids). */
export function preparedTransaction(o: PreparedOptions): PreparedTransaction {
  return PreparedTransaction.create({
    transaction: DamlTransaction.create({
      version: '2.1',
      roots: o.roots ?? [o.nodes[0].nodeId],
      nodes: o.nodes,
      nodeSeeds: o.nodes
        .filter((n) => /^\d+$/.test(n.nodeId))
        .map((n) => ({ nodeId: Number(n.nodeId), seed: sha256(`seed-${n.nodeId}-${o.commandId}`) })),
    }),
    metadata: Metadata.create({
      submitterInfo: { actAs: o.actAs, commandId: o.commandId ?? randomUUID() },
      synchronizerId: o.synchronizerId,
      mediatorGroup: 0,
      transactionUuid: randomUUID(),
      preparationTime: o.preparationTime ?? BigInt(Date.now()) * 1000n,
      inputContracts: [],
      minLedgerEffectiveTime: o.minLedgerEffectiveTime,
      maxLedgerEffectiveTime: o.maxLedgerEffectiveTime,
      maxRecordTime: o.maxRecordTime,
    }),
  });
}

export interface SignOptions {
  version?: 2 | 3;
  /** Default: every signer signs for its own party. */
  deduplicationPeriod?: unknown;
  userId?: string;
  submissionId?: string;
  minLedgerTime?: unknown;
  /** Sign these bytes instead of the real hash. */
  signBytes?: Uint8Array;
}

/** The executeAndWait body for `pt` signed by `signers` (grouped per party). */
export function executeRequest(
  pt: PreparedTransaction,
  signers: ExternalParty[],
  o: SignOptions = {},
): Record<string, unknown> {
  const version = o.version ?? 2;
  const hash = o.signBytes ?? hashPreparedTransaction(pt, version);
  const byParty = new Map<string, ExternalParty[]>();
  for (const s of signers) byParty.set(s.party, [...(byParty.get(s.party) ?? []), s]);
  return {
    preparedTransaction: Buffer.from(PreparedTransaction.toBinary(pt)).toString('base64'),
    partySignatures: {
      signatures: [...byParty].map(([party, ks]) => ({
        party,
        signatures: ks.map((k) => ({
          format: 'SIGNATURE_FORMAT_CONCAT',
          signature: sign(null, hash, k.privateKey).toString('base64'),
          signedBy: k.fingerprint,
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
        })),
      })),
    },
    deduplicationPeriod: o.deduplicationPeriod ?? { Empty: {} },
    submissionId: o.submissionId ?? randomUUID(),
    userId: o.userId ?? '',
    hashingSchemeVersion: version === 3 ? 'HASHING_SCHEME_VERSION_V3' : 'HASHING_SCHEME_VERSION_V2',
    ...(o.minLedgerTime !== undefined ? { minLedgerTime: o.minLedgerTime } : {}),
  };
}
