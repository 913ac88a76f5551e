import { expect } from 'vitest';

/**
 * Asserts that an HTTP answer is Canton's JSON error (JsCantonError): the status, the error code and, when given, the
 * cause and the error category. Returns the error body for further checks.
 */
export function expectCantonError(
  answer: { status: number; json: any },
  status: number,
  code: string,
  { cause, category }: { cause?: string; category?: number } = {},
): any {
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  expect(answer.json.code).toBe(code);
  if (cause !== undefined) expect(answer.json.cause).toBe(cause);
  if (category !== undefined) expect(answer.json.errorCategory).toBe(category);
  return answer.json;
}
