import { sql, type Kysely, type RawBuilder } from 'kysely';

export type Row = Record<string, unknown>;

/** Bind parameters per statement: Postgres caps a statement at 65 535; stay well below. */
const MAX_PARAMS = 30_000;

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
 * data-modifying CTE per table and column set, each `INSERT … SELECT * FROM unnest($1::type[], …)` or
 * `UPDATE … FROM unnest(…)` with one array parameter per column. The number of round trips per batch stays constant and
 * Postgres parses a handful of parameters whatever the batch size. Tables with array-typed columns (which `unnest` would
 * flatten) fall back to multi-row VALUES for inserts.
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
   */
  async flush(db: Kysely<any>, types: ColumnTypes, tail?: RawBuilder<unknown>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const ctes: Array<RawBuilder<unknown>> = [];
    // CTEs whose row count is checked: name → expected rows
    const counted: Array<[string, number]> = [];
    let params = 0;
    const cut = async (last: boolean) => {
      if (last && tail) {
        counted.push([`w${ctes.length}`, 1]);
        ctes.push(sql`${sql.id(`w${ctes.length}`)} AS (${tail})`);
      }
      if (ctes.length === 0) return;
      const main = counted.length
        ? sql`SELECT ${sql.join(counted.map(([name]) => sql`(SELECT count(*) FROM ${sql.id(name)})::int AS ${sql.id(name)}`))}`
        : sql`SELECT 1`;
      const { rows } = await sql<Record<string, number>>`WITH ${sql.join(ctes, sql`, `)} ${main}`.execute(db);
      for (const [name, expected] of counted) {
        if (rows[0][name] !== expected) {
          throw new Error(`projection write ${name} changed ${rows[0][name]} rows, expected ${expected} (a row was missing or no longer matched)`);
        }
      }
      ctes.length = 0;
      counted.length = 0;
      params = 0;
    };
    const tables = [...this.tables];
    const updates = [...this.updates.values()];
    this.tables.clear();
    this.updates.clear();
    this.pendingKeys.clear();
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
        const unnestable = cols.every((c) => !colTypes.get(c)!.endsWith(']'));
        const target = sql`${sql.table(table)} (${sql.join(cols.map((c) => sql.id(c)))})`;
        if (unnestable) {
          // One array parameter per column, whatever the number of rows.
          if (params > 0 && params + cols.length > MAX_PARAMS) await cut(false);
          const arrays = cols.map((c) => arrayParam(colTypes.get(c)!, group.map((r) => r[c])));
          ctes.push(sql`${sql.id(`w${ctes.length}`)} AS (INSERT INTO ${target} SELECT * FROM unnest(${sql.join(arrays)}))`);
          params += cols.length;
        } else {
          // One parameter per value: split into statements below the limit.
          const perChunk = Math.max(1, Math.floor(MAX_PARAMS / cols.length));
          for (let i = 0; i < group.length; i += perChunk) {
            const chunk = group.slice(i, i + perChunk);
            if (params > 0 && params + chunk.length * cols.length > MAX_PARAMS) await cut(false);
            const values = chunk.map((r) => sql`(${sql.join(cols.map((c) => r[c]))})`);
            ctes.push(sql`${sql.id(`w${ctes.length}`)} AS (INSERT INTO ${target} VALUES ${sql.join(values)})`);
            params += chunk.length * cols.length;
          }
        }
      }
    }
    for (const group of updates) {
      const { table, key, expect } = group[0];
      const colTypes = await types.of(db, table);
      const setCols = Object.keys(group[0].set);
      const cols = [key.column, ...setCols, ...(expect ? [expect.column] : [])];
      for (const c of cols) if (!colTypes.has(c)) throw new Error(`projection update of ${table} has unknown column ${c}`);
      if (params > 0 && params + cols.length > MAX_PARAMS) await cut(false);
      const alias = (i: number) => sql.id(`c${i}`);
      const arrays = [
        arrayParam(colTypes.get(key.column)!, group.map((u) => u.key.value)),
        ...setCols.map((c) => arrayParam(colTypes.get(c)!, group.map((u) => u.set[c]))),
        ...(expect ? [arrayParam(colTypes.get(expect.column)!, group.map((u) => u.expect!.value))] : []),
      ];
      const name = `w${ctes.length}`;
      const assignments = setCols.map((c, i) => sql`${sql.id(c)} = v.${alias(i + 1)}`);
      const where = expect
        ? sql`t.${sql.id(key.column)} = v.${alias(0)} AND t.${sql.id(expect.column)} = v.${alias(cols.length - 1)}`
        : sql`t.${sql.id(key.column)} = v.${alias(0)}`;
      ctes.push(sql`${sql.id(name)} AS (UPDATE ${sql.table(table)} AS t SET ${sql.join(assignments)}
        FROM unnest(${sql.join(arrays)}) AS v(${sql.join(cols.map((_, i) => alias(i)))}) WHERE ${where}${expect ? sql` RETURNING 1` : sql``})`);
      if (expect) counted.push([name, group.length]);
      params += cols.length;
    }
    await cut(true);
  }
}

/** One `$n::type[]` parameter holding a column's values (JSON values serialised for json/jsonb columns). */
function arrayParam(type: string, values: unknown[]): RawBuilder<unknown> {
  if (type.endsWith(']')) throw new Error(`array-typed column (${type}) cannot be written through unnest`);
  const json = type === 'jsonb' || type === 'json';
  const vs = json ? values.map((v) => (v !== null && v !== undefined && typeof v !== 'string' ? JSON.stringify(v) : v)) : values;
  return sql`${vs}::${sql.raw(type)}[]`;
}
