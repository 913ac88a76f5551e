import { expect } from 'vitest';
import type {
  allocationInstructionRegistryTypes,
  metadataRegistryTypes,
  transferInstructionRegistryTypes,
} from '@canton-network/core-token-standard';

/**
 * The response schemas of the token standard's registry API (splice's token-standard `*-v1.yaml`) as field lists:
 * each field's JSON type, whether it is required, and for a nested object the schema it follows. `expectShape` checks
 * an answer against them: every required field present, every field of the schema's type, no field the schema lacks.
 */
export type SchemaName =
  | 'ErrorResponse'
  | 'GetRegistryInfoResponse'
  | 'Instrument'
  | 'ListInstrumentsResponse'
  | 'DisclosedContract'
  | 'ChoiceContext'
  | 'TransferFactoryWithChoiceContext'
  | 'FactoryWithChoiceContext';
type FieldType =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'object'
  | { array: SchemaName | 'string' }
  | { schema: SchemaName }
  | { enum: readonly string[] }
  | { map: 'integer' };
interface Field {
  type: FieldType;
  required: boolean;
}
type Schema = Record<string, Field>;

const req = (type: FieldType): Field => ({ type, required: true });
const opt = (type: FieldType): Field => ({ type, required: false });

const SCHEMAS = {
  ErrorResponse: { error: req('string') },
  GetRegistryInfoResponse: { adminId: req('string'), supportedApis: req({ map: 'integer' }) },
  Instrument: {
    id: req('string'),
    name: req('string'),
    symbol: req('string'),
    totalSupply: opt('string'),
    totalSupplyAsOf: opt('string'),
    decimals: req('integer'),
    paused: opt('boolean'),
    pauseInfo: opt('object'),
    supportedApis: req({ map: 'integer' }),
    showAccountInputFields: opt('boolean'),
    accountInputFieldsToShow: opt({ array: 'string' }),
  },
  ListInstrumentsResponse: { instruments: req({ array: 'Instrument' }), nextPageToken: opt('string') },
  DisclosedContract: {
    templateId: req('string'),
    contractId: req('string'),
    createdEventBlob: req('string'),
    synchronizerId: req('string'),
    debugPackageName: opt('string'),
    debugPayload: opt('object'),
    debugCreatedAt: opt('string'),
  },
  ChoiceContext: { choiceContextData: req('object'), disclosedContracts: req({ array: 'DisclosedContract' }) },
  TransferFactoryWithChoiceContext: {
    factoryId: req('string'),
    transferKind: req({ enum: ['self', 'direct', 'offer'] }),
    choiceContext: req({ schema: 'ChoiceContext' }),
  },
  FactoryWithChoiceContext: { factoryId: req('string'), choiceContext: req({ schema: 'ChoiceContext' }) },
} satisfies Record<SchemaName, Schema>;

function problems(schema: SchemaName, value: unknown, path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path || '$'} is not an object`];
  const fields: Schema = SCHEMAS[schema];
  const out: string[] = [];
  const v = value as Record<string, unknown>;
  for (const [k, f] of Object.entries(fields))
    if (f.required && !(k in v)) out.push(`${path}${k} is required by ${schema}`);
  for (const [k, x] of Object.entries(v)) {
    const f = fields[k];
    if (!f) {
      out.push(`${path}${k} is not a field of ${schema}`);
      continue;
    }
    out.push(...typeProblems(f.type, x, `${path}${k}`));
  }
  return out;
}

function typeProblems(t: FieldType, x: unknown, path: string): string[] {
  if (t === 'string') return typeof x === 'string' ? [] : [`${path} is not a string`];
  if (t === 'boolean') return typeof x === 'boolean' ? [] : [`${path} is not a boolean`];
  if (t === 'integer') return Number.isInteger(x) ? [] : [`${path} is not an integer`];
  if (t === 'object')
    return typeof x === 'object' && x !== null && !Array.isArray(x) ? [] : [`${path} is not an object`];
  if ('enum' in t) return t.enum.includes(x as string) ? [] : [`${path} is not one of ${t.enum.join(', ')}`];
  if ('schema' in t) return problems(t.schema, x, `${path}.`);
  if ('map' in t) {
    if (typeof x !== 'object' || x === null) return [`${path} is not an object`];
    return Object.entries(x).flatMap(([k, y]) => (Number.isInteger(y) ? [] : [`${path}.${k} is not an integer`]));
  }
  if (!Array.isArray(x)) return [`${path} is not an array`];
  const item = t.array;
  return x.flatMap((y, i) =>
    item === 'string'
      ? typeof y === 'string'
        ? []
        : [`${path}[${i}] is not a string`]
      : problems(item, y, `${path}[${i}].`),
  );
}

/** Asserts that `value` follows the registry API's schema `schema` (see above). */
export function expectShape(schema: SchemaName, value: unknown): void {
  expect(problems(schema, value, ''), JSON.stringify(value)).toEqual([]);
}

/** Asserts an answer is the registry API's error: the status and an ErrorResponse body; returns its message. */
export function expectRegistryError(answer: { status: number; json: any }, status: number): string {
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  expectShape('ErrorResponse', answer.json);
  return answer.json.error as string;
}

/**
 * The field lists cover every field of the wallet SDK's types generated from earlier versions of the same specifications
 * (`@canton-network/core-token-standard`): a field of the SDK's missing here, or named differently, fails to compile.
 * (The specifications checked against here are newer: their Instrument also has pause and account-field settings.)
 */
type Covers<S extends SchemaName, T> = [keyof T] extends [keyof (typeof SCHEMAS)[S]] ? true : never;
type Metadata = metadataRegistryTypes['schemas'];
type Transfer = transferInstructionRegistryTypes['schemas'];
type Allocation = allocationInstructionRegistryTypes['schemas'];
export const FIELDS_COVER_THE_SDK: [
  Covers<'ErrorResponse', Metadata['ErrorResponse']>,
  Covers<'GetRegistryInfoResponse', Metadata['GetRegistryInfoResponse']>,
  Covers<'Instrument', Metadata['Instrument']>,
  Covers<'ListInstrumentsResponse', Metadata['ListInstrumentsResponse']>,
  Covers<'DisclosedContract', Transfer['DisclosedContract']>,
  Covers<'ChoiceContext', Transfer['ChoiceContext']>,
  Covers<'TransferFactoryWithChoiceContext', Transfer['TransferFactoryWithChoiceContext']>,
  Covers<'FactoryWithChoiceContext', Allocation['FactoryWithChoiceContext']>,
] = [true, true, true, true, true, true, true, true];
