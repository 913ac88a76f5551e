import { IdentityProvidersRepository } from '../repositories/identity-providers.repository';
import { LedgerUpdatesRepository } from '../repositories/ledger-updates.repository';
import { PackagesRepository } from '../repositories/packages.repository';
import { PartiesRepository } from '../repositories/parties.repository';
import { UsersRepository } from '../repositories/users.repository';

/** The repositories the deciders' loads read with (one instance each; they hold no connection). */
export const repositories = {
  identityProviders: new IdentityProvidersRepository(),
  ledgerUpdates: new LedgerUpdatesRepository(),
  packages: new PackagesRepository(),
  parties: new PartiesRepository(),
  users: new UsersRepository(),
};
