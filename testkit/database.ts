import { Client } from 'pg';

/** The connection string `url` with its database replaced by `db`. */
export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Runs one statement (CREATE or DROP DATABASE …) on its own connection to `url`. */
export async function adminQuery(url: string, q: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(q);
  } finally {
    await client.end();
  }
}
