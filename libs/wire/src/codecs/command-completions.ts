import type { CompletionStreamRequest } from '@ledgerline/domain';
import { int64Schema, toInt64 } from './int64';

/** CompletionStreamRequest (relaxed: every key optional at decode time, as the reference's codec). */
export const completionStreamRequestSchema = {
  type: 'object',
  properties: {
    userId: { type: 'string' },
    parties: { type: 'array', items: { type: 'string' } },
    beginExclusive: int64Schema,
  },
} as const;

/** Decodes a body validated by `completionStreamRequestSchema`. */
export function decodeCompletionStreamRequest(body: Record<string, unknown>): CompletionStreamRequest {
  return {
    userId: (body.userId as string | undefined) ?? '',
    parties: (body.parties as string[] | undefined) ?? [],
    beginExclusive: body.beginExclusive === undefined ? 0 : toInt64(body.beginExclusive),
  };
}
