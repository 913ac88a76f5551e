import type { CompletionStreamRequest, GetCompletionsRequest } from '@ledgerline/domain';
import { bytesFromJs } from './crypto';
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

/** GetCompletionByHashRequest (Canton 3.5.10; relaxed: a missing hash decodes as empty and is refused by validation). */
export const getCompletionByHashRequestSchema = {
  type: 'object',
  properties: { transactionHash: { type: 'string' } },
} as const;

/** `transactionHash` is bytes, standard base64 (anything else does not decode). */
export function decodeGetCompletionByHashRequest(body: Record<string, unknown> | undefined): {
  transactionHash: Uint8Array;
} {
  return { transactionHash: bytesFromJs((body ?? {}).transactionHash, 'transactionHash') };
}
