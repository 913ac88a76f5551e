import { isContractId, isPartyId } from '@ledgerline/canton';
import { registryBadRequest, registryNotFound } from './errors';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** GetFactoryRequest: the factory choice's arguments (as the JSON API encodes them) and whether to leave out debug fields. */
export interface FactoryRequest {
  choiceArguments: Obj;
  excludeDebugFields: boolean;
}

/** GetChoiceContextRequest: metadata for the choice (accepted, not used) and whether to leave out debug fields. */
export interface ChoiceContextRequest {
  meta: Record<string, string>;
  excludeDebugFields: boolean;
}

function excludeDebugFieldsOf(body: Obj): boolean {
  const v = body.excludeDebugFields;
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw registryBadRequest('Field `excludeDebugFields` must be a boolean.');
  return v;
}

export function decodeFactoryRequest(body: unknown): FactoryRequest {
  if (!isObject(body)) throw registryBadRequest('The request body must be a JSON object.');
  if (!isObject(body.choiceArguments))
    throw registryBadRequest('Field `choiceArguments` is required and must be a JSON object.');
  return { choiceArguments: body.choiceArguments, excludeDebugFields: excludeDebugFieldsOf(body) };
}

export function decodeChoiceContextRequest(body: unknown): ChoiceContextRequest {
  if (body === undefined || body === null) return { meta: {}, excludeDebugFields: false };
  if (!isObject(body)) throw registryBadRequest('The request body must be a JSON object.');
  const meta = body.meta ?? {};
  if (!isObject(meta) || Object.values(meta).some((v) => typeof v !== 'string'))
    throw registryBadRequest('Field `meta` must be a JSON object of strings.');
  return { meta: meta as Record<string, string>, excludeDebugFields: excludeDebugFieldsOf(body) };
}

/** The parts of a `TransferFactory_Transfer` the registry's answer depends on. */
export interface TransferFactoryArguments {
  expectedAdmin: string;
  sender: string;
  receiver: string;
  instrumentId: { admin: string; id: string };
}

/**
 * Checks that `choiceArguments` is a `TransferFactory_Transfer` as the JSON API encodes it (every field of the record and
 * of its `Transfer`, with the JSON type the API expects) and returns the parts the registry needs.
 */
export function decodeTransferFactoryArguments(args: Obj): TransferFactoryArguments {
  const problems: string[] = [];
  const party = (o: Obj, path: string, k: string) => {
    const v = o[k];
    if (typeof v !== 'string' || !isPartyId(v)) problems.push(`${path}${k} must be a party id`);
    return String(v);
  };
  const text = (o: Obj, path: string, k: string) => {
    if (typeof o[k] !== 'string') problems.push(`${path}${k} must be a string`);
  };
  const object = (o: Obj, path: string, k: string): Obj => {
    const v = o[k];
    if (!isObject(v)) {
      problems.push(`${path}${k} must be an object`);
      return {};
    }
    return v;
  };
  const expectedAdmin = party(args, '', 'expectedAdmin');
  const transfer = object(args, '', 'transfer');
  const sender = party(transfer, 'transfer.', 'sender');
  const receiver = party(transfer, 'transfer.', 'receiver');
  if (typeof transfer.amount !== 'string' && typeof transfer.amount !== 'number')
    problems.push('transfer.amount must be a decimal');
  const instrument = object(transfer, 'transfer.', 'instrumentId');
  const admin = party(instrument, 'transfer.instrumentId.', 'admin');
  text(instrument, 'transfer.instrumentId.', 'id');
  text(transfer, 'transfer.', 'requestedAt');
  text(transfer, 'transfer.', 'executeBefore');
  const inputs = transfer.inputHoldingCids;
  if (!Array.isArray(inputs) || inputs.some((c) => typeof c !== 'string'))
    problems.push('transfer.inputHoldingCids must be a list of contract ids');
  object(transfer, 'transfer.', 'meta');
  const extraArgs = object(args, '', 'extraArgs');
  object(extraArgs, 'extraArgs.', 'context');
  object(extraArgs, 'extraArgs.', 'meta');
  if (problems.length)
    throw registryBadRequest(
      `Field \`choiceArguments\` does not contain a valid \`TransferFactory_Transfer\`: ${problems.join('; ')}`,
    );
  return { expectedAdmin, sender, receiver, instrumentId: { admin, id: String(instrument.id) } };
}

/** A contract id from the path, checked before it is looked up: what cannot be a contract id names no contract (404). */
export function contractIdOrNotFound(id: string, notFound: string): string {
  if (!isContractId(id)) throw registryNotFound(notFound);
  return id;
}
