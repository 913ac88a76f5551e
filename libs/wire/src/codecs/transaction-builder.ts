import { invalidIdentifierMessage, parseTemplateRef, type TransactionCommand } from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';

/** The JSON schema of a `commands` array (each element one command, keyed by its name, without a `value` wrapper). */
export const commandsSchema = { type: 'array', items: { type: 'object', minProperties: 1, maxProperties: 1 } } as const;

const COMMAND_KINDS = ['CreateAndExerciseCommand', 'CreateCommand', 'ExerciseByKeyCommand', 'ExerciseCommand'];

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function requiredString(o: Obj, key: string, at: string): string {
  const v = o[key];
  if (v === undefined) throw bodyDecodeError('Missing required field', `${at}.${key}`);
  if (typeof v !== 'string') throw bodyDecodeError('Got value with wrong type, expecting string', `${at}.${key}`);
  return v;
}

function required(o: Obj, key: string, at: string): unknown {
  if (!(key in o)) throw bodyDecodeError('Missing required field', `${at}.${key}`);
  return o[key];
}

function templateOf(o: Obj, at: string) {
  const templateId = requiredString(o, 'templateId', at);
  const template = parseTemplateRef(templateId);
  if (!template) throw bodyDecodeError(invalidIdentifierMessage(templateId), `${at}.templateId`);
  return { templateId, template };
}

/**
 * Decodes `commands[i]` (one key, the command's name); decode errors as the JSON API reports them, at `prefix` +
 * `commands[i]…` in the body.
 */
export function commandFromJs(c: Obj, i: number, prefix = ''): TransactionCommand {
  const [name] = Object.keys(c);
  const at = `${prefix}commands[${i}].${name}`;
  if (!COMMAND_KINDS.includes(name))
    throw bodyDecodeError(
      `Unknown command ${name}. Supported: [${COMMAND_KINDS.join(', ')}]`,
      `${prefix}commands[${i}]`,
    );
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
    return { kind: 'exercise', ...t, contractId, choice, choiceArgument: required(body, 'choiceArgument', at) };
  }
  if (name === 'CreateAndExerciseCommand') {
    const t = templateOf(body, at);
    const createArguments = required(body, 'createArguments', at);
    const choice = requiredString(body, 'choice', at);
    return {
      kind: 'createAndExercise',
      ...t,
      createArguments,
      choice,
      choiceArgument: required(body, 'choiceArgument', at),
    };
  }
  const t = templateOf(body, at);
  const contractKey = required(body, 'contractKey', at);
  const choice = requiredString(body, 'choice', at);
  return { kind: 'exerciseByKey', ...t, contractKey, choice, choiceArgument: required(body, 'choiceArgument', at) };
}
