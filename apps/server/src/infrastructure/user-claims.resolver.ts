import { Injectable } from '@nestjs/common';
import { invalidTokenUser, transientFailure, type Claims } from '@ledgerline/domain';
import { ClaimsResolver } from '@ledgerline/auth';
import { isDatabaseUnavailable, UsersRepository, type StoredUserClaims } from '@ledgerline/store';
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

  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly users: UsersRepository,
  ) {
    super();
    // Claims are read from users and user_rights (party allocations grant rights through User* events too) and depend on
    // the identity providers; nothing else changes them (a PATCH of a party's details must not empty the cache).
    runtime.maintenance.onReplaced(() => {
      this.cache.clear();
      this.invalidated();
    });
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
    let user: StoredUserClaims | null;
    try {
      user = await this.users.claimsOf(this.runtime.db, userId);
    } catch (e) {
      // No database, no answer about the user: a transient 503 the client retries, not a 401 that makes it drop its token.
      if (isDatabaseUnavailable(e)) throw transientFailure('The ledger database is unavailable. Retry.');
      throw e;
    }
    if (!user) throw invalidTokenUser(`User ${userId} does not exist`);
    if (user.isDeactivated) throw invalidTokenUser(`User ${userId} is deactivated`);
    if (user.identityProviderId !== identityProviderId) {
      throw invalidTokenUser(
        `User ${userId} belongs to identity provider '${user.identityProviderId}', the token to '${identityProviderId}'`,
      );
    }
    return { userId, identityProviderId: user.identityProviderId, rights: user.rights };
  }
}
