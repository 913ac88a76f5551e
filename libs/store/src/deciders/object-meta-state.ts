import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

/** A record with object metadata to update (a party record, a user), and the identity provider the update names. */
export interface ObjectMetaKey {
  id: string;
  identityProviderId: string;
}

/**
 * The state of a metadata update (`decideObjectMetaUpdate`) for many keys in one statement: each record's row (as JSON,
 * null if absent) and whether the named identity provider exists ('' always does).
 */
export async function loadObjectMetaState<Row>(
  db: Kysely<DB>,
  table: 'party_details' | 'users',
  idColumn: 'party' | 'id',
  keys: readonly ObjectMetaKey[],
): Promise<Array<{ row: Row | null; identityProviderExists: boolean }>> {
  const { rows } = await prepared(sql<{ record: Row | null; idp_exists: boolean }>`
    SELECT (SELECT to_jsonb(r) FROM ${sql.table(table)} r WHERE ${sql.ref(`r.${idColumn}`)} = k.id) AS record,
           (k.idp = '' OR EXISTS (SELECT 1 FROM identity_providers i WHERE i.id = k.idp)) AS idp_exists
    FROM unnest(${keys.map((k) => k.id)}::text[], ${keys.map((k) => k.identityProviderId)}::text[]) WITH ORDINALITY AS k(id, idp, n)
    ORDER BY k.n`).execute(db);
  return rows.map((r) => ({ row: r.record, identityProviderExists: r.idp_exists }));
}
