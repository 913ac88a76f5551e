import { HttpException } from '@nestjs/common';
import {
  httpError,
  internalError,
  invalidArgument,
  isLedgerError,
  LedgerError,
  transientFailure,
} from '@ledgerline/domain';
import { DecodeError, renderError, type ErrorRenderContext } from '@ledgerline/wire';
import { isDatabaseUnavailable } from '@ledgerline/store';
import { RequestBodyAbortedError } from './request-body';

export interface ErrorResponse {
  status: number;
  contentType: 'application/json' | 'text/plain; charset=utf-8';
  body: string;
  /** What goes to the log (never to the client). */
  logged: { level: 'info' | 'warn' | 'error'; reason: string; stack?: string };
}

/** PostgreSQL data exceptions (SQLSTATE class 22) are caused by the values a request carried. */
function isDataException(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** Fastify's own rejections (body parsing, limits, media type, validation) as the reference's errors. */
function fromFramework(e: {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: unknown[];
  validationContext?: string;
}): LedgerError | DecodeError | null {
  if (e.validation) return validationToDecodeError(e);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return httpError(
        'REQUEST_TOO_LARGE',
        `The request body exceeds the limit of this participant (${e.message ?? ''})`,
        413,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return httpError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type', 415);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DecodeError('body', 'Missing request body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DecodeError('body', e.message ?? 'Malformed body');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return httpError('INVALID_ARGUMENT', `Malformed URL: ${e.message ?? ''}`, 400);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return httpError('URI_TOO_LONG', 'A path parameter exceeds the length limit of this participant', 414);
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return httpError(e.statusCode === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT', e.message ?? 'Bad request', e.statusCode);
  }
  return null;
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** ajv's first error → `Invalid value for: body (<detail> at '<json.path>')`. */
export function validationToDecodeError(e: { validation?: unknown[]; validationContext?: string }): DecodeError {
  const first = (e.validation?.[0] ?? {}) as AjvError;
  let at = (first.instancePath ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  let detail = first.message ?? 'invalid value';
  if (first.keyword === 'required' && typeof first.params?.missingProperty === 'string') {
    at = [...at, first.params.missingProperty];
    detail = 'Missing required field';
  } else if (first.keyword === 'type') {
    detail = `Got value with wrong type, expecting ${String(first.params?.type ?? 'a different type')}`;
  } else if (first.keyword === 'enum') {
    detail = `Unrecognized value. Supported values: [${((first.params?.allowedValues as string[]) ?? []).join(', ')}]`;
  }
  const source =
    e.validationContext === 'querystring'
      ? 'query parameter'
      : e.validationContext === 'params'
        ? 'path parameter'
        : 'body';
  const path = at
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join('')
    .replace(/^\./, '');
  return new DecodeError(source, path ? `${detail} at '${path}'` : detail);
}

export function toErrorResponse(e: unknown, ctx: ErrorRenderContext): ErrorResponse {
  let err: unknown = e;
  if (!isLedgerError(err) && !(err instanceof DecodeError)) {
    if (err instanceof HttpException) {
      const status = err.getStatus();
      err = httpError(
        status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT',
        status === 404 ? 'The requested resource could not be found.' : err.message,
        status,
      );
    } else if (err instanceof RequestBodyAbortedError) {
      err = httpError('INVALID_ARGUMENT', err.message, 400);
    } else if (isDatabaseUnavailable(err)) {
      err = transientFailure('The ledger database is unavailable. Retry.');
    } else if (isDataException(err)) {
      // PostgreSQL refused a value the request carried (class 22: a NUL character, a number out of range, …). Input
      // validation should have caught it; the client still gets a 400, not a 500, and the log says what slipped through.
      err = invalidArgument(`A value of the request cannot be stored or compared: ${(err as Error).message}`);
    } else if (typeof err === 'object' && err !== null) {
      err = fromFramework(err) ?? err;
    }
  }
  if (err instanceof DecodeError) {
    return {
      status: 400,
      contentType: 'text/plain; charset=utf-8',
      body: err.message,
      logged: { level: 'info', reason: err.message },
    };
  }
  if (!isLedgerError(err)) {
    const reason = err instanceof Error ? err.message : String(err);
    const rendered = renderError(internalError(reason), ctx);
    return {
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify(rendered.body),
      logged: { level: 'error', reason, stack: err instanceof Error ? err.stack : undefined },
    };
  }
  const rendered = renderError(err, ctx);
  const level = rendered.status >= 500 ? 'error' : rendered.status === 401 || rendered.status === 403 ? 'warn' : 'info';
  return {
    status: rendered.status,
    contentType: 'application/json',
    body: JSON.stringify(rendered.body),
    logged: { level, reason: `${err.code}: ${err.internalReason ?? err.causeText}` },
  };
}
