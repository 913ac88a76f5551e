import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AllExceptionsFilter, sendError } from './http/all-exceptions.filter';
import { serveExplorer } from './http/explorer';
import { configureFastify, fastifyServerOptions, traceIdOf } from './http/fastify-setup';
import { installLeanAsyncResourceBind } from './http/lean-async-resource-bind';
import { RouteCatalog } from './http/route-catalog';
import type { LedgerRuntime } from './infrastructure/runtime';

/** Builds the HTTP application on a started runtime (used by main.ts and by the end-to-end tests). */
export async function createApp(runtime: LedgerRuntime): Promise<NestFastifyApplication> {
  // Fastify binds every request body's parser callback to an AsyncResource: keep that cheap (see the module).
  installLeanAsyncResourceBind();
  const adapter = new FastifyAdapter({
    ...fastifyServerOptions({ participant: runtime.config.participantName, logger: runtime.logger }),
    // Party ids in paths reach 185 + 2 + 68 characters; Fastify's default limit (100) would answer 404.
    routerOptions: { maxParamLength: 4096 },
    bodyLimit: runtime.config.maxBodyBytes,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => traceIdOf(req.headers),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    forceCloseConnections: 'idle',
  });
  const fastify = adapter.getInstance();
  // Nest would install its own Fastify error handler during init, and ours (below) would then override it with a
  // process warning (FSTWRN004) at every start. Ours replaces it anyway, so Nest's is never installed.
  adapter.setErrorHandler = (() => fastify) as typeof adapter.setErrorHandler;
  // Likewise its not-found handler: configureFastify installs ours (404 or 405, as JsCantonError).
  adapter.setNotFoundHandler = (() => fastify) as typeof adapter.setNotFoundHandler;
  const catalog = new RouteCatalog();
  catalog.attach(fastify);
  configureFastify(fastify, { participant: runtime.config.participantName, logger: runtime.logger, metrics: runtime.metrics, catalog, bodyLimit: runtime.config.maxBodyBytes });
  runtime.maintenance.attach(fastify);
  serveExplorer(fastify, { participant: runtime.config.participantName, logger: runtime.logger });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime, catalog), adapter, { logger: false, bufferLogs: false, bodyParser: false });
  app.useGlobalFilters(new AllExceptionsFilter(runtime.config.participantName, runtime.logger));
  await app.init();
  // Our error handler renders body, validation and limit errors like every other error.
  fastify.setErrorHandler((err, req, reply) => sendError(reply, req, err, runtime.config.participantName, runtime.logger));
  return app;
}
