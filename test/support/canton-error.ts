import { expect } from 'vitest';

/** Every key of a JsCantonError, sorted (Canton's JSON error body). */
export const JS_CANTON_ERROR_KEYS = [
  'cause',
  'code',
  'context',
  'correlationId',
  'definiteAnswer',
  'errorCategory',
  'grpcCodeValue',
  'resources',
  'retryInfo',
  'traceId',
];

/**
 * Asserts that an HTTP answer is Canton's JSON error (JsCantonError): the status, the error code and, when given, the
 * cause (a string: exactly that; a RegExp: matching it), the error category and that the body has every JsCantonError
 * key. Returns the error body for further checks.
 */
export function expectCantonError(
  answer: { status: number; json: any },
  status: number,
  code: string,
  { cause, category, everyKey }: { cause?: string | RegExp; category?: number; everyKey?: boolean } = {},
): any {
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  expect(answer.json?.code, JSON.stringify(answer.json)).toBe(code);
  if (typeof cause === 'string') expect(answer.json.cause).toBe(cause);
  else if (cause !== undefined) expect(answer.json.cause).toMatch(cause);
  if (category !== undefined) expect(answer.json.errorCategory).toBe(category);
  if (everyKey) expect(Object.keys(answer.json).sort()).toEqual(JS_CANTON_ERROR_KEYS);
  return answer.json;
}
