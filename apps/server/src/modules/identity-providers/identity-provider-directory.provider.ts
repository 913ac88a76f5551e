import { Injectable, OnModuleInit } from '@nestjs/common';
import type { IdentityProviderDirectory, IdentityProviderKeys } from '@ledgerline/auth';
import { IdentityProvidersRepository } from '@ledgerline/store';
import { IdentityProviderDirectoryRef } from '../../infrastructure/identity-provider-directory';
import { LedgerRuntime } from '../../infrastructure/runtime';

/**
 * The token verifier's view of the identity providers: backed by the identity_providers projection, so a provider created,
 * changed or deleted through the API (on any instance) is seen by the next token.
 */
@Injectable()
export class ProjectionIdentityProviderDirectory implements IdentityProviderDirectory, OnModuleInit {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly idps: IdentityProvidersRepository,
    private readonly ref: IdentityProviderDirectoryRef,
  ) {}

  onModuleInit(): void {
    this.ref.use(this);
  }

  async byIssuer(issuer: string): Promise<IdentityProviderKeys | null> {
    const c = await this.idps.byIssuer(this.runtime.db, issuer);
    return c
      ? {
          id: c.identityProviderId,
          issuer: c.issuer,
          jwksUrl: c.jwksUrl,
          audience: c.audience,
          isDeactivated: c.isDeactivated,
        }
      : null;
  }
}
