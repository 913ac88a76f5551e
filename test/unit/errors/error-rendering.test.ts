import { describe, expect, it } from 'vitest';
import {
  invalidTokenUser,
  jsonInvalidArgument,
  listLimitExceeded,
  notFound,
  permissionDenied,
  unauthenticated,
} from '@ledgerline/domain';
import { renderError } from '@ledgerline/wire';

const ctx = { traceId: 'a'.repeat(32), participant: 'participant1' };
const KEYS = [
  'code',
  'cause',
  'correlationId',
  'traceId',
  'context',
  'resources',
  'errorCategory',
  'grpcCodeValue',
  'retryInfo',
  'definiteAnswer',
];

describe('JsCantonError rendering', () => {
  it('renders a gRPC-layer error with its category context and null definiteAnswer', () => {
    const { status, body } = renderError(
      notFound('UPDATE_NOT_FOUND', 'Update not found, or not visible.', [['UPDATE_ID', 'x']]),
      ctx,
    );
    expect(status).toBe(404);
    expect(Object.keys(body).sort()).toEqual([...KEYS].sort());
    expect(body).toMatchObject({
      code: 'UPDATE_NOT_FOUND',
      errorCategory: 11,
      grpcCodeValue: 5,
      retryInfo: null,
      definiteAnswer: null,
      resources: [['UPDATE_ID', 'x']],
      context: { category: '11', tid: ctx.traceId, participant: 'participant1' },
    });
  });

  it('renders a JSON-layer error with its own context and definiteAnswer false', () => {
    const { status, body } = renderError(jsonInvalidArgument('a does not match b'), ctx);
    expect(status).toBe(400);
    expect(body.context).toEqual({});
    expect(body.definiteAnswer).toBe(false);
    expect(body.cause).toBe('The submitted request has invalid arguments: a does not match b');
  });

  it('redacts security errors: 401 and 403 say NA and nothing else', () => {
    const u = renderError(unauthenticated('bad signature'), ctx);
    expect(u.status).toBe(401);
    expect(u.body).toMatchObject({
      code: 'NA',
      errorCategory: -1,
      grpcCodeValue: 16,
      context: {},
      cause: 'A security-sensitive error has been received',
    });
    expect(JSON.stringify(u.body)).not.toContain('bad signature');
    const p = renderError(permissionDenied('no right'), ctx);
    expect(p.status).toBe(403);
    expect(p.body.grpcCodeValue).toBe(7);
    const t = renderError(invalidTokenUser('unknown user'), ctx);
    expect(t.status).toBe(403);
    expect(t.body.context).toEqual({ ledger_api_error: 'invalid token' });
  });

  it('forces the list-limit error to 413 although its category is ABORTED', () => {
    const { status, body } = renderError(listLimitExceeded(201, 200), ctx);
    expect(status).toBe(413);
    expect(body).toMatchObject({ errorCategory: 2, grpcCodeValue: 10, retryInfo: '1 second', definiteAnswer: false });
    expect(body.cause).toBe('The number of matching elements (201) is greater than the node limit (200).');
  });
});
