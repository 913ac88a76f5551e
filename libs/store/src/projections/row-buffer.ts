import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import { preparedText } from '../database';

export type Row = Record<string, unknown>;

/**
 * The value of a json/jsonb column that repeats a column of a row another table inserts in the same batch (the event log's
 * `data`, repeated as `ledger_updates.payload`). When the flush that writes it also inserts that row, the value is taken
 * from the other insert's `RETURNING` inside the statement, so the text is sent and parsed once; otherwise (a rebuild, or
 * the other row written by an earlier statement) `text` is written as it is. Either way the stored value is the same.
 */
export class SameAs {
  private textMade?: string;
  private readonly makeText?: () => string;

  constructor(
    /** The JSON text (what is written when the other row is not in the same flush), or a function making it when needed. */
    text: string | (() => string),
    readonly table: string,
    readonly keyColumn: string,
    readonly key: string | number,
    readonly column: string,
    /** A path inside the other row's json value (`#>`): the value repeats that part of it. */
    readonly path?: readonly string[],
  ) {
    if (typeof text === 'string') this.textMade = text;
    else this.makeText = text;
  }

  get text(): string {
    return (this.textMade ??= this.makeText!());
  }
}

/** Column name → SQL type (`bigint`, `text`, `jsonb`, …) of the tables rows are buffered for; loaded once per table. */
export class ColumnTypes {
  private readonly known = new Map<string, Map<string, string>>();

  async of(db: Kysely<any>, table: string): Promise<Map<string, string>> { // eslint-disable-line @typescript-eslint/no-explicit-any
    let cols = this.known.get(table);
    if (!cols) {
      const { rows } = await sql<{ name: string; type: string }>`
        SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = ${table}::regclass AND attnum > 0 AND NOT attisdropped`.execute(db);
      cols = new Map(rows.map((r) => [r.name, r.type]));
      this.known.set(table, cols);
    }
    return cols;
  }
}

/**
 * A change to one existing row, found by its key (a missing row is left alone, as a plain UPDATE would). With `expect`,
 * the row must exist and still hold that value in that column (compare-and-set): otherwise the flush fails, and with it
 * the batch.
 */
export interface KeyedUpdate {
  readonly table: string;
  readonly key: { readonly column: string; readonly value: string };
  readonly set: Row;
  readonly expect?: { readonly column: string; readonly value: unknown };
}

/**
 * Rows of projections (and the event log itself), collected during a batch and written at its end, in one statement: one
 * data-modifying CTE per table and column set, each `INSERT … SELECT … FROM jsonb_to_recordset($1::jsonb)` or
 * `UPDATE … FROM jsonb_to_recordset(…)` with one parameter holding all its rows. The number of round trips per batch
 * stays constant and Postgres binds a handful of parameters whatever the batch size.
 *
 * All CTEs of a statement see the same snapshot, so one statement must not insert and update a row, or update it twice:
 * `touches` tells whether a key is already pending (for updates, and for inserts added with their key column), and the
 * caller writes the buffer first.
 */
export class RowBuffer {
  private readonly tables = new Map<string, Row[]>();
  private readonly updates = new Map<string, KeyedUpdate[]>();
  private readonly pendingKeys = new Set<string>();

  add(table: string, rows: readonly Row[], keyColumn?: string): void {
    if (rows.length === 0) return;
    let list = this.tables.get(table);
    if (!list) this.tables.set(table, (list = []));
    for (const r of rows) {
      list.push(r);
      if (keyColumn) this.pendingKeys.add(`${table}\u0000${String(r[keyColumn])}`);
    }
  }

  update(u: KeyedUpdate): void {
    const group = [u.table, u.key.column, u.expect?.column ?? '', ...Object.keys(u.set)].join('\u0000');
    let list = this.updates.get(group);
    if (!list) this.updates.set(group, (list = []));
    list.push(u);
    this.pendingKeys.add(`${u.table}\u0000${u.key.value}`);
  }

  /** Whether a row of `table` with this key is already inserted or updated by the buffer. */
  touches(table: string, key: string): boolean {
    return this.pendingKeys.has(`${table}\u0000${key}`);
  }

