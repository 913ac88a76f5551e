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
 * Rows of insert-only projections (and the event log itself), collected during a batch and written at its end, in one
 * statement: one data-modifying CTE per table, each `INSERT … SELECT * FROM unnest($1::type[], …)` with one array
 * parameter per column. The number of round trips per batch stays constant and Postgres parses a handful of parameters
 * whatever the batch size. Tables with array-typed columns (which `unnest` would flatten) fall back to multi-row VALUES.
 */
export class RowBuffer {
  private readonly tables = new Map<string, Row[]>();

  add(table: string, rows: readonly Row[]): void {
    if (rows.length === 0) return;
    let list = this.tables.get(table);
    if (!list) this.tables.set(table, (list = []));
    for (const r of rows) list.push(r);
  }

  get isEmpty(): boolean {
    return this.tables.size === 0;
  }

  /**
   * Executes the inserts of every buffered row on `db` (an open transaction), then clears the buffer. `tail`, if given, is
   * the main statement of the last statement (it runs in the same statement as the inserts; usually there is just one).
   */
  async flush(db: Kysely<any>, types: ColumnTypes, tail?: RawBuilder<unknown>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const ctes: Array<RawBuilder<unknown>> = [];
    let params = 0;
    const cut = async (last: boolean) => {
      if (ctes.length === 0 && !(last && tail)) return;
      const main = last && tail ? tail : sql`SELECT 1`;
      await (ctes.length ? sql`WITH ${sql.join(ctes, sql`, `)} ${main}` : main).execute(db);
      ctes.length = 0;
      params = 0;
    };
    const tables = [...this.tables];
    this.tables.clear();
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
        const cost = unnestable ? cols.length : cols.length * group.length;
        if (params > 0 && params + cost > MAX_PARAMS) await cut(false);
        const target = sql`${sql.table(table)} (${sql.join(cols.map((c) => sql.id(c)))})`;
        let insert: RawBuilder<unknown>;
        if (unnestable) {
          const arrays = cols.map((c) => {
            const type = colTypes.get(c)!;
            const json = type === 'jsonb' || type === 'json';
            const values = group.map((r) => {
              const v = r[c];
              return json && v !== null && v !== undefined && typeof v !== 'string' ? JSON.stringify(v) : v;
            });
            return sql`${values}::${sql.raw(type)}[]`;
          });
          insert = sql`INSERT INTO ${target} SELECT * FROM unnest(${sql.join(arrays)})`;
        } else {
          insert = sql`INSERT INTO ${target} VALUES ${sql.join(group.map((r) => sql`(${sql.join(cols.map((c) => r[c]))})`))}`;
        }
        ctes.push(sql`${sql.id(`w${ctes.length}`)} AS (${insert})`);
        params += cost;
      }
    }
    await cut(true);
  }
}
