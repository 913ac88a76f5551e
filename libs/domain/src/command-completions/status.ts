import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { ErrorInfo, RetryInfo } from '@canton-network/core-ledger-proto';
import { ErrorCategories, type LedgerError } from '../errors';

/** A `google.rpc.Status` as the JSON API renders it (JsStatus; details as ProtoAny). */
export interface JsStatus {
  code: number;
  message: string;
  details: Array<{ typeUrl: string; value: string; unknownFields: { fields: Record<string, never> } }>;
}

export const OK_STATUS: JsStatus = { code: 0, message: '', details: [] };

/** The error of a rejection: a LedgerError's fields. */
export interface StoredError {
  code: string;
  categoryId: number;
  cause: string;
  context: Record<string, string>;
  resources: Array<[string, string]>;
  definiteAnswer?: boolean;
}

const CATEGORY_BY_ID = new Map(Object.values(ErrorCategories).map((c) => [c.id, c]));

export function storedErrorOf(e: LedgerError): StoredError {
  return {
    code: e.code,
    categoryId: e.category.id,
    cause: e.causeText,
    context: e.context,
    resources: e.resources,
    ...(e.definiteAnswer !== undefined ? { definiteAnswer: e.definiteAnswer } : {}),
  };
}

const any = (type: string, bytes: Uint8Array) => ({
  typeUrl: `type.googleapis.com/google.rpc.${type}`,
  value: Buffer.from(bytes).toString('base64'),
  unknownFields: { fields: {} },
});

/** google.rpc.ResourceInfo {resource_type = 1, resource_name = 2}. */
function resourceInfo(type: string, name: string): Uint8Array {
  return new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(type)
    .tag(2, WireType.LengthDelimited)
    .string(name)
    .finish();
}

/** "1 second" → 1 s. */
const retrySeconds = (s: string) => Number(/^(\d+)/.exec(s)?.[1] ?? 1);

/**
 * The status of a rejected completion, as Canton serializes an error into a gRPC status (ErrorCode, SerializableErrorComponents
 * of the base library): code = the category's gRPC code; message = `CODE(category,correlation id): cause`; details = an
 * ErrorInfo (reason = the code, metadata = the context with `category` and `definite_answer`), a RetryInfo for retryable
 * categories, a ResourceInfo per resource. A client decodes the JsCantonError from these details, as from an HTTP error.
 */
export function statusOf(e: StoredError, correlationId: string): JsStatus {
  const category = CATEGORY_BY_ID.get(e.categoryId) ?? ErrorCategories.InvalidIndependentOfSystemState;
  const metadata: Record<string, string> = {
    ...e.context,
    category: String(category.id),
    ...(e.definiteAnswer !== undefined ? { definite_answer: String(e.definiteAnswer) } : {}),
  };
  const details = [any('ErrorInfo', ErrorInfo.toBinary({ reason: e.code, domain: '', metadata }))];
  if (category.retryInfo)
    details.push(
      any(
        'RetryInfo',
        RetryInfo.toBinary({ retryDelay: { seconds: BigInt(retrySeconds(category.retryInfo)), nanos: 0 } }),
      ),
    );
  for (const [type, name] of e.resources) details.push(any('ResourceInfo', resourceInfo(type, name)));
  return {
    code: category.grpcCode,
    message: `${e.code}(${category.id},${correlationId.slice(0, 8)}): ${e.cause}`,
    details,
  };
}
