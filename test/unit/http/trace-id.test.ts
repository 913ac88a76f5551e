import { describe, expect, it } from 'vitest';
import { traceIdOf } from '@ledgerline/server/http/fastify-setup';

describe('traceIdOf', () => {
  it('adopts the trace id of a valid traceparent header', () => {
    expect(traceIdOf({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).toBe(
      '0af7651916cd43dd8448eb211c80319c',
    );
  });

  it('otherwise answers fresh 32-hex-digit ids that do not repeat (also across refills of the random pool)', () => {
    const ids = Array.from({ length: 2000 }, () => traceIdOf({ traceparent: 'garbage' }));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
