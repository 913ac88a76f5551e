import type { ColumnTypeMap, SqlType } from '../column-types';
import { SameAs } from '../projections/projection';
import type { AnyRow, AnyUpdate, BufferedWrites } from './row-buffer';

/** A statement's text and its parameters ($1, $2, … in order). */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/** Adds a parameter and returns its placeholder (`$n`). */
export type Param = (value: unknown) => string;

/**
 * The one statement that writes buffered rows and updates: one data-modifying CTE per table and column set, each
 * `INSERT … SELECT … FROM jsonb_to_recordset($n::jsonb)` or `UPDATE … FROM jsonb_to_recordset(…)`, with one parameter
 * holding all its rows. The number of round trips per batch stays constant, and Postgres binds a handful of parameters
 * whatever the batch size.
 *
 * `tail`, if given, is one more data-modifying statement (`… RETURNING …`, parameters through `param`) that must change
 * exactly one row. The statement checks the rows each compare-and-set update and the tail changed
 * (`ledgerline_expect_rows`, migration 0012): a mismatch fails it, and with it the transaction. The expected counts are
 * parameters, so the text depends only on the shape of what is written (it runs as a named prepared statement).
 *
 * The text is built as a string, not with Kysely's sql fragments: its shape is ours and fixed, and making and compiling a
 * node per identifier was most of the writer's query-building CPU. Column types come from `columns` (column-types.ts).
 * Returns null when there is nothing to write.
 */
