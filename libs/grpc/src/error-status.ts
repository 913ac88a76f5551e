import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { create, toBinary } from '@bufbuild/protobuf';
import { anyPack, type Any } from '@bufbuild/protobuf/wkt';
import type { LedgerError } from '@ledgerline/domain';
import {
  ErrorInfoSchema,
  RequestInfoSchema,
  ResourceInfoSchema,
  RetryInfoSchema,
} from './gen/google/rpc/error_details_pb';
import { StatusSchema } from './gen/google/rpc/status_pb';

/** What an error's rendering needs from its request. */
export interface GrpcErrorContext {
  traceId: string;
  participant: string;
  /** Canton's correlation id: the submission id of a command, where the request has one. */
  correlationId?: string;
}

/** Canton truncates an error's cause to this many characters in the status message (MaxCauseLogLength). */
const MAX_CAUSE_LENGTH = 512;
const REDACTED_PREFIX = 'An error occurred. Please contact the operator and inquire about the request';

/** "1 second", "60 seconds" → seconds. */
function retrySeconds(text: string): bigint {
  return BigInt(/^(\d+)/.exec(text)?.[1] ?? '1');
}

/**
 * The gRPC status of a LedgerError as Canton's `ErrorCode.asGrpcStatus` builds it (base/error SerializableErrorComponents):
 * the category's status code; the message `CODE(category,correlation id): cause`; and as details an `ErrorInfo` (reason =
 * the code, metadata = the context with `category`, `definite_answer`, `tid` and `participant`, the keys the JSON API
 * renders in a JsCantonError's context), a `RetryInfo` for retryable errors, a `RequestInfo` (the correlation id, else
 * the trace id) and a `ResourceInfo` per resource. Security-sensitive categories carry only the redacted message and the
 * `RequestInfo`.
 */
export function grpcStatusOf(
  err: LedgerError,
  ctx: GrpcErrorContext,
): { code: number; message: string; details: Any[] } {
  const category = err.category;
  const requestInfo = anyPack(
    RequestInfoSchema,
    create(RequestInfoSchema, { requestId: ctx.correlationId ?? ctx.traceId }),
  );
  if (category.redacted) {
    return {
      code: category.grpcCode,
      message: `${REDACTED_PREFIX} ${ctx.correlationId ?? '<no-correlation-id>'} with tid ${ctx.traceId}`,
      details: [requestInfo],
    };
  }
  const cause =
    err.causeText.length > MAX_CAUSE_LENGTH ? `${err.causeText.slice(0, MAX_CAUSE_LENGTH)}...` : err.causeText;
  const metadata: Record<string, string> = {
    ...err.context,
    participant: ctx.participant,
    ...(err.definiteAnswer !== undefined ? { definite_answer: String(err.definiteAnswer) } : {}),
    tid: ctx.traceId,
    category: String(category.id),
  };
  const details: Any[] = [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason: err.code, metadata }))];
  if (err.retryInfo !== null) {
    details.push(
      anyPack(RetryInfoSchema, create(RetryInfoSchema, { retryDelay: { seconds: retrySeconds(err.retryInfo) } })),
    );
  }
  details.push(requestInfo);
  for (const [resourceType, resourceName] of err.resources) {
    details.push(anyPack(ResourceInfoSchema, create(ResourceInfoSchema, { resourceType, resourceName })));
  }
  return {
    code: category.grpcCode,
    message: `${err.code}(${category.id},${(ctx.correlationId ?? '0').slice(0, 8)}): ${cause}`,
    details,
  };
}

/** The status as @grpc/grpc-js sends it: the google.rpc.Status in the `grpc-status-details-bin` trailer. */
export function grpcErrorOf(err: LedgerError, ctx: GrpcErrorContext): Partial<StatusObject> {
  const status = grpcStatusOf(err, ctx);
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(toBinary(StatusSchema, create(StatusSchema, status))));
  return { code: status.code, details: status.message, metadata };
}
