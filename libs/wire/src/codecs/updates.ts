import type {
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByHashRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesPageRequest,
  GetUpdatesRequest,
  Filters,
  LegacyFilter,
  UpdateFormat,
} from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import { bytesFromJs } from './crypto';
import { int64Schema, toInt64 } from './int64';

/**
 * JSON schemas of the update-stream request bodies (GetUpdatesRequest, GetTransactionByIdRequest) and their decoding.
 * Like the reference's relaxed codec, absent fields take their defaults and explicit nulls are accepted for optional
 * messages; wrong JSON types, unknown enum names and malformed identifiers are decode errors (400 text/plain).
 */

/** An optional message that may also be an explicit null (keeps ajv's error on the real offending field). */
const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });

const identifierFilterSchema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
  properties: {
    Empty: { type: 'object' },
    WildcardFilter: {
      type: 'object',
      properties: { value: { type: 'object', properties: { includeCreatedEventBlob: { type: 'boolean' } } } },
    },
    TemplateFilter: {
      type: 'object',
      required: ['value'],
      properties: {
        value: {
          type: 'object',
          required: ['templateId'],
          properties: { templateId: { type: 'string' }, includeCreatedEventBlob: { type: 'boolean' } },
        },
      },
    },
    InterfaceFilter: {
      type: 'object',
      required: ['value'],
      properties: {
        value: {
          type: 'object',
          required: ['interfaceId'],
          properties: {
            interfaceId: { type: 'string' },
            includeInterfaceView: { type: 'boolean' },
            includeCreatedEventBlob: { type: 'boolean' },
          },
        },
      },
    },
  },
} as const;

export const filtersSchema = {
  type: 'object',
  properties: {
    cumulative: { type: 'array', items: { type: 'object', properties: { identifierFilter: identifierFilterSchema } } },
  },
} as const;

export const eventFormatSchema = {
  type: 'object',
  properties: {
    filtersByParty: { type: 'object', additionalProperties: filtersSchema },
    filtersForAnyParty: nullable(filtersSchema),
    verbose: { type: 'boolean' },
  },
} as const;

export const transactionFormatSchema = {
  type: 'object',
  required: ['transactionShape'],
  properties: {
    eventFormat: nullable(eventFormatSchema),
    transactionShape: {
      type: 'string',
      enum: [
        'TRANSACTION_SHAPE_UNSPECIFIED',
        'TRANSACTION_SHAPE_ACS_DELTA',
        'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        'UNRECOGNIZED',
      ],
    },
  },
} as const;

export const updateFormatSchema = {
  type: 'object',
  properties: {
    includeTransactions: nullable(transactionFormatSchema),
    includeReassignments: nullable(eventFormatSchema),
    includeTopologyEvents: nullable({
      type: 'object',
      properties: {
        includeParticipantAuthorizationEvents: nullable({
          type: 'object',
          properties: { parties: { type: 'array', items: { type: 'string' } } },
        }),
      },
    }),
  },
} as const;

export const getUpdatesRequestSchema = {
  type: 'object',
  properties: {
    beginExclusive: int64Schema,
    endInclusive: { anyOf: [{ type: 'null' }, ...int64Schema.anyOf] },
    filter: nullable({
      type: 'object',
      properties: {
        filtersByParty: { type: 'object', additionalProperties: filtersSchema },
        filtersForAnyParty: nullable(filtersSchema),
      },
    }),
    verbose: { type: 'boolean' },
    updateFormat: nullable(updateFormatSchema),
    descendingOrder: { type: 'boolean' },
  },
} as const;

export const getTransactionByIdRequestSchema = {
  type: 'object',
  properties: {
    updateId: { type: 'string' },
    requestingParties: { type: 'array', items: { type: 'string' } },
    transactionFormat: nullable(transactionFormatSchema),
  },
} as const;

const IDENTIFIER = /^[^:]+:[^:]+:[^:]+$/;

function checkIdentifier(id: string, at: string): void {
  if (!IDENTIFIER.test(id)) {
    throw bodyDecodeError(
      `Invalid identifier format (${id}) not matching the expected format (<package>:<moduleName>:<entityName>)`,
      at,
    );
  }
}

function checkFilters(filters: Filters | null | undefined, at: string): void {
  (filters?.cumulative ?? []).forEach((c, i) => {
    const f = c.identifierFilter;
    // a body not validated by a schema may hold anything here: only an object names identifiers
    if (!f || typeof f !== 'object') return;
    const here = `${at}.cumulative[${i}].identifierFilter`;
    if ('TemplateFilter' in f && f.TemplateFilter)
      checkIdentifier(String(f.TemplateFilter.value?.templateId), `${here}.TemplateFilter.value.templateId`);
    if ('InterfaceFilter' in f && f.InterfaceFilter)
      checkIdentifier(String(f.InterfaceFilter.value?.interfaceId), `${here}.InterfaceFilter.value.interfaceId`);
  });
}

/**
 * Template/interface ids in an event format (or the legacy filter, its filter part) must be `<package>:<Module>:<Entity>`,
 * else the request does not decode.
 */
