import { DynamicModule, Global, Module } from '@nestjs/common';
import { DirectRoutes } from './direct-route';
import { RouteCatalog } from './route-catalog';

/**
 * The HTTP layer's providers for every capability module: the route catalog and the direct (Nest-router-free) routes.
 * It sits above the infrastructure (CoreModule), which knows nothing of HTTP.
 */
@Global()
@Module({})
export class HttpModule {
  static forRoot(catalog: RouteCatalog): DynamicModule {
    return {
      module: HttpModule,
      providers: [{ provide: RouteCatalog, useValue: catalog }, DirectRoutes],
      exports: [RouteCatalog, DirectRoutes],
    };
  }
}
