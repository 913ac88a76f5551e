/**
 * Tokens of Daml-LF text as Canton's test parser reads it (`daml-lf/parser/…/testing/parser/Lexer.scala`): punctuation,
 * identifiers and keywords, `'simple strings'` (package ids, names, versions), `"text"`, timestamps, dates, numerics and
 * numbers; `//` and `/* … *\/` comments are whitespace.
 */

export class LfTextError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly col: number,
  ) {
    super(`${line}:${col}: ${message}`);
    this.name = 'LfTextError';
  }
}

export type Token =
  | { kind: 'punct'; value: string; line: number; col: number }
  | { kind: 'id'; value: string; line: number; col: number }
  | { kind: 'keyword'; value: string; line: number; col: number }
  | { kind: 'simpleString'; value: string; line: number; col: number }
  | { kind: 'text'; value: string; line: number; col: number }
  | { kind: 'timestamp'; value: string; line: number; col: number }
  | { kind: 'date'; value: string; line: number; col: number }
  | { kind: 'numeric'; value: string; line: number; col: number }
  | { kind: 'number'; value: string; line: number; col: number }
  | { kind: 'contractId'; value: string; line: number; col: number }
  | { kind: 'eof'; value: ''; line: number; col: number };

export const KEYWORDS = new Set([
  'Cons',
  'Nil',
  'Some',
  'None',
  'forall',
  'let',
  'in',
  'with',
  'case',
  'of',
  'to',
  'to_any',
  'from_any',
  'type_rep',
  'loc',
  'to_any_exception',
  'from_any_exception',
  'throw',
  'catch',
  'to_interface',
  'to_required_interface',
  'from_interface',
  'from_required_interface',
  'unsafe_from_interface',
  'unsafe_from_required_interface',
  'call_method',
  'interface_template_type_rep',
  'signatory_interface',
  'observer_interface',
  'view_interface',
  'choice_controller',
  'choice_observer',
  'fail_with_status',
]);

const PUNCT = [
  '->',
  '<-',
  '@',
  '\\',
  '/\\',
  '.',
  ':',
  ',',
  ';',
  '(',
  ')',
  '<',
  '>',
  '{',
  '}',
  '[',
  ']',
  '*',
  '=',
  '||',
  '|',
];

const RULES: Array<[Token['kind'], RegExp]> = [
  ['id', /[a-zA-Z_$][\w$]*/y],
  ['contractId', /#\w+/y],
  ['simpleString', /'([^\\']|\\'|\\\\)+'/y],
  ['text', /"([^\\"]|\\n|\\r|\\"|\\'|\\\\)*"/y],
  ['timestamp', /\d+-\d+-\d+T\d+:\d+:\d+(\.\d+)?Z/y],
  ['date', /\d{4}-\d{2}-\d{2}/y],
  ['numeric', /-?\d+\.\d*/y],
  ['number', /-?\d+/y],
];

const WHITESPACE = /(\s|\/\/.*|\/\*(\*(?!\/)|[^*])*\*\/)+/y;

function unescape(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
}

export function lex(src: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  const advance = (to: number) => {
    for (let i = pos; i < to; i++)
      if (src.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    pos = to;
  };
  while (true) {
    WHITESPACE.lastIndex = pos;
    if (WHITESPACE.exec(src)) advance(WHITESPACE.lastIndex);
    if (pos >= src.length) break;
    const col = pos - lineStart + 1;
    // punctuation first, longest match (no punctuation starts with a digit or '-' but '->', so numbers are not taken)
    let punct: string | undefined;
    for (const p of PUNCT) if (src.startsWith(p, pos) && (!punct || p.length > punct.length)) punct = p;
    if (punct) {
      out.push({ kind: 'punct', value: punct, line, col });
      advance(pos + punct.length);
      continue;
    }
    let matched = false;
    for (const [kind, re] of RULES) {
      re.lastIndex = pos;
      const m = re.exec(src);
      if (!m) continue;
      const raw = m[0];
      let value = raw;
      let k = kind;
      if (kind === 'id' && KEYWORDS.has(raw)) k = 'keyword';
      if (kind === 'simpleString' || kind === 'text') value = unescape(raw.slice(1, -1));
      if (kind === 'contractId') value = raw.slice(1);
      out.push({ kind: k, value, line, col } as Token);
      advance(pos + raw.length);
      matched = true;
      break;
    }
    if (!matched) throw new LfTextError(`unexpected character ${JSON.stringify(src[pos])}`, line, col);
  }
  out.push({ kind: 'eof', value: '', line, col: pos - lineStart + 1 });
  return out;
}
