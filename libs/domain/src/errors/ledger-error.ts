import { ErrorCategories, ErrorCategory } from './error-category';

/**
 * Where an error is born decides its wire shape: errors of the gRPC layer carry category/tid/participant in their context
 * and `definiteAnswer: null`; errors of the JSON layer carry only their own context and `definiteAnswer: false`.
 */
export type ErrorOrigin = 'grpc' | 'json';

export interface LedgerErrorInit {
  context?: Record<string, string>;
  resources?: Array<[string, string]>;
  definiteAnswer?: boolean;
  origin?: ErrorOrigin;
  /** Overrides the category's HTTP status (the list-limit error is 413 while its category says 409). */
  httpStatus?: number;
  /** For redacted errors: the real reason, logged and never sent. */
  internalReason?: string;
  /** Overrides the category's retry delay (Canton errors that set their own `retryable`). */
  retryInfo?: string;
}

/** A rejection the API reports to the client as a JsCantonError. Thrown by domain rules; rendered by the wire layer. */
export class LedgerError extends Error {
  readonly context: Record<string, string>;
  readonly resources: Array<[string, string]>;
  readonly definiteAnswer: boolean | undefined;
  readonly origin: ErrorOrigin;
  readonly httpStatus: number;
  readonly internalReason: string | undefined;
  readonly retryInfo: string | null;

  constructor(
    readonly code: string,
    readonly category: ErrorCategory,
    readonly causeText: string,
    init: LedgerErrorInit = {},
  ) {
    super(`${code}: ${causeText}`);
    this.name = 'LedgerError';
    this.context = init.context ?? {};
    this.resources = init.resources ?? [];
    this.definiteAnswer = init.definiteAnswer;
    this.origin = init.origin ?? 'grpc';
    this.httpStatus = init.httpStatus ?? category.httpStatus;
    this.internalReason = init.internalReason;
    this.retryInfo = init.retryInfo ?? category.retryInfo;
  }

  get redacted(): boolean {
    return this.category.redacted;
  }
}

export const isLedgerError = (e: unknown): e is LedgerError => e instanceof LedgerError;

const C = ErrorCategories;

// ---- Request validation (category 8 unless noted) ----
export const invalidArgument = (msg: string, init: LedgerErrorInit = {}) =>
  new LedgerError(
    'INVALID_ARGUMENT',
    C.InvalidIndependentOfSystemState,
    `The submitted request has invalid arguments: ${msg}`,
    init,
  );

/** INVALID_ARGUMENT raised by the JSON layer before the request reaches the ledger (definiteAnswer false, bare context). */
export const jsonInvalidArgument = (msg: string) => invalidArgument(msg, { origin: 'json', definiteAnswer: false });

export const missingField = (field: string) =>
  new LedgerError(
    'MISSING_FIELD',
    C.InvalidIndependentOfSystemState,
    `The submitted command is missing a mandatory field: ${field}`,
    {
      context: { field_name: field },
    },
  );

export const invalidField = (field: string, msg: string) =>
  new LedgerError(
    'INVALID_FIELD',
    C.InvalidIndependentOfSystemState,
    `The submitted command has a field with invalid value: Invalid field ${field}: ${msg}`,
    {
      context: { field_name: field },
    },
  );

export const invalidToken = (msg: string) =>
  new LedgerError(
    'INVALID_TOKEN',
    C.InvalidIndependentOfSystemState,
    `The submitted request is missing a user-id: ${msg}`,
  );

// ---- Security (redacted on the wire) ----
export const unauthenticated = (reason: string) =>
  new LedgerError('UNAUTHENTICATED', C.AuthInterceptorInvalidAuthenticationCredentials, reason, {
    internalReason: reason,
  });

export const permissionDenied = (reason: string, init: LedgerErrorInit = {}) =>
  new LedgerError('PERMISSION_DENIED', C.InsufficientPermission, reason, { ...init, internalReason: reason });

/** Unknown or deactivated user: a claim-resolution failure, redacted with context.ledger_api_error = "invalid token". */
export const invalidTokenUser = (reason: string) =>
  permissionDenied(reason, { context: { ledger_api_error: 'invalid token' } });

