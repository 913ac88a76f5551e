import {
  BootstrapRepository,
  CantonCoinRepository,
  CommandCompletionsRepository,
  CommandSubmissionRepository,
  ContractsRepository,
  IdentityProvidersRepository,
  LedgerUpdatesRepository,
  PackagesRepository,
  PartiesRepository,
  PartySigningKeysRepository,
  SimulationRepository,
  TokenRegistryRepository,
  UsersRepository,
} from '@ledgerline/store';

/**
 * The store's repositories, one instance each for the whole service (CoreModule provides and exports them). They hold no
 * connection: every method takes the database it reads, the pool or the read replicas, or a writer's transaction.
 */
export const STORE_REPOSITORIES = [
  BootstrapRepository,
  CantonCoinRepository,
  CommandCompletionsRepository,
  CommandSubmissionRepository,
  ContractsRepository,
  IdentityProvidersRepository,
  LedgerUpdatesRepository,
  PackagesRepository,
  PartiesRepository,
  PartySigningKeysRepository,
  SimulationRepository,
  TokenRegistryRepository,
  UsersRepository,
];
