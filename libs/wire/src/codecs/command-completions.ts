import type { CompletionStreamRequest, GetCompletionsRequest } from '@ledgerline/domain';
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

/** GetCompletionsRequest (no required key; a `userId` key is not part of it and is ignored). */
export const getCompletionsRequestSchema = {
  type: 'object',
  properties: {
    parties: { type: 'array', items: { type: 'string' } },
    beginExclusive: int64Schema,
  },
} as const;

/** Decodes a body validated by `getCompletionsRequestSchema`. */
export function decodeGetCompletionsRequest(body: Record<string, unknown>): GetCompletionsRequest {
  return {
    parties: (body.parties as string[] | undefined) ?? [],
    beginExclusive: body.beginExclusive === undefined ? 0 : toInt64(body.beginExclusive),
  };
}