export function checkEventFormatIdentifiers(ef: LegacyFilter | null | undefined, at = 'eventFormat') {
  if (!ef) return;
  for (const [party, filters] of Object.entries(ef.filtersByParty ?? {}))
    checkFilters(filters, `${at}.filtersByParty.${party}`);
  checkFilters(ef.filtersForAnyParty, `${at}.filtersForAnyParty`);
}

function checkUpdateFormat(uf: UpdateFormat | null | undefined, at: string): void {
  if (!uf) return;
  checkEventFormatIdentifiers(uf.includeTransactions?.eventFormat, `${at}.includeTransactions.eventFormat`);
  checkEventFormatIdentifiers(uf.includeReassignments, `${at}.includeReassignments`);
}

/** A body already validated by `getUpdatesRequestSchema` → the domain request (int64s parsed, identifiers checked). */
export function decodeGetUpdatesRequest(body: Record<string, unknown> | undefined): GetUpdatesRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetUpdatesRequest;
  checkEventFormatIdentifiers(b.filter, 'filter');
  checkUpdateFormat(b.updateFormat, 'updateFormat');
  return {
    ...b,
    beginExclusive: b.beginExclusive === undefined ? 0 : toInt64(b.beginExclusive),
    endInclusive: b.endInclusive === undefined || b.endInclusive === null ? null : toInt64(b.endInclusive),
  };
}

export function decodeGetTransactionByIdRequest(body: Record<string, unknown> | undefined): GetTransactionByIdRequest {
  const b = (body ?? {}) as GetTransactionByIdRequest;
  checkEventFormatIdentifiers(b.transactionFormat?.eventFormat, 'transactionFormat.eventFormat');
  return b;
}

const nullableInt64 = { anyOf: [{ type: 'null' }, ...int64Schema.anyOf] } as const;

export const getUpdateByIdRequestSchema = {
  type: 'object',
  properties: { updateId: { type: 'string' }, updateFormat: nullable(updateFormatSchema) },
} as const;

export const getUpdateByOffsetRequestSchema = {
  type: 'object',
  properties: { offset: int64Schema, updateFormat: nullable(updateFormatSchema) },
} as const;

export const getUpdateByHashRequestSchema = {
  type: 'object',
  properties: { transactionHash: { type: 'string' }, updateFormat: nullable(updateFormatSchema) },
} as const;

export const getTransactionByOffsetRequestSchema = {
  type: 'object',
  properties: {
    offset: int64Schema,
    requestingParties: { type: 'array', items: { type: 'string' } },
    transactionFormat: nullable(transactionFormatSchema),
  },
} as const;

export const getUpdatesPageRequestSchema = {
  type: 'object',
  properties: {
    beginOffsetExclusive: nullableInt64,
    endOffsetInclusive: nullableInt64,
    maxPageSize: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647 },
    updateFormat: nullable(updateFormatSchema),
    descendingOrder: { type: 'boolean' },
    pageToken: { type: ['string', 'null'] },
  },
} as const;

const optInt64 = (v: unknown) => (v === undefined || v === null ? null : toInt64(v));

export function decodeGetUpdateByIdRequest(body: Record<string, unknown> | undefined): GetUpdateByIdRequest {
  const b = (body ?? {}) as GetUpdateByIdRequest;
  checkUpdateFormat(b.updateFormat, 'updateFormat');
  return b;
}

export function decodeGetUpdateByOffsetRequest(body: Record<string, unknown> | undefined): GetUpdateByOffsetRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetUpdateByOffsetRequest;
  checkUpdateFormat(b.updateFormat, 'updateFormat');
  return { ...b, offset: b.offset === undefined ? 0 : toInt64(b.offset) };
}

/** update-by-hash: `transactionHash` is bytes, standard base64 (anything else does not decode). */
export function decodeGetUpdateByHashRequest(body: Record<string, unknown> | undefined): GetUpdateByHashRequest {
  const b = (body ?? {}) as { transactionHash?: unknown; updateFormat?: UpdateFormat | null };
  checkUpdateFormat(b.updateFormat, 'updateFormat');
  return { transactionHash: bytesFromJs(b.transactionHash, 'transactionHash'), updateFormat: b.updateFormat };
}

export function decodeGetTransactionByOffsetRequest(
  body: Record<string, unknown> | undefined,
): GetTransactionByOffsetRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetTransactionByOffsetRequest;
  checkEventFormatIdentifiers(b.transactionFormat?.eventFormat, 'transactionFormat.eventFormat');
  return { ...b, offset: b.offset === undefined ? 0 : toInt64(b.offset) };
}

export function decodeGetUpdatesPageRequest(body: Record<string, unknown> | undefined): GetUpdatesPageRequest {
  const b = (body ?? {}) as Record<string, unknown> & GetUpdatesPageRequest;
  checkUpdateFormat(b.updateFormat, 'updateFormat');
  return {
    ...b,
    beginOffsetExclusive: optInt64(b.beginOffsetExclusive),
    endOffsetInclusive: optInt64(b.endOffsetInclusive),
  };
}
