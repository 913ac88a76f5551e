import { parseIsoMicros } from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import { int64Schema } from './int64';
import { transactionFormatSchema } from './updates';

/**
 * JSON body of POST /v2/interactive-submission/executeAndWait and /execute (JsExecuteSubmissionAndWaitRequest): shapes
 * only. As in the reference, `preparedTransaction`, `partySignatures`, `deduplicationPeriod`, `submissionId` and
 * `hashingSchemeVersion` have no default (absent → 400 text/plain); `userId` defaults to "" and `minLedgerTime` to none.
 */
export const durationSchema = {
  type: 'object',
  properties: { seconds: int64Schema, nanos: { type: 'integer', minimum: -999_999_999, maximum: 999_999_999 } },
} as const;

/** `{"Empty":{}}`, `{"DeduplicationDuration":{"value":Duration}}` or `{"DeduplicationOffset":{"value":int64}}`. */
export const deduplicationPeriodSchema = {
  type: 'object',
  properties: {
    Empty: { type: 'object' },
    DeduplicationDuration: { type: 'object', required: ['value'], properties: { value: durationSchema } },
    DeduplicationOffset: { type: 'object', required: ['value'], properties: { value: int64Schema } },
  },
} as const;

export const HASHING_SCHEME_VERSIONS = [
  'HASHING_SCHEME_VERSION_UNSPECIFIED',
  'HASHING_SCHEME_VERSION_V2',
  'HASHING_SCHEME_VERSION_V3',
  'HASHING_SCHEME_VERSION_V4',
] as const;

