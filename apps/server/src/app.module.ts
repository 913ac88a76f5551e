import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CoreModule } from './infrastructure/core.module';
import type { LedgerRuntime } from './infrastructure/runtime';
import { HttpModule } from './http/http.module';
import type { RouteCatalog } from './http/route-catalog';
import { SystemModule } from './modules/system/system.module';
import { UsersModule } from './modules/users/users.module';
import { UpdatesModule } from './modules/updates/updates.module';
import { PartiesModule } from './modules/parties/parties.module';
import { ExecuteSubmissionModule } from './modules/execute-submission/execute-submission.module';
import { IdentityProvidersModule } from './modules/identity-providers/identity-providers.module';
import { ExternalPartiesModule } from './modules/external-parties/external-parties.module';
import { PrepareSubmissionModule } from './modules/prepare-submission/prepare-submission.module';
import { ReassignmentModule } from './modules/reassignment/reassignment.module';
import { PackagesModule } from './modules/packages/packages.module';
import { ContractsModule } from './modules/contracts/contracts.module';
import { CommandCompletionsModule } from './modules/command-completions/command-completions.module';
import { CommandSubmissionModule } from './modules/command-submission/command-submission.module';
import { LedgerTimeModule } from './modules/ledger-time/ledger-time.module';
import { BootstrapModule } from './modules/bootstrap/bootstrap.module';
import { AdminSnapshotsModule } from './modules/admin-snapshots/admin-snapshots.module';
import { AdminLedgersModule } from './modules/admin-ledgers/admin-ledgers.module';
import { TokenRegistryModule } from './modules/token-registry/token-registry.module';
import { CantonCoinModule } from './modules/canton-coin/canton-coin.module';

/** The service: one module per capability. Add a capability by adding its module here. */
export const CAPABILITY_MODULES = [
  SystemModule,
  UsersModule,
  PartiesModule,
  IdentityProvidersModule,
  ExternalPartiesModule,
  PrepareSubmissionModule,
  ExecuteSubmissionModule,
  CommandSubmissionModule,
  ReassignmentModule,
  PackagesModule,
  UpdatesModule,
  ContractsModule,
  CommandCompletionsModule,
  LedgerTimeModule,
  BootstrapModule,
  AdminSnapshotsModule,
  AdminLedgersModule,
  TokenRegistryModule,
  CantonCoinModule,
];

@Module({})
export class AppModule {
  static forRoot(runtime: LedgerRuntime, catalog: RouteCatalog): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot(), CoreModule.forRoot(runtime), HttpModule.forRoot(catalog), ...CAPABILITY_MODULES],
    };
  }
}
