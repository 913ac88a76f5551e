import { noIdentityProviders, type IdentityProviderDirectory, type IdentityProviderKeys } from '@ledgerline/auth';

/**
 * The token verifier asks this which identity provider issued a token. It starts empty; the identity-provider capability
 * installs the real directory (backed by its projection) when it loads.
 */
export class IdentityProviderDirectoryRef implements IdentityProviderDirectory {
  private target: IdentityProviderDirectory = noIdentityProviders;

  use(directory: IdentityProviderDirectory): void {
    this.target = directory;
  }

  byIssuer(issuer: string): Promise<IdentityProviderKeys | null> {
    return this.target.byIssuer(issuer);
  }
}