export const executeSubmissionBodySchema = {
  type: 'object',
  required: ['preparedTransaction', 'partySignatures', 'deduplicationPeriod', 'submissionId', 'hashingSchemeVersion'],
  properties: {
    preparedTransaction: { type: 'string' },
    partySignatures: {
      type: 'object',
      properties: {
        signatures: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              party: { type: 'string' },
              signatures: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    format: { type: 'string' },
                    signature: { type: 'string' },
                    signedBy: { type: 'string' },
                    signingAlgorithmSpec: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
    },
    deduplicationPeriod: deduplicationPeriodSchema,
    submissionId: { type: 'string' },
    userId: { type: 'string' },
    hashingSchemeVersion: { type: 'string', enum: HASHING_SCHEME_VERSIONS },
    minLedgerTime: {
      type: ['object', 'null'],
      properties: {
        time: {
          type: 'object',
          properties: {
            Empty: { type: 'object' },
            MinLedgerTimeAbs: { type: 'object', required: ['value'], properties: { value: { type: 'string' } } },
            MinLedgerTimeRel: { type: 'object', required: ['value'], properties: { value: durationSchema } },
          },
        },
      },
    },
  },
} as const;

/** JsExecuteSubmissionAndWaitForTransactionRequest: executeAndWait's body and an optional `transactionFormat`. */
export const executeAndWaitForTransactionBodySchema = {
  ...executeSubmissionBodySchema,
  properties: {
    ...executeSubmissionBodySchema.properties,
    transactionFormat: { ...transactionFormatSchema, type: ['object', 'null'] },
  },
} as const;

export interface DurationJson {
  seconds?: number | string;
  nanos?: number;
}

export interface ExecuteSubmissionBody {
  preparedTransaction: string;
  partySignatures: {
    signatures?: Array<{
      party?: string;
      signatures?: Array<{ format?: string; signature?: string; signedBy?: string; signingAlgorithmSpec?: string }>;
    }>;
  };
  deduplicationPeriod: DeduplicationPeriodJson;
  submissionId: string;
  userId?: string;
  hashingSchemeVersion: string;
  minLedgerTime?: {
    time?: { Empty?: object; MinLedgerTimeAbs?: { value: string }; MinLedgerTimeRel?: { value: DurationJson } };
  } | null;
}

/** Everything of the body, decoded to bytes / bigints; what is left to check is the ledger's business (domain). */
export interface DecodedExecuteSubmission {
  preparedTransaction: Uint8Array;
  partySignatures: Array<{
    party: string;
    signatures: Array<{ format: string; signature: Uint8Array; signedBy: string; signingAlgorithmSpec: string }>;
  }>;
  deduplicationPeriod:
    { kind: 'empty' } | { kind: 'duration'; seconds: bigint; nanos: number } | { kind: 'offset'; offset: bigint };
  submissionId: string;
  userId: string;
  hashingSchemeVersion: string;
  minLedgerTime?: { kind: 'abs'; micros: bigint } | { kind: 'rel'; micros: bigint };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard Base64 (as circe/Java decode it), else the reference's decode failure. */
export function decodeBase64Field(s: string, at: string): Buffer {
  if (!BASE64.test(s) || s.replace(/=+$/, '').length % 4 === 1) {
    throw bodyDecodeError(`The string is not a valid Base64: ${s.length > 40 ? s.slice(0, 40) + '…' : s}`, at);
  }
  return Buffer.from(s, 'base64');
}

const oneKey = (o: object, at: string, allowed: readonly string[]): string => {
  const keys = Object.keys(o).filter((k) => allowed.includes(k));
  if (keys.length !== 1) throw bodyDecodeError(`Expected exactly one of ${allowed.join(', ')}`, at);
  return keys[0];
};

const durationMicros = (d: DurationJson): bigint =>
  BigInt(String(d.seconds ?? 0)) * 1_000_000n + BigInt(Math.trunc((d.nanos ?? 0) / 1000));

export type DeduplicationPeriodJson = {
  Empty?: object;
  DeduplicationDuration?: { value: DurationJson };
  DeduplicationOffset?: { value: number | string };
};

/** A body's `deduplicationPeriod`, validated by `deduplicationPeriodSchema`. */
export function decodeDeduplicationPeriod(
  dp: DeduplicationPeriodJson,
): DecodedExecuteSubmission['deduplicationPeriod'] {
  switch (oneKey(dp, 'deduplicationPeriod', ['Empty', 'DeduplicationDuration', 'DeduplicationOffset'])) {
    case 'Empty':
      return { kind: 'empty' };
    case 'DeduplicationDuration': {
      const d = dp.DeduplicationDuration!.value;
      return { kind: 'duration', seconds: BigInt(String(d.seconds ?? 0)), nanos: d.nanos ?? 0 };
    }
    default:
      return { kind: 'offset', offset: BigInt(String(dp.DeduplicationOffset!.value)) };
  }
}

export function decodeExecuteSubmissionBody(body: ExecuteSubmissionBody): DecodedExecuteSubmission {
  const preparedTransaction = decodeBase64Field(body.preparedTransaction, 'preparedTransaction');
  const partySignatures = (body.partySignatures.signatures ?? []).map((p, i) => ({
    party: p.party ?? '',
    signatures: (p.signatures ?? []).map((s, j) => ({
      format: s.format ?? 'SIGNATURE_FORMAT_UNSPECIFIED',
      signature: decodeBase64Field(s.signature ?? '', `partySignatures.signatures[${i}].signatures[${j}].signature`),
      signedBy: s.signedBy ?? '',
      signingAlgorithmSpec: s.signingAlgorithmSpec ?? 'SIGNING_ALGORITHM_SPEC_UNSPECIFIED',
    })),
  }));
  const deduplicationPeriod = decodeDeduplicationPeriod(body.deduplicationPeriod);
  let minLedgerTime: DecodedExecuteSubmission['minLedgerTime'];
  const t = body.minLedgerTime?.time;
  if (t) {
    switch (oneKey(t, 'minLedgerTime.time', ['Empty', 'MinLedgerTimeAbs', 'MinLedgerTimeRel'])) {
      case 'MinLedgerTimeAbs':
        try {
          minLedgerTime = { kind: 'abs', micros: parseIsoMicros(t.MinLedgerTimeAbs!.value) };
        } catch {
          throw bodyDecodeError(
            `Invalid timestamp ${t.MinLedgerTimeAbs!.value}`,
            'minLedgerTime.time.MinLedgerTimeAbs.value',
          );
        }
        break;
      case 'MinLedgerTimeRel':
        minLedgerTime = { kind: 'rel', micros: durationMicros(t.MinLedgerTimeRel!.value) };
        break;
    }
  }
  return {
    preparedTransaction,
    partySignatures,
    deduplicationPeriod,
    submissionId: body.submissionId,
    userId: body.userId ?? '',
    hashingSchemeVersion: body.hashingSchemeVersion,
    minLedgerTime,
  };
}
