import { Injectable } from '@nestjs/common';
import {
  accessTokenExpired,
  staleStreamAuthorization,
  type Claims,
  type LedgerError,
  type Right,
} from '@ledgerline/domain';
import { UsersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../infrastructure/runtime';

/** setTimeout's longest delay; a later expiry is caught by the periodic check. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const rightKey = (r: Right) => `${r.kind}:${'party' in r ? r.party : ''}`;
const sameRights = (a: readonly Right[], b: readonly Right[]) => {
  const x = new Set(a.map(rightKey));
  const y = new Set(b.map(rightKey));
  return x.size === y.size && [...x].every((k) => y.has(k));
};

/**
 * Ongoing authorization of open streams (WebSockets, open-ended HTTP lists), as Canton's UserBasedOngoingAuthorization
 * (ledger-api-core/…/auth/UserBasedOngoingAuthorization.scala, UserRightsChangeAsyncChecker.scala): every
 * LEDGER_STREAM_RIGHTS_CHECK_INTERVAL_MS the stream's user is read afresh; a right granted or revoked, a deactivated or
 * deleted user, or a deactivated identity provider ends it with STALE_STREAM_AUTHORIZATION (the client reopens it and is
 * checked again), as does a failed check. Its token's expiry ends it with ACCESS_TOKEN_EXPIRED, at the expiry itself
 * (Canton notices at the next element).
 */
@Injectable()
export class StreamAuthorization {
  constructor(
    private readonly users: UsersRepository,
    private readonly runtime: LedgerRuntime,
  ) {}

  /** Watches the stream opened with `claims`; `end` is called once, with the reason. Returns the function that stops watching. */
  watch(claims: Claims, end: (reason: LedgerError) => void): () => void {
    let done = false;
    let expiry: NodeJS.Timeout | undefined;
    let next: NodeJS.Timeout | undefined;
    const stop = () => {
      done = true;
      clearTimeout(expiry);
      clearTimeout(next);
    };
    const finish = (reason: LedgerError) => {
      if (done) return;
      stop();
      end(reason);
    };
    const expired = () => claims.expiresAtMs !== undefined && Date.now() >= claims.expiresAtMs;
    const expiredError = () =>
      accessTokenExpired(
        `The token of user '${claims.userId}' expired at ${new Date(claims.expiresAtMs ?? 0).toISOString()}`,
      );
    if (claims.expiresAtMs !== undefined) {
      const wait = claims.expiresAtMs - Date.now();
      if (wait <= 0) {
        queueMicrotask(() => finish(expiredError()));
        return stop;
      }
      if (wait <= MAX_TIMER_MS) expiry = setTimeout(() => finish(expiredError()), wait).unref();
    }
    const interval = this.runtime.config.streamRightsCheckIntervalMs;
    const check = async () => {
      if (done) return;
      if (expired()) return finish(expiredError());
      let current: Awaited<ReturnType<UsersRepository['streamAuthorizationOf']>>;
      try {
        current = await this.users.streamAuthorizationOf(this.runtime.db, claims.userId);
      } catch {
        return finish(staleStreamAuthorization());
      }
      if (done) return;
      const stale =
        !current ||
        current.isDeactivated ||
        current.identityProviderDeactivated ||
        current.identityProviderId !== claims.identityProviderId ||
        !sameRights(current.rights, claims.rights);
      if (stale) return finish(staleStreamAuthorization());
      schedule();
    };
    const schedule = () => {
      if (!done) next = setTimeout(() => void check(), interval).unref();
    };
    schedule();
    return stop;
  }
}
