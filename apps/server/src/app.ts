import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { LEDGER_SCOPE } from '@ledgerline/auth';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AllExceptionsFilter, sendError } from './http/all-exceptions.filter';
import { serveExplorer } from './http/explorer';
import { configureFastify, fastifyServerOptions, traceIdOf } from './http/fastify-setup';
import { installLeanAsyncResourceBind } from './http/lean-async-resource-bind';
import { RouteCatalog } from './http/route-catalog';
import type { LedgerRuntime } from './infrastructure/runtime';
import { HostedLedgers } from './hosted-ledgers';
import type http from 'node:http';

export interface AppOptions {
  /**
   * A hosted ledger's application (hosted-ledgers.ts): Fastify's request handler goes into a server that never listens;
   * the root application hands it the requests under /ledgers/<id>.
   */
  serverFactory?: (handler: http.RequestListener) => http.Server;
}

/** Builds the HTTP application on a started runtime (used by main.ts and by the end-to-end tests). */
export async function createApp(runtime: LedgerRuntime, options: AppOptions = {}): Promise<NestFastifyApplication> {
  // Fastify binds every request body's parser callback to an AsyncResource: keep that cheap (see the module).
  installLeanAsyncResourceBind();
  const adapter = new FastifyAdapter({
    ...fastifyServerOptions({
      participant: runtime.config.participantName,
      logger: runtime.logger,
      requestTimeoutMs: runtime.config.httpRequestTimeoutMs,
    }),
    // Party ids in paths reach 185 + 2 + 68 characters; Fastify's default limit (100) would answer 404.
    routerOptions: { maxParamLength: 4096 },
    bodyLimit: runtime.config.maxBodyBytes,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => traceIdOf(req.headers),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    forceCloseConnections: 'idle',
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  const fastify = adapter.getInstance();
  // Nest would install its own Fastify error handler during init, and ours (below) would then override it with a
  // process warning (FSTWRN004) at every start. Ours replaces it anyway, so Nest's is never installed.
  adapter.setErrorHandler = (() => fastify) as typeof adapter.setErrorHandler;
  // Likewise its not-found handler: configureFastify installs ours (404 or 405, as JsCantonError).
  adapter.setNotFoundHandler = (() => fastify) as typeof adapter.setNotFoundHandler;
  const catalog = new RouteCatalog();
  catalog.attach(fastify);
  configureFastify(fastify, {
    participant: runtime.config.participantName,
    logger: runtime.logger,
    metrics: runtime.metrics,
    catalog,
    bodyLimit: runtime.config.maxBodyBytes,
  });
  runtime.maintenance.attach(fastify);
  // Authentication uses this ledger's keys and users even when one process serves several (see AuthSettings.scope).
  fastify.addHook('onRequest', (req, _reply, done) => {
    (req.raw as unknown as Record<symbol, unknown>)[LEDGER_SCOPE] = runtime;
    done();
  });
  serveExplorer(fastify, { participant: runtime.config.participantName, logger: runtime.logger });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime, catalog), adapter, {
    logger: false,
    bufferLogs: false,
    bodyParser: false,
  });
  app.useGlobalFilters(new AllExceptionsFilter(runtime.config.participantName, runtime.logger));
  await app.init();
  // The root application hosts test ledgers under /ledgers/<id> when the testing API is on.
  if (!options.serverFactory && runtime.config.testingApi) {
    new HostedLedgers(runtime, (hosted, serverFactory) => createApp(hosted, { serverFactory })).attach(
      app.getHttpServer(),
    );
  }
  // Our error handler renders body, validation and limit errors like every other error.
  fastify.setErrorHandler((err, req, reply) =>
    sendError(reply, req, err, runtime.config.participantName, runtime.logger),
  );
  return app;
}