  /** Whether rows that decisions may read (rows of keyed tables, updates) are pending. */
  get hasStateRows(): boolean {
    return this.pendingKeys.size > 0;
  }

  get isEmpty(): boolean {
    return this.tables.size === 0 && this.updates.size === 0;
  }

  /**
   * Executes every buffered insert and update on `db` (an open transaction), then clears the buffer. `tail`, if given, is
   * one more data-modifying statement (`… RETURNING …`) that runs in the last statement; it must change exactly one row.
   * The statement itself checks the rows each compare-and-set update and the tail changed (`ledgerline_expect_rows`,
   * migration 0012): a mismatch fails the statement, and with it the transaction. With `thenCommit`, the connection sends
   * COMMIT right behind the statement without waiting for its answer (see `preparedText`): the flush must be the
   * transaction's last statement, and its caller must not fail the transaction once the flush has succeeded.
   */
  async flush(db: Kysely<any>, types: ColumnTypes, tail?: RawBuilder<unknown>, thenCommit = false): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
    // The statement's text is built here as a string, not from Kysely's sql fragments: its shape is ours and fixed, and
    // making and compiling a node per identifier was most of the writer's query-building CPU. Parameters: `$n`, in order.
    const params: unknown[] = [];
    const param = (v: unknown): string => {
      params.push(v);
      return `$${params.length}`;
    };
    const ctes: string[] = [];
    // CTEs whose row count is checked: name → expected rows
    const counted: Array<[string, number]> = [];
    const tables = [...this.tables];
    const updates = [...this.updates.values()];
    this.tables.clear();
    this.updates.clear();
    this.pendingKeys.clear();
    const refs = planReferences(tables);
    // Tables whose rows others reference come first: a CTE can only read the CTEs before it.
    tables.sort(([a], [b]) => Number(refs.sources.has(b)) - Number(refs.sources.has(a)));
    // table → the CTEs that insert its rows (with RETURNING of the referenced columns)
    const sourceCtes = new Map<string, string[]>();
    for (const [table, rows] of tables) {
      const colTypes = await types.of(db, table);
      // Rows of one table normally share their keys; group by key set so absent keys keep their column DEFAULT.
      const groups = new Map<string, Row[]>();
      for (const r of rows) {
        const key = Object.keys(r).join('\u0000');
        let g = groups.get(key);
        if (!g) groups.set(key, (g = []));
        g.push(r);
      }
      for (const [key, group] of groups) {
        const cols = key.split('\u0000');
        for (const c of cols) if (!colTypes.has(c)) throw new Error(`projection row for ${table} has unknown column ${c}`);
        const name = `w${ctes.length}`;
        const colList = cols.map(ident).join(', ');
        const target = `${ident(table)} (${colList})`;
        const source = refs.sources.get(table);
        const returning = source ? ` RETURNING ${[...source].map(ident).join(', ')}` : '';
        if (source) sourceCtes.set(table, [...(sourceCtes.get(table) ?? []), name]);
        // planReferences checked every row of the table, so the group's first row stands for it.
        const ref = refs.byGroup.get(group[0]);
        if (!ref || !sourceCtes.has(ref.table)) {
          ctes.push(`${ident(name)} AS (INSERT INTO ${target} SELECT ${colList} FROM ${recordset(cols, colTypes, inline(group), param)}${returning})`);
          continue;
        }
        // The referencing column comes from the source rows' RETURNING, joined on their key; the statement checks that
        // every row found its source (a missing one would otherwise be dropped silently).
        const refCol = ref.column;
        const keyType = (await types.of(db, ref.table)).get(ref.keyColumn)!;
        const recCols = cols.map((c) => (c === refCol ? REF_KEY : c));
        const recTypes = new Map(colTypes);
        recTypes.set(REF_KEY, keyType);
        if (ref.path) {
          recCols.push(REF_PATH);
          recTypes.set(REF_PATH, 'text[]');
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
        ctes.push(`${ident(name)} AS (INSERT INTO ${target} SELECT ${select} FROM ${recordset(recCols, recTypes, recRows, param)} JOIN (${from}) AS src ON src.k = x.${ident(REF_KEY)} RETURNING 1)`);
        counted.push([name, group.length]);
      }
    }
    for (const group of updates) {
      const { table, key, expect } = group[0];
      const colTypes = await types.of(db, table);
      const setCols = Object.keys(group[0].set);
      for (const c of [key.column, ...setCols, ...(expect ? [expect.column] : [])]) {
        if (!colTypes.has(c)) throw new Error(`projection update of ${table} has unknown column ${c}`);
      }
      // v.k: the key, v.sN: the new values, v.e: the expected value
      const cols = ['k', ...setCols.map((_, i) => `s${i}`), ...(expect ? ['e'] : [])];
      const types2 = new Map<string, string>([
        ['k', colTypes.get(key.column)!],
        ...setCols.map((c, i): [string, string] => [`s${i}`, colTypes.get(c)!]),
        ...(expect ? [['e', colTypes.get(expect.column)!] as [string, string]] : []),
      ]);
      const rows = group.map((u) => {
        const r: Row = { k: u.key.value };
        setCols.forEach((c, i) => (r[`s${i}`] = u.set[c]));
        if (expect) r.e = u.expect!.value;
        return r;
      });
      const name = `w${ctes.length}`;
      const assignments = setCols.map((c, i) => `${ident(c)} = v.${ident(`s${i}`)}`).join(', ');
      const where = expect ? `t.${ident(key.column)} = v.k AND t.${ident(expect.column)} = v.e` : `t.${ident(key.column)} = v.k`;
      ctes.push(`${ident(name)} AS (UPDATE ${ident(table)} AS t SET ${assignments}
        FROM ${recordset(cols, types2, rows, param, 'v')} WHERE ${where}${expect ? ' RETURNING 1' : ''})`);
      if (expect) counted.push([name, group.length]);
    }
    if (tail) {
      // The tail's own parameters ($1…) follow ours.
      const compiled = tail.compile(db);
      const shift = params.length;
      params.push(...compiled.parameters);
      counted.push([`w${ctes.length}`, 1]);
      ctes.push(`${ident(`w${ctes.length}`)} AS (${compiled.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`)})`);
    }
    if (ctes.length === 0) return;
    // The expected counts are parameters: the statement's text stays the same whatever the batch holds (prepared statements).
    const main = counted.length
      ? `SELECT ${counted.map(([name, expected]) => `ledgerline_expect_rows('${name}', (SELECT count(*) FROM ${ident(name)}), ${param(expected)}::bigint)`).join(', ')}`
      : 'SELECT 1';
    const text = preparedText(`WITH ${ctes.join(', ')} ${main}`, { commitAfter: thenCommit });
    await db.executeQuery(CompiledQuery.raw(text, params));
  }
}

/**
 * The rows as one `jsonb` parameter expanded by `jsonb_to_recordset`, typed per column. The JSON is built by hand so that
 * values of json/jsonb columns that are already JSON text (event payloads) are embedded as they are, not escaped again
 * (and parsed once, by Postgres); array columns take JSON arrays.
 */
function recordset(cols: readonly string[], colTypes: ReadonlyMap<string, string>, rows: readonly Row[], param: (v: unknown) => string, alias = 'x'): string {
  const json = cols.map((c) => colTypes.get(c) === 'jsonb' || colTypes.get(c) === 'json');
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
  const defs = cols.map((c) => `${ident(c)} ${colTypes.get(c)!}`).join(', ');
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
 * referenced row (table and key) is among the rows this flush inserts. `sources`: table → the columns to return.
 */
function planReferences(tables: ReadonlyArray<[string, Row[]]>): { sources: Map<string, Set<string>>; byGroup: Map<Row, Reference> } {
  const sources = new Map<string, Set<string>>();
  const byGroup = new Map<Row, Reference>();
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
      // Rows of one table share their columns (grouped by key set in flush): the first row stands for its group.
      const ref: Reference = { table: v.table, keyColumn: v.keyColumn, sourceColumn: v.column, column, path: v.path !== undefined };
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
function inline(rows: readonly Row[]): readonly Row[] {
  if (!rows.some((r) => Object.values(r).some((v) => v instanceof SameAs))) return rows;
  return rows.map((r) => {
    const out: Row = {};
    for (const c in r) {
      const v = r[c];
      out[c] = v instanceof SameAs ? v.text : v;
    }
    return out;
  });
}
