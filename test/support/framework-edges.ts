import { expect } from 'vitest';
import type { TestLedger } from './ledger';

const shape = (r: { status: number; headers: Headers; json: any }) => ({
  status: r.status,
  contentType: (r.headers.get('content-type') ?? '').split(';')[0],
  code: r.json?.code ?? null,
});

/**
 * A direct route (apps/server/src/http/direct-route.ts) must answer the framework-level edges exactly as a controller
 * route does: malformed JSON, a body of the wrong JSON type, wrong field types, no token, a bad token, an empty Bearer,
 * a path with empty segments, and methods it does not serve. `controllerPost` is a controller route to compare with
 * (answers compared: status, content type, JsCantonError code); the GET is compared with a POST-only controller route
 * (`prepare`: GET on `flats` is the WebSocket channel). Every answer must be a 4xx.
 */
export async function expectSameFrameworkEdges(
  ledger: TestLedger,
  direct: string,
  controllerPost: string,
  as: string,
  wrongTypes: unknown,
): Promise<void> {
  const POST_ONLY = '/v2/interactive-submission/prepare';
  const cases: Array<{
    as?: string | null;
    headers?: Record<string, string>;
    raw?: string;
    body?: unknown;
    method?: string;
    prefix?: string;
    status?: number;
  }> = [
    { raw: '{"updateId": ' },
    { raw: '[1, 2]' },
    { raw: '[1, 2]', prefix: '/', status: 400 },
    { body: wrongTypes },
    { body: {}, as: null },
    { body: {}, as: null, headers: { authorization: 'Bearer not.a.token' } },
    { body: {}, as: null, headers: { authorization: 'Bearer ' } },
    { method: 'GET', as: null, status: 405 },
    { method: 'PUT', as: null, status: 405 },
  ];
  for (const c of cases) {
    const [a, b] = await Promise.all(
      [direct, c.method === 'GET' ? POST_ONLY : controllerPost].map((p) =>
        ledger.call(c.method ?? 'POST', (c.prefix ?? '') + p, c.body, {
          as: c.as === undefined ? as : c.as,
          headers: c.headers,
          raw: c.raw,
        }),
      ),
    );
    const label = JSON.stringify(c);
    expect(shape(a), label).toEqual(shape(b));
    expect(a.status, label).toBeGreaterThanOrEqual(400);
    expect(a.status, label).toBeLessThan(500);
    if (c.status !== undefined) expect(a.status, label).toBe(c.status);
  }
}
