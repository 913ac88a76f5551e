import { RIGHT_KINDS, type Right } from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';

/** Wire form of a Right: `{"kind":{"CanActAs":{"value":{"party":"…"}}}}`. */
export type JsRight = { kind: Record<string, { value?: { party?: string } }> };

export const rightSchema = {
  type: 'object',
  properties: { kind: { type: 'object', minProperties: 1, maxProperties: 1 } },
} as const;

export function rightToJs(r: Right): JsRight {
  return { kind: { [r.kind]: { value: 'party' in r ? { party: r.party } : {} } } };
}

/** Decodes a list of wire rights; `Empty` kinds are dropped, unknown kinds are decode errors. */
export function rightsFromJs(list: unknown, at: string): Right[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw bodyDecodeError('Got value which is not an array', at);
  const out: Right[] = [];
  list.forEach((item, i) => {
    const kind = (item as JsRight | undefined)?.kind;
    const keys = kind && typeof kind === 'object' ? Object.keys(kind) : [];
    if (keys.length !== 1) throw bodyDecodeError('Expected a Right with exactly one kind', `${at}[${i}].kind`);
    const name = keys[0];
    if (name === 'Empty') return;
    if (!(RIGHT_KINDS as readonly string[]).includes(name))
      throw bodyDecodeError(`Unknown right kind ${name}`, `${at}[${i}].kind`);
    if (name === 'CanActAs' || name === 'CanReadAs' || name === 'CanExecuteAs') {
      const party = kind![name]?.value?.party;
      if (typeof party !== 'string')
        throw bodyDecodeError('Missing required field', `${at}[${i}].kind.${name}.value.party`);
      out.push({ kind: name, party });
    } else {
      out.push({ kind: name } as Right);
    }
  });
  return out;
}
