import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { invalidTokenUser, transientFailure, type Claims } from '@ledgerline/domain';
import { ClaimsResolver } from '@ledgerline/auth';
import { isDatabaseUnavailable, rightFromRow } from '@ledgerline/store';
import { LedgerRuntime } from './runtime';

/** How long resolved claims are reused. Local changes to users or rights clear the cache at once; changes made through
 * another instance on the same database are seen after at most this long. */
export const CLAIMS_CACHE_TTL_MS = 1000;

/**
 * Resolves a token's user to claims with one query over the users projection, and keeps the answer for a second so that
 * a busy client does not cost a query per request.
 */
@Injectable()
export class UserClaimsResolver extends ClaimsResolver {
  private readonly cache = new Map<string, { claims: Claims; expires: number }>();

  constructor(private readonly runtime: LedgerRuntime) {
    super();
    // Claims are read from users and user_rights (party allocations grant rights through User* events too) and depend on
    // the identity providers; nothing else changes them (a PATCH of a party's details must not empty the cache).
    runtime.eventStore.events.on('event-types', (types: Set<string>) => {
      for (const t of types) {
        if (/^(User|IdentityProvider)/.test(t)) {
          this.cache.clear();
          this.invalidated();
          return;
        }
      }
    });
  }

  async resolve(userId: string, identityProviderId: string): Promise<Claims> {
    const key = `${identityProviderId}\u0000${userId}`;
    const hit = this.cache.get(key);
    const now = Date.now();
    if (hit && hit.expires > now) return hit.claims;
    const claims = await this.load(userId, identityProviderId);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { claims, expires: now + CLAIMS_CACHE_TTL_MS });
    return claims;
  }

  private async load(userId: string, identityProviderId: string): Promise<Claims> {
    let rows: Array<{ is_deactivated: boolean; identity_provider_id: string; kind: string | null; party: string | null }>;
    try {
      ({ rows } = await sql<{ is_deactivated: boolean; identity_provider_id: string; kind: string | null; party: string | null }>`
        SELECT u.is_deactivated, u.identity_provider_id, r.kind, r.party
        FROM users u LEFT JOIN user_rights r ON r.user_id = u.id
        WHERE u.id = ${userId}`.execute(this.runtime.db));
    } catch (e) {
      // No database, no answer about the user: a transient 503 the client retries, not a 401 that makes it drop its token.
      if (isDatabaseUnavailable(e)) throw transientFailure('The ledger database is unavailable. Retry.');
      throw e;
    }
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
