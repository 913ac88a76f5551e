import type { PrepareRequest } from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import { enumFromJs, SIGNING_ALGORITHM_SPECS } from './crypto';
import { HASHING_SCHEME_VERSIONS } from './execute-submission';
import { disclosedContractsFromJs, disclosedContractsSchema } from './command-submission';
import { commandFromJs, commandsSchema, isObj, type Obj } from './transaction-builder';

/** JSON schema of JsPrepareSubmissionRequest (the fields Ledgerline reads; unknown fields are ignored, as Canton does). */
export const prepareRequestSchema = {
  type: 'object',
  required: ['commandId', 'commands', 'actAs'],
  properties: {
    userId: { type: 'string' },
    commandId: { type: 'string' },
    commands: commandsSchema,
    actAs: { type: 'array', items: { type: 'string' } },
    readAs: { type: 'array', items: { type: 'string' } },
    disclosedContracts: disclosedContractsSchema,
    synchronizerId: { type: 'string' },
    packageIdSelectionPreference: { type: 'array', items: { type: 'string' } },
    verboseHashing: { type: 'boolean' },
    maxRecordTime: { type: 'string' },
    minLedgerTime: { type: 'object' },
    hashingSchemeVersion: { type: 'string' },
    estimateTrafficCost: {
      type: 'object',
      properties: { disabled: { type: 'boolean' }, expectedSignatures: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const;

/** CostEstimationHints: algorithms by SigningAlgorithmSpec name (an unknown name is a decode error; validation refuses the unsupported ones). */
function costEstimationHintsFromJs(v: unknown): PrepareRequest['estimateTrafficCost'] {
  if (!isObj(v)) return null;
  const expected = (v.expectedSignatures as unknown[] | undefined) ?? [];
  return {
    disabled: (v.disabled as boolean | undefined) ?? false,
    expectedSignatures: expected.map((a, i) =>
      enumFromJs(a, SIGNING_ALGORITHM_SPECS, `estimateTrafficCost.expectedSignatures[${i}]`),
    ),
  };
}

function minLedgerTimeFromJs(v: unknown): PrepareRequest['minLedgerTime'] {
  if (!isObj(v) || !isObj(v.time)) return null;
  const t = v.time;
  if (isObj(t.MinLedgerTimeAbs)) {
    const value = t.MinLedgerTimeAbs.value;
    if (typeof value !== 'string')
      throw bodyDecodeError('Got value with wrong type, expecting string', 'minLedgerTime.time.MinLedgerTimeAbs.value');
    return { abs: value };
  }
  if (isObj(t.MinLedgerTimeRel)) {
    const d = t.MinLedgerTimeRel.value;
    const seconds = isObj(d) ? Number(d.seconds ?? 0) + Number(d.nanos ?? 0) / 1e9 : NaN;
    if (!Number.isFinite(seconds))
      throw bodyDecodeError('Expected a Duration {seconds, nanos}', 'minLedgerTime.time.MinLedgerTimeRel.value');
    return { relSeconds: seconds };
  }
  return null;
}

/** Decodes a body validated by `prepareRequestSchema`. `userId` is the request's (MatchUserId runs later). */
export function prepareRequestFromJs(body: Obj): PrepareRequest {
  const commands = (body.commands as Obj[]).map((c, i) => commandFromJs(c, i));
  return {
    userId: (body.userId as string | undefined) ?? '',
    commandId: body.commandId as string,
    commands,
    actAs: body.actAs as string[],
    readAs: (body.readAs as string[] | undefined) ?? [],
    disclosedContracts: disclosedContractsFromJs(body.disclosedContracts, 'disclosedContracts'),
    synchronizerId: (body.synchronizerId as string | undefined) ?? '',
    packageIdSelectionPreference: (body.packageIdSelectionPreference as string[] | undefined) ?? [],
    hashingSchemeVersion: enumFromJs(body.hashingSchemeVersion, HASHING_SCHEME_VERSIONS, 'hashingSchemeVersion'),
    maxRecordTime: (body.maxRecordTime as string | undefined) ?? '',
    minLedgerTime: minLedgerTimeFromJs(body.minLedgerTime),
    verboseHashing: (body.verboseHashing as boolean | undefined) ?? false,
    estimateTrafficCost: costEstimationHintsFromJs(body.estimateTrafficCost),
  };
}
