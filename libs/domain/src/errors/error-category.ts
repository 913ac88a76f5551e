/** Canton error categories (id, gRPC code, default HTTP status, default retry, redaction). Pure facts, no behaviour. */
export interface ErrorCategory {
  readonly id: number;
  readonly name: string;
  readonly grpcCode: number;
  readonly httpStatus: number;
  readonly retryInfo: string | null;
  readonly redacted: boolean;
}

const category = (
  id: number,
  name: string,
  grpcCode: number,
  httpStatus: number,
  retryInfo: string | null,
  redacted: boolean,
): ErrorCategory => ({ id, name, grpcCode, httpStatus, retryInfo, redacted });

export const ErrorCategories = {
  TransientServerFailure: category(1, 'TransientServerFailure', 14, 503, '1 second', false),
  ContentionOnSharedResources: category(2, 'ContentionOnSharedResources', 10, 409, '1 second', false),
  DeadlineExceededRequestStateUnknown: category(3, 'DeadlineExceededRequestStateUnknown', 4, 504, '1 second', false),
  SystemInternalAssumptionViolated: category(4, 'SystemInternalAssumptionViolated', 13, 500, null, true),
  SecurityAlert: category(5, 'SecurityAlert', 3, 400, null, true),
  AuthInterceptorInvalidAuthenticationCredentials: category(
    6,
    'AuthInterceptorInvalidAuthenticationCredentials',
    16,
    401,
    null,
    true,
  ),
  InsufficientPermission: category(7, 'InsufficientPermission', 7, 403, null, true),
  InvalidIndependentOfSystemState: category(8, 'InvalidIndependentOfSystemState', 3, 400, null, false),
  InvalidGivenCurrentSystemStateOther: category(9, 'InvalidGivenCurrentSystemStateOther', 9, 400, null, false),
  InvalidGivenCurrentSystemStateResourceExists: category(
    10,
    'InvalidGivenCurrentSystemStateResourceExists',
    6,
    409,
    null,
    false,
  ),
  InvalidGivenCurrentSystemStateResourceMissing: category(
    11,
    'InvalidGivenCurrentSystemStateResourceMissing',
    5,
    404,
    null,
    false,
  ),
  InvalidGivenCurrentSystemStateSeekAfterEnd: category(
    12,
    'InvalidGivenCurrentSystemStateSeekAfterEnd',
    11,
    400,
    '1 second',
    false,
  ),
  InternalUnsupportedOperation: category(14, 'InternalUnsupportedOperation', 12, 501, null, true),
} as const;

/** gRPC status code → HTTP status, as the JSON API maps it. */
export function httpStatusOfGrpcCode(code: number): number {
  switch (code) {
    case 0:
      return 200;
    case 3:
    case 9:
    case 11:
      return 400;
    case 16:
      return 401;
    case 7:
      return 403;
    case 5:
      return 404;
    case 10:
    case 6:
      return 409;
    case 8:
      return 429;
    case 1:
      return 499;
    case 12:
      return 501;
    case 14:
      return 503;
    case 4:
      return 504;
    default:
      return 500;
  }
}