export function buildWriteStatement<D>(
  writes: BufferedWrites,
  columns: ColumnTypeMap<D>,
  tail?: (param: Param) => string,
): Statement | null {
  const catalog = columns as unknown as Readonly<Record<string, Readonly<Record<string, SqlType>>>>;
  const typesOf = (table: string): Readonly<Record<string, SqlType>> => {
    const t = catalog[table];
    if (!t) throw new Error(`no column types for table ${table}`);
    return t;
  };
  const values: unknown[] = [];
  const param: Param = (v) => {
    values.push(v);
    return `$${values.length}`;
  };
  const ctes: string[] = [];
  // CTEs whose row count is checked: name → expected rows
  const counted: Array<[string, number]> = [];
  const tables = [...writes.tables];
  const refs = planReferences(tables);
  // Tables whose rows others reference come first: a CTE can only read the CTEs before it.
  tables.sort(([a], [b]) => Number(refs.sources.has(b)) - Number(refs.sources.has(a)));
  // table → the CTEs that insert its rows (with RETURNING of the referenced columns)
  const sourceCtes = new Map<string, string[]>();
  for (const [table, rows] of tables) {
    const colTypes = typesOf(table);
    for (const [key, group] of groupByColumns(rows)) {
      const cols = key.split('\u0000');
      for (const c of cols)
        if (!Object.hasOwn(colTypes, c)) throw new Error(`row for ${table} has unknown column ${c}`);
      const name = `w${ctes.length}`;
      const colList = cols.map(ident).join(', ');
      const target = `${ident(table)} (${colList})`;
      const source = refs.sources.get(table);
      const returning = source ? ` RETURNING ${[...source].map(ident).join(', ')}` : '';
      if (source) sourceCtes.set(table, [...(sourceCtes.get(table) ?? []), name]);
      // planReferences checked every row of the table, so the group's first row stands for it.
      const ref = refs.byGroup.get(group[0]);
      if (!ref || !sourceCtes.has(ref.table)) {
        const recordTypes = cols.map((c) => colTypes[c]);
        ctes.push(
          `${ident(name)} AS (INSERT INTO ${target} SELECT ${colList} FROM ${recordset(cols, recordTypes, inline(group), param)}${returning})`,
        );
        continue;
      }
      // The referencing column comes from the source rows' RETURNING, joined on their key; the statement checks that
      // every row found its source (a missing one would otherwise be dropped silently).
      const refCol = ref.column;
      const recCols = cols.map((c) => (c === refCol ? REF_KEY : c));
      const recTypes = cols.map((c) => (c === refCol ? typesOf(ref.table)[ref.keyColumn] : colTypes[c]));
      if (ref.path) {
        recCols.push(REF_PATH);
        recTypes.push('text[]');
      }
      const recRows = group.map((r) => {
        const same = r[refCol] as SameAs;
        return ref.path ? { ...r, [REF_KEY]: same.key, [REF_PATH]: same.path } : { ...r, [REF_KEY]: same.key };
      });
      const from = sourceCtes
        .get(ref.table)!
        .map((s) => `SELECT ${ident(ref.keyColumn)} AS k, ${ident(ref.sourceColumn)} AS v FROM ${ident(s)}`)
        .join(' UNION ALL ');
      const value = ref.path ? `src.v #> x.${ident(REF_PATH)}` : 'src.v';
      const select = cols.map((c) => (c === refCol ? value : `x.${ident(c)}`)).join(', ');
      ctes.push(
        `${ident(name)} AS (INSERT INTO ${target} SELECT ${select} FROM ${recordset(recCols, recTypes, recRows, param)} JOIN (${from}) AS src ON src.k = x.${ident(REF_KEY)} RETURNING 1)`,
      );
      counted.push([name, group.length]);
    }
  }
  for (const group of writes.updates) {
    const { table, key, expect } = group[0];
    const colTypes = typesOf(table);
    const setCols = Object.keys(group[0].set);
    for (const c of [key.column, ...setCols, ...(expect ? [expect.column] : [])]) {
      if (!Object.hasOwn(colTypes, c)) throw new Error(`update of ${table} has unknown column ${c}`);
    }
    // v.k: the key, v.sN: the new values, v.e: the expected value
    const cols = ['k', ...setCols.map((_, i) => `s${i}`), ...(expect ? ['e'] : [])];
    const types = [
      colTypes[key.column],
      ...setCols.map((c) => colTypes[c]),
      ...(expect ? [colTypes[expect.column]] : []),
    ];
    const rows = group.map((u: AnyUpdate) => {
      const r: Record<string, unknown> = { k: u.key.value };
      setCols.forEach((c, i) => (r[`s${i}`] = u.set[c]));
      if (expect) r.e = u.expect!.value;
      return r;
    });
    const name = `w${ctes.length}`;
    const assignments = setCols.map((c, i) => `${ident(c)} = v.${ident(`s${i}`)}`).join(', ');
    const where = expect
      ? `t.${ident(key.column)} = v.k AND t.${ident(expect.column)} = v.e`
      : `t.${ident(key.column)} = v.k`;
    // The LIMIT gives the planner the key count (it assumes 100 rows from a set-returning function), so the keys are
    // looked up by index instead of a hash join over the whole table, whose cost grows with the ledger.
    const keys = `(SELECT * FROM ${recordset(cols, types, rows, param, 'r')} LIMIT ${rows.length}) AS v`;
    ctes.push(`${ident(name)} AS (UPDATE ${ident(table)} AS t SET ${assignments}
        FROM ${keys} WHERE ${where}${expect ? ' RETURNING 1' : ''})`);
    if (expect) counted.push([name, group.length]);
  }
  if (tail) {
    const name = `w${ctes.length}`;
    counted.push([name, 1]);
    ctes.push(`${ident(name)} AS (${tail(param)})`);
  }
  if (ctes.length === 0) return null;
  const main = counted.length
    ? `SELECT ${counted.map(([name, expected]) => `ledgerline_expect_rows('${name}', (SELECT count(*) FROM ${ident(name)}), ${param(expected)}::bigint)`).join(', ')}`
    : 'SELECT 1';
  return { text: `WITH ${ctes.join(', ')} ${main}`, values };
}

/** Rows grouped by their column set (rows of one table normally share it; an absent column keeps its DEFAULT). */
function groupByColumns(rows: readonly AnyRow[]): Map<string, AnyRow[]> {
  const groups = new Map<string, AnyRow[]>();
  for (const r of rows) {
    const key = Object.keys(r).join('\u0000');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(r);
  }
  return groups;
}

