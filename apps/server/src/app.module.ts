import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CoreModule } from './infrastructure/core.module';
import type { LedgerRuntime } from './infrastructure/runtime';
import { RouteCatalog } from './http/route-catalog';
import { SystemModule } from './modules/system/system.module';
import { UsersModule } from './modules/users/users.module';
import { UpdatesModule } from './modules/updates/updates.module';

/** The service: one module per capability. Add a capability by adding its module here. */
export const CAPABILITY_MODULES = [SystemModule, UsersModule, UpdatesModule];

@Module({})
export class AppModule {
  static forRoot(runtime: LedgerRuntime, catalog: RouteCatalog): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CqrsModule.forRoot(),
        CoreModule.forRoot(runtime),
        { module: class CatalogModule {}, global: true, providers: [{ provide: RouteCatalog, useValue: catalog }], exports: [RouteCatalog] },
        ...CAPABILITY_MODULES,
      ],
    };
  }
}
