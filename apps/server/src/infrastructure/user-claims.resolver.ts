import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { invalidTokenUser, type Claims } from '@ledgerline/domain';
import { ClaimsResolver } from '@ledgerline/auth';
import { rightFromRow } from '@ledgerline/store';
import { LedgerRuntime } from './runtime';

/** Resolves a token's user to claims with one query over the users projection. */
@Injectable()
export class UserClaimsResolver extends ClaimsResolver {
  constructor(private readonly runtime: LedgerRuntime) {
    super();
  }

  async resolve(userId: string, identityProviderId: string): Promise<Claims> {
    const { rows } = await sql<{ is_deactivated: boolean; identity_provider_id: string; kind: string | null; party: string | null }>`
      SELECT u.is_deactivated, u.identity_provider_id, r.kind, r.party
      FROM users u LEFT JOIN user_rights r ON r.user_id = u.id
      WHERE u.id = ${userId}`.execute(this.runtime.db);
    if (rows.length === 0) throw invalidTokenUser(`User ${userId} does not exist`);
    if (rows[0].is_deactivated) throw invalidTokenUser(`User ${userId} is deactivated`);
    if (rows[0].identity_provider_id !== identityProviderId) {
      throw invalidTokenUser(`User ${userId} belongs to identity provider '${rows[0].identity_provider_id}', the token to '${identityProviderId}'`);
    }
    return {
      userId,
      identityProviderId: rows[0].identity_provider_id,
      rights: rows.filter((r) => r.kind !== null).map((r) => rightFromRow(r.kind!, r.party ?? '')),
    };
  }
}
