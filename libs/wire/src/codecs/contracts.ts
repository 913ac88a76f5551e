import type {
  GetActiveContractsPageRequest,
  GetActiveContractsRequest,
  GetContractRequest,
  GetEventsByContractIdRequest,
} from '@ledgerline/domain';
import { int64Schema, toInt64 } from './int64';
import { checkEventFormatIdentifiers, eventFormatSchema, filtersSchema } from './updates';

/**
 * JSON schemas and decoding of the contract reads: the active contract set (stream, list and page), events by contract
 * id and contract by id. As for the update stream, absent fields take their defaults, explicit nulls are accepted for
 * optional messages, and wrong JSON types or malformed identifiers are decode errors (400 text/plain).
 */

const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });

export const getActiveContractsRequestSchema = {
  type: 'object',
  properties: {
    activeAtOffset: int64Schema,
    eventFormat: nullable(eventFormatSchema),
    filter: nullable({
      type: 'object',
      properties: {
        filtersByParty: { type: 'object', additionalProperties: filtersSchema },
        filtersForAnyParty: nullable(filtersSchema),
      },
    }),
    verbose: { type: 'boolean' },
    streamContinuationToken: { type: ['string', 'null'] },
  },
} as const;

export const getActiveContractsPageRequestSchema = {
  type: 'object',
  properties: {
    activeAtOffset: { anyOf: [{ type: 'null' }, ...int64Schema.anyOf] },
    eventFormat: nullable(eventFormatSchema),
    maxPageSize: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647 },
    pageToken: { type: ['string', 'null'] },
  },
} as const;

export const getEventsByContractIdRequestSchema = {
  type: 'object',
  properties: {
    contractId: { type: 'string' },
    eventFormat: nullable(eventFormatSchema),
  },
} as const;

export const getContractRequestSchema = {
  type: 'object',
  properties: {
    contractId: { type: 'string' },
    queryingParties: { type: ['array', 'null'], items: { type: 'string' } },
  },
} as const;

export function decodeGetActiveContractsRequest(body: Record<string, unknown> | undefined): GetActiveContractsRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetActiveContractsRequest;
  checkEventFormatIdentifiers(b.filter, 'filter');
  checkEventFormatIdentifiers(b.eventFormat, 'eventFormat');
  return { ...b, activeAtOffset: b.activeAtOffset === undefined ? 0 : toInt64(b.activeAtOffset) };
}

export function decodeGetActiveContractsPageRequest(
  body: Record<string, unknown> | undefined,
): GetActiveContractsPageRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetActiveContractsPageRequest;
  checkEventFormatIdentifiers(b.eventFormat, 'eventFormat');
  return {
    ...b,
    activeAtOffset: b.activeAtOffset === undefined || b.activeAtOffset === null ? null : toInt64(b.activeAtOffset),
  };
}

export function decodeGetEventsByContractIdRequest(
  body: Record<string, unknown> | undefined,
): GetEventsByContractIdRequest {
  const b = (body ?? {}) as GetEventsByContractIdRequest;
  checkEventFormatIdentifiers(b.eventFormat, 'eventFormat');
  return b;
}

export const decodeGetContractRequest = (body: Record<string, unknown> | undefined): GetContractRequest =>
  (body ?? {}) as GetContractRequest;
