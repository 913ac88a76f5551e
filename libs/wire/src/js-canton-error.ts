import { LedgerError } from '@ledgerline/domain';

/** The ten keys of Canton's JsCantonError, absent values as null. */
export interface JsCantonError {
  code: string;
  cause: string;
  correlationId: string | null;
  traceId: string | null;
  context: Record<string, string>;
  resources: Array<[string, string]>;
  errorCategory: number;
  grpcCodeValue: number | null;
  retryInfo: string | null;
  definiteAnswer: boolean | null;
}

export interface ErrorRenderContext {
  traceId: string;
  participant: string;
}

/**
 * Renders a LedgerError as the reference does: redacted categories become `code: "NA"`; errors of the gRPC layer carry
 * category/tid/participant (and definite_answer) in `context` and `definiteAnswer: null`; errors of the JSON layer carry
 * their own context and `definiteAnswer`. Every body carries the request's trace id, which is also in the server log.
 */
export function renderError(err: LedgerError, ctx: ErrorRenderContext): { status: number; body: JsCantonError } {
  const c = err.category;
  if (c.redacted) {
    return {
      status: err.httpStatus,
      body: {
        code: 'NA',
        cause: 'A security-sensitive error has been received',
        correlationId: null,
        traceId: ctx.traceId,
        context: err.context.ledger_api_error ? { ledger_api_error: err.context.ledger_api_error } : {},
        resources: [],
        errorCategory: -1,
        grpcCodeValue: c.grpcCode,
        retryInfo: null,
        definiteAnswer: null,
      },
    };
  }
  const grpc = err.origin === 'grpc';
  const context: Record<string, string> = grpc
    ? {
        ...err.context,
        category: String(c.id),
        ...(err.definiteAnswer !== undefined ? { definite_answer: String(err.definiteAnswer) } : {}),
        tid: ctx.traceId,
        participant: ctx.participant,
      }
    : { ...err.context };
  return {
    status: err.httpStatus,
    body: {
      code: err.code,
      cause: err.causeText,
      correlationId: null,
      traceId: ctx.traceId,
      context,
      resources: err.resources,
      errorCategory: c.id,
      grpcCodeValue: c.grpcCode,
      retryInfo: err.retryInfo,
      definiteAnswer: grpc ? null : (err.definiteAnswer ?? null),
    },
  };
}