/**
 * The rows as one `jsonb` parameter expanded by `jsonb_to_recordset`, typed per column. The JSON is built by hand so that
 * values of jsonb columns that are already JSON text (event payloads) are embedded as they are, not escaped again (and
 * parsed once, by Postgres); array columns take JSON arrays.
 */
function recordset(
  cols: readonly string[],
  types: readonly SqlType[],
  rows: readonly AnyRow[],
  param: Param,
  alias = 'x',
): string {
  const json = types.map((t) => t === 'jsonb');
  const names = cols.map((c) => JSON.stringify(c) + ':');
  const parts: string[] = [];
  for (const r of rows) {
    let out = '{';
    for (let i = 0; i < cols.length; i++) {
      const v = r[cols[i]];
      const enc =
        v === null || v === undefined
          ? 'null'
          : json[i] && typeof v === 'string'
            ? v
            : typeof v === 'bigint'
              ? `"${v}"`
              : JSON.stringify(v);
      out += (i ? ',' : '') + names[i] + enc;
    }
    parts.push(out + '}');
  }
  const defs = cols.map((c, i) => `${ident(c)} ${types[i]}`).join(', ');
  return `jsonb_to_recordset(${param('[' + parts.join(',') + ']')}::jsonb) AS ${ident(alias)}(${defs})`;
}

/** A quoted SQL identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const REF_KEY = 'ledgerline_ref_key';
const REF_PATH = 'ledgerline_ref_path';

interface Reference {
  readonly table: string;
  readonly keyColumn: string;
  readonly sourceColumn: string;
  /** The referencing column. */
  readonly column: string;
  /** Whether the rows take a part of the source value (SameAs.path). */
  readonly path: boolean;
}

/**
 * Which groups of rows can take a SameAs column from another table's insert in the same statement: those whose every
 * referenced row (table and key) is among the rows this statement inserts. `sources`: table → the columns to return.
 */
function planReferences(tables: ReadonlyArray<readonly [string, readonly AnyRow[]]>): {
  sources: Map<string, Set<string>>;
  byGroup: Map<AnyRow, Reference>;
} {
  const sources = new Map<string, Set<string>>();
  const byGroup = new Map<AnyRow, Reference>();
  let keysOf: Map<string, Set<string>> | undefined;
  for (const [table, rows] of tables) {
    const first = rows[0];
    for (const column in first) {
      const v = first[column];
      if (!(v instanceof SameAs)) continue;
      keysOf ??= new Map();
      let keys = keysOf.get(`${v.table}\u0000${v.keyColumn}`);
      if (!keys) {
        keys = new Set((tables.find(([t]) => t === v.table)?.[1] ?? []).map((r) => String(r[v.keyColumn])));
        keysOf.set(`${v.table}\u0000${v.keyColumn}`, keys);
      }
      const all = rows.every((r) => {
        const o = r[column];
        return (
          o instanceof SameAs &&
          o.table === v.table &&
          o.keyColumn === v.keyColumn &&
          o.column === v.column &&
          (o.path === undefined) === (v.path === undefined) &&
          keys.has(String(o.key))
        );
      });
      if (!all || table === v.table) continue;
      // Rows of one table share their columns (grouped by column set): the first row stands for its group.
      const ref: Reference = {
        table: v.table,
        keyColumn: v.keyColumn,
        sourceColumn: v.column,
        column,
        path: v.path !== undefined,
      };
      for (const r of rows) byGroup.set(r, ref);
      let cols = sources.get(v.table);
      if (!cols) sources.set(v.table, (cols = new Set()));
      cols.add(v.keyColumn).add(v.column);
      break; // one reference per table's rows
    }
  }
  return { sources, byGroup };
}

/** Rows with every SameAs value replaced by its text. */
function inline(rows: readonly AnyRow[]): readonly AnyRow[] {
  if (!rows.some((r) => Object.values(r).some((v) => v instanceof SameAs))) return rows;
  return rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const c in r) {
      const v = r[c];
      out[c] = v instanceof SameAs ? v.text : v;
    }
    return out;
  });
}
