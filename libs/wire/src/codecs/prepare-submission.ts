import { invalidIdentifierMessage, parseTemplateRef, type PrepareCommand, type PrepareRequest } from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import { enumFromJs } from './crypto';
import { HASHING_SCHEME_VERSIONS } from './execute-submission';

/** JSON schema of JsPrepareSubmissionRequest (the fields Ledgerline reads; unknown fields are ignored, as Canton does). */
export const prepareRequestSchema = {
  type: 'object',
  required: ['commandId', 'commands', 'actAs'],
  properties: {
    userId: { type: 'string' },
    commandId: { type: 'string' },
    commands: { type: 'array', items: { type: 'object', minProperties: 1, maxProperties: 1 } },
    actAs: { type: 'array', items: { type: 'string' } },
    readAs: { type: 'array', items: { type: 'string' } },
    disclosedContracts: { type: 'array' },
    synchronizerId: { type: 'string' },
    packageIdSelectionPreference: { type: 'array', items: { type: 'string' } },
    verboseHashing: { type: 'boolean' },
    maxRecordTime: { type: 'string' },
    minLedgerTime: { type: 'object' },
    hashingSchemeVersion: { type: 'string' },
  },
} as const;


const COMMAND_KINDS = ['CreateAndExerciseCommand', 'CreateCommand', 'ExerciseByKeyCommand', 'ExerciseCommand'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function requiredString(o: Obj, key: string, at: string): string {
  const v = o[key];
  if (v === undefined) throw bodyDecodeError('Missing required field', `${at}.${key}`);
  if (typeof v !== 'string') throw bodyDecodeError('Got value with wrong type, expecting string', `${at}.${key}`);
  return v;
}

function templateOf(o: Obj, at: string) {
  const templateId = requiredString(o, 'templateId', at);
  const template = parseTemplateRef(templateId);
  if (!template) throw bodyDecodeError(invalidIdentifierMessage(templateId), `${at}.templateId`);
  return { templateId, template };
}

function commandFromJs(c: Obj, i: number): PrepareCommand {
  const [name] = Object.keys(c);
  const at = `commands[${i}].${name}`;
  if (!COMMAND_KINDS.includes(name)) throw bodyDecodeError(`Unknown command ${name}. Supported: [${COMMAND_KINDS.join(', ')}]`, `commands[${i}]`);
  const body = c[name];
  if (!isObj(body)) throw bodyDecodeError('Got value with wrong type, expecting object', at);
  if (name === 'CreateCommand') {
    if (!('createArguments' in body)) throw bodyDecodeError('Missing required field', `${at}.createArguments`);
    return { kind: 'create', ...templateOf(body, at), createArguments: body.createArguments };
  }
  if (name === 'ExerciseCommand') {
    const t = templateOf(body, at);
    const contractId = requiredString(body, 'contractId', at);
    const choice = requiredString(body, 'choice', at);
    if (!('choiceArgument' in body)) throw bodyDecodeError('Missing required field', `${at}.choiceArgument`);
    return { kind: 'exercise', ...t, contractId, choice, choiceArgument: body.choiceArgument };
  }
  return { kind: 'unsupported', name };
}

function minLedgerTimeFromJs(v: unknown): PrepareRequest['minLedgerTime'] {
  if (!isObj(v) || !isObj(v.time)) return null;
  const t = v.time;
  if (isObj(t.MinLedgerTimeAbs)) {
    const value = t.MinLedgerTimeAbs.value;
    if (typeof value !== 'string') throw bodyDecodeError('Got value with wrong type, expecting string', 'minLedgerTime.time.MinLedgerTimeAbs.value');
    return { abs: value };
  }
  if (isObj(t.MinLedgerTimeRel)) {
    const d = t.MinLedgerTimeRel.value;
    const seconds = isObj(d) ? Number(d.seconds ?? 0) + Number(d.nanos ?? 0) / 1e9 : NaN;
    if (!Number.isFinite(seconds)) throw bodyDecodeError('Expected a Duration {seconds, nanos}', 'minLedgerTime.time.MinLedgerTimeRel.value');
    return { relSeconds: seconds };
  }
  return null;
}

/** Decodes a body validated by `prepareRequestSchema`. `userId` is the request's (MatchUserId runs later). */
export function prepareRequestFromJs(body: Obj): PrepareRequest {
  const commands = (body.commands as Obj[]).map(commandFromJs);
  return {
    userId: (body.userId as string | undefined) ?? '',
    commandId: body.commandId as string,
    commands,
    actAs: body.actAs as string[],
    readAs: (body.readAs as string[] | undefined) ?? [],
    synchronizerId: (body.synchronizerId as string | undefined) ?? '',
    hashingSchemeVersion: enumFromJs(body.hashingSchemeVersion, HASHING_SCHEME_VERSIONS, 'hashingSchemeVersion'),
    maxRecordTime: (body.maxRecordTime as string | undefined) ?? '',
    minLedgerTime: minLedgerTimeFromJs(body.minLedgerTime),
    verboseHashing: (body.verboseHashing as boolean | undefined) ?? false,
  };
}
