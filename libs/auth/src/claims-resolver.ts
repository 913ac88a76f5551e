import type { Claims } from '@ledgerline/domain';

/** Turns a verified token subject into claims (user lookup). Implemented by the service with the user store. */
export abstract class ClaimsResolver {
  abstract resolve(userId: string, identityProviderId: string): Promise<Claims>;
}
