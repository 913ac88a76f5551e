import { describe, expect, it } from 'vitest';
import { Metadata_InputContract } from '@canton-network/core-ledger-proto';
import {
  disclosedContractsSynchronizer,
  isLedgerError,
  validateDisclosedContracts,
  type DisclosedContractInput,
} from '@ledgerline/domain';

/**
 * Disclosed contracts as Canton's ValidateDisclosedContracts.scala checks them, in order (blob, contract id, synchronizer
 * id, decoding, the stated ids against the blob's, conflicting duplicates), and the synchronizer the used ones prescribe
 * (StoreBackedCommandInterpreter.scala `considerDisclosedContractsSynchronizerId`).
 */
const cid = (c: string) => `00${c.repeat(64)}`;
const PKG = 'ab'.repeat(32);
const TEMPLATE = `${PKG}:Main:Offer`;
const SYNC_A = `a::1220${'aa'.repeat(32)}`;
const SYNC_B = `b::1220${'bb'.repeat(32)}`;

function blob(contractId: string, note = 'x'): string {
  const ic: Metadata_InputContract = {
    contract: {
      oneofKind: 'v1',
      v1: {
        lfVersion: '2.1',
        contractId,
        packageName: 'offers',
        templateId: { packageId: PKG, moduleName: 'Main', entityName: 'Offer' },
        argument: { sum: { oneofKind: 'text', text: note } },
        signatories: ['alice::1220aa'],
        stakeholders: ['alice::1220aa'],
      },
    },
    createdAt: 1_700_000_000_000_000n,
    eventBlob: new Uint8Array(),
  };
  return Buffer.from(Metadata_InputContract.toBinary(ic)).toString('base64');
}

const input = (over: Partial<DisclosedContractInput> = {}): DisclosedContractInput => ({
  contractId: cid('1'),
  templateId: TEMPLATE,
  createdEventBlob: blob(cid('1')),
  synchronizerId: '',
  ...over,
});

function failure(f: () => unknown): { code: string; cause: string; category: string } {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return { code: e.code, cause: e.causeText, category: e.category.name };
    throw e;
  }
  throw new Error('expected a failure');
}

describe('validateDisclosedContracts', () => {
  it('decodes the blob: contract id, template id and the input contract with its bytes', () => {
    const [d] = validateDisclosedContracts([input({ synchronizerId: SYNC_A })]);
    expect(d).toMatchObject({ contractId: cid('1'), templateId: TEMPLATE, synchronizerId: SYNC_A });
    expect(d.inputContract.createdAt).toBe(1_700_000_000_000_000n);
    expect(Buffer.from(d.inputContract.eventBlob).toString('base64')).toBe(blob(cid('1')));
    // The stated ids are optional.
    expect(validateDisclosedContracts([input({ contractId: '', templateId: '' })])[0].contractId).toBe(cid('1'));
  });

  it('refuses, in Canton’s order: no blob, a bad contract id, a bad synchronizer id, an undecodable blob, stated ids that differ', () => {
    expect(
      failure(() => validateDisclosedContracts([input({ createdEventBlob: '', contractId: 'bad' })])),
    ).toMatchObject({
      code: 'MISSING_FIELD',
      cause: 'The submitted command is missing a mandatory field: DisclosedContract.createdEventBlob',
    });
    expect(
      failure(() => validateDisclosedContracts([input({ contractId: 'bad', synchronizerId: 'bad' })])),
    ).toMatchObject({ code: 'INVALID_FIELD', cause: expect.stringContaining('DisclosedContract.contract_id') });
    expect(failure(() => validateDisclosedContracts([input({ synchronizerId: 'bad' })]))).toMatchObject({
      code: 'INVALID_FIELD',
      cause: expect.stringContaining('DisclosedContract.synchronizer_id'),
    });
    expect(
      failure(() =>
        validateDisclosedContracts([input({ createdEventBlob: Buffer.from([0xff, 0xff, 0xff]).toString('base64') })]),
      ),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      cause: expect.stringContaining('Unable to decode disclosed contract event payload: '),
    });
    expect(failure(() => validateDisclosedContracts([input({ contractId: cid('2') })])).cause).toBe(
      `The submitted request has invalid arguments: Mismatch between DisclosedContract.contract_id (${cid('2')}) and contract_id from decoded DisclosedContract.created_event_blob (${cid('1')})`,
    );
    expect(failure(() => validateDisclosedContracts([input({ templateId: `${PKG}:Main:Other` })])).cause).toBe(
      `The submitted request has invalid arguments: Mismatch between DisclosedContract.template_id (${PKG}:Main:Other) and template_id from decoded DisclosedContract.created_event_blob (${TEMPLATE})`,
    );
  });

  it('the same contract twice: the same blob is fine, different payloads are a security alert', () => {
    expect(validateDisclosedContracts([input(), input()])).toHaveLength(2);
    expect(
      failure(() => validateDisclosedContracts([input(), input({ createdEventBlob: blob(cid('1'), 'other') })])),
    ).toMatchObject({
      code: 'DISCLOSED_CONTRACTS_CONFLICTING_PAYLOADS',
      category: 'SecurityAlert',
    });
  });
});

describe('disclosedContractsSynchronizer', () => {
  const used = (...syncs: string[]) =>
    validateDisclosedContracts(
      syncs.map((s, i) =>
        input({ contractId: cid(String(i + 1)), createdEventBlob: blob(cid(String(i + 1))), synchronizerId: s }),
      ),
    );

  it('none named: the prescribed one stands (none: "")', () => {
    expect(disclosedContractsSynchronizer(used('', ''), '')).toBe('');
    expect(disclosedContractsSynchronizer(used(''), SYNC_B)).toBe('');
  });

  it('the one they name, which must be the prescribed one if any', () => {
    expect(disclosedContractsSynchronizer(used(SYNC_A, '', SYNC_A), '')).toBe(SYNC_A);
    expect(disclosedContractsSynchronizer(used(SYNC_A), SYNC_A)).toBe(SYNC_A);
    expect(failure(() => disclosedContractsSynchronizer(used(SYNC_A, ''), SYNC_B))).toEqual({
      code: 'PRESCRIBED_SYNCHRONIZER_ID_MISMATCH',
      category: 'InvalidIndependentOfSystemState',
      cause: `The target synchronizer=${SYNC_B} specified in the command submission mismatches the synchronizer id=${SYNC_A} of some attached disclosed contracts that have been used in the submission (used-disclosed-contract-ids=Set(ContractId(${cid('1')})))`,
    });
  });

  it('two different ones: DISCLOSED_CONTRACTS_SYNCHRONIZER_ID_MISMATCH naming each contract’s', () => {
    expect(failure(() => disclosedContractsSynchronizer(used(SYNC_A, SYNC_B), ''))).toEqual({
      code: 'DISCLOSED_CONTRACTS_SYNCHRONIZER_ID_MISMATCH',
      category: 'InvalidIndependentOfSystemState',
      cause: `Some disclosed contracts that were used during command interpretation have mismatching synchronizer ids: Map(ContractId(${cid('1')}) -> ${SYNC_A}, ContractId(${cid('2')}) -> ${SYNC_B})`,
    });
  });
});