// ---- Resources ----
export const notFound = (code: string, cause: string, resources: Array<[string, string]> = []) =>
  new LedgerError(code, C.InvalidGivenCurrentSystemStateResourceMissing, cause, { resources });

export const alreadyExists = (code: string, cause: string, resources: Array<[string, string]> = []) =>
  new LedgerError(code, C.InvalidGivenCurrentSystemStateResourceExists, cause, { resources });

export const failedPrecondition = (code: string, cause: string, init: LedgerErrorInit = {}) =>
  new LedgerError(code, C.InvalidGivenCurrentSystemStateOther, cause, init);

export const contention = (code: string, cause: string, init: LedgerErrorInit = {}) =>
  new LedgerError(code, C.ContentionOnSharedResources, cause, init);

// ---- Server side ----
export const transientFailure = (cause: string) =>
  new LedgerError('SERVICE_NOT_RUNNING', C.TransientServerFailure, cause, { definiteAnswer: false });

export const internalError = (reason: string) =>
  new LedgerError('LEDGER_API_INTERNAL_ERROR', C.SystemInternalAssumptionViolated, reason, { internalReason: reason });

export const listLimitExceeded = (count: number, max: number) =>
  new LedgerError(
    'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    C.ContentionOnSharedResources,
    `The number of matching elements (${count}) is greater than the node limit (${max}).`,
    { origin: 'json', definiteAnswer: false, httpStatus: 413 },
  );

/**
 * A list answer would hold more than LEDGER_HTTP_LIST_MAX_BYTES (our bound: Canton's lists have only the element limit).
 * Same code and status as the element limit, since the remedy is the same: the WebSocket form, or a narrower request.
 */
export const listBytesExceeded = (maxBytes: number, webSocket: string) =>
  new LedgerError(
    'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    C.ContentionOnSharedResources,
    `The matching elements hold more than ${maxBytes} bytes, the limit of one list answer on this node. Read them as a stream over the WebSocket form of this endpoint (GET ${webSocket}), or narrow the range or the filter.`,
    {
      origin: 'json',
      definiteAnswer: false,
      httpStatus: 413,
      context: { max_bytes: String(maxBytes), websocket: webSocket },
    },
  );

/** A stream whose token expired while it was open (Canton's AuthorizationChecksErrors.AccessTokenExpired). */
export const accessTokenExpired = (reason: string) =>
  new LedgerError('ACCESS_TOKEN_EXPIRED', C.ContentionOnSharedResources, 'JWT token has expired', {
    definiteAnswer: false,
    internalReason: reason,
  });

/**
 * A stream whose user's rights changed, or whose user or identity provider was deactivated, while it was open (Canton's
 * AuthorizationChecksErrors.StaleUserManagementBasedStreamClaims): the client reopens it and is then checked afresh.
 */
export const staleStreamAuthorization = () =>
  new LedgerError(
    'STALE_STREAM_AUTHORIZATION',
    C.ContentionOnSharedResources,
    'Stale stream authorization. Retry quickly.',
    { definiteAnswer: false },
  );

/**
 * Too many open update streams for one user (Canton's MAXIMUM_NUMBER_OF_STREAMS, ContentionOnSharedResources: retryable).
 * Answered as HTTP 429 (Too Many Requests) rather than the category's 409, as RESOURCE_EXHAUSTED maps.
 */
export const maximumNumberOfStreams = (userId: string, max: number) =>
  new LedgerError(
    'MAXIMUM_NUMBER_OF_STREAMS',
    C.ContentionOnSharedResources,
    `The number of open streams of user '${userId}' has reached the maximum (${max}). Close a stream, then retry.`,
    { context: { user_id: userId, max_streams: String(max) }, httpStatus: 429 },
  );

/** Framework-level rejections (unknown route, payload too large, …) rendered as JsCantonError by the JSON layer. */
export const httpError = (code: string, cause: string, httpStatus: number) =>
  new LedgerError(
    code,
    httpStatus === 404 ? C.InvalidGivenCurrentSystemStateResourceMissing : C.InvalidIndependentOfSystemState,
    cause,
    {
      origin: 'json',
      definiteAnswer: false,
      httpStatus,
    },
  );
