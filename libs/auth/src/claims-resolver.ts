import type { Claims } from '@ledgerline/domain';

/** Turns a verified token subject into claims (user lookup). Implemented by the service with the user store. */
export abstract class ClaimsResolver {
  private readonly invalidationListeners: Array<() => void> = [];

  abstract resolve(userId: string, identityProviderId: string): Promise<Claims>;

  /** Subscribes to "cached authentication state is stale" (a user, its rights or an identity provider changed). */
  onInvalidate(listener: () => void): void {
    this.invalidationListeners.push(listener);
  }

  /** Implementations call this when users, rights or identity providers change. */
  protected invalidated(): void {
    for (const l of this.invalidationListeners) l();
  }
}
