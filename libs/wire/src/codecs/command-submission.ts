import {
  invalidIdentifierMessage,
  parseTemplateRef,
  type CommandsRequest,
  type DisclosedContractInput,
  type TransactionFormat,
} from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import {
  decodeDeduplicationPeriod,
  deduplicationPeriodSchema,
  durationSchema,
  type DeduplicationPeriodJson,
} from './execute-submission';
import { bytesFromJs } from './crypto';
import { int64Schema, toInt64 } from './int64';
import { commandFromJs, commandsSchema, isObj, type Obj } from './transaction-builder';
import { checkEventFormatIdentifiers, transactionFormatSchema } from './updates';

const strings = { type: 'array', items: { type: 'string' } } as const;

/** DisclosedContract (commands.proto): every field optional at decode time; the blob is bytes (standard base64). */
export const disclosedContractsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      templateId: { type: 'string' },
      contractId: { type: 'string' },
      createdEventBlob: { type: 'string' },
      synchronizerId: { type: 'string' },
    },
  },
} as const;

/** Decodes `disclosedContracts` (validated by `disclosedContractsSchema`): a template id must parse, the blob must be base64. */
export function disclosedContractsFromJs(v: unknown, at: string): DisclosedContractInput[] {
  return ((v as Obj[] | undefined) ?? []).map((d, i) => {
    const templateId = (d.templateId as string | undefined) ?? '';
    if (templateId && !parseTemplateRef(templateId))
      throw bodyDecodeError(invalidIdentifierMessage(templateId), `${at}[${i}].templateId`);
    const blob = bytesFromJs(d.createdEventBlob, `${at}[${i}].createdEventBlob`);
    return {
      contractId: (d.contractId as string | undefined) ?? '',
      templateId,
      createdEventBlob: blob.toString('base64'),
      synchronizerId: (d.synchronizerId as string | undefined) ?? '',
    };
  });
}

/**
 * JsCommands (the body of submit-and-wait and async/submit): a hand-written DTO whose keys without a default — `commands`,
 * `commandId`, `actAs` — are required at decode time; every other key may be left out.
 */
export const jsCommandsSchema = {
  type: 'object',
  required: ['commands', 'commandId', 'actAs'],
  properties: {
    commands: commandsSchema,
    commandId: { type: 'string' },
    actAs: strings,
    userId: { type: 'string' },
    readAs: strings,
    workflowId: { type: 'string' },
    deduplicationPeriod: deduplicationPeriodSchema,
    minLedgerTimeAbs: { type: 'string' },
    minLedgerTimeRel: durationSchema,
    submissionId: { type: 'string' },
    disclosedContracts: disclosedContractsSchema,
    synchronizerId: { type: 'string' },
    packageIdSelectionPreference: strings,
    prefetchContractKeys: {
      type: 'array',
      items: { type: 'object', properties: { templateId: { type: 'string' }, limit: { type: 'integer' } } },
    },
    tapsMaxPasses: { type: 'integer' },
  },
} as const;

/** JsSubmitAndWaitForTransactionRequest: `commands` required, `transactionFormat` optional. */
export const submitAndWaitForTransactionSchema = {
  type: 'object',
  required: ['commands'],
  properties: {
    commands: jsCommandsSchema,
    transactionFormat: { ...transactionFormatSchema, type: ['object', 'null'] },
  },
} as const;

/** POST /v2/commands/simulate: the body of submit-and-wait-for-transaction, and the offset the dry run reads the ledger at. */
export const simulateCommandsSchema = {
  ...submitAndWaitForTransactionSchema,
  properties: { ...submitAndWaitForTransactionSchema.properties, atOffset: int64Schema },
} as const;

const durationOf = (v: unknown) => {
  const d = v as { seconds?: number | string; nanos?: number };
  return { seconds: toInt64(d.seconds ?? 0), nanos: d.nanos ?? 0 };
};

/** Decodes a body validated by `jsCommandsSchema` (`at`: where it sits in the body, for decode errors). */
export function decodeJsCommands(body: Obj, at = ''): CommandsRequest {
  const prefix = at ? `${at}.` : '';
  const commands = (body.commands as Obj[]).map((c, i) => commandFromJs(c, i, prefix));
  const abs = body.minLedgerTimeAbs as string | undefined;
  return {
    commands,
    commandId: body.commandId as string,
    actAs: body.actAs as string[],
    userId: (body.userId as string | undefined) ?? '',
    readAs: (body.readAs as string[] | undefined) ?? [],
    workflowId: (body.workflowId as string | undefined) ?? '',
    deduplicationPeriod: isObj(body.deduplicationPeriod)
      ? decodeDeduplicationPeriod(body.deduplicationPeriod as DeduplicationPeriodJson)
      : { kind: 'empty' },
    minLedgerTimeAbs: abs ?? '',
    minLedgerTimeRel: body.minLedgerTimeRel === undefined ? null : durationOf(body.minLedgerTimeRel),
    submissionId: (body.submissionId as string | undefined) ?? '',
    disclosedContracts: disclosedContractsFromJs(body.disclosedContracts, `${prefix}disclosedContracts`),
    synchronizerId: (body.synchronizerId as string | undefined) ?? '',
    packageIdSelectionPreference: (body.packageIdSelectionPreference as string[] | undefined) ?? [],
    prefetchContractKeys: ((body.prefetchContractKeys as Obj[] | undefined) ?? []).map((k) => ({
      limit: typeof k.limit === 'number' ? k.limit : null,
    })),
    tapsMaxPasses: typeof body.tapsMaxPasses === 'number' ? body.tapsMaxPasses : null,
  };
}

/** A body's optional `transactionFormat` (identifiers checked as a decode step). */
export function decodeTransactionFormat(v: unknown, at = 'transactionFormat'): TransactionFormat | null {
  if (v === undefined || v === null) return null;
  const tf = v as TransactionFormat;
  checkEventFormatIdentifiers(tf.eventFormat, `${at}.eventFormat`);
  return tf;
}
